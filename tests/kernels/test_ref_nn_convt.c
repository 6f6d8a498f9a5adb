/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/nn_convt_ref.c: ConvTranspose against a naive scatter written here in double
 * (the kernel gathers): every input element adds x * w to the output positions
 * i * stride - pad_begin + t * dilation it reaches. The test works out pads and output sizes
 * from the ONNX formulas itself (explicit pads, output_padding, output_shape with positive and
 * negative total padding, SAME_UPPER, SAME_LOWER, VALID). Cases: 1-D, 2-D, 3-D, groups,
 * dilations, odd sizes, with and without bias, f32 / f64 / f16, a threaded run equal to the
 * serial one, one conformance vector, and malformed or declined nodes.
 */
#include "test_ref_util.h"

#include <stdio.h>

typedef struct convt_case {
    const char *name;
    int n_sp;
    int64_t n, c, m, group;
    int64_t in[3], k[3];
    int64_t stride[3], dil[3], opad[3]; /* all zero: attribute absent */
    int64_t pads[6];
    bool has_pads;
    int64_t oshape[3]; /* all zero: attribute absent */
    const char *auto_pad;
    bool bias;
    ember_dtype dt;
    uint64_t seed;
} convt_case;

#define F32 EMBER_DTYPE_F32
#define F64 EMBER_DTYPE_F64
#define F16 EMBER_DTYPE_F16

/* clang-format off */
static const convt_case convt_cases[] = {
    {"c2d_basic", 2, 1, 1, 2, 1, {3, 3}, {3, 3}, {0}, {0}, {0}, {0}, false, {0}, NULL, false, F32, 1},
    {"c2d_stride_bias", 2, 2, 3, 4, 1, {5, 4}, {3, 2}, {2, 3}, {0}, {0}, {0}, false, {0}, NULL, true,
     F32, 2},
    {"c2d_pads_opad", 2, 1, 2, 3, 1, {4, 5}, {3, 3}, {3, 2}, {0}, {1, 1}, {1, 2, 1, 0}, true, {0},
     NULL, true, F32, 3},
    {"c2d_dilation", 2, 1, 2, 2, 1, {4, 3}, {2, 3}, {0}, {2, 2}, {0}, {0}, false, {0}, NULL, false,
     F32, 4},
    {"c2d_group", 2, 2, 4, 6, 2, {3, 4}, {3, 3}, {2, 1}, {0}, {0}, {1, 0, 0, 1}, true, {0}, NULL,
     true, F32, 5},
    {"c2d_depthwise", 2, 1, 3, 3, 3, {5, 5}, {3, 3}, {2, 2}, {1, 2}, {1, 0}, {0}, false, {0}, NULL,
     true, F32, 6},
    {"c2d_oshape_grow", 2, 1, 1, 2, 1, {3, 3}, {3, 3}, {3, 2}, {0}, {0}, {0}, false, {10, 8}, NULL,
     false, F32, 7},
    {"c2d_oshape_crop", 2, 1, 2, 2, 1, {4, 4}, {3, 3}, {2, 2}, {0}, {0}, {0}, false, {6, 7}, NULL,
     true, F32, 8},
    {"c2d_oshape_upper", 2, 1, 2, 2, 1, {4, 4}, {3, 3}, {2, 2}, {0}, {0}, {0}, false, {6, 7},
     "SAME_UPPER", true, F32, 9},
    {"c2d_same_upper", 2, 1, 1, 2, 1, {3, 3}, {3, 3}, {2, 2}, {0}, {0}, {0}, false, {0},
     "SAME_UPPER", false, F32, 10},
    {"c2d_same_lower", 2, 1, 2, 3, 1, {3, 4}, {4, 3}, {2, 3}, {0}, {0}, {0}, false, {0},
     "SAME_LOWER", true, F32, 11},
    {"c2d_valid", 2, 1, 2, 2, 1, {3, 4}, {2, 3}, {2, 2}, {0}, {0}, {0}, false, {0}, "VALID", true,
     F32, 12},
    {"c1d", 1, 2, 3, 2, 1, {7}, {3}, {3}, {2}, {2}, {2, 1}, true, {0}, NULL, true, F32, 13},
    {"c3d", 3, 1, 2, 2, 2, {3, 4, 5}, {3, 2, 3}, {1, 2, 2}, {0}, {0}, {1, 0, 1, 0, 1, 1}, true, {0},
     NULL, true, F32, 14},
    {"c2d_f64", 2, 1, 3, 2, 1, {5, 6}, {3, 3}, {2, 2}, {0}, {1, 1}, {1, 1, 1, 1}, true, {0}, NULL,
     true, F64, 15},
    {"c2d_f16", 2, 1, 2, 2, 1, {4, 4}, {3, 3}, {2, 2}, {0}, {0}, {0}, false, {0}, NULL, true, F16,
     16},
    {"c2d_zero_batch", 2, 0, 2, 2, 1, {4, 4}, {3, 3}, {0}, {0}, {0}, {0}, false, {0}, NULL, true,
     F32, 17},
    {"c2d_big", 2, 2, 8, 8, 2, {9, 11}, {3, 3}, {2, 2}, {0}, {1, 1}, {1, 1, 1, 1}, true, {0}, NULL,
     true, F32, 18},
};
/* clang-format on */

