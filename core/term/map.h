/*
 * map.h — Erlang maps.
 *
 * Up to MAP_SMALL_LIMIT keys a map is flat (SUBTAG_FLATMAP):
 *   [hdr arity n+2][size: small n][keys: tuple of n keys][value 1]...[value n]
 * with the keys in term_compare_exact order, as OTP keeps them. Above it a
 * map is a hash array mapped trie (SUBTAG_HASHMAP nodes) as OTP 25 builds
 * one, so large maps iterate in OTP's order (see map.c for the node layout
 * and the key types where that holds). All payload words are terms, so the
 * collector and copier need no knowledge of maps.
 *
 * Layouts are canonical: the kind and shape of a map depend only on its key
 * set, so equal maps are equal word by word (term_eq_exact and term_hash rely
 * on it). Maps are only ever built by this interface.
 *
 * Functions that build return THE_NON_VALUE when the heap refuses.
 */
#ifndef CLAUSE_MAP_H
#define CLAUSE_MAP_H

#include "term/heap.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAP_SMALL_LIMIT 32

/* A map of n pairs; a later duplicate key replaces an earlier one. */
term map_from_pairs(heap_t *h, const term *keys, const term *values, size_t n);
term map_new_empty(heap_t *h);

/* Building a map of n pairs in portions (maps:from_list/1, from_keys/2):
 * the same map as map_from_pairs, a bounded amount of work a call, with all
 * its state in a work tuple that a collection may move between calls and
 * that only its builder may hold (it is updated in place). map_build_new
 * makes one for n pairs (THE_NON_VALUE when the heap refuses); the caller
 * stores pair i with map_build_set (keys and values made before the work
 * tuple); then map_build_portion does at most about limit units (an entry
 * merged, compared for duplicates or added to the trie, log2 n + 2 units a
 * pair in all), counting them in *units, until it gives the map in *map. */
enum map_build_status { MAP_BUILD_MORE, MAP_BUILD_DONE, MAP_BUILD_FAILED };
term map_build_new(heap_t *h, size_t n);
void map_build_set(term work, size_t i, term key, term value);
enum map_build_status map_build_portion(heap_t *h, term work, size_t limit, size_t *units, term *map);
size_t map_size(term map);
/* The value of key, or THE_NON_VALUE when absent. */
term map_get(term map, term key);
/* A new map with key set to value. */
term map_put(heap_t *h, term map, term key, term value);
/* A new map without key (the same map when absent). */
term map_remove(heap_t *h, term map, term key);

/*
 * Large maps: a node's header carries a 16-bit bitmap of occupied slots in
 * its extra field; level L of the trie takes 4 bits of the key's hash round
 * L / 8 (term_map_hash), least significant first, as OTP 25 does. Below level
 * MAP_MAX_LEVEL every full hash round has been used; keys that still collide
 * there share one collision node (bitmap 0), sorted in term_compare_exact
 * order. OTP 25 itself never gets that far (it re-hashes forever).
 */
#define MAP_MAX_LEVEL 32
/* Nodes on a path from the root to a leaf: levels 0..MAP_MAX_LEVEL. */
#define MAP_MAX_DEPTH (MAP_MAX_LEVEL + 1)

/* Iteration in the order OTP's maps:to_list/1 gives (for a small map, key
 * order; for a large one, descending hash order). The iterator keeps a small
 * explicit stack; it holds no heap memory. */
struct map_iter {
    term map;
    size_t pos;
    size_t depth;
    bool reverse;
    term stack[MAP_MAX_DEPTH];
    unsigned index[MAP_MAX_DEPTH];
};
void map_iter_init(struct map_iter *it, term map);
/* Iteration in the reverse of that order: a list of the pairs in
 * map_iter's order is built from its last cell, one pair at a time. */
void map_iter_init_reverse(struct map_iter *it, term map);
/* Next pair; false when done. */
bool map_iter_next(struct map_iter *it, term *key, term *value);

/* OTP 25's iterator paths (erts_internal:map_next/3) over a large map: a
 * path names a leaf by its child index in each node from the root down,
 * 4 bits a level, least significant first, held in MAP_PATH_LIMBS 64-bit
 * limbs (an Erlang integer); below the levels it names, the first child
 * is taken until a leaf. */
#define MAP_PATH_LIMBS 3
/* A reverse iterator (map_iter_init_reverse's order, OTP's iterator
 * order) whose next pair is the leaf path names; false when path names no
 * child of some node (badarg on OTP). */
bool map_iter_at_path(struct map_iter *it, term map, const uint64_t path[MAP_PATH_LIMBS]);
/* The path of the pair a reverse iterator gives next; false when it has
 * none left. */
bool map_iter_path(const struct map_iter *it, uint64_t path[MAP_PATH_LIMBS]);

/* The iterator as a tuple on h (THE_NON_VALUE when the heap refuses),
 * for a builtin that iterates in portions: a collection may move the map
 * and its nodes between two portions, and updates a tuple's terms. */
term map_iter_save(heap_t *h, const struct map_iter *it);
/* The iterator map_iter_save saved, where it stood. */
void map_iter_restore(term saved, struct map_iter *it);

/* Order of two distinct keys in map_iter's order over large maps: negative
 * when ka comes first, zero when only term order can tell them apart (they
 * would share a collision node, where the larger key comes first). For
 * term_compare, which walks two large maps side by side. */
int map_hash_order(term ka, term kb);

/* Tests only: replaces term_map_hash for map placement (NULL restores it),
 * to force collisions. Not thread-safe; no map built under one hash may be
 * used under another. */
void map_test_set_hash(uint32_t (*hash)(term key, unsigned round));

#endif
