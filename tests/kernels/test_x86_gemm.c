/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The x86 Gemm and MatMul kernels (AVX2 6x16, AVX-512 14x32) against the reference kernel:
 * tile-boundary and odd shapes, transposes, alpha / beta, every C broadcast, K = 0, batched
 * and broadcast MatMul, B as a runtime input and as a prepacked constant, and a 2-thread pool
 * that must reproduce the serial result bit for bit; FusedGemm (the activation epilogue) with
 * every activation on full and edge tiles, each C form, several K blocks, M = 1 and K = 0;
 * half packs of a constant B that holds f16 / bf16 values (weights held in half): bit for bit
 * the f32 pack's result, half its bytes, against the reference too. Skips when the CPU lacks
 * the ISA.
 */
#include "test_x86_harness.h"

#include "core/lowp.h"

static void test_gemm(void **state)
{
    kt_mm_suite(EM_OP_GEMM, *state);
}
static void test_matmul(void **state)
{
    kt_mm_suite(EM_OP_MATMUL, *state);
}

static void test_fusedgemm(void **state)
{
    kt_fusedgemm_suite(*state);
}

/* Declines what the fast path does not handle (the planner then uses the reference). */
static void test_declines(void **state)
{
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(EM_OP_GEMM, *state, ks, KT_MAX_KERNELS);
    if (nk == 0 || !kt_isa_ok(ks[0])) {
        skip();
    }
    t_node node;
    t_node_init(&node, EM_OP_GEMM, "g");
    float buf[64] = {0};
    int64_t d23[] = {2, 3}, d32[] = {3, 2}, d22[] = {2, 2}, d3[] = {3}, d44[] = {4, 4};
    em_tensor in[3], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, d23, buf);
    t_tensor(&in[1], EMBER_DTYPE_F32, 2, d32, buf);
    t_absent(&in[2]);
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, d22, buf);
    /* C of shape [3] does not broadcast to [2, 2]. */
    t_tensor(&in[2], EMBER_DTYPE_F32, 1, d3, buf);
    t_expect_error(kt_run(ks[0], &node.n, in, 3, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "g",
                   "bad C");
    /* Wrong output shape. */
    t_absent(&in[2]);
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, d44, buf);
    t_expect_error(kt_run(ks[0], &node.n, in, 3, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "g",
                   "bad Y");
    /* FusedGemm with an activation it does not know. */
    t_node fn;
    t_node_init(&fn, EM_OP_FUSEDGEMM, "fg");
    t_set_string(&fn, "activation", "Softplus");
    const em_kernel *fk[KT_MAX_KERNELS];
    if (kt_find(EM_OP_FUSEDGEMM, *state, fk, KT_MAX_KERNELS) > 0) {
        t_tensor(&out[0], EMBER_DTYPE_F32, 2, d22, buf);
        t_expect_error(kt_run(fk[0], &fn.n, in, 3, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "fg",
                       "unknown activation");
    }
    /* Not f32. */
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, d22, buf);
    in[0].dtype = EMBER_DTYPE_F64;
    t_expect_error(kt_run(ks[0], &node.n, in, 3, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "g",
                   "f64");
}

/* n values of format `half` (as f32): uniform in [-2, 2] rounded to it; with `specials`,
 * every 7th from the format's edges instead (subnormals, the largest finite, +-inf, NaN). */
static float *half_values(ember_dtype half, int64_t n, uint64_t seed, bool specials)
{
    static const uint16_t f16_ext[] = {0x0001, 0x83ff, 0x0400, 0x7bff, 0xfbff,
                                       0x3bff, 0x7c00, 0xfc00, 0x7e01};
    static const uint16_t bf16_ext[] = {0x0001, 0x807f, 0x0080, 0x7f7f, 0xff7f,
                                        0x3f7f, 0x7f80, 0xff80, 0x7fc1};
    const uint16_t *ext = half == EMBER_DTYPE_F16 ? f16_ext : bf16_ext;
    const int64_t n_ext = (int64_t)(sizeof f16_ext / sizeof f16_ext[0]);
    float *v = t_random_f32(n, seed, -2.0f, 2.0f);
    uint16_t *h = test_calloc((size_t)(n > 0 ? n : 1), sizeof *h);
    em_f32_to_half_n(half, v, h, (size_t)n);
    for (int64_t i = 3; specials && i < n; i += 7) {
        h[i] = ext[(i / 7) % n_ext];
    }
    em_half_to_f32_n(half, h, v, (size_t)n);
    test_free(h);
    return v;
}

/* Case c with constant B of `half` values: the kernel told B is half (em_kpacks) packs half
 * the bytes and gives the f32 pack's result bit for bit (serial and on 2 threads); without
 * specials, also the reference's within the GEMM tolerance. */
static void half_case(const kt_mm_case *c, ember_dtype half, bool specials, uint64_t seed,
                      const em_kernel *k, em_threadpool *pool)
{
    t_node node;
    kt_mm_node_init(&node, c, NULL);
    int64_t ydims[EM_MAX_RANK], kk;
    int ry = kt_mm_out(c, ydims, &kk);
    int64_t na = t_numel(c->a, c->ra), nb = t_numel(c->b, c->rb), ny = t_numel(ydims, ry);
    int64_t nc = c->rc >= 0 ? t_numel(c->c, c->rc) : 0;
    float *a = t_random_f32(na, seed, -1.0f, 1.0f), *b = half_values(half, nb, seed + 1, specials);
    float *cc = t_random_f32(nc, seed + 2, -1.0f, 1.0f);
    float *ref = t_f32(ny), *wide = t_f32(ny), *got = t_f32(ny), *par = t_f32(ny);
    em_tensor in[3], out[1];
    int n_in = kt_mm_inputs(c, a, b, cc, in);
    em_pack_cache *cache = NULL;
    t_expect_ok(em_pack_cache_new(test_allocator(), &cache), "cache");
    uint64_t bit = (uint64_t)1 << 1;
    em_kpacks f32_kp = {NULL, cache, 0, NULL, 0, 0, NULL};
    em_kpacks half_kp = {NULL, cache, 0, NULL, half == EMBER_DTYPE_F16 ? bit : 0,
                         half == EMBER_DTYPE_BF16 ? bit : 0, NULL};
    size_t f32_bytes = 0, half_bytes = 0;
    t_tensor(&out[0], EMBER_DTYPE_F32, ry, ydims, wide);
    kt_fill_nan(wide, ny);
    t_expect_ok(kt_run_kp(k, &node.n, in, n_in, out, 1, 2, NULL, &f32_kp, &f32_bytes), c->name);
    out[0].data = got;
    kt_fill_nan(got, ny);
    t_expect_ok(kt_run_kp(k, &node.n, in, n_in, out, 1, 2, NULL, &half_kp, &half_bytes), c->name);
    if (f32_bytes != 2 * half_bytes) {
        fail_msg("case %s, kernel %s, %s: packed %zu bytes, the f32 pack %zu", c->name, k->name,
                 em_dtype_name(half), half_bytes, f32_bytes);
    }
    if (ny > 0 && memcmp(got, wide, sizeof(float) * (size_t)ny) != 0) {
        fail_msg("case %s, kernel %s, %s%s: differs from the f32 pack's result", c->name, k->name,
                 em_dtype_name(half), specials ? " with specials" : "");
    }
    out[0].data = par;
    kt_fill_nan(par, ny);
    t_expect_ok(kt_run_kp(k, &node.n, in, n_in, out, 1, 2, pool, &half_kp, NULL), c->name);
    kt_check_same(c->name, k->name, "2-thread half-pack result", got, par, ny);
    if (!specials) {
        out[0].data = ref;
        t_expect_ok(kt_run(t_kernel(c->op, EMBER_DTYPE_F32), &node.n, in, n_in, out, 1, 0, NULL),
                    c->name);
        double atol = kt_mm_atol(kk) * 2.0 * (fabs(c->alpha) > 1.0 ? fabs(c->alpha) : 1.0);
        kt_check(c->name, k->name, seed, got, ref, ny, atol, KT_MM_RTOL);
    }
    em_pack_cache_destroy(cache);
    test_free(a);
    test_free(b);
    test_free(cc);
    test_free(ref);
    test_free(wide);
    test_free(got);
    test_free(par);
}

/* Half packs (GEMM_HALF_B) on every case of the table with a constant B to pack, and an
 * M x N x K sweep around the 6x16 tile and the GEMV panel, f16 and bf16, with and without
 * extreme values. Only ISA units with half micro-kernels pack half; the others pack f32, and
 * this test skips them. */
static void test_half_b(void **state)
{
    const char *suffix = *state;
    const em_op ops[] = {EM_OP_GEMM, EM_OP_MATMUL};
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    int ran = 0;
    for (size_t oi = 0; oi < 2; oi++) {
        const em_kernel *ks[KT_MAX_KERNELS];
        size_t nk = kt_find(ops[oi], suffix, ks, KT_MAX_KERNELS);
        for (size_t ki = 0; ki < nk; ki++) {
            if (!kt_isa_ok(ks[ki]) || strstr(ks[ki]->name, "__avx2") == NULL) {
                continue; /* AVX2 is the unit with half micro-kernels */
            }
            ran++;
            uint64_t seed = 7100;
            for (int h = 0; h < 2; h++) {
                ember_dtype half = h == 0 ? EMBER_DTYPE_F16 : EMBER_DTYPE_BF16;
                for (size_t ci = 0; ci < sizeof kt_mm_cases / sizeof kt_mm_cases[0]; ci++) {
                    const kt_mm_case *c = &kt_mm_cases[ci];
                    int64_t yd[EM_MAX_RANK], kk;
                    kt_mm_out(c, yd, &kk);
                    if (c->op != ops[oi] || kk == 0 || t_numel(c->b, c->rb) == 0) {
                        continue;
                    }
                    half_case(c, half, false, seed++, ks[ki], pool);
                    half_case(c, half, true, seed++, ks[ki], pool);
                }
                if (ops[oi] != EM_OP_GEMM) {
                    continue;
                }
                static const int64_t ms[] = {1, 5, 6, 7, 13}, ns[] = {1, 15, 16, 17, 33, 67};
                static const int64_t kv[] = {1, 7, 257};
                for (size_t mi = 0; mi < 5; mi++) {
                    for (size_t ni = 0; ni < 6; ni++) {
                        int64_t m = ms[mi], n = ns[ni], k = kv[(mi + ni) % 3];
                        int tb = (int)((mi + ni) & 1);
                        kt_mm_case c = {"half_sweep", EM_OP_GEMM, 2, 2, -1, {m, k}, {k, n},
                                        {0}, 0, tb, 1.0f, 1.0f};
                        if (tb) {
                            c.b[0] = n, c.b[1] = k;
                        }
                        half_case(&c, half, (mi + ni) % 2 == 0, seed++, ks[ki], pool);
                    }
                }
            }
        }
    }
    em_threadpool_destroy(pool);
    if (ran == 0) {
        skip();
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KT_TEST(test_gemm, "__avx2"),      KT_TEST(test_gemm, "__avx512"),
        KT_TEST(test_matmul, "__avx2"),    KT_TEST(test_matmul, "__avx512"),
        KT_TEST(test_fusedgemm, "__avx2"), KT_TEST(test_fusedgemm, "__avx512"),
        KT_TEST(test_declines, "__avx2"),  KT_TEST(test_declines, "__avx512"),
        KT_TEST(test_half_b, "__avx2"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