typedef struct convt_geom {
    int64_t in[3], k[3], s[3], d[3], pb[3], out[3];
} convt_geom;

static int64_t floor_div2(int64_t v)
{
    return (int64_t)floor((double)v / 2.0);
}

static void convt_geometry(const convt_case *c, convt_geom *g)
{
    bool same = c->auto_pad != NULL && strncmp(c->auto_pad, "SAME", 4) == 0;
    bool upper = c->auto_pad != NULL && strcmp(c->auto_pad, "SAME_UPPER") == 0;
    bool valid = c->auto_pad != NULL && strcmp(c->auto_pad, "VALID") == 0;
    for (int i = 0; i < 3; i++) {
        bool sp = i < c->n_sp;
        g->in[i] = sp ? c->in[i] : 1;
        g->k[i] = sp ? c->k[i] : 1;
        g->s[i] = sp && c->stride[0] != 0 ? c->stride[i] : 1;
        g->d[i] = sp && c->dil[0] != 0 ? c->dil[i] : 1;
        int64_t op = sp && c->opad[0] != 0 ? c->opad[i] : 0;
        int64_t pb = sp && c->has_pads && !valid ? c->pads[i] : 0;
        int64_t pe = sp && c->has_pads && !valid ? c->pads[c->n_sp + i] : 0;
        int64_t full = g->s[i] * (g->in[i] - 1) + op + (g->k[i] - 1) * g->d[i] + 1;
        if (sp && (c->oshape[0] != 0 || same)) {
            g->out[i] = c->oshape[0] != 0 ? c->oshape[i] : g->in[i] * g->s[i];
            int64_t total = full - g->out[i];
            g->pb[i] = upper ? floor_div2(total) : total - floor_div2(total);
        } else {
            g->pb[i] = pb;
            g->out[i] = full - pb - pe;
        }
    }
}

/* Scatter form, every element in double. */
static void convt_naive(const convt_case *c, const convt_geom *g, const double *x, const double *w,
                        const double *b, double *y)
{
    int64_t mg = c->m / c->group, cg = c->c / c->group;
    int64_t in_plane = g->in[0] * g->in[1] * g->in[2],
            out_plane = g->out[0] * g->out[1] * g->out[2];
    int64_t k_plane = g->k[0] * g->k[1] * g->k[2];
    for (int64_t n = 0; n < c->n; n++) {
        for (int64_t m = 0; m < c->m; m++) {
            for (int64_t o = 0; o < out_plane; o++) {
                y[(n * c->m + m) * out_plane + o] = b != NULL ? b[m] : 0.0;
            }
        }
        for (int64_t ch = 0; ch < c->c; ch++) {
            int64_t grp = ch / cg;
            for (int64_t i = 0; i < in_plane; i++) {
                int64_t ii[3] = {i / (g->in[1] * g->in[2]), i / g->in[2] % g->in[1], i % g->in[2]};
                for (int64_t t = 0; t < k_plane; t++) {
                    int64_t tt[3] = {t / (g->k[1] * g->k[2]), t / g->k[2] % g->k[1], t % g->k[2]};
                    int64_t o[3];
                    bool inside = true;
                    for (int a = 0; a < 3; a++) {
                        o[a] = ii[a] * g->s[a] - g->pb[a] + tt[a] * g->d[a];
                        inside = inside && o[a] >= 0 && o[a] < g->out[a];
                    }
                    if (!inside) {
                        continue;
                    }
                    for (int64_t j = 0; j < mg; j++) {
                        int64_t m = grp * mg + j;
                        y[(n * c->m + m) * out_plane + (o[0] * g->out[1] + o[1]) * g->out[2] +
                          o[2]] +=
                            x[(n * c->c + ch) * in_plane + i] * w[(ch * mg + j) * k_plane + t];
                    }
                }
            }
        }
    }
}

