/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Harness for the optimized-kernel tests (test_x86_*.c, test_openblas.c, test_onednn.c): finds
 * the kernels under test in the registry by name suffix ("__avx2", "__openblas", ...), runs
 * them the way the planner and executor do (prepare sees data only for inputs the case marks
 * constant, scratch from a leak-checked allocator) and compares them with the reference
 * kernel of the same op: |got - ref| <= atol + rtol * |ref|. Kernels needing ISA bits this
 * CPU (capped by EMBER_ISA_MAX) lacks are skipped. Also holds the Gemm / MatMul case table
 * shared by the x86, OpenBLAS and CUDA tests. Builds on test_ref_util.h.
 */
#ifndef EMBER_TESTS_KERNELS_TEST_X86_HARNESS_H
#define EMBER_TESTS_KERNELS_TEST_X86_HARNESS_H

#include "test_ref_util.h"

#include <stdio.h>
#include <stdlib.h>

#define KT_MAX_KERNELS 16

/* A cmocka test named "<fn>/<arg>" whose initial state is the string `arg`. */
#define KT_TEST(fn, arg)                                                                           \
    {                                                                                              \
#fn "/" arg, fn, NULL, NULL, (void *)(arg)                                                 \
    }

/* Registry entries for `op` (f32, CPU) whose name ends with `suffix`. */
static inline size_t kt_find(em_op op, const char *suffix, const em_kernel **out, size_t cap)
{
    size_t n = 0, ls = strlen(suffix);
    for (size_t i = 0; i < em_registry_count() && n < cap; i++) {
        const em_kernel *k = em_registry_at(i);
        size_t ln = strlen(k->name);
        if (k->op == op && k->dtype == EMBER_DTYPE_F32 && k->device == EM_DEV_CPU && ln >= ls &&
            strcmp(k->name + ln - ls, suffix) == 0) {
            out[n++] = k;
        }
    }
    return n;
}

/* This CPU's features, capped by EMBER_ISA_MAX as the planner does (so a CI run with
 * EMBER_ISA_MAX=avx2 skips the AVX-512 cases). */
static inline uint64_t kt_features(void)
{
    uint64_t f = em_cpu_features(), cap;
    const char *env = getenv("EMBER_ISA_MAX");
    if (env != NULL && *env != '\0' && em_isa_cap_parse(env, &cap)) {
        f &= cap;
    }
    return f;
}

static inline bool kt_isa_ok(const em_kernel *k)
{
    return (k->isa & ~kt_features()) == 0;
}

/* kt_run with the planner's pack notes `kp` (may be NULL); *pack_bytes (when given) gets the
 * bytes kp->own holds right after prepare. */
static inline ember_status *kt_run_kp(const em_kernel *k, const em_node *node, em_tensor *in,
                                      int n_in, em_tensor *out, int n_out, unsigned const_mask,
                                      em_threadpool *pool, const em_kpacks *kp, size_t *pack_bytes)
{
    em_tensor pin[T_MAX_IO], pout[T_MAX_IO];
    assert_true(n_in <= T_MAX_IO && n_out <= T_MAX_IO);
    for (int i = 0; i < n_in; i++) {
        pin[i] = in[i];
        if ((const_mask & (1u << i)) == 0) {
            pin[i].data = NULL;
        }
    }
    for (int i = 0; i < n_out; i++) {
        pout[i] = out[i];
        pout[i].data = NULL;
    }
    em_kinfo ki = {node, n_in, n_out, pin, pout, test_allocator(), kt_features(),
                   em_threadpool_size(pool), kp};
    void *state = NULL;
    size_t scratch_bytes = 0;
    ember_status *st = k->prepare != NULL ? k->prepare(&ki, &state, &scratch_bytes) : NULL;
    if (st != NULL) {
        assert_null(state);
        return st;
    }
    if (pack_bytes != NULL) {
        *pack_bytes = em_pack_cache_bytes(kp != NULL ? kp->own : NULL, NULL);
    }
    void *scratch = scratch_bytes > 0 ? em_aligned_alloc(test_allocator(), scratch_bytes) : NULL;
    if (scratch_bytes > 0) {
        assert_non_null(scratch);
        memset(scratch, 0x7f, scratch_bytes); /* garbage (large floats), not zeros */
    }
    em_kctx ctx = {pool, scratch};
    k->run(state, in, out, &ctx);
    em_aligned_free(test_allocator(), scratch);
    if (k->release != NULL) {
        k->release(test_allocator(), state);
    } else {
        em_free(test_allocator(), state);
    }
    return NULL;
}

