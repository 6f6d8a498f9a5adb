/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/nn_conv_ref.c: Conv f32 against a naive convolution written here in double. The
 * naive version treats every case as 3-D (missing spatial axes have size 1) and works out
 * pads and output sizes itself from the ONNX formulas, bounds-checking every tap. Cases
 * cover 1-D, 2-D and 3-D, odd sizes, pads (symmetric and not), strides, dilations, groups,
 * depthwise, every auto_pad, kernel_shape given or inferred, with and without bias, a zero
 * batch, a threaded run that must match the serial one bit for bit, and malformed nodes.
 */
#include "test_ref_util.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct conv_case {
    const char *name;
    int n_sp;
    int64_t n, c, m, group;
    int64_t in[3], k[3];
    int64_t stride[3]; /* all zero: attribute absent (default 1) */
    int64_t dil[3];    /* all zero: attribute absent */
    int64_t pads[6];   /* begin..., end... when has_pads */
    bool has_pads;
    const char *auto_pad; /* NULL: attribute absent */
    bool bias;
    bool kernel_shape_attr;
    uint64_t seed;
} conv_case;

/* clang-format off */
static const conv_case conv_cases[] = {
    {"2d_k3_plain", 2, 1, 3, 2, 1, {7, 7}, {3, 3}, {0}, {0}, {0}, false, NULL, true, false, 1},
    {"2d_pad1_batch2", 2, 2, 3, 4, 1, {9, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true, NULL,
     true, false, 2},
    {"2d_stride2_asym_pads", 2, 1, 2, 3, 1, {17, 7}, {3, 3}, {2, 2}, {0}, {0, 1, 1, 2}, true,
     NULL, true, true, 3},
    {"2d_dilation2", 2, 1, 3, 5, 1, {9, 9}, {3, 3}, {0}, {2, 2}, {2, 2, 2, 2}, true, NULL, false,
     false, 4},
    {"2d_dilation_stride_mixed", 2, 1, 2, 2, 1, {13, 10}, {2, 3}, {3, 1}, {2, 3}, {1, 0, 2, 1},
     true, NULL, true, false, 5},
    {"2d_group3", 2, 1, 6, 9, 3, {7, 5}, {3, 3}, {0}, {0}, {1, 1, 1, 1}, true, NULL, true, false,
     6},
    {"2d_depthwise", 2, 2, 7, 7, 7, {9, 8}, {3, 3}, {2, 2}, {0}, {1, 1, 1, 1}, true, NULL, true,
     false, 7},
    {"2d_depthwise_mult2", 2, 1, 4, 8, 4, {6, 6}, {3, 3}, {0}, {0}, {1, 1, 1, 1}, true, NULL,
     false, false, 8},
    {"2d_pointwise", 2, 1, 17, 3, 1, {5, 5}, {1, 1}, {0}, {0}, {0}, false, NULL, true, false, 9},
    {"2d_rect_kernel", 2, 1, 3, 2, 1, {4, 9}, {1, 5}, {0}, {0}, {0, 2, 0, 2}, true, NULL, true,
     true, 10},
    {"2d_kernel_bigger_than_input", 2, 1, 1, 2, 1, {2, 2}, {3, 3}, {0}, {0}, {1, 1, 1, 1}, true,
     NULL, true, false, 11},
    {"2d_same_upper_s2", 2, 1, 3, 2, 1, {7, 8}, {3, 3}, {2, 2}, {0}, {0}, false, "SAME_UPPER",
     true, false, 12},
    {"2d_same_lower_k4", 2, 1, 2, 3, 1, {7, 8}, {4, 4}, {2, 1}, {0}, {0}, false, "SAME_LOWER",
     true, false, 13},
    {"2d_same_upper_k4", 2, 1, 2, 3, 1, {7, 8}, {4, 4}, {2, 1}, {0}, {0}, false, "SAME_UPPER",
     true, false, 14},
    {"2d_same_upper_dil2", 2, 1, 2, 2, 1, {6, 7}, {3, 2}, {0}, {2, 2}, {0}, false, "SAME_UPPER",
     false, false, 15},
    {"2d_valid_s2", 2, 1, 3, 4, 1, {9, 7}, {3, 3}, {2, 2}, {0}, {0}, false, "VALID", true, false,
     16},
    {"2d_notset_explicit", 2, 1, 2, 2, 1, {5, 5}, {3, 3}, {1, 1}, {1, 1}, {1, 0, 0, 1}, true,
     "NOTSET", true, false, 17},
    {"2d_zero_batch", 2, 0, 3, 2, 1, {7, 7}, {3, 3}, {0}, {0}, {0}, false, NULL, true, false, 18},
    {"1d", 1, 2, 3, 5, 1, {17}, {3}, {2}, {2}, {1, 1}, true, NULL, true, false, 19},
    {"1d_depthwise_same", 1, 1, 4, 4, 4, {7}, {4}, {0}, {0}, {0}, false, "SAME_LOWER", true,
     false, 20},
    {"3d", 3, 1, 2, 3, 1, {5, 6, 7}, {3, 2, 3}, {1, 2, 1}, {0}, {1, 0, 1, 1, 1, 0}, true, NULL,
     true, true, 21},
    {"3d_group2_dil", 3, 2, 4, 2, 2, {4, 5, 3}, {2, 2, 2}, {0}, {2, 1, 1}, {0}, false, NULL,
     false, false, 22},
    {"2d_mnist_like", 2, 2, 8, 16, 1, {14, 14}, {5, 5}, {1, 1}, {0}, {2, 2, 2, 2}, true, NULL,
     true, false, 23},
};
/* clang-format on */

/* Geometry of one case, everything as 3-D. */
typedef struct conv_geom {
    int64_t in[3], k[3], s[3], d[3], pb[3], out[3];
} conv_geom;

static void conv_geometry(const conv_case *c, conv_geom *g)
{
    for (int i = 0; i < 3; i++) {
        bool sp = i < c->n_sp;
        g->in[i] = sp ? c->in[i] : 1;
        g->k[i] = sp ? c->k[i] : 1;
        g->s[i] = sp && c->stride[0] != 0 ? c->stride[i] : 1;
        g->d[i] = sp && c->dil[0] != 0 ? c->dil[i] : 1;
        int64_t pb = sp && c->has_pads ? c->pads[i] : 0;
        int64_t pe = sp && c->has_pads ? c->pads[c->n_sp + i] : 0;
        int64_t ext = (g->k[i] - 1) * g->d[i] + 1;
        bool same = c->auto_pad != NULL && strncmp(c->auto_pad, "SAME", 4) == 0;
        if (sp && same) {
            g->out[i] = (g->in[i] + g->s[i] - 1) / g->s[i];
            int64_t total = (g->out[i] - 1) * g->s[i] + ext - g->in[i];
            total = total < 0 ? 0 : total;
            /* SAME_UPPER puts the odd padding at the end, SAME_LOWER at the beginning. */
            pb = strcmp(c->auto_pad, "SAME_UPPER") == 0 ? total / 2 : (total + 1) / 2;
        } else {
            g->out[i] = (g->in[i] + pb + pe - ext) / g->s[i] + 1;
        }
        g->pb[i] = pb;
    }
}

static void conv_naive(const conv_case *c, const conv_geom *g, const float *x, const float *w,
                       const float *b, double *y)
{
    int64_t cg = c->c / c->group, mg = c->m / c->group;
    int64_t in_plane = g->in[0] * g->in[1] * g->in[2], k_plane = g->k[0] * g->k[1] * g->k[2];
    int64_t oi = 0;
    for (int64_t n = 0; n < c->n; n++) {
        for (int64_t m = 0; m < c->m; m++) {
            int64_t grp = m / mg;
            for (int64_t o0 = 0; o0 < g->out[0]; o0++) {
                for (int64_t o1 = 0; o1 < g->out[1]; o1++) {
                    for (int64_t o2 = 0; o2 < g->out[2]; o2++) {
                        double acc = b != NULL ? b[m] : 0.0;
                        for (int64_t ic = 0; ic < cg; ic++) {
                            const float *xc = x + (n * c->c + grp * cg + ic) * in_plane;
                            const float *wc = w + (m * cg + ic) * k_plane;
                            for (int64_t k0 = 0; k0 < g->k[0]; k0++) {
                                for (int64_t k1 = 0; k1 < g->k[1]; k1++) {
                                    for (int64_t k2 = 0; k2 < g->k[2]; k2++) {
                                        int64_t i0 = o0 * g->s[0] - g->pb[0] + k0 * g->d[0];
                                        int64_t i1 = o1 * g->s[1] - g->pb[1] + k1 * g->d[1];
                                        int64_t i2 = o2 * g->s[2] - g->pb[2] + k2 * g->d[2];
                                        if (i0 < 0 || i0 >= g->in[0] || i1 < 0 || i1 >= g->in[1] ||
                                            i2 < 0 || i2 >= g->in[2]) {
                                            continue;
                                        }
                                        acc += (double)xc[(i0 * g->in[1] + i1) * g->in[2] + i2] *
                                               wc[(k0 * g->k[1] + k1) * g->k[2] + k2];
                                    }
                                }
                            }
                        }
                        y[oi++] = acc;
                    }
                }
            }
        }
    }
}

static void conv_node(const conv_case *c, t_node *tn)
{
    t_node_init(tn, EM_OP_CONV, c->name);
    if (c->group != 1) {
        t_set_int(tn, "group", c->group);
    }
    if (c->stride[0] != 0) {
        t_set_ints(tn, "strides", c->stride, c->n_sp);
    }
    if (c->dil[0] != 0) {
        t_set_ints(tn, "dilations", c->dil, c->n_sp);
    }
    if (c->has_pads) {
        t_set_ints(tn, "pads", c->pads, 2 * c->n_sp);
    }
    if (c->auto_pad != NULL) {
        t_set_string(tn, "auto_pad", c->auto_pad);
    }
    if (c->kernel_shape_attr) {
        t_set_ints(tn, "kernel_shape", c->k, c->n_sp);
    }
}

/* Runs one case with `pool` and checks it against the naive convolution; returns Y (the caller
 * frees it with test_free) when keep is true. */
static float *conv_check(const conv_case *c, em_threadpool *pool, bool keep)
{
    conv_geom g;
    conv_geometry(c, &g);
    int rank = c->n_sp + 2;
    int64_t xd[5] = {c->n, c->c}, wd[5] = {c->m, c->c / c->group}, yd[5] = {c->n, c->m};
    for (int i = 0; i < c->n_sp; i++) {
        xd[2 + i] = c->in[i];
        wd[2 + i] = c->k[i];
        yd[2 + i] = g.out[i];
    }
    int64_t nx = t_numel(xd, rank), nw = t_numel(wd, rank), ny = t_numel(yd, rank);
    float *x = t_random_f32(nx, c->seed, -1.0f, 1.0f);
    float *w = t_random_f32(nw, c->seed * 31 + 7, -1.0f, 1.0f);
    float *b = c->bias ? t_random_f32(c->m, c->seed * 17 + 3, -1.0f, 1.0f) : NULL;
    float *y = t_f32(ny);
    double *ref = t_f64(ny);
    em_tensor in[3], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, rank, xd, x);
    t_tensor(&in[1], EMBER_DTYPE_F32, rank, wd, w);
    if (b != NULL) {
        t_tensor(&in[2], EMBER_DTYPE_F32, 1, &c->m, b);
    } else {
        t_absent(&in[2]);
    }
    t_tensor(&out[0], EMBER_DTYPE_F32, rank, yd, y);
    t_node tn;
    conv_node(c, &tn);
    /* Without bias, alternate between an absent third input and only two inputs. */
    int n_in = b != NULL || c->seed % 2 == 0 ? 3 : 2;
    t_expect_ok(t_run(t_kernel(EM_OP_CONV, EMBER_DTYPE_F32), &tn.n, in, n_in, out, 1, pool),
                c->name);
    conv_naive(c, &g, x, w, b, ref);
    t_check_f32(c->name, y, ref, ny, 1e-5, 1e-4);
    test_free(x);
    test_free(w);
    test_free(b);
    test_free(ref);
    if (!keep) {
        test_free(y);
        return NULL;
    }
    return y;
}