static void convt_node(const convt_case *c, t_node *tn)
{
    t_node_init(tn, EM_OP_CONVTRANSPOSE, c->name);
    if (c->group != 1) {
        t_set_int(tn, "group", c->group);
    }
    if (c->stride[0] != 0) {
        t_set_ints(tn, "strides", c->stride, c->n_sp);
    }
    if (c->dil[0] != 0) {
        t_set_ints(tn, "dilations", c->dil, c->n_sp);
    }
    if (c->opad[0] != 0) {
        t_set_ints(tn, "output_padding", c->opad, c->n_sp);
    }
    if (c->has_pads) {
        t_set_ints(tn, "pads", c->pads, 2 * c->n_sp);
    }
    if (c->oshape[0] != 0) {
        t_set_ints(tn, "output_shape", c->oshape, c->n_sp);
    }
    if (c->auto_pad != NULL) {
        t_set_string(tn, "auto_pad", c->auto_pad);
    }
    if (c->seed % 2 == 0) {
        t_set_ints(tn, "kernel_shape", c->k, c->n_sp);
    }
}

/* n random values in [-2, 2] rounded to the dtype, as doubles and in the dtype's bytes. */
static void *convt_values(ember_dtype dt, int64_t n, uint64_t seed, double *dv)
{
    float *f = t_random_f32(n, seed, -2.0f, 2.0f);
    void *p = test_calloc((size_t)(n > 0 ? n : 1), em_dtype_size(dt));
    for (int64_t i = 0; i < n; i++) {
        em_tref_set(dt, p, i, f[i]);
        dv[i] = em_tref_get(dt, p, i);
    }
    test_free(f);
    return p;
}

static void *convt_check(const convt_case *c, em_threadpool *pool, int64_t *ny_out)
{
    convt_geom g;
    convt_geometry(c, &g);
    int rank = c->n_sp + 2;
    int64_t xd[5] = {c->n, c->c}, wd[5] = {c->c, c->m / c->group}, yd[5] = {c->n, c->m};
    for (int i = 0; i < c->n_sp; i++) {
        xd[2 + i] = c->in[i];
        wd[2 + i] = c->k[i];
        yd[2 + i] = g.out[i];
    }
    int64_t nx = t_numel(xd, rank), nw = t_numel(wd, rank), ny = t_numel(yd, rank);
    double *xv = t_f64(nx), *wv = t_f64(nw), *bv = t_f64(c->m), *ref = t_f64(ny);
    void *x = convt_values(c->dt, nx, c->seed, xv), *w = convt_values(c->dt, nw, c->seed + 100, wv);
    void *b = convt_values(c->dt, c->m, c->seed + 200, bv);
    void *y = test_calloc((size_t)(ny > 0 ? ny : 1), em_dtype_size(c->dt));
    em_tensor in[3], out[1];
    t_tensor(&in[0], c->dt, rank, xd, x);
    t_tensor(&in[1], c->dt, rank, wd, w);
    t_tensor(&in[2], c->dt, 1, &c->m, b);
    t_tensor(&out[0], c->dt, rank, yd, y);
    t_node tn;
    convt_node(c, &tn);
    const em_kernel *k = t_kernel(EM_OP_CONVTRANSPOSE, EMBER_DTYPE_UNDEFINED);
    t_expect_ok(t_run(k, &tn.n, in, c->bias ? 3 : 2, out, 1, pool), c->name);
    convt_naive(c, &g, xv, wv, c->bias ? bv : NULL, ref);
    double tol = c->dt == F16 ? 1e-2 : 1e-5;
    for (int64_t i = 0; i < ny; i++) {
        double got = em_tref_get(c->dt, y, i);
        if (!t_close(got, ref[i], tol, tol)) {
            fail_msg("case %s: index %lld: got %.9g, expected %.9g", c->name, (long long)i, got,
                     ref[i]);
        }
    }
    test_free(x);
    test_free(w);
    test_free(b);
    test_free(xv);
    test_free(wv);
    test_free(bv);
    test_free(ref);
    *ny_out = ny * (int64_t)em_dtype_size(c->dt);
    return y;
}

