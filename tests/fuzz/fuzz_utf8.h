/*
 * fuzz_utf8.h — the fuzz targets' own reading of UTF-8, independent of the
 * runtime's (bif_util's), against which the code under test is checked.
 */
#ifndef CLAUSE_FUZZ_UTF8_H
#define CLAUSE_FUZZ_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Characters in s[0..n) when it is well-formed UTF-8 (no overlongs,
 * surrogates or code points above 16#10FFFF), else -1. */
static inline long fuzz_utf8_chars(const uint8_t *s, size_t n)
{
    long chars = 0;
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (len == 0 || i + len > n)
            return -1;
        uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return -1;
            cp = cp << 6 | (s[i + k] & 0x3F);
        }
        static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return -1;
        i += len;
        chars++;
    }
    return chars;
}

#endif