static void test_conv_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof conv_cases / sizeof conv_cases[0]; i++) {
        conv_check(&conv_cases[i], NULL, false);
    }
}

/* The same cases on a 2-thread pool must give exactly the serial result. */
static void test_conv_threaded_matches_serial(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    static const size_t picks[] = {1, 6, 18, 20, 22};
    for (size_t p = 0; p < sizeof picks / sizeof picks[0]; p++) {
        const conv_case *c = &conv_cases[picks[p]];
        conv_geom g;
        conv_geometry(c, &g);
        int64_t ny = c->n * c->m * g.out[0] * g.out[1] * g.out[2];
        float *serial = conv_check(c, NULL, true);
        float *threaded = conv_check(c, pool, true);
        assert_memory_equal(serial, threaded, (size_t)ny * sizeof(float));
        test_free(serial);
        test_free(threaded);
    }
    em_threadpool_destroy(pool);
}

/* ---- malformed nodes ---------------------------------------------------------------------- */

typedef struct conv_bad {
    const char *name;
    ember_code code;
    int x_rank, w_rank;
    int64_t xd[4], wd[4], yd[4];
    int64_t bias_len; /* 0: no bias */
    ember_dtype w_dtype;
    const char *attr; /* one attribute to set, by name; see conv_bad_attr */
} conv_bad;

