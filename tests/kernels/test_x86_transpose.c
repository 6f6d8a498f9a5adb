/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The x86 Transpose kernels (AVX2 8 x 8 and AVX-512 16 x 16 register tiles) against the
 * reference, byte for byte: random permutations of ranks 1-6 with random dims (1 included, so
 * axes drop and merge) for elements of 1, 2, 4 and 8 bytes; fixed cases around the tiles and
 * the 64-element blocks (the NCHW <-> NHWC pair of ConvNeXt, shufflenet's channel shuffle, a
 * swin window partition, runs of 2 / 4 / 8 bytes that become one element, an identity, a zero
 * dim, a reversal by default perm, 1 x N); each serially and on 2 threads. Random bytes, so
 * NaN payloads of f32 / f64 must come through the float registers unchanged. Declines strings
 * and a perm that does not match the output.
 */
#include "test_x86_harness.h"

/* The Transpose kernel whose name ends with suffix, if this CPU can run it. */
static const em_kernel *find(const char *suffix)
{
    size_t ls = strlen(suffix);
    for (size_t i = 0; i < em_registry_count(); i++) {
        const em_kernel *k = em_registry_at(i);
        size_t ln = strlen(k->name);
        if (k->op == EM_OP_TRANSPOSE && k->device == EM_DEV_CPU && ln >= ls &&
            strcmp(k->name + ln - ls, suffix) == 0) {
            return kt_isa_ok(k) ? k : NULL;
        }
    }
    return NULL;
}

static void fill_bytes(uint8_t *p, size_t n, uint64_t seed)
{
    test_rng r = {seed};
    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t)(test_rng_next(&r) >> 56);
    }
}

/* One case: x of `dims` (rank r), perm (NULL: the default reversal), dtype dt; the kernel k
 * against the reference, serially and on pool; the byte after the output must stay untouched. */
static void run_case(const em_kernel *k, const char *name, ember_dtype dt, int r,
                     const int64_t *dims, const int64_t *perm, em_threadpool *pool)
{
    t_node tn;
    t_node_init(&tn, EM_OP_TRANSPOSE, name);
    int64_t yd[EM_MAX_RANK];
    for (int d = 0; d < r; d++) {
        yd[d] = dims[perm != NULL ? perm[d] : r - 1 - d];
    }
    if (perm != NULL) {
        t_set_ints(&tn, "perm", perm, r);
    }
    size_t es = em_dtype_size(dt), n = (size_t)t_numel(dims, r) * es;
    uint8_t *x = test_malloc(n + 1), *ref = test_malloc(n + 1), *got = test_malloc(n + 1);
    fill_bytes(x, n, n * 31u + (uint64_t)r);
    memset(ref, 0, n + 1);
    em_tensor in[1], out[1];
    t_tensor(&in[0], dt, r, dims, x);
    t_tensor(&out[0], dt, r, yd, ref);
    t_expect_ok(kt_run(t_kernel(EM_OP_TRANSPOSE, EMBER_DTYPE_UNDEFINED), &tn.n, in, 1, out, 1, 0,
                       NULL),
                name);
    for (int par = 0; par < 2; par++) {
        memset(got, 0xa5, n + 1);
        out[0].data = got;
        t_expect_ok(kt_run(k, &tn.n, in, 1, out, 1, 0, par ? pool : NULL), name);
        for (size_t i = 0; i < n; i++) {
            if (got[i] != ref[i]) {
                fail_msg("case %s (%s, %s): byte %zu of %zu: got 0x%02x, expected 0x%02x", name,
                         k->name, par ? "2 threads" : "serial", i, n, got[i], ref[i]);
            }
        }
        if (got[n] != 0xa5) {
            fail_msg("case %s (%s): wrote past the output", name, k->name);
        }
    }
    test_free(x);
    test_free(ref);
    test_free(got);
}

static const ember_dtype dtypes[] = {EMBER_DTYPE_U8, EMBER_DTYPE_F16, EMBER_DTYPE_F32,
                                     EMBER_DTYPE_I32, EMBER_DTYPE_F64, EMBER_DTYPE_I64};

typedef struct tr_case {
    const char *name;
    int rank;
    int64_t dims[6];
    int64_t perm[6]; /* perm[0] < 0: no perm attribute (reversal) */
} tr_case;