static void test_convt_cases(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t i = 0; i < sizeof convt_cases / sizeof convt_cases[0]; i++) {
        int64_t bytes;
        void *serial = convt_check(&convt_cases[i], NULL, &bytes);
        void *threaded = convt_check(&convt_cases[i], pool, &bytes);
        assert_memory_equal(serial, threaded, (size_t)(bytes > 0 ? bytes : 1));
        test_free(serial);
        test_free(threaded);
    }
    em_threadpool_destroy(pool);
}

/* Sizes that pin the pad rules down, independent of the naive geometry. */
static void test_convt_sizes(void **state)
{
    (void)state;
    convt_geom g;
    convt_geometry(&convt_cases[6], &g); /* output_shape 10 from a natural 9: grows at the end */
    assert_int_equal(g.out[0], 10);
    assert_int_equal(g.pb[0], 0);
    convt_geometry(&convt_cases[9], &g); /* SAME_UPPER in 3 s 2 k 3: out 6, total 1 -> (0, 1) */
    assert_int_equal(g.out[0], 6);
    assert_int_equal(g.pb[0], 0);
    convt_geometry(&convt_cases[10], &g); /* SAME_LOWER in 3 s 2 k 4: out 6, total 2 -> (1, 1) */
    assert_int_equal(g.out[0], 6);
    assert_int_equal(g.pb[0], 1);
}

/* ONNX's test_convtranspose_1d: x [0 1 2], w two rows of ones -> [0 1 3 3 2] twice. */
static void test_convt_conformance_1d(void **state)
{
    (void)state;
    static const int64_t xd[3] = {1, 1, 3}, wd[3] = {1, 2, 3}, yd[3] = {1, 2, 5};
    float x[3] = {0, 1, 2}, w[6] = {1, 1, 1, 1, 1, 1}, y[10];
    static const double ref[10] = {0, 1, 3, 3, 2, 0, 1, 3, 3, 2};
    em_tensor in[2], out[1];
    t_tensor(&in[0], F32, 3, xd, x);
    t_tensor(&in[1], F32, 3, wd, w);
    t_tensor(&out[0], F32, 3, yd, y);
    t_node tn;
    t_node_init(&tn, EM_OP_CONVTRANSPOSE, "convt_1d");
    t_expect_ok(
        t_run(t_kernel(EM_OP_CONVTRANSPOSE, EMBER_DTYPE_UNDEFINED), &tn.n, in, 2, out, 1, NULL),
        "convt_1d");
    t_check_f32("convt_1d", y, ref, 10, 0.0, 0.0);
}

typedef struct convt_bad {
    const char *name;
    ember_code code;
    ember_dtype dt;
    int rank_x, rank_w;
    int64_t xd[4], wd[4], yd[4];
    int64_t bias_len; /* 0: no bias */
    const char *attr;
} convt_bad;