/* Like t_run, but inputs whose bit is set in `const_mask` keep their data in prepare (as
 * constant initializers do), and kinfo.isa is this CPU's. */
static inline ember_status *kt_run(const em_kernel *k, const em_node *node, em_tensor *in, int n_in,
                                   em_tensor *out, int n_out, unsigned const_mask,
                                   em_threadpool *pool)
{
    return kt_run_kp(k, node, in, n_in, out, n_out, const_mask, pool, NULL, NULL);
}

static inline void kt_fill_nan(float *p, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        p[i] = NAN;
    }
}

static inline void kt_check(const char *case_name, const char *kernel, uint64_t seed,
                            const float *got, const float *ref, int64_t n, double atol, double rtol)
{
    for (int64_t i = 0; i < n; i++) {
        if (!t_close(got[i], ref[i], atol, rtol)) {
            fail_msg("case %s, kernel %s, seed %llu: index %lld: got %.9g, expected %.9g "
                     "(atol %g, rtol %g)",
                     case_name, kernel, (unsigned long long)seed, (long long)i, (double)got[i],
                     (double)ref[i], atol, rtol);
        }
    }
}

static inline void kt_check_same(const char *case_name, const char *kernel, const char *what,
                                 const float *a, const float *b, int64_t n)
{
    if (n > 0 && memcmp(a, b, sizeof(float) * (size_t)n) != 0) {
        fail_msg("case %s, kernel %s: %s differs from the serial run", case_name, kernel, what);
    }
}

/* ---- Gemm / MatMul cases ----------------------------------------------------------------- */

/* rc < 0: no C. Gemm: A, B rank 2 as stored (transposes apply on top). */
typedef struct kt_mm_case {
    const char *name;
    em_op op;
    int ra, rb, rc;
    int64_t a[4], b[4], c[2];
    int ta, tb;
    float alpha, beta;
} kt_mm_case;

/* FusedGemm's `activation` and its n_p `activation_params`. */
typedef struct kt_act {
    const char *name;
    int n_p;
    float p[2];
} kt_act;

/* GEMM tolerance: rtol 1e-4; atol 1e-5 grown linearly with K (inputs in [-1, 1]: sums of K
 * products accumulated in f32 in another order than the double-precision reference). */
static inline double kt_mm_atol(int64_t k)
{
    return 1e-5 * (1.0 + (double)k / 16.0);
}
#define KT_MM_RTOL 1e-4

/* Output dims of the case (numpy broadcasting for MatMul); returns the rank. K in *k. */
static inline int kt_mm_out(const kt_mm_case *c, int64_t *y, int64_t *k)
{
    if (c->op != EM_OP_MATMUL) {
        y[0] = c->ta ? c->a[1] : c->a[0];
        y[1] = c->tb ? c->b[0] : c->b[1];
        *k = c->ta ? c->a[0] : c->a[1];
        return 2;
    }
    int ba = c->ra > 2 ? c->ra - 2 : 0, bb = c->rb > 2 ? c->rb - 2 : 0;
    int r = ba > bb ? ba : bb, ry = 0;
    for (int d = 0; d < r; d++) {
        int ia = d - (r - ba), ib = d - (r - bb);
        int64_t da = ia >= 0 ? c->a[ia] : 1, db = ib >= 0 ? c->b[ib] : 1;
        y[ry++] = da == 1 ? db : da;
    }
    if (c->ra > 1) {
        y[ry++] = c->a[c->ra - 2];
    }
    if (c->rb > 1) {
        y[ry++] = c->b[c->rb - 1];
    }
    *k = c->a[c->ra - 1];
    return ry;
}

/*
 * Runs one case through the reference and every available kernel in ks: B as a runtime input
 * and as a constant (prepacked), serially and on `pool` (which must match the serial run
 * bit for bit). Returns the number of kernels that ran (0: all skipped for the ISA). act:
 * FusedGemm's activation (NULL for Gemm and MatMul).
 */
