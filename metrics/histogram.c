/* histogram.c — log-linear latency histograms (histogram.h). */
#include "metrics/histogram.h"

#include <string.h>

void histogram_init(struct histogram *h)
{
    memset(h, 0, sizeof *h);
    h->min = UINT64_MAX;
}

unsigned histogram_bucket(uint64_t value)
{
    if (value < HIST_SUB_COUNT)
        return (unsigned)value;
    unsigned top = 63u - (unsigned)__builtin_clzll(value); /* >= HIST_SUB_BITS */
    unsigned shift = top - HIST_SUB_BITS;
    return (shift + 1) * HIST_SUB_COUNT + (unsigned)((value >> shift) - HIST_SUB_COUNT);
}

uint64_t histogram_bucket_high(unsigned bucket)
{
    if (bucket < HIST_SUB_COUNT)
        return bucket;
    unsigned shift = bucket / HIST_SUB_COUNT - 1;
    uint64_t low = ((uint64_t)HIST_SUB_COUNT + bucket % HIST_SUB_COUNT) << shift;
    return low + (((uint64_t)1 << shift) - 1);
}

void histogram_record(struct histogram *h, uint64_t value)
{
    h->buckets[histogram_bucket(value)]++;
    h->count++;
    h->sum = h->sum + value < h->sum ? UINT64_MAX : h->sum + value;
    if (value < h->min)
        h->min = value;
    if (value > h->max)
        h->max = value;
}

void histogram_merge(struct histogram *a, const struct histogram *b)
{
    if (!b->count)
        return;
    for (unsigned i = 0; i < HIST_BUCKETS; i++)
        a->buckets[i] += b->buckets[i];
    a->count += b->count;
    a->sum = a->sum + b->sum < a->sum ? UINT64_MAX : a->sum + b->sum;
    if (b->min < a->min)
        a->min = b->min;
    if (b->max > a->max)
        a->max = b->max;
}

uint64_t histogram_percentile(const struct histogram *h, double p)
{
    if (!h->count)
        return 0;
    double exact = p / 100.0 * (double)h->count;
    uint64_t rank = (uint64_t)exact;
    if ((double)rank < exact)
        rank++;
    if (rank < 1)
        rank = 1;
    uint64_t seen = 0;
    for (unsigned i = 0; i < HIST_BUCKETS; i++) {
        seen += h->buckets[i];
        if (seen >= rank) {
            uint64_t high = histogram_bucket_high(i);
            return high < h->max ? high : h->max;
        }
    }
    return h->max;
}

double histogram_mean(const struct histogram *h) { return h->count ? (double)h->sum / (double)h->count : 0.0; }

static uint64_t scale(uint64_t v, double factor)
{
    double x = (double)v * factor;
    return x >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)x;
}

void histogram_add_scaled(struct histogram *dst, const struct histogram *src, double factor)
{
    if (!src->count)
        return;
    for (unsigned i = 0; i < HIST_BUCKETS; i++) {
        if (!src->buckets[i])
            continue;
        uint64_t high = histogram_bucket_high(i);
        uint64_t low = i < HIST_SUB_COUNT ? high : histogram_bucket_high(i - 1) + 1;
        dst->buckets[histogram_bucket(scale(low + (high - low) / 2, factor))] += src->buckets[i];
    }
    uint64_t sum = scale(src->sum, factor);
    dst->count += src->count;
    dst->sum = dst->sum + sum < dst->sum ? UINT64_MAX : dst->sum + sum;
    if (scale(src->min, factor) < dst->min)
        dst->min = scale(src->min, factor);
    if (scale(src->max, factor) > dst->max)
        dst->max = scale(src->max, factor);
}
