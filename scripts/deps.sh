#!/usr/bin/env bash
# Checks every dependency of clause and installs what is missing with apt-get
# (when run as root), or prints the exact command to run. Quiet and quick when
# everything is present, so every make target can call it.
#
#   scripts/deps.sh        what building and testing need
#   scripts/deps.sh fuzz   that, plus clang with libFuzzer (make fuzz)
set -euo pipefail

# pkg-config module or command  ->  Debian package
checks=(
  "pkg:ck libck-dev"
  "pkg:hwloc libhwloc-dev"
  "pkg:papi libpapi-dev"
  "pkg:cunit libcunit1-dev"
  "pkg:zlib zlib1g-dev"
  "pkg:gmp libgmp-dev"
  "pkg:libpcre2-8 libpcre2-dev"
  "cmd:erlc erlang-base"
  "cmd:pkg-config pkg-config"
  "cmd:gcc gcc"
  "py:jsonschema python3-jsonschema"
  "cmd:gnuplot gnuplot-nox"
  "cmd:/usr/bin/time time"
)
fuzz=0
[ "${1:-}" = fuzz ] && fuzz=1 && checks+=("cmd:clang clang")

missing=()
have_pkgconfig=0
command -v pkg-config >/dev/null 2>&1 && have_pkgconfig=1
for entry in "${checks[@]}"; do
  what=${entry%% *}
  package=${entry#* }
  case $what in
    pkg:*)
      if [ $have_pkgconfig -eq 0 ] || ! pkg-config --exists "${what#pkg:}"; then
        missing+=("$package")
      fi ;;
    cmd:*)
      command -v "${what#cmd:}" >/dev/null 2>&1 || missing+=("$package") ;;
    py:*)
      python3 -c "import ${what#py:}" >/dev/null 2>&1 || missing+=("$package") ;;
  esac
done

# libFuzzer and the sanitizer runtimes for clang are in a package of their
# own, named after clang's major version, that clang only recommends. Linking
# an empty fuzz target tells whether they are there.
fuzzer_links() {
  local out
  out=$(mktemp)
  echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' |
    clang -fsanitize=fuzzer,address,undefined -x c - -o "$out" >/dev/null 2>&1
  local status=$?
  rm -f "$out"
  return $status
}
clang_runtime_package() {
  local major
  major=$(clang -dumpversion | cut -d. -f1)
  # Debian 12 ships the runtimes in libclang-rt-N-dev, earlier releases in libclang-common-N-dev.
  if apt-cache show "libclang-rt-$major-dev" >/dev/null 2>&1; then
    echo "libclang-rt-$major-dev"
  else
    echo "libclang-common-$major-dev"
  fi
}
if [ $fuzz -eq 1 ] && command -v clang >/dev/null 2>&1 && ! fuzzer_links; then
  missing+=("$(clang_runtime_package)")
fi

[ ${#missing[@]} -eq 0 ] && exit 0

echo "clause: missing dependencies: ${missing[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
  echo "clause: install them with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
# clang itself was missing: its runtime package can only be named now.
if [ $fuzz -eq 1 ] && ! fuzzer_links; then
  runtime=$(clang_runtime_package)
  apt-get install -y -qq --no-install-recommends "$runtime" >&2
  missing+=("$runtime")
fi
echo "clause: installed ${missing[*]}" >&2