/* The node of case c (act: FusedGemm's activation, or NULL). */
static inline void kt_mm_node_init(t_node *node, const kt_mm_case *c, const kt_act *act)
{
    t_node_init(node, c->op, c->name);
    if (c->op != EM_OP_MATMUL) { /* Gemm, FusedGemm */
        t_set_float(node, "alpha", c->alpha);
        t_set_float(node, "beta", c->beta);
        t_set_int(node, "transA", c->ta);
        t_set_int(node, "transB", c->tb);
    }
    if (act != NULL) {
        t_set_string(node, "activation", act->name);
        if (act->n_p > 0) {
            t_set_floats(node, "activation_params", act->p, act->n_p);
        }
    }
}

/* Case c's inputs A, B (and C for Gemm: absent when rc < 0) over the given data; returns
 * the input count. */
static inline int kt_mm_inputs(const kt_mm_case *c, float *a, float *b, float *cc, em_tensor *in)
{
    t_tensor(&in[0], EMBER_DTYPE_F32, c->ra, c->a, a);
    t_tensor(&in[1], EMBER_DTYPE_F32, c->rb, c->b, b);
    if (c->op == EM_OP_MATMUL) {
        return 2;
    }
    if (c->rc >= 0) {
        t_tensor(&in[2], EMBER_DTYPE_F32, c->rc, c->c, cc);
    } else {
        t_absent(&in[2]);
    }
    return 3;
}

static inline int kt_mm_run_case_act(const kt_mm_case *c, const kt_act *act, uint64_t seed,
                                     const em_kernel *const *ks, size_t nk, em_threadpool *pool)
{
    t_node node;
    kt_mm_node_init(&node, c, act);
    int64_t ydims[EM_MAX_RANK], k;
    int ry = kt_mm_out(c, ydims, &k);
    int64_t na = t_numel(c->a, c->ra), nb = t_numel(c->b, c->rb), ny = t_numel(ydims, ry);
    int64_t nc = c->rc >= 0 ? t_numel(c->c, c->rc) : 0;
    float *a = t_random_f32(na, seed, -1.0f, 1.0f);
    float *b = t_random_f32(nb, seed + 1, -1.0f, 1.0f);
    float *cc = t_random_f32(nc, seed + 2, -1.0f, 1.0f);
    float *ref = t_f32(ny), *got = t_f32(ny), *par = t_f32(ny);
    em_tensor in[3], out[1];
    int n_in = kt_mm_inputs(c, a, b, cc, in);
    t_tensor(&out[0], EMBER_DTYPE_F32, ry, ydims, ref);
    t_expect_ok(kt_run(t_kernel(c->op, EMBER_DTYPE_F32), &node.n, in, n_in, out, 1, 0, NULL),
                c->name);
    double atol = kt_mm_atol(k) * (fabs(c->alpha) > 1.0 ? fabs(c->alpha) : 1.0);
    int ran = 0;
    for (size_t i = 0; i < nk; i++) {
        if (!kt_isa_ok(ks[i])) {
            continue;
        }
        ran++;
        for (unsigned mask = 0; mask <= 2; mask += 2) { /* B runtime, then B constant */
            kt_fill_nan(got, ny);
            out[0].data = got;
            t_expect_ok(kt_run(ks[i], &node.n, in, n_in, out, 1, mask, NULL), c->name);
            kt_check(c->name, ks[i]->name, seed, got, ref, ny, atol, KT_MM_RTOL);
            if (pool != NULL) {
                kt_fill_nan(par, ny);
                out[0].data = par;
                t_expect_ok(kt_run(ks[i], &node.n, in, n_in, out, 1, mask, pool), c->name);
                kt_check_same(c->name, ks[i]->name, "2-thread result", got, par, ny);
            }
        }
    }
    test_free(a);
    test_free(b);
    test_free(cc);
    test_free(ref);
    test_free(got);
    test_free(par);
    return ran;
}

static inline int kt_mm_run_case(const kt_mm_case *c, uint64_t seed, const em_kernel *const *ks,
                                 size_t nk, em_threadpool *pool)
{
    return kt_mm_run_case_act(c, NULL, seed, ks, nk, pool);
}

/* Tile-boundary sizes of the AVX2 6x16 and AVX-512 14x32 micro-kernels ({1, T-1, T, T+1,
 * 2T+3}) and odd sizes; K crosses the KC = 256 block. */