/* clang-format off */
static const conv_bad conv_bads[] = {
    {"bad_w_rank", EMBER_ERR_INVALID_MODEL, 4, 3, {1, 3, 5, 5}, {2, 3, 3}, {1, 2, 3, 3}, 0,
     EMBER_DTYPE_F32, NULL},
    {"bad_x_rank", EMBER_ERR_INVALID_MODEL, 2, 2, {1, 3}, {2, 3}, {1, 2}, 0, EMBER_DTYPE_F32,
     NULL},
    {"bad_channels", EMBER_ERR_INVALID_MODEL, 4, 4, {1, 4, 5, 5}, {2, 3, 3, 3}, {1, 2, 3, 3}, 0,
     EMBER_DTYPE_F32, NULL},
    {"bad_group", EMBER_ERR_INVALID_MODEL, 4, 4, {1, 4, 5, 5}, {3, 2, 3, 3}, {1, 3, 3, 3}, 0,
     EMBER_DTYPE_F32, "group2"},
    {"bad_bias_len", EMBER_ERR_INVALID_MODEL, 4, 4, {1, 3, 5, 5}, {2, 3, 3, 3}, {1, 2, 3, 3}, 3,
     EMBER_DTYPE_F32, NULL},
    {"bad_out_shape", EMBER_ERR_INVALID_MODEL, 4, 4, {1, 3, 5, 5}, {2, 3, 3, 3}, {1, 2, 4, 3}, 0,
     EMBER_DTYPE_F32, NULL},
    {"bad_w_dtype", EMBER_ERR_INVALID_MODEL, 4, 4, {1, 3, 5, 5}, {2, 3, 3, 3}, {1, 2, 3, 3}, 0,
     EMBER_DTYPE_F64, NULL},
    {"bad_strides_len", EMBER_ERR_INVALID_MODEL, 4, 4, {1, 3, 5, 5}, {2, 3, 3, 3}, {1, 2, 3, 3},
     0, EMBER_DTYPE_F32, "strides3"},
    {"bad_stride_zero", EMBER_ERR_INVALID_MODEL, 4, 4, {1, 3, 5, 5}, {2, 3, 3, 3}, {1, 2, 3, 3},
     0, EMBER_DTYPE_F32, "stride0"},
    {"bad_strides_type", EMBER_ERR_INVALID_MODEL, 4, 4, {1, 3, 5, 5}, {2, 3, 3, 3},
     {1, 2, 3, 3}, 0, EMBER_DTYPE_F32, "strides_int"},
    {"bad_auto_pad", EMBER_ERR_INVALID_MODEL, 4, 4, {1, 3, 5, 5}, {2, 3, 3, 3}, {1, 2, 3, 3}, 0,
     EMBER_DTYPE_F32, "auto_pad"},
    {"bad_pads_with_auto_pad", EMBER_ERR_INVALID_MODEL, 4, 4, {1, 3, 5, 5}, {2, 3, 3, 3},
     {1, 2, 5, 5}, 0, EMBER_DTYPE_F32, "pads_and_same"},
    {"bad_kernel_shape", EMBER_ERR_INVALID_MODEL, 4, 4, {1, 3, 5, 5}, {2, 3, 3, 3},
     {1, 2, 3, 3}, 0, EMBER_DTYPE_F32, "kernel_shape"},
    {"bad_kernel_too_big", EMBER_ERR_INVALID_MODEL, 4, 4, {1, 3, 2, 2}, {2, 3, 3, 3},
     {1, 2, 0, 0}, 0, EMBER_DTYPE_F32, NULL},
    {"bad_negative_pad", EMBER_ERR_INVALID_MODEL, 4, 4, {1, 3, 5, 5}, {2, 3, 3, 3},
     {1, 2, 3, 3}, 0, EMBER_DTYPE_F32, "negative_pad"},
};
/* clang-format on */