/* clang-format off */
static const convt_bad convt_bads[] = {
    {"ct_i32", EMBER_ERR_UNSUPPORTED, EMBER_DTYPE_I32, 4, 4, {1, 1, 3, 3}, {1, 1, 3, 3},
     {1, 1, 5, 5}, 0, NULL},
    {"ct_rank2", EMBER_ERR_INVALID_MODEL, F32, 2, 2, {1, 3}, {1, 3}, {1, 3}, 0, NULL},
    {"ct_w_rank", EMBER_ERR_INVALID_MODEL, F32, 4, 3, {1, 1, 3, 3}, {1, 1, 3}, {1, 1, 5, 5}, 0,
     NULL},
    {"ct_w_channels", EMBER_ERR_INVALID_MODEL, F32, 4, 4, {1, 2, 3, 3}, {1, 1, 3, 3},
     {1, 1, 5, 5}, 0, NULL},
    {"ct_group", EMBER_ERR_INVALID_MODEL, F32, 4, 4, {1, 3, 3, 3}, {3, 1, 3, 3}, {1, 2, 5, 5}, 0,
     "group2"},
    {"ct_bad_y", EMBER_ERR_INVALID_MODEL, F32, 4, 4, {1, 1, 3, 3}, {1, 1, 3, 3}, {1, 1, 5, 6}, 0,
     NULL},
    {"ct_bias_len", EMBER_ERR_INVALID_MODEL, F32, 4, 4, {1, 1, 3, 3}, {1, 2, 3, 3},
     {1, 2, 5, 5}, 3, NULL},
    {"ct_kernel_shape", EMBER_ERR_INVALID_MODEL, F32, 4, 4, {1, 1, 3, 3}, {1, 1, 3, 3},
     {1, 1, 5, 5}, 0, "kernel"},
    {"ct_auto_pad", EMBER_ERR_INVALID_MODEL, F32, 4, 4, {1, 1, 3, 3}, {1, 1, 3, 3},
     {1, 1, 5, 5}, 0, "auto_pad"},
    {"ct_stride0", EMBER_ERR_INVALID_MODEL, F32, 4, 4, {1, 1, 3, 3}, {1, 1, 3, 3},
     {1, 1, 5, 5}, 0, "stride0"},
    {"ct_oshape_len", EMBER_ERR_INVALID_MODEL, F32, 4, 4, {1, 1, 3, 3}, {1, 1, 3, 3},
     {1, 1, 5, 5}, 0, "oshape"},
    {"ct_w_dtype", EMBER_ERR_INVALID_MODEL, F32, 4, 4, {1, 1, 3, 3}, {1, 1, 3, 3},
     {1, 1, 5, 5}, 0, "w_f64"},
};
/* clang-format on */

static void convt_bad_attrs(t_node *tn, const char *a)
{
    static const int64_t k[2] = {2, 3}, s0[2] = {1, 0}, os[3] = {5, 5, 5};
    if (strcmp(a, "group2") == 0) {
        t_set_int(tn, "group", 2);
    } else if (strcmp(a, "kernel") == 0) {
        t_set_ints(tn, "kernel_shape", k, 2);
    } else if (strcmp(a, "auto_pad") == 0) {
        t_set_string(tn, "auto_pad", "SAME");
    } else if (strcmp(a, "stride0") == 0) {
        t_set_ints(tn, "strides", s0, 2);
    } else if (strcmp(a, "oshape") == 0) {
        t_set_ints(tn, "output_shape", os, 3);
    }
}

static void test_convt_errors(void **state)
{
    (void)state;
    double buf[256] = {0};
    for (size_t i = 0; i < sizeof convt_bads / sizeof convt_bads[0]; i++) {
        const convt_bad *c = &convt_bads[i];
        const char *a = c->attr != NULL ? c->attr : "";
        em_tensor in[3], out[1];
        t_tensor(&in[0], c->dt, c->rank_x, c->xd, buf);
        t_tensor(&in[1], strcmp(a, "w_f64") == 0 ? F64 : c->dt, c->rank_w, c->wd, buf);
        t_tensor(&in[2], c->dt, 1, &c->bias_len, buf);
        t_tensor(&out[0], c->dt, c->rank_x, c->yd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_CONVTRANSPOSE, c->name);
        convt_bad_attrs(&tn, a);
        const em_kernel *k = t_kernel(EM_OP_CONVTRANSPOSE, EMBER_DTYPE_UNDEFINED);
        t_expect_error(t_run(k, &tn.n, in, c->bias_len > 0 ? 3 : 2, out, 1, NULL), c->code, c->name,
                       c->name);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_convt_cases),
        cmocka_unit_test(test_convt_sizes),
        cmocka_unit_test(test_convt_conformance_1d),
        cmocka_unit_test(test_convt_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