static const int64_t kt_sweep_m[] = {1, 3, 5, 6, 7, 13, 14, 15, 17, 31, 33, 50, 100};
static const int64_t kt_sweep_n[] = {1, 3, 15, 16, 17, 31, 32, 33, 35, 67, 100};
static const int64_t kt_sweep_k[] = {1, 3, 7, 17, 33, 100, 255, 256, 257};

/* clang-format off */
#define GE EM_OP_GEMM
#define MM EM_OP_MATMUL
static const kt_mm_case kt_mm_cases[] = {
    /* name           op  ra rb rc  A               B               C           ta tb alpha beta */
    {"g_plain",       GE, 2, 2, -1, {64, 48},       {48, 80},       {0},        0, 0, 1.0f, 1.0f},
    {"g_ta",          GE, 2, 2, -1, {37, 29},       {37, 41},       {0},        1, 0, 1.0f, 1.0f},
    {"g_tb",          GE, 2, 2, -1, {29, 37},       {41, 37},       {0},        0, 1, 1.0f, 1.0f},
    {"g_ta_tb",       GE, 2, 2, -1, {37, 29},       {41, 37},       {0},        1, 1, 1.0f, 1.0f},
    {"g_alpha_beta",  GE, 2, 2, 2,  {20, 30},       {30, 40},       {20, 40},   0, 0, 0.5f, 2.0f},
    {"g_c_scalar",    GE, 2, 2, 0,  {20, 30},       {30, 40},       {0},        0, 0, 1.0f, 0.75f},
    {"g_c_1",         GE, 2, 2, 1,  {20, 30},       {30, 40},       {1},        0, 0, 1.0f, 1.0f},
    {"g_c_n",         GE, 2, 2, 1,  {21, 30},       {40, 30},       {40},       0, 1, 1.5f, 1.0f},
    {"g_c_1n",        GE, 2, 2, 2,  {21, 30},       {30, 40},       {1, 40},    0, 0, 1.0f, -1.0f},
    {"g_c_m1",        GE, 2, 2, 2,  {21, 30},       {30, 40},       {21, 1},    0, 0, 1.0f, 0.5f},
    {"g_c_11",        GE, 2, 2, 2,  {21, 30},       {30, 40},       {1, 1},     0, 0, 1.0f, 1.0f},
    {"g_c_beta0",     GE, 2, 2, 2,  {21, 30},       {30, 40},       {21, 40},   0, 0, 1.0f, 0.0f},
    {"g_alpha0",      GE, 2, 2, 2,  {21, 30},       {30, 40},       {21, 40},   0, 0, 0.0f, 1.0f},
    {"g_k0",          GE, 2, 2, 1,  {5, 0},         {0, 7},         {7},        0, 0, 1.0f, 2.0f},
    {"g_k0_noc",      GE, 2, 2, -1, {5, 0},         {0, 7},         {0},        0, 0, 1.0f, 1.0f},
    {"g_m0",          GE, 2, 2, -1, {0, 9},         {9, 7},         {0},        0, 0, 1.0f, 1.0f},
    {"g_blocks",      GE, 2, 2, 1,  {145, 515},     {515, 545},     {545},      0, 0, 1.0f, 1.0f},
    {"g_blocks_t",    GE, 2, 2, 2,  {515, 141},     {530, 515},     {141, 530}, 1, 1, 0.5f, 0.5f},
    {"g_tall",        GE, 2, 2, -1, {700, 64},      {64, 9},        {0},        0, 0, 1.0f, 1.0f},
    {"g_wide_m1",     GE, 2, 2, 1,  {1, 300},       {1100, 300},    {1100},     0, 1, 1.0f, 1.0f},
    /* M = 1: with B constant, the GEMV panels (odd K, a partial last panel, 2 threads) */
    {"g_gemv",        GE, 2, 2, 1,  {1, 1281},      {1000, 1281},   {1000},     0, 1, 0.5f, 2.0f},
    {"g_gemv_ta",     GE, 2, 2, 2,  {517, 1},       {517, 203},     {1, 203},   1, 0, 1.0f, -1.0f},
    {"mm_2d",         MM, 2, 2, -1, {33, 17},       {17, 35},       {0},        0, 0, 1.0f, 1.0f},
    {"mm_batched",    MM, 4, 4, -1, {2, 3, 15, 33}, {2, 3, 33, 17}, {0},        0, 0, 1.0f, 1.0f},
    {"mm_bcast",      MM, 4, 4, -1, {3, 1, 7, 20},  {1, 4, 20, 33}, {0},        0, 0, 1.0f, 1.0f},
    {"mm_fold_b2d",   MM, 3, 2, -1, {4, 29, 70},    {70, 67},       {0},        0, 0, 1.0f, 1.0f},
    {"mm_fold_b1",    MM, 3, 3, -1, {3, 14, 40},    {1, 40, 32},    {0},        0, 0, 1.0f, 1.0f},
    {"mm_a2d_bbatch", MM, 2, 3, -1, {14, 40},       {3, 40, 33},    {0},        0, 0, 1.0f, 1.0f},
    {"mm_a_rank1",    MM, 1, 3, -1, {40},           {2, 40, 33},    {0},        0, 0, 1.0f, 1.0f},
    {"mm_b_rank1",    MM, 3, 1, -1, {2, 13, 40},    {40},           {0},        0, 0, 1.0f, 1.0f},
    {"mm_dot",        MM, 1, 1, -1, {100},          {100},          {0},        0, 0, 1.0f, 1.0f},
    {"mm_big_batch",  MM, 3, 3, -1, {3, 70, 300},   {3, 300, 90},   {0},        0, 0, 1.0f, 1.0f},
    {"mm_gemv_batch", MM, 3, 3, -1, {3, 1, 300},    {3, 300, 131},  {0},        0, 0, 1.0f, 1.0f},
    {"mm_gemv_bcast", MM, 3, 3, -1, {3, 1, 257},    {1, 257, 70},   {0},        0, 0, 1.0f, 1.0f},
    /* a transformer's projections: tiles split evenly (768 = 2 x 384), A rows 2^n apart */
    {"mm_qkv",        MM, 3, 2, -1, {64, 1, 256},   {256, 768},     {0},        0, 0, 1.0f, 1.0f},
    {"g_long_k",      GE, 2, 2, 1,  {30, 2048},     {2048, 70},     {70},       0, 0, 0.5f, 1.0f},
};
#undef MM
#undef GE
/* clang-format on */