static void conv_bad_attr(t_node *tn, const char *attr)
{
    static const int64_t three[3] = {1, 1, 1}, zero_stride[2] = {1, 0}, ks[2] = {3, 2};
    static const int64_t pads[4] = {1, 1, 1, 1}, neg_pads[4] = {0, -1, 0, 0};
    if (attr == NULL) {
        return;
    }
    if (strcmp(attr, "group2") == 0) {
        t_set_int(tn, "group", 2);
    } else if (strcmp(attr, "strides3") == 0) {
        t_set_ints(tn, "strides", three, 3);
    } else if (strcmp(attr, "stride0") == 0) {
        t_set_ints(tn, "strides", zero_stride, 2);
    } else if (strcmp(attr, "strides_int") == 0) {
        t_set_int(tn, "strides", 1);
    } else if (strcmp(attr, "auto_pad") == 0) {
        t_set_string(tn, "auto_pad", "SAME");
    } else if (strcmp(attr, "pads_and_same") == 0) {
        t_set_string(tn, "auto_pad", "SAME_UPPER");
        t_set_ints(tn, "pads", pads, 4);
    } else if (strcmp(attr, "kernel_shape") == 0) {
        t_set_ints(tn, "kernel_shape", ks, 2);
    } else if (strcmp(attr, "negative_pad") == 0) {
        t_set_ints(tn, "pads", neg_pads, 4);
    }
}

