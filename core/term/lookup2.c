/* lookup2.c — lookup2's block hash (lookup2.h). */
#include "term/lookup2.h"
#include "term/bytes.h"

uint32_t lookup2_bytes(const uint8_t *k, size_t n, uint32_t init)
{
    uint32_t a = LOOKUP2_GOLDEN, b = LOOKUP2_GOLDEN, c = init;
    size_t left = n;
    for (; left >= 12; left -= 12, k += 12) {
        a += load_le32(k);
        b += load_le32(k + 4);
        c += load_le32(k + 8);
        lookup2_mix(&a, &b, &c);
    }
    c += (uint32_t)n;
    for (size_t i = 0; i < left; i++) {
        if (i < 4)
            a += (uint32_t)k[i] << (8 * i);
        else if (i < 8)
            b += (uint32_t)k[i] << (8 * (i - 4));
        else
            c += (uint32_t)k[i] << (8 * (i - 7));
    }
    lookup2_mix(&a, &b, &c);
    return c;
}