/* clang-format off */
static const tr_case cases[] = {
    {"nchw_nhwc",       4, {1, 96, 56, 56},       {0, 2, 3, 1}},
    {"nhwc_nchw",       4, {1, 56, 56, 96},       {0, 3, 1, 2}},
    {"nchw_nhwc_odd",   4, {2, 37, 13, 11},       {0, 2, 3, 1}},
    {"rgb_nhwc",        4, {1, 3, 45, 47},        {0, 2, 3, 1}},
    {"shuffle",         5, {1, 2, 58, 28, 28},    {0, 2, 1, 3, 4}},
    {"swin_windows",    6, {1, 8, 7, 8, 7, 96},   {0, 1, 3, 2, 4, 5}},
    {"heads",           4, {1, 50, 12, 64},       {0, 2, 1, 3}},
    {"heads_kt",        4, {1, 12, 50, 64},       {0, 1, 3, 2}},
    {"run2_f32",        3, {33, 65, 2},           {1, 0, 2}},
    {"run4_u8",         3, {17, 70, 4},           {1, 0, 2}},
    {"run3",            3, {17, 70, 3},           {1, 0, 2}},
    {"runs_parallel",   3, {64, 128, 260},        {1, 0, 2}}, /* f32: 8.5 MB, split */
    {"tiles_exact",     2, {64, 128},             {1, 0}},
    {"tiles_plus1",     2, {65, 129},             {1, 0}},
    {"tiles_minus1",    2, {15, 63},              {1, 0}},
    {"tall",            2, {1000, 3},             {1, 0}},
    {"wide",            2, {3, 1000},             {1, 0}},
    {"row",             2, {1, 1000},             {1, 0}},
    {"identity",        3, {4, 5, 6},             {0, 1, 2}},
    {"ones_moved",      4, {1, 7, 1, 9},          {2, 1, 3, 0}},
    {"zero_dim",        3, {4, 0, 6},             {2, 0, 1}},
    {"reverse",         3, {9, 17, 33},           {-1}},
    {"rank1",           1, {19},                  {0}},
    {"rank6_rev",       6, {3, 4, 5, 2, 3, 7},    {5, 4, 3, 2, 1, 0}},
};
/* clang-format on */

static void test_cases(void **state)
{
    const em_kernel *k = find(*state);
    if (k == NULL) {
        skip();
    }
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const tr_case *c = &cases[i];
        for (size_t t = 0; t < sizeof dtypes / sizeof dtypes[0]; t++) {
            char name[80];
            snprintf(name, sizeof name, "%s_%s", c->name, em_dtype_name(dtypes[t]));
            run_case(k, name, dtypes[t], c->rank, c->dims, c->perm[0] < 0 ? NULL : c->perm, pool);
        }
    }
    em_threadpool_destroy(pool);
}

/* Random perms of ranks 1-6, dims from a set with 1s (axes drop and merge) and tile edges. */
static void test_random(void **state)
{
    const em_kernel *k = find(*state);
    if (k == NULL) {
        skip();
    }
    static const int64_t dimset[] = {1, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 33};
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    test_rng rng = {42};
    for (int it = 0; it < 600; it++) {
        int r = 1 + it % 6;
        int64_t dims[6], perm[6];
        int64_t numel = 1;
        for (int d = 0; d < r; d++) {
            dims[d] = dimset[test_rng_next(&rng) % (sizeof dimset / sizeof dimset[0])];
            numel *= dims[d];
            perm[d] = d;
        }
        for (int d = r - 1; d > 0; d--) { /* Fisher-Yates */
            int e = (int)(test_rng_next(&rng) % (uint64_t)(d + 1));
            int64_t tmp = perm[d];
            perm[d] = perm[e];
            perm[e] = tmp;
        }
        if (numel > 300000) {
            continue;
        }
        ember_dtype dt = dtypes[it % (sizeof dtypes / sizeof dtypes[0])];
        char name[96];
        snprintf(name, sizeof name, "random_%d_rank%d_%s", it, r, em_dtype_name(dt));
        run_case(k, name, dt, r, dims, perm, pool);
    }
    em_threadpool_destroy(pool);
}

static void test_declines(void **state)
{
    const em_kernel *k = find(*state);
    if (k == NULL) {
        skip();
    }
    const char *strs[4] = {"a", "b", "c", "d"};
    const char *ys[4] = {0};
    int64_t d[2] = {2, 2}, perm[2] = {1, 0}, bad[2] = {0, 1};
    em_tensor in[1], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_TRANSPOSE, "tr");
    t_set_ints(&tn, "perm", perm, 2);
    t_tensor(&in[0], EMBER_DTYPE_STRING, 2, d, strs);
    t_tensor(&out[0], EMBER_DTYPE_STRING, 2, d, ys);
    t_expect_error(kt_run(k, &tn.n, in, 1, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "tr",
                   "strings");
    float x[6] = {0}, y[6] = {0};
    int64_t xd[2] = {2, 3}, yd[2] = {2, 3};
    t_node_init(&tn, EM_OP_TRANSPOSE, "tr");
    t_set_ints(&tn, "perm", perm, 2);
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, xd, x);
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, yd, y);
    t_expect_error(kt_run(k, &tn.n, in, 1, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "tr",
                   "output of the wrong shape");
    t_node_init(&tn, EM_OP_TRANSPOSE, "tr");
    bad[1] = 0;
    t_set_ints(&tn, "perm", bad, 2);
    t_expect_error(kt_run(k, &tn.n, in, 1, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "tr",
                   "repeated axis");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KT_TEST(test_cases, "__avx2"),   KT_TEST(test_cases, "__avx512"),
        KT_TEST(test_random, "__avx2"),  KT_TEST(test_random, "__avx512"),
        KT_TEST(test_declines, "__avx2"), KT_TEST(test_declines, "__avx512"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