static void test_conv_errors(void **state)
{
    (void)state;
    float buf[256] = {0};
    for (size_t i = 0; i < sizeof conv_bads / sizeof conv_bads[0]; i++) {
        const conv_bad *c = &conv_bads[i];
        em_tensor in[3], out[1];
        t_tensor(&in[0], EMBER_DTYPE_F32, c->x_rank, c->xd, buf);
        t_tensor(&in[1], c->w_dtype, c->w_rank, c->wd, buf);
        if (c->bias_len > 0) {
            t_tensor(&in[2], EMBER_DTYPE_F32, 1, &c->bias_len, buf);
        } else {
            t_absent(&in[2]);
        }
        t_tensor(&out[0], EMBER_DTYPE_F32, c->x_rank, c->yd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_CONV, c->name);
        conv_bad_attr(&tn, c->attr);
        ember_status *st = t_run(t_kernel(EM_OP_CONV, EMBER_DTYPE_F32), &tn.n, in, 3, out, 1, NULL);
        t_expect_error(st, c->code, c->name, c->name);
    }
}

/* Too many inputs and a second output are refused without touching the tensors. */
static void test_conv_arity(void **state)
{
    (void)state;
    em_tensor in[4], out[2];
    static const int64_t d[4] = {1, 1, 3, 3};
    float buf[16] = {0};
    for (int i = 0; i < 4; i++) {
        t_tensor(&in[i], EMBER_DTYPE_F32, 4, d, buf);
    }
    t_tensor(&out[0], EMBER_DTYPE_F32, 4, d, buf);
    t_tensor(&out[1], EMBER_DTYPE_F32, 4, d, buf);
    t_node tn;
    t_node_init(&tn, EM_OP_CONV, "conv_arity");
    const em_kernel *k = t_kernel(EM_OP_CONV, EMBER_DTYPE_F32);
    t_expect_error(t_run(k, &tn.n, in, 4, out, 1, NULL), EMBER_ERR_INVALID_MODEL, "conv_arity",
                   "four inputs");
    t_expect_error(t_run(k, &tn.n, in, 1, out, 1, NULL), EMBER_ERR_INVALID_MODEL, "conv_arity",
                   "one input");
    t_expect_error(t_run(k, &tn.n, in, 2, out, 2, NULL), EMBER_ERR_UNSUPPORTED, "conv_arity",
                   "two outputs");
}

/* Out-of-memory in prepare comes back as the OOM status with nothing leaked. */
static void test_conv_oom(void **state)
{
    (void)state;
    counting_alloc ca;
    counting_alloc_init(&ca);
    ca.fail_at = 1;
    static const int64_t xd[4] = {1, 1, 3, 3}, wd[4] = {1, 1, 3, 3}, yd[4] = {1, 1, 1, 1};
    em_tensor in[2], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 4, xd, NULL);
    t_tensor(&in[1], EMBER_DTYPE_F32, 4, wd, NULL);
    t_tensor(&out[0], EMBER_DTYPE_F32, 4, yd, NULL);
    t_node tn;
    t_node_init(&tn, EM_OP_CONV, "conv_oom");
    em_kinfo ki = {&tn.n, 2, 1, in, out, &ca.al, 0, 1, NULL};
    void *st_ptr = NULL;
    size_t scratch = 0;
    ember_status *st = t_kernel(EM_OP_CONV, EMBER_DTYPE_F32)->prepare(&ki, &st_ptr, &scratch);
    assert_int_equal(ember_status_code(st), EMBER_ERR_OUT_OF_MEMORY);
    assert_null(st_ptr);
    ember_status_destroy(st);
    assert_int_equal(atomic_load(&ca.live), 0);
}

int main(void)
{
    /* clang-format off */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_cases),
        cmocka_unit_test(test_conv_threaded_matches_serial),
        cmocka_unit_test(test_conv_errors),
        cmocka_unit_test(test_conv_arity),
        cmocka_unit_test(test_conv_oom),
    };
    /* clang-format on */
    return cmocka_run_group_tests(tests, NULL, NULL);
}
