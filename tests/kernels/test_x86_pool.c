/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The x86 pooling kernels (MaxPool, AveragePool 2-D, GlobalMaxPool, GlobalAveragePool; f32,
 * AVX2 and AVX-512) against the reference: a sweep of odd plane sizes, kernels 1..5 (and one
 * of 7 x 1), strides 1..3, dilations 1..2, explicit pads (begin != end), ceil_mode, auto_pad
 * SAME_UPPER / SAME_LOWER / VALID, count_include_pad, windows wholly in the padding; NaN
 * inputs for the maxima; global pools of rank 3, 4 and 5. Each case runs serially and on a
 * 2-thread pool (bitwise equal), outputs starting as NaN. Declines: Indices, 1-D / 3-D
 * windows, f64.
 */
#include "test_x86_harness.h"

typedef struct px_case {
    int64_t n, c, h, w;
    int64_t kh, kw, sh, sw, dh, dw;
    int64_t pads[4];
    int ceil;
    const char *auto_pad; /* NULL: NOTSET */
    int cip;
} px_case;

static int64_t out_dim(const px_case *c, int axis)
{
    int64_t in = axis == 0 ? c->h : c->w, k = axis == 0 ? c->kh : c->kw;
    int64_t s = axis == 0 ? c->sh : c->sw, d = axis == 0 ? c->dh : c->dw;
    int64_t ext = (k - 1) * d + 1;
    if (c->auto_pad != NULL && strncmp(c->auto_pad, "SAME", 4) == 0) {
        return (in + s - 1) / s;
    }
    int64_t pb = c->auto_pad != NULL ? 0 : c->pads[axis], pe = c->auto_pad != NULL ? 0 : c->pads[axis + 2];
    int64_t padded = in + pb + pe;
    if (c->ceil && c->auto_pad == NULL) {
        int64_t o = (padded - ext + s - 1) / s + 1;
        return (o - 1) * s >= in + pb ? o - 1 : o;
    }
    return (padded - ext) / s + 1;
}

static void set_attrs(t_node *tn, em_op op, const px_case *c)
{
    int64_t k[2] = {c->kh, c->kw}, s[2] = {c->sh, c->sw}, d[2] = {c->dh, c->dw};
    t_node_init(tn, op, "pool");
    t_set_ints(tn, "kernel_shape", k, 2);
    t_set_ints(tn, "strides", s, 2);
    if (c->dh != 1 || c->dw != 1) {
        t_set_ints(tn, "dilations", d, 2);
    }
    if (c->auto_pad != NULL) {
        t_set_string(tn, "auto_pad", c->auto_pad);
    } else {
        t_set_ints(tn, "pads", c->pads, 4);
    }
    t_set_int(tn, "ceil_mode", c->ceil);
    if (op == EM_OP_AVERAGEPOOL) {
        t_set_int(tn, "count_include_pad", c->cip);
    }
}

/* Runs node over x (dims xd, rank r) into outputs of dims yd through the reference and k. */
static void check_one(const em_kernel *k, const t_node *tn, const char *name, float *x,
                      const int64_t *xd, const int64_t *yd, int rank, em_threadpool *pool,
                      double atol, double rtol)
{
    int64_t ny = t_numel(yd, rank);
    float *ref = t_f32(ny), *got = t_f32(ny), *par = t_f32(ny);
    em_tensor in[1], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, rank, xd, x);
    t_tensor(&out[0], EMBER_DTYPE_F32, rank, yd, ref);
    t_expect_ok(kt_run(t_kernel(tn->n.op, EMBER_DTYPE_UNDEFINED), &tn->n, in, 1, out, 1, 0, NULL), name);
    kt_fill_nan(got, ny);
    out[0].data = got;
    t_expect_ok(kt_run(k, &tn->n, in, 1, out, 1, 0, NULL), name);
    kt_check(name, k->name, 0, got, ref, ny, atol, rtol);
    kt_fill_nan(par, ny);
    out[0].data = par;
    t_expect_ok(kt_run(k, &tn->n, in, 1, out, 1, 0, pool), name);
    kt_check_same(name, k->name, "2-thread result", got, par, ny);
    test_free(ref);
    test_free(got);
    test_free(par);
}