/* Every case of the table plus the M x N sweep (K and the transposes rotate), on the kernels
 * for op with `suffix`; skip()s when none of them can run on this CPU. */
static inline void kt_mm_suite(em_op op, const char *suffix)
{
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(op, suffix, ks, KT_MAX_KERNELS);
    if (nk == 0) {
        print_message("no %s kernels for %s in this build\n", suffix, em_op_name(op));
        skip();
    }
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    int ran = 0;
    uint64_t seed = 1000;
    for (size_t i = 0; i < sizeof kt_mm_cases / sizeof kt_mm_cases[0]; i++) {
        if (kt_mm_cases[i].op == op) {
            ran += kt_mm_run_case(&kt_mm_cases[i], seed++, ks, nk, pool);
        }
    }
    size_t nm = sizeof kt_sweep_m / sizeof kt_sweep_m[0];
    size_t nn = sizeof kt_sweep_n / sizeof kt_sweep_n[0];
    size_t nkk = sizeof kt_sweep_k / sizeof kt_sweep_k[0];
    for (size_t i = 0; i < nm; i++) {
        for (size_t j = 0; j < nn; j++) {
            int64_t m = kt_sweep_m[i], n = kt_sweep_n[j], kk = kt_sweep_k[(i + j) % nkk];
            char name[96];
            kt_mm_case c = {name, op, 2, 2, -1, {m, kk}, {kk, n}, {0}, 0, 0, 1.0f, 1.0f};
            if (op == EM_OP_GEMM) {
                c.ta = (int)((i + j) & 1);
                c.tb = (int)(((i + j) >> 1) & 1);
                if (c.ta) {
                    c.a[0] = kk;
                    c.a[1] = m;
                }
                if (c.tb) {
                    c.b[0] = n;
                    c.b[1] = kk;
                }
                c.rc = (int)((i * nn + j) % 3) - 1; /* none, rank 0, [N] */
                if (c.rc == 1) {
                    c.c[0] = n;
                }
                c.alpha = (i + j) % 5 == 0 ? 0.5f : 1.0f;
            }
            snprintf(name, sizeof name, "sweep_%s_m%lld_n%lld_k%lld_t%d%d", em_op_name(op),
                     (long long)m, (long long)n, (long long)kk, c.ta, c.tb);
            ran += kt_mm_run_case(&c, seed++, ks, nk, pool);
        }
    }
    em_threadpool_destroy(pool);
    print_message("%s %s: %d case x kernel runs\n", em_op_name(op), suffix, ran);
    if (ran == 0) {
        print_message("%s kernels for %s need ISA bits this CPU lacks\n", suffix, em_op_name(op));
        skip();
    }
}

