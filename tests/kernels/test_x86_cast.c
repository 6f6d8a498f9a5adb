/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/x86/cast_half_avx2.c (F16C) against the reference Cast (kernels/ref/math_ew_ref.c,
 * through double) and runtime/core/lowp.c's scalar conversions, bit for bit:
 *  - f16 -> f32 and bf16 -> f32 on all 65536 bit patterns (subnormals, +-0, +-inf, signalling
 *    and quiet NaNs with every payload);
 *  - f32 -> f16 and f32 -> bf16 on every half value widened (the round trip is exact), the
 *    midpoints between neighbouring halves (ties to even both ways) and one f32 ulp either
 *    side of them, f32 subnormals, the overflow edge (65504, 65519.99, 65520, FLT_MAX),
 *    NaN payloads (signalling, quiet, both signs, payload bits only below the half width)
 *    and 2^20 random bit patterns;
 *  - lengths 0..33 (the tail path) and 2 threads over several parallel chunks.
 * NaNs come out quiet with the top bits of their payload (F16C's rule). Other Casts are
 * declined.
 */
#include "test_x86_harness.h"

#include "common/rng.h"
#include "core/lowp.h"


static const em_kernel *find(const char *name)
{
    for (size_t i = 0; i < em_registry_count(); i++) {
        const em_kernel *k = em_registry_at(i);
        if (strcmp(k->name, name) == 0) {
            return kt_isa_ok(k) ? k : NULL;
        }
    }
    return NULL;
}

/* Casts n elements of `src` (dtype a) to dtype b with kernel k into dst. */
static ember_status *cast(const em_kernel *k, ember_dtype a, ember_dtype b, const void *src,
                          void *dst, int64_t n, em_threadpool *pool)
{
    t_node node;
    t_node_init(&node, EM_OP_CAST, "cast");
    t_set_int(&node, "to", b);
    em_tensor in, out;
    t_tensor(&in, a, 1, &n, (void *)src);
    t_tensor(&out, b, 1, &n, dst);
    return kt_run(k, &node.n, &in, 1, &out, 1, 0, pool);
}

/* x86 and ref on the same input, outputs compared bytewise (osz bytes per element). */
static void check(const em_kernel *k, ember_dtype a, ember_dtype b, const void *src, int64_t n,
                  em_threadpool *pool, const char *what)
{
    size_t osz = b == EMBER_DTYPE_F32 ? 4 : 2;
    size_t bytes = osz * (size_t)(n > 0 ? n : 1);
    unsigned char *got = test_malloc(bytes), *want = test_malloc(bytes);
    memset(got, 0xa5, bytes);
    memset(want, 0x5a, bytes);
    t_expect_ok(cast(k, a, b, src, got, n, pool), what);
    t_expect_ok(cast(t_kernel(EM_OP_CAST, EMBER_DTYPE_UNDEFINED), a, b, src, want, n, NULL),
                what);
    /* the scalar conversions of core/lowp.h (the load-time pass's) give the same bits */
    unsigned char *lowp = test_malloc(bytes);
    if (b == EMBER_DTYPE_F32) {
        em_half_to_f32_n(a, src, (float *)lowp, (size_t)n);
    } else {
        em_f32_to_half_n(b, src, (uint16_t *)lowp, (size_t)n);
    }
    if (n > 0 && memcmp(lowp, want, osz * (size_t)n) != 0) {
        fail_msg("%s: %s -> %s: core/lowp.h's conversion differs from the reference Cast",
                 what, em_dtype_name(a), em_dtype_name(b));
    }
    test_free(lowp);
    for (int64_t i = 0; i < n; i++) {
        if (memcmp(got + (size_t)i * osz, want + (size_t)i * osz, osz) != 0) {
            uint32_t g = 0, w = 0, x = 0;
            memcpy(&g, got + (size_t)i * osz, osz);
            memcpy(&w, want + (size_t)i * osz, osz);
            memcpy(&x, (const char *)src + (size_t)i * (osz == 4 ? 2 : 4), osz == 4 ? 2 : 4);
            fail_msg("%s: %s -> %s element %lld (input bits 0x%x): x86 0x%x, ref 0x%x", what,
                     em_dtype_name(a), em_dtype_name(b), (long long)i, x, g, w);
        }
    }
    test_free(got);
    test_free(want);
}

static float bits_f32(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* The f32 inputs of the narrowing checks; returns the count written (cap = 1 << 22). */
static int64_t f32_cases(float *p, ember_dtype half)
{
    int64_t n = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        uint16_t hh = (uint16_t)h;
        float v;
        em_half_to_f32_n(half, &hh, &v, 1);
        p[n++] = v; /* exact round trips */
        uint16_t next = (uint16_t)(h + 1);
        float w;
        em_half_to_f32_n(half, &next, &w, 1);
        if ((h & 0x7fff) < (half == EMBER_DTYPE_F16 ? 0x7c00u : 0x7f80u) && (h & 0x7fff) != 0x7fff) {
            float mid = (float)(((double)v + (double)w) / 2); /* exact: 1 bit more than half */
            uint32_t mb;
            memcpy(&mb, &mid, sizeof mb);
            p[n++] = mid;
            p[n++] = bits_f32(mb + 1);
            p[n++] = bits_f32(mb - 1);
        }
    }
    static const uint32_t edges[] = {
        0x00000001u, 0x80000001u, 0x007fffffu, 0x00400000u, 0x33000000u, 0x33000001u,
        0x32ffffffu, 0x33800000u, 0x387fc000u, 0x387fe000u, 0x477fe000u, 0x477fefffu,
        0x477ff000u, 0x477ff001u, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u,
        0x7f800001u, 0xff800001u, 0x7fa00000u, 0x7fc00000u, 0xffc00000u, 0x7fffffffu,
        0xffffffffu, 0x7f801fffu, 0x7f802000u, 0x7fc01234u, 0xff9abcdeu, 0x7f80ffffu,
        0x7f7f8000u, 0x7f7f7fffu, 0x00000000u, 0x80000000u, 0x3f808000u, 0x3f818000u};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        p[n++] = bits_f32(edges[i]);
    }
    test_rng r = {21};
    for (int i = 0; i < (1 << 20); i++) {
        p[n++] = bits_f32((uint32_t)(test_rng_next(&r) >> 32));
    }
    return n;
}

