/*
 * binary_search.h — finding byte patterns in a byte range, as module
 * binary's match, matches, split and replace need: the leftmost match, and
 * of the patterns that match there, the longest (OTP's rule).
 *
 * One pattern is searched as OTP 25 does: memchr for the pattern's last
 * byte, then the window ending there compared, and Horspool's skip after
 * a mismatch; several with a scan that, at each position, tries only
 * the patterns that start with the byte found there, longest first.
 */
#ifndef CLAUSE_BINARY_SEARCH_H
#define CLAUSE_BINARY_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct byte_pattern {
    const uint8_t *bytes;
    size_t size; /* at least 1 */
};

struct pattern_set {
    struct byte_pattern *patterns; /* with several: grouped by first byte, longest first in each group */
    size_t count;
    size_t shortest;
    size_t bytes;     /* the patterns' sizes added up: the work of preparing them */
    size_t skip[256]; /* one pattern: Horspool's shift for the window's last byte */
    uint32_t
        group_start[256 + 1]; /* several: the patterns starting with byte b are [group_start[b], group_start[b + 1]) */
};

/* Prepares count (at least 1) non-empty patterns; the set refers to their
 * bytes, which must outlive it. False when memory is refused. */
bool pattern_set_init(struct pattern_set *set, const struct byte_pattern *patterns, size_t count);
void pattern_set_free(struct pattern_set *set);

enum search_status { SEARCH_FOUND, SEARCH_NONE, SEARCH_MORE };

/* Bytes memchr passes for a unit of work (OTP 25's MC_LOOP_FACTOR). */
#define SEARCH_SKIP_BYTES 8

/* The leftmost-longest match lying wholly in subject[*from, to), found
 * with at most *budget units of work, which it takes off *budget: for one
 * pattern, a unit a window compared and one per SEARCH_SKIP_BYTES bytes
 * passed on the way to it; for several, a unit a position and one a
 * pattern compared there. FOUND with its offset (from subject) in *at
 * and its length in *size; MORE when the budget ran out first, with *from
 * where to go on. The search keeps no state but that position, so a
 * search resumed there finds what one search would have. */
enum search_status pattern_set_search(const struct pattern_set *set, const uint8_t *subject, size_t *from, size_t to,
                                      size_t *budget, size_t *at, size_t *size);

#endif
