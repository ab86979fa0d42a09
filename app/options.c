/* options.c — parsing clause's command line (see options.h). */
#include "app/options.h"

#include "metrics/trace.h"
#include "rt/policy.h"
#include "rt/sched_profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(SCHED_PROFILE_SAMPLE_DEFAULT == 16, "the usage text names --profile-sample's default");
_Static_assert(TRACE_LIMIT_DEFAULT == 1000000 && TRACE_LIMIT_MAX == 100000000,
               "the usage text names --trace-limit's default and maximum");
_Static_assert(SCHED_DEFAULT_WATCHDOG_MS == 30000, "the usage text names --watchdog's default");

const char *options_usage(void)
{
    return "usage: clause [options] PROGRAM.beam [ARGS...]\n"
           "       clause [options] --native WORKLOAD [ARGS...]\n"
           "runs PROGRAM:main(Args) (Args a list of strings), escript-style; exit status 0 when main/1\n"
           "returns, N on halt(N), 127 when it raises, 1 when the program cannot be loaded, 70 on a\n"
           "runtime failure (memory, a heap cap), 2 on a usage error\n"
           "options:\n"
           "  --schedulers N         worker threads, 1..1024 (default: one per CPU of the affinity mask)\n"
           "  --policy NAME[:K=V,..] scheduling policy and its parameters (--policy help lists them)\n"
           "  --scheduler-cpus SET   bind worker N to the N-th CPU of SET: performance, all, or a list like 0-3,6\n"
           "  --max-heap SIZE        cap on each process's heap, in bytes (suffix K, M or G)\n"
           "  --send-mode MODE       arrivals (default: lock-free push to a running receiver) or blocking\n"
           "                         (the earlier revision: the sender waits for the receiver's slice to end)\n"
           "  --timers MODE          thread (default: a timer thread fires receive timeouts) or workers\n"
           "                         (the earlier revision: workers check the timers before each slice)\n"
           "  --locks KIND           how the executor mutex and the run-queue lock are built: spin-futex\n"
           "                         (default), pthread, adaptive, ticket, mcs or cas (--locks help lists them)\n"
           "  --busy-wait N          an idle worker looks for work N times, yielding the CPU every 100,\n"
           "                         before it sleeps (ERTS's +sbwt; default 0: it sleeps at once)\n"
           "  --watchdog MS          a process runnable for longer than MS, or a worker asleep through a\n"
           "                         tenth of that while one waits, is reported on stderr and the program\n"
           "                         goes on under global_fifo (default 30000; 0 turns it off)\n"
           "  --gc-threads N         collector threads: a collection estimated at 128K words or more\n"
           "                         (OTP's rule) runs on one while its worker runs other processes, as\n"
           "                         OTP's dirty CPU schedulers (0..1024; default: one per worker; 0 keeps\n"
           "                         every collection on its worker, as --schedule always does)\n"
           "  --profile              print the scheduling report to stderr at exit\n"
           "  --profile=FILE.json    write it as JSON to FILE.json (both forms may be given)\n"
           "  --profile-events=EV,.. PAPI events counted per worker thread (preset or native names;\n"
           "                         default PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_L1_DCM,PAPI_L2_DCM,PAPI_L3_TCM,\n"
           "                         PAPI_BR_MSP; 'none' for none)\n"
           "  --profile-sample=N     time about 1 in N sends, enqueues and slices for the latencies and\n"
           "                         the running time (default 16; 1 times every one)\n"
           "  --trace=FILE.json      write a timeline of every slice and of the workers' steals, migrations,\n"
           "                         balance moves, sleeps and wakeups and the watchdog's act as Chrome\n"
           "                         trace-event JSON (Perfetto, chrome://tracing)\n"
           "  --trace-limit=N        --trace keeps the latest N events per worker, 1..100000000 (default\n"
           "                         1000000); the file says how many it dropped\n"
           "  --trace-sample=N       --trace records one slice in N on each worker, with the wake arrows it\n"
           "                         draws and the slices they end at, 1..1000000 (default 1: every slice)\n"
           "  --schedule MODE        run the workers one step (a slice or an idle check) at a time, in an\n"
           "                         order a seed fixes, on a logical clock (a reduction is 250 ns; timers\n"
           "                         and the clocks follow it), so a seed repeats a run byte for byte:\n"
           "                         random:seed=N (any awake worker, uniformly) or pct:seed=N,depth=D\n"
           "                         [,steps=K] (PCT: random worker priorities, D-1 change points over the\n"
           "                         first K steps, default 1000); the policy still picks the processes\n"
           "  --schedule-log FILE    write each step of --schedule or --replay to FILE: STEP WORKER PID\n"
           "  --replay FILE          replay a --schedule-log; a run that departs from it names the step\n"
           "                         and ends with status 65\n"
           "  -pa DIR                also load modules from DIR (after the program's own folder)\n"
           "  --help                 this text\n"
           "  --version              the version of clause and of the OTP it follows\n"
           "native workloads (C processes, for tests and microbenchmarks):\n"
           "  spawn_exit N           spawn N processes that exit at once\n"
           "  yield_storm P Y        P processes each yielding Y times\n"
           "  pingpong PAIRS ROUNDS  PAIRS pairs exchanging ROUNDS messages each way\n"
           "  ring N HOPS            N processes in a ring passing a token HOPS times\n"
           "  many_to_one S M        S processes each sending M messages to one receiver\n";
}