/* FusedGemm on the kernels with `suffix`: each activation on shapes that take each path of
 * the x86 epilogue (bias row in the tail, edge columns, other C forms, several K blocks,
 * M = 1, K = 0, large outputs); skip()s when none can run. */
static inline void kt_fusedgemm_suite(const char *suffix)
{
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(EM_OP_FUSEDGEMM, suffix, ks, KT_MAX_KERNELS);
    if (nk == 0) {
        skip();
    }
    static const kt_act acts[] = {{"Relu", 0, {0}},
                                  {"Gelu", 0, {0}},
                                  {"GeluTanh", 0, {0}},
                                  {"SiLU", 0, {0}},
                                  {"Sigmoid", 0, {0}},
                                  {"Tanh", 0, {0}},
                                  {"LeakyRelu", 1, {0.1f}},
                                  {"Clip", 2, {-0.5f, 2.0f}},
                                  {"HardSigmoid", 0, {0}},
                                  {"HardSwish", 0, {0}},
                                  {"", 0, {0}}};
    /* clang-format off */
    static const kt_mm_case shapes[] = {
        /* a bias row: full tiles in the tail, edge columns (N = 45) after it; 2 K blocks */
        {"fg_bias",    EM_OP_FUSEDGEMM, 2, 2, 1,  {37, 300},  {300, 45},  {45},     0, 0, 1.0f, 1.0f},
        {"fg_bias_1n", EM_OP_FUSEDGEMM, 2, 2, 2,  {13, 64},   {50, 64},   {1, 50},  0, 1, 0.5f, -2.0f},
        /* other C forms go through em_gemm_add_c, then the activation */
        {"fg_c2d",     EM_OP_FUSEDGEMM, 2, 2, 2,  {20, 30},   {30, 40},   {20, 40}, 0, 0, 1.0f, 0.5f},
        {"fg_c_m1",    EM_OP_FUSEDGEMM, 2, 2, 2,  {21, 30},   {30, 33},   {21, 1},  0, 0, 1.0f, 1.0f},
        {"fg_c0",      EM_OP_FUSEDGEMM, 2, 2, 0,  {21, 30},   {30, 32},   {0},      0, 0, 1.0f, 3.0f},
        {"fg_noc",     EM_OP_FUSEDGEMM, 2, 2, -1, {600, 29},  {600, 70},  {0},      1, 0, 1.0f, 1.0f},
        /* M = 1 (the GEMV panels with B constant), K = 0 */
        {"fg_gemv",    EM_OP_FUSEDGEMM, 2, 2, 1,  {1, 257},   {100, 257}, {100},    0, 1, 1.0f, 1.0f},
        {"fg_k0",      EM_OP_FUSEDGEMM, 2, 2, 1,  {5, 0},     {0, 7},     {7},      0, 0, 1.0f, 2.0f},
        /* large outputs: the activations' tails (|y| up to ~100) */
        {"fg_big",     EM_OP_FUSEDGEMM, 2, 2, 1,  {12, 40},   {40, 48},   {48},     0, 0, 8.0f, 40.0f},
    };
    /* clang-format on */
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    int ran = 0;
    uint64_t seed = 7000;
    for (size_t a = 0; a < sizeof acts / sizeof acts[0]; a++) {
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            ran += kt_mm_run_case_act(&shapes[i], &acts[a], seed++, ks, nk, pool);
        }
    }
    em_threadpool_destroy(pool);
    if (ran == 0) {
        skip();
    }
}

#endif /* EMBER_TESTS_KERNELS_TEST_X86_HARNESS_H */
