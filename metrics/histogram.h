/*
 * histogram.h — latency histograms in fixed memory, log-linear buckets.
 *
 * Values below 2^HIST_SUB_BITS fall in buckets of their own; above, each
 * power of two is split into 2^HIST_SUB_BITS equal buckets, so a bucket is
 * at most 1/32 (about 3%) as wide as the values it holds, whatever their
 * magnitude (HdrHistogram's layout with two significant binary digits'
 * worth of precision per octave). Recording is an index computation and one
 * increment; merging is adding arrays. One writer per histogram: each worker
 * owns its own, merged after the workers stopped.
 */
#ifndef CLAUSE_HISTOGRAM_H
#define CLAUSE_HISTOGRAM_H

#include <stdint.h>

#define HIST_SUB_BITS 5
#define HIST_SUB_COUNT (1u << HIST_SUB_BITS)
/* Octaves 2^5 .. 2^63 after the 32 exact values. */
#define HIST_BUCKETS ((64 - HIST_SUB_BITS + 1) * HIST_SUB_COUNT)

struct histogram {
    uint64_t count;
    uint64_t sum; /* saturating: a mean of wrapped sums would be wrong */
    uint64_t min, max;
    uint64_t buckets[HIST_BUCKETS];
};

void histogram_init(struct histogram *h);
void histogram_record(struct histogram *h, uint64_t value);
/* Adds b's values to a. */
void histogram_merge(struct histogram *a, const struct histogram *b);
/* The value at percentile p (0 < p <= 100): the highest value of the
 * bucket holding the rank-ceil(p% of count) value, never above the
 * maximum recorded. 0 for an empty histogram. */
uint64_t histogram_percentile(const struct histogram *h, double p);
double histogram_mean(const struct histogram *h);
/* Adds src's values, each multiplied by factor (> 0), to dst: a bucket's
 * values count as its middle value times factor (units changed at the end
 * of a run, ticks to nanoseconds); count, sum, min and max scale exactly. */
void histogram_add_scaled(struct histogram *dst, const struct histogram *src, double factor);

/* The bucket of value, and the highest value that bucket holds. */
unsigned histogram_bucket(uint64_t value);
uint64_t histogram_bucket_high(unsigned bucket);

#endif
