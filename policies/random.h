/*
 * random.h — the seeded generator every randomised policy draws from, so
 * that a run repeats its choices for a given seed and schedule.
 *
 * xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift
 * generators, scrambled", ACM TOMS 42(2), 2016): 64 bits of state, never
 * 0; a draw below n takes 32 high bits of the scrambled output and scales
 * them by multiplication, which is uniform to within n / 2^32. Not
 * synchronised: policy callbacks run under the run-queue lock.
 */
#ifndef CLAUSE_POLICY_RANDOM_H
#define CLAUSE_POLICY_RANDOM_H

#include <stdint.h>

struct policy_random {
    uint64_t state;
};

/* Seeds r from a policy's `seed` parameter (any value, 0 included);
 * `stream` gives independent generators the same seed (e.g. per worker). */
static inline void policy_random_seed(struct policy_random *r, long long seed, unsigned stream)
{
    /* Spread small seeds over the state's bits (splitmix64's constant). */
    r->state = ((uint64_t)seed + 1 + stream) * 0x9e3779b97f4a7c15u;
}

/* Uniform in 0..n-1 (0 < n <= 2^32). */
static inline uint64_t policy_random_below(struct policy_random *r, uint64_t n)
{
    uint64_t x = r->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->state = x;
    uint64_t bits = (x * 0x2545f4914f6cdd1du) >> 32;
    return (bits * n) >> 32;
}

#endif