static void test_cast_half(void **state)
{
    (void)state;
    const em_kernel *k = find("em_cast_half__avx2");
    if (k == NULL) {
        skip(); /* no x86 build or no F16C */
    }
    em_threadpool *pool = NULL;
    assert_null(em_threadpool_create(test_allocator(), 2, &pool));
    uint16_t *all = test_malloc(sizeof *all * 65536);
    for (uint32_t h = 0; h < 65536; h++) {
        all[h] = (uint16_t)h;
    }
    float *f = test_malloc(sizeof *f * ((size_t)1 << 22));
    const ember_dtype halves[2] = {EMBER_DTYPE_F16, EMBER_DTYPE_BF16};
    for (int t = 0; t < 2; t++) {
        ember_dtype hd = halves[t];
        check(k, hd, EMBER_DTYPE_F32, all, 65536, pool, "all half patterns");
        int64_t n = f32_cases(f, hd);
        check(k, EMBER_DTYPE_F32, hd, f, n, pool, "f32 edge cases");
        for (int64_t len = 0; len <= 33; len++) { /* tails, odd offsets */
            check(k, hd, EMBER_DTYPE_F32, all + 0x7bf0 - len, len, NULL, "short");
            check(k, EMBER_DTYPE_F32, hd, f + 65536 + 3 * len, len, NULL, "short");
        }
    }
    /* declined: another pair of dtypes */
    t_node node;
    t_node_init(&node, EM_OP_CAST, "cast");
    t_set_int(&node, "to", EMBER_DTYPE_F64);
    int64_t one = 1;
    double d = 0;
    em_tensor in, out;
    t_tensor(&in, EMBER_DTYPE_F32, 1, &one, f);
    t_tensor(&out, EMBER_DTYPE_F64, 1, &one, &d);
    ember_status *st = kt_run(k, &node.n, &in, 1, &out, 1, 0, NULL);
    assert_int_equal(ember_status_code(st), EMBER_ERR_UNSUPPORTED);
    ember_status_destroy(st);
    test_free(f);
    test_free(all);
    em_threadpool_destroy(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cast_half),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