/* clang-format off */
static const px_case fixed[] = {
    /* n  c   h    w   kh kw sh sw dh dw pads          ceil auto_pad      cip */
    {1, 64, 112, 112, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, 0, NULL, 0},          /* resnet's stem */
    {2, 3,  17,  45,  3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 0, NULL, 1},
    {1, 5,  16,  33,  2, 2, 2, 2, 1, 1, {0, 0, 0, 0}, 1, NULL, 0},
    {1, 2,  13,  37,  5, 3, 3, 3, 2, 1, {2, 0, 1, 2}, 1, NULL, 1},
    {1, 4,  19,  50,  3, 5, 1, 2, 2, 2, {0, 3, 2, 1}, 0, NULL, 0},
    {1, 3,  9,   31,  4, 4, 2, 2, 1, 1, {0, 0, 0, 0}, 0, "SAME_UPPER", 0},
    {1, 3,  10,  29,  3, 4, 3, 1, 1, 1, {0, 0, 0, 0}, 0, "SAME_LOWER", 1},
    {1, 2,  11,  40,  3, 3, 2, 2, 1, 1, {0, 0, 0, 0}, 1, "VALID", 0},
    {1, 2,  8,   24,  7, 1, 1, 1, 1, 1, {3, 0, 3, 0}, 0, NULL, 1},
    {1, 1,  5,   5,   2, 2, 1, 1, 3, 3, {3, 3, 3, 3}, 0, NULL, 0},          /* empty windows */
    {1, 3,  1,   1,   1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 0, NULL, 0},
};
/* clang-format on */

static void run_windowed(em_op op, const char *suffix)
{
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(op, suffix, ks, KT_MAX_KERNELS);
    if (nk == 0 || !kt_isa_ok(ks[0])) {
        skip();
    }
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    size_t nf = sizeof fixed / sizeof fixed[0];
    for (size_t ci = 0; ci < nf + 60; ci++) {
        px_case c;
        if (ci < nf) {
            c = fixed[ci];
        } else { /* the sweep: sizes and windows rotate */
            uint64_t q = ci * 2654435761u;
            c = (px_case){1, 1 + (int64_t)(q % 3), 3 + (int64_t)(ci % 23), 5 + (int64_t)((ci * 7) % 41),
                          1 + (int64_t)(q % 4), 1 + (int64_t)((q >> 3) % 4), 1 + (int64_t)((q >> 5) % 3),
                          1 + (int64_t)((q >> 7) % 3), 1 + (int64_t)((q >> 9) % 2), 1 + (int64_t)((q >> 10) % 2),
                          {0, 0, 0, 0}, (int)((q >> 11) & 1), NULL, (int)((q >> 12) & 1)};
            c.pads[0] = (int64_t)((q >> 13) % (uint64_t)c.kh);
            c.pads[1] = (int64_t)((q >> 15) % (uint64_t)c.kw);
            c.pads[2] = (int64_t)((q >> 17) % (uint64_t)c.kh);
            c.pads[3] = (int64_t)((q >> 19) % (uint64_t)c.kw);
            if ((c.kh - 1) * c.dh + 1 > c.h + c.pads[0] + c.pads[2] ||
                (c.kw - 1) * c.dw + 1 > c.w + c.pads[1] + c.pads[3]) {
                continue;
            }
        }
        char name[128];
        snprintf(name, sizeof name, "%s_%lldx%lldx%lldx%lld_k%lldx%lld_s%lldx%lld_d%lldx%lld_p%lld%lld%lld%lld_c%d_%s_cip%d",
                 em_op_name(op), (long long)c.n, (long long)c.c, (long long)c.h, (long long)c.w,
                 (long long)c.kh, (long long)c.kw, (long long)c.sh, (long long)c.sw, (long long)c.dh,
                 (long long)c.dw, (long long)c.pads[0], (long long)c.pads[1], (long long)c.pads[2],
                 (long long)c.pads[3], c.ceil, c.auto_pad != NULL ? c.auto_pad : "", c.cip);
        int64_t xd[4] = {c.n, c.c, c.h, c.w}, yd[4] = {c.n, c.c, out_dim(&c, 0), out_dim(&c, 1)};
        int64_t nx = t_numel(xd, 4);
        float *x = t_random_f32(nx, 40 + ci, -3.0f, 3.0f);
        if (op == EM_OP_MAXPOOL && nx > 10) {
            x[nx / 3] = NAN;
            x[nx / 2] = -INFINITY;
        }
        t_node tn;
        set_attrs(&tn, op, &c);
        check_one(ks[0], &tn, name, x, xd, yd, 4, pool, 1e-6, 1e-5);
        test_free(x);
    }
    em_threadpool_destroy(pool);
}