static bool parse_unsigned(const char *text, unsigned long long max, unsigned long long *out)
{
    if (!text || !*text || *text == '-' || *text == '+')
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end || v > max)
        return false;
    *out = v;
    return true;
}

static bool parse_size(const char *text, unsigned long long *bytes)
{
    if (!text || !*text || *text == '-' || *text == '+')
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text)
        return false;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift)
        end++;
    if (*end || v > (~0ull >> shift))
        return false;
    *bytes = v << shift;
    return true;
}

/* An option that names one of two modes: *second_chosen tells which. */
static bool parse_choice(const char *option, const char *value, const char *first, const char *second,
                         bool *second_chosen, char *error, size_t error_len)
{
    if (value && (strcmp(value, first) == 0 || strcmp(value, second) == 0)) {
        *second_chosen = strcmp(value, second) == 0;
        return true;
    }
    snprintf(error, error_len, "%s: '%s' is not %s or %s", option, value ? value : "", first, second);
    return false;
}

bool options_parse(int argc, char **argv, struct clause_options *out, char *error, size_t error_len)
{
    memset(out, 0, sizeof *out);
    out->policy = policy_all()[0];
    out->watchdog_ms = SCHED_DEFAULT_WATCHDOG_MS;
    out->gc_threads = -1;
    for (unsigned k = 0; k < out->policy->param_count; k++)
        out->policy_params[k] = out->policy->params[k].def;
    int i = 1;
    for (; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long long n;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            out->help = true;
            return true;
        } else if (strcmp(arg, "--version") == 0) {
            out->version = true;
            return true;
        } else if (strcmp(arg, "-pa") == 0) {
            if (!value) {
                snprintf(error, error_len, "-pa needs a folder");
                return false;
            }
            if (out->code_path_count == OPTIONS_MAX_CODE_PATHS) {
                snprintf(error, error_len, "-pa: more than %d folders", OPTIONS_MAX_CODE_PATHS);
                return false;
            }
            out->code_paths[out->code_path_count++] = value;
            i++;
        } else if (strcmp(arg, "--profile") == 0) {
            out->profile = true;
        } else if (strncmp(arg, "--profile=", 10) == 0) {
            if (!arg[10]) {
                snprintf(error, error_len, "--profile= needs a file name");
                return false;
            }
            out->profile_json = arg + 10;
        } else if (strncmp(arg, "--profile-events=", 17) == 0) {
            if (!arg[17]) {
                snprintf(error, error_len, "--profile-events= needs event names (or none)");
                return false;
            }
            out->profile_events = strcmp(arg + 17, "none") == 0 ? "" : arg + 17;
        } else if (strncmp(arg, "--profile-sample=", 17) == 0) {
            if (!parse_unsigned(arg + 17, 1000000, &n) || n < 1) {
                snprintf(error, error_len, "--profile-sample: '%s' is not a number from 1 to 1000000", arg + 17);
                return false;
            }
            out->profile_sample = (unsigned)n;
        } else if (strncmp(arg, "--trace=", 8) == 0) {
            if (!arg[8]) {
                snprintf(error, error_len, "--trace= needs a file name");
                return false;
            }
            out->trace_json = arg + 8;
        } else if (strncmp(arg, "--trace-limit=", 14) == 0) {
            if (!parse_unsigned(arg + 14, TRACE_LIMIT_MAX, &n) || n < 1) {
                snprintf(error, error_len, "--trace-limit: '%s' is not a number from 1 to %u", arg + 14,
                         TRACE_LIMIT_MAX);
                return false;
            }
            out->trace_limit = (unsigned)n;
        } else if (strncmp(arg, "--trace-sample=", 15) == 0) {
            if (!parse_unsigned(arg + 15, 1000000, &n) || n < 1) {
                snprintf(error, error_len, "--trace-sample: '%s' is not a number from 1 to 1000000", arg + 15);
                return false;
            }
            out->trace_sample = (unsigned)n;
        } else if (strcmp(arg, "--schedulers") == 0) {
            if (!value) {
                snprintf(error, error_len, "--schedulers needs a value");
                return false;
            }
            if (!parse_unsigned(value, 1024, &n) || n < 1) {
                snprintf(error, error_len, "--schedulers: '%s' is not a number from 1 to 1024", value);
                return false;
            }
            out->schedulers = (unsigned)n;
            i++;
        } else if (strcmp(arg, "--policy") == 0) {
            if (!value) {
                snprintf(error, error_len, "--policy needs a value (--policy help lists them)");
                return false;
            }
            if (strcmp(value, "help") == 0) {
                out->list_policies = true;
                return true;
            }
            if (!policy_parse(value, &out->policy, out->policy_params, error, error_len))
                return false;
            i++;
        } else if (strcmp(arg, "--busy-wait") == 0) {
            if (!parse_unsigned(value, SCHED_MAX_BUSY_WAIT, &n)) {
                snprintf(error, error_len, "--busy-wait: '%s' is not a number from 0 to %u", value ? value : "",
                         SCHED_MAX_BUSY_WAIT);
                return false;
            }
            out->busy_wait = (unsigned)n;
            i++;
        } else if (strcmp(arg, "--watchdog") == 0) {
            if (!parse_unsigned(value, SCHED_MAX_WATCHDOG_MS, &n)) {
                snprintf(error, error_len, "--watchdog: '%s' is not a number of milliseconds from 0 to %u",
                         value ? value : "", SCHED_MAX_WATCHDOG_MS);
                return false;
            }
            out->watchdog_ms = (unsigned)n;
            i++;
        } else if (strcmp(arg, "--gc-threads") == 0) {
            if (!parse_unsigned(value, SCHED_MAX_GC_THREADS, &n)) {
                snprintf(error, error_len, "--gc-threads: '%s' is not a number from 0 to %u", value ? value : "",
                         SCHED_MAX_GC_THREADS);
                return false;
            }
            out->gc_threads = (int)n;
            i++;
        } else if (strcmp(arg, "--scheduler-cpus") == 0) {
            if (!value) {
                snprintf(error, error_len, "--scheduler-cpus needs a value");
                return false;
            }
            out->scheduler_cpus = value;
            i++;
        } else if (strcmp(arg, "--max-heap") == 0) {
            if (!value || !parse_size(value, &n) || n < 8) {
                snprintf(error, error_len, "--max-heap: '%s' is not a size in bytes (suffix K, M or G allowed)",
                         value ? value : "");
                return false;
            }
            out->max_heap_words = (size_t)(n / 8);
            i++;
        } else if (strcmp(arg, "--send-mode") == 0) {
            if (!parse_choice(arg, value, "arrivals", "blocking", &out->blocking_sends, error, error_len))
                return false;
            i++;
        } else if (strcmp(arg, "--timers") == 0) {
            if (!parse_choice(arg, value, "thread", "workers", &out->worker_timers, error, error_len))
                return false;
            i++;
        } else if (strcmp(arg, "--locks") == 0) {
            if (!value) {
                snprintf(error, error_len, "--locks needs a value (--locks help lists them)");
                return false;
            }
            if (strcmp(value, "help") == 0) {
                out->list_locks = true;
                return true;
            }
            if (!lock_kind_find(value, &out->locks)) {
                snprintf(error, error_len, "--locks: unknown lock kind '%s' (--locks help lists them)", value);
                return false;
            }
            i++;
        } else if (strcmp(arg, "--schedule") == 0) {
            if (!value) {
                snprintf(error, error_len, "--schedule needs a value (random:seed=N or pct:seed=N,depth=D)");
                return false;
            }
            if (!schedule_spec_parse(value, &out->schedule, error, error_len))
                return false;
            i++;
        } else if (strcmp(arg, "--schedule-log") == 0 || strcmp(arg, "--replay") == 0) {
            if (!value || !*value) {
                snprintf(error, error_len, "%s needs a file name", arg);
                return false;
            }
            *(arg[2] == 'r' ? &out->replay : &out->schedule_log) = value;
            i++;
        } else if (strcmp(arg, "--native") == 0) {
            if (!value) {
                snprintf(error, error_len, "--native needs a workload name");
                return false;
            }
            out->native_workload = value;
            i += 2;
            break;
        } else if (strncmp(arg, "-", 1) == 0) {
            snprintf(error, error_len, "unknown option '%s'", arg);
            return false;
        } else {
            out->program = arg;
            i++;
            break;
        }
    }
    if (out->replay && out->schedule.mode != SCHEDULE_OFF) {
        snprintf(error, error_len, "--replay takes its schedule from the log: give it without --schedule");
        return false;
    }
    if (out->schedule_log && !out->replay && out->schedule.mode == SCHEDULE_OFF) {
        snprintf(error, error_len, "--schedule-log needs --schedule or --replay");
        return false;
    }
    if (!out->native_workload && !out->program) {
        snprintf(error, error_len, "no program given");
        return false;
    }
    out->program_argc = argc - i;
    out->program_argv = argv + i;
    return true;
}