static void test_maxpool(void **state)
{
    run_windowed(EM_OP_MAXPOOL, *state);
}
static void test_avgpool(void **state)
{
    run_windowed(EM_OP_AVERAGEPOOL, *state);
}

static void run_global(em_op op, const char *suffix)
{
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(op, suffix, ks, KT_MAX_KERNELS);
    if (nk == 0 || !kt_isa_ok(ks[0])) {
        skip();
    }
    static const int64_t shapes[][5] = {{1, 3, 1, 0, 0},   {2, 5, 7, 0, 0},   {1, 64, 7, 7, 0},
                                        {1, 9, 15, 17, 0}, {2, 3, 4, 5, 6},   {1, 1, 65, 0, 0},
                                        {1, 2, 100, 101, 0}, {1, 1280, 7, 7, 0}};
    static const int ranks[] = {3, 3, 4, 4, 5, 3, 4, 4};
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    for (size_t si = 0; si < sizeof ranks / sizeof ranks[0]; si++) {
        int r = ranks[si];
        int64_t yd[5];
        for (int d = 0; d < r; d++) {
            yd[d] = d < 2 ? shapes[si][d] : 1;
        }
        int64_t nx = t_numel(shapes[si], r);
        float *x = t_random_f32(nx, 90 + si, -2.0f, 4.0f);
        if (op == EM_OP_GLOBALMAXPOOL && nx > 40) {
            x[nx - 3] = NAN; /* in the tail or a vector: the plane's maximum is NaN */
            x[5] = NAN;
        }
        t_node tn;
        t_node_init(&tn, op, "gpool");
        char name[64];
        snprintf(name, sizeof name, "%s_shape%zu", em_op_name(op), si);
        check_one(ks[0], &tn, name, x, shapes[si], yd, r, pool, 1e-6, 1e-5);
        test_free(x);
    }
    em_threadpool_destroy(pool);
}

static void test_gmax(void **state)
{
    run_global(EM_OP_GLOBALMAXPOOL, *state);
}
static void test_gavg(void **state)
{
    run_global(EM_OP_GLOBALAVERAGEPOOL, *state);
}

static void test_declines(void **state)
{
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(EM_OP_MAXPOOL, *state, ks, KT_MAX_KERNELS);
    if (nk == 0 || !kt_isa_ok(ks[0])) {
        skip();
    }
    px_case c = fixed[1];
    t_node tn;
    set_attrs(&tn, EM_OP_MAXPOOL, &c);
    int64_t xd[4] = {c.n, c.c, c.h, c.w}, yd[4] = {c.n, c.c, c.h, c.w};
    float buf[4] = {0};
    em_tensor in[1], out[2];
    t_tensor(&in[0], EMBER_DTYPE_F32, 4, xd, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 4, yd, buf);
    t_tensor(&out[1], EMBER_DTYPE_I64, 4, yd, buf);
    t_expect_error(kt_run(ks[0], &tn.n, in, 1, out, 2, 0, NULL), EMBER_ERR_UNSUPPORTED, "pool",
                   "indices");
    t_tensor(&in[0], EMBER_DTYPE_F32, 3, xd, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 3, yd, buf);
    t_expect_error(kt_run(ks[0], &tn.n, in, 1, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "pool",
                   "1-d");
    t_tensor(&in[0], EMBER_DTYPE_F64, 4, xd, buf);
    t_tensor(&out[0], EMBER_DTYPE_F64, 4, yd, buf);
    t_expect_error(kt_run(ks[0], &tn.n, in, 1, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "pool",
                   "f64");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KT_TEST(test_maxpool, "__avx2"),  KT_TEST(test_maxpool, "__avx512"),
        KT_TEST(test_avgpool, "__avx2"),  KT_TEST(test_avgpool, "__avx512"),
        KT_TEST(test_gmax, "__avx2"),     KT_TEST(test_gmax, "__avx512"),
        KT_TEST(test_gavg, "__avx2"),     KT_TEST(test_gavg, "__avx512"),
        KT_TEST(test_declines, "__avx2"), KT_TEST(test_declines, "__avx512"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
