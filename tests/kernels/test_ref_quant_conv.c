/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/quant_conv_ref.c: ConvInteger-10 and QLinearConv-10 against a naive convolution
 * written here (pads worked out per auto_pad mode) and the exact vectors of ONNX's
 * test_basic_convinteger, test_convinteger_with/without_padding and test_qlinearconv.
 * 1-D, 2-D and 3-D spatial; strides, dilations, explicit pads (asymmetric), auto_pad
 * SAME_UPPER / SAME_LOWER / VALID; groups (depthwise too); odd sizes; u8/i8 x and w in every
 * combination; zero points absent, per tensor, per output channel; QLinearConv with per-tensor
 * and per-channel w scales, int32 bias, u8 and i8 outputs, f16 scales, a thread pool; and the
 * errors.
 */
#define EM_QUANT_TEST_HELPERS_ONLY
#include "test_ref_quant_common.c"

#define U8 EMBER_DTYPE_U8
#define I8 EMBER_DTYPE_I8
#define F32 EMBER_DTYPE_F32
#define F16 EMBER_DTYPE_F16
#define I32 EMBER_DTYPE_I32

typedef struct cv_case {
    const char *name;
    int n_sp;
    int64_t batch, c_in, c_out, group;
    int64_t in[3], k[3], stride[3], dil[3], pads[6];
    const char *auto_pad; /* NULL: explicit pads */
    ember_dtype xt, wt;
    int xzp, wzp; /* 0 absent, 1 per tensor, 2 per output channel */
    int ws;       /* QLinearConv: w scale per tensor (1) or per channel (2) */
    bool bias;
    ember_dtype yt, s_dt;
} cv_case;

/* Output size and begin pad of axis d, worked out from the spec. */
static void cv_axis(const cv_case *c, int d, int64_t *out, int64_t *pad_begin)
{
    int64_t ext = (c->k[d] - 1) * c->dil[d] + 1, in = c->in[d], s = c->stride[d];
    if (c->auto_pad == NULL) {
        *pad_begin = c->pads[d];
        *out = (in + c->pads[d] + c->pads[c->n_sp + d] - ext) / s + 1;
    } else if (strcmp(c->auto_pad, "VALID") == 0) {
        *pad_begin = 0;
        *out = (in - ext) / s + 1;
    } else {
        *out = (in + s - 1) / s;
        int64_t total = (*out - 1) * s + ext - in;
        total = total < 0 ? 0 : total;
        *pad_begin = strcmp(c->auto_pad, "SAME_UPPER") == 0 ? total / 2 : total - total / 2;
    }
}

static int64_t cv_numel(int n, const int64_t *d)
{
    return t_numel(d, n);
}

static void cv_run(const cv_case *c, bool qlinear, em_threadpool *pool)
{
    const int n_sp = c->n_sp;
    const int64_t cig = c->c_in / c->group, cog = c->c_out / c->group;
    int64_t od[3] = {1, 1, 1}, pb[3] = {0}, xd[5], wd[5], yd[5];
    for (int d = 0; d < n_sp; d++) {
        cv_axis(c, d, &od[d], &pb[d]);
    }
    xd[0] = c->batch, xd[1] = c->c_in, wd[0] = c->c_out, wd[1] = cig, yd[0] = c->batch,
    yd[1] = c->c_out;
    for (int d = 0; d < n_sp; d++) {
        xd[2 + d] = c->in[d], wd[2 + d] = c->k[d], yd[2 + d] = od[d];
    }
    const int64_t nx = cv_numel(n_sp + 2, xd), nw = cv_numel(n_sp + 2, wd);
    const int64_t ny = cv_numel(n_sp + 2, yd);
    const int64_t k_pl = cv_numel(n_sp, c->k), out_pl = cv_numel(n_sp, od);
    const ember_dtype y_dt = qlinear ? c->yt : I32;
    void *x = q_random_int(c->xt, nx, 51, c->xt == U8 ? 0 : -128, c->xt == U8 ? 255 : 127);
    void *w = q_random_int(c->wt, nw, 52, c->wt == U8 ? 0 : -128, c->wt == U8 ? 255 : 127);
    void *xz = q_random_int(c->xt, 1, 53, c->xt == U8 ? 0 : -128, c->xt == U8 ? 255 : 127);
    void *wz = q_random_int(c->wt, c->c_out, 54, c->wt == U8 ? 0 : -128, c->wt == U8 ? 255 : 127);
    void *xs = q_random_frac(c->s_dt, 1, 55, 1, 64, 1024.0);
    void *ws = q_random_frac(c->s_dt, c->c_out, 56, 1, 64, 1024.0);
    void *ys = q_random_frac(c->s_dt, 1, 57, 16, 64, 64.0);
    void *yz =
        q_random_int(y_dt == I32 ? U8 : y_dt, 1, 58, y_dt == I8 ? -128 : 0, y_dt == I8 ? 127 : 255);
    int32_t *bias = q_random_int(I32, c->c_out, 59, -20000, 20000);
    void *y = tm_buf(y_dt, ny);
    double *ref = t_f64(ny), lo, hi;
    q_range(y_dt, &lo, &hi);
    for (int64_t e = 0; e < ny; e++) {
        int64_t n = e / (c->c_out * out_pl), m = (e / out_pl) % c->c_out, o = e % out_pl;
        int64_t oc[3] = {0}, rest = o, g = m / cog;
        for (int d = n_sp - 1; d >= 0; d--) {
            oc[d] = rest % od[d];
            rest /= od[d];
        }
        double xzp = c->xzp ? tm_get(c->xt, xz, 0) : 0.0;
        double wzp = c->wzp ? tm_get(c->wt, wz, c->wzp == 2 ? m : 0) : 0.0;
        int64_t acc = 0;
        for (int64_t ic = 0; ic < cig; ic++) {
            for (int64_t t = 0; t < k_pl; t++) {
                int64_t tc[3] = {0}, tr = t, xi = n * c->c_in + g * cig + ic;
                bool inside = true;
                for (int d = n_sp - 1; d >= 0; d--) {
                    tc[d] = tr % c->k[d];
                    tr /= c->k[d];
                }
                for (int d = 0; d < n_sp; d++) {
                    int64_t p = oc[d] * c->stride[d] - pb[d] + tc[d] * c->dil[d];
                    inside = inside && p >= 0 && p < c->in[d];
                    xi = xi * c->in[d] + p;
                }
                if (inside) {
                    double xv = tm_get(c->xt, x, xi) - xzp;
                    double wv = tm_get(c->wt, w, (m * cig + ic) * k_pl + t) - wzp;
                    acc += (int64_t)(xv * wv);
                }
            }
        }
        if (!qlinear) {
            ref[e] = (double)acc;
            continue;
        }
        acc += c->bias ? bias[m] : 0;
        float fx = (float)tm_get(c->s_dt, xs, 0), fy = (float)tm_get(c->s_dt, ys, 0);
        float fw = (float)tm_get(c->s_dt, ws, c->ws == 2 ? m : 0);
        ref[e] = q_clamp(q_round_even((double)acc * (double)((fx * fw) / fy)) + tm_get(y_dt, yz, 0),
                         lo, hi);
    }
    em_tensor in[9], out[1];
    const int64_t one = 1;
    if (qlinear) {
        q_tensor(&in[0], c->xt, n_sp + 2, xd, x);
        q_tensor(&in[1], c->s_dt, 0, NULL, xs);
        q_tensor(&in[2], c->xt, 0, NULL, xz);
        q_tensor(&in[3], c->wt, n_sp + 2, wd, w);
        q_tensor(&in[4], c->s_dt, 1, c->ws == 2 ? &c->c_out : &one, ws);
        q_tensor(&in[5], c->wt, c->wzp == 2 ? 1 : 0, &c->c_out, wz);
        q_tensor(&in[6], c->s_dt, 0, NULL, ys);
        q_tensor(&in[7], y_dt, 0, NULL, yz);
        q_tensor(&in[8], I32, 1, &c->c_out, bias);
        if (!c->xzp) {
            t_absent(&in[2]);
        }
        if (!c->wzp) {
            t_absent(&in[5]);
        }
    } else {
        q_tensor(&in[0], c->xt, n_sp + 2, xd, x);
        q_tensor(&in[1], c->wt, n_sp + 2, wd, w);
        q_tensor(&in[2], c->xt, c->xzp == 1 ? 0 : 1, &one, xz);
        q_tensor(&in[3], c->wt, c->wzp == 2 ? 1 : 0, &c->c_out, wz);
        if (!c->xzp) {
            t_absent(&in[2]);
        }
        if (!c->wzp) {
            t_absent(&in[3]);
        }
    }
    q_tensor(&out[0], y_dt, n_sp + 2, yd, y);
    em_op op = qlinear ? EM_OP_QLINEARCONV : EM_OP_CONVINTEGER;
    t_node tn;
    t_node_init(&tn, op, c->name);
    t_set_int(&tn, "group", c->group);
    t_set_ints(&tn, "strides", c->stride, n_sp);
    t_set_ints(&tn, "dilations", c->dil, n_sp);
    if (c->auto_pad != NULL) {
        t_set_string(&tn, "auto_pad", c->auto_pad);
    } else {
        t_set_ints(&tn, "pads", c->pads, 2 * n_sp);
    }
    t_set_ints(&tn, "kernel_shape", c->k, n_sp);
    int n_in = qlinear ? (c->bias ? 9 : 8) : 4;
    t_expect_ok(q_run_pool(op, &tn, in, n_in, out, 1, 0, pool), c->name);
    q_check(c->name, y, y_dt, ref, ny, 0, 0);
    void *bufs[] = {x, w, xz, wz, xs, ws, ys, yz, bias, y, ref};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
        test_free(bufs[i]);
    }
}

/* clang-format off */
static const cv_case cv_cases[] = {
    {"2d_plain", 2, 1, 1, 1, 1, {5, 5}, {3, 3}, {1, 1}, {1, 1}, {0}, NULL, U8, U8, 1, 1, 1,
     false, U8, F32},
    {"2d_pads_stride", 2, 2, 3, 4, 1, {7, 6}, {3, 2}, {2, 1}, {1, 1}, {1, 0, 2, 1}, NULL, U8, I8,
     1, 2, 2, true, U8, F32},
    {"2d_dilation", 2, 1, 2, 3, 1, {9, 8}, {3, 3}, {1, 2}, {2, 3}, {2, 1, 1, 2}, NULL, I8, I8, 1,
     1, 1, true, I8, F32},
    {"2d_group", 2, 2, 4, 6, 2, {5, 4}, {2, 3}, {1, 1}, {1, 1}, {0, 1, 0, 1}, NULL, I8, U8, 0, 2,
     2, false, U8, F32},
    {"2d_depthwise", 2, 1, 3, 3, 3, {6, 5}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, NULL, U8, U8, 1,
     2, 2, true, U8, F32},
    {"same_upper", 2, 1, 2, 2, 1, {7, 5}, {3, 2}, {2, 2}, {1, 1}, {0}, "SAME_UPPER", U8, U8, 1, 1,
     1, true, U8, F32},
    {"same_lower", 2, 1, 2, 2, 1, {6, 7}, {2, 4}, {1, 3}, {1, 1}, {0}, "SAME_LOWER", I8, U8, 1, 2,
     1, false, I8, F32},
    {"valid", 2, 1, 1, 2, 1, {7, 7}, {3, 3}, {2, 3}, {1, 1}, {0}, "VALID", U8, U8, 0, 0, 1,
     false, U8, F32},
    {"1d", 1, 3, 2, 3, 1, {11}, {4}, {3}, {2}, {2, 1}, NULL, U8, I8, 1, 2, 2, true, U8, F32},
    {"3d", 3, 1, 2, 2, 2, {4, 5, 3}, {2, 3, 2}, {1, 2, 1}, {1, 1, 2}, {1, 0, 1, 0, 1, 1}, NULL,
     I8, I8, 1, 1, 2, true, I8, F32},
    {"f16_scales", 2, 1, 2, 3, 1, {4, 4}, {2, 2}, {1, 1}, {1, 1}, {0}, NULL, U8, U8, 1, 2, 2, true,
     U8, F16},
    {"empty_batch", 2, 0, 2, 3, 1, {4, 4}, {2, 2}, {1, 1}, {1, 1}, {0}, NULL, U8, U8, 1, 1, 1,
     false, U8, F32},
};
/* clang-format on */

static void test_convinteger_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cv_cases / sizeof cv_cases[0]; i++) {
        cv_run(&cv_cases[i], false, NULL);
    }
}

static void test_qlinearconv_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cv_cases / sizeof cv_cases[0]; i++) {
        cv_run(&cv_cases[i], true, NULL);
    }
}

static void test_threaded(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 3, &pool), "pool");
    cv_run(&cv_cases[1], false, pool);
    cv_run(&cv_cases[4], true, pool);
    em_threadpool_destroy(pool);
}

static void test_conformance(void **state)
{
    (void)state;
    const uint8_t x[9] = {2, 3, 4, 5, 6, 7, 8, 9, 10}, w[4] = {1, 1, 1, 1}, xz = 1;
    const double want_pad[16] = {1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9};
    const double want_nopad[4] = {12, 16, 24, 28};
    int32_t y[16];
    em_tensor in[9], out[1];
    t_node tn;
    q_tensor(&in[0], U8, 4, Q_DIMS(1, 1, 3, 3), x);
    q_tensor(&in[1], U8, 4, Q_DIMS(1, 1, 2, 2), w);
    q_tensor(&in[2], U8, 0, NULL, &xz);
    q_tensor(&out[0], I32, 4, Q_DIMS(1, 1, 4, 4), y);
    t_node_init(&tn, EM_OP_CONVINTEGER, "test_convinteger_with_padding");
    t_set_ints(&tn, "pads", Q_DIMS(1, 1, 1, 1), 4);
    t_expect_ok(q_run(EM_OP_CONVINTEGER, &tn, in, 3, out, 1, 0), "pad");
    q_check("test_convinteger_with_padding", y, I32, want_pad, 16, 0, 0);
    q_tensor(&out[0], I32, 4, Q_DIMS(1, 1, 2, 2), y);
    t_node_init(&tn, EM_OP_CONVINTEGER, "test_convinteger_without_padding");
    t_expect_ok(q_run(EM_OP_CONVINTEGER, &tn, in, 3, out, 1, 0), "nopad");
    q_check("test_convinteger_without_padding", y, I32, want_nopad, 4, 0, 0);

    /* test_qlinearconv: a 1x1 kernel with w = 0, w_zp = 255 (per-channel form [1]). */
    const uint8_t qx[49] = {255, 174, 162, 25,  203, 168, 58,  15,  59,  237, 95,  129, 0,
                            64,  56,  242, 153, 221, 168, 12,  166, 232, 178, 186, 195, 237,
                            162, 237, 188, 39,  124, 77,  80,  102, 43,  127, 230, 21,  83,
                            41,  40,  134, 255, 154, 92,  141, 42,  148, 247};
    const double qwant[49] = {0,   81,  93,  230, 52,  87,  197, 240, 196, 18,  160, 126, 255,
                              191, 199, 13,  102, 34,  87,  243, 89,  23,  77,  69,  60,  18,
                              93,  18,  67,  216, 131, 178, 175, 153, 212, 128, 25,  234, 172,
                              214, 215, 121, 0,   101, 163, 114, 213, 107, 8};
    const float xs = 0.00369204697f, ws = 0.00172794575f, ys = 0.00162681262f;
    const uint8_t qxz = 132, qw = 0, wz = 255, yz = 123;
    uint8_t qy[49];
    q_tensor(&in[0], U8, 4, Q_DIMS(1, 1, 7, 7), qx);
    q_tensor(&in[1], F32, 0, NULL, &xs);
    q_tensor(&in[2], U8, 0, NULL, &qxz);
    q_tensor(&in[3], U8, 4, Q_DIMS(1, 1, 1, 1), &qw);
    q_tensor(&in[4], F32, 1, Q_DIMS(1), &ws);
    q_tensor(&in[5], U8, 1, Q_DIMS(1), &wz);
    q_tensor(&in[6], F32, 0, NULL, &ys);
    q_tensor(&in[7], U8, 0, NULL, &yz);
    q_tensor(&out[0], U8, 4, Q_DIMS(1, 1, 7, 7), qy);
    t_node_init(&tn, EM_OP_QLINEARCONV, "test_qlinearconv");
    t_expect_ok(q_run(EM_OP_QLINEARCONV, &tn, in, 8, out, 1, 0), "qlinearconv");
    q_check("test_qlinearconv", qy, U8, qwant, 49, 0, 0);
}

static void test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        bool qlinear;
        ember_dtype xt, wt, zt, yt;
        int x_rank, w_rank;
        int64_t w_c, z_len, group, bias_len;
        ember_code code;
    } bads[] = {
        {"ci_x_f32", false, F32, U8, U8, I32, 4, 4, 2, 1, 1, 0, EMBER_ERR_UNSUPPORTED},
        {"ci_w_i16", false, U8, EMBER_DTYPE_I16, U8, I32, 4, 4, 2, 1, 1, 0, EMBER_ERR_UNSUPPORTED},
        {"ci_rank", false, U8, U8, U8, I32, 2, 2, 2, 1, 1, 0, EMBER_ERR_INVALID_MODEL},
        {"ci_rank_mismatch", false, U8, U8, U8, I32, 4, 3, 2, 1, 1, 0, EMBER_ERR_INVALID_MODEL},
        {"ci_channels", false, U8, U8, U8, I32, 4, 4, 3, 1, 1, 0, EMBER_ERR_INVALID_MODEL},
        {"ci_group", false, U8, U8, U8, I32, 4, 4, 1, 1, 3, 0, EMBER_ERR_INVALID_MODEL},
        {"ci_zp_dtype", false, U8, U8, I8, I32, 4, 4, 2, 1, 1, 0, EMBER_ERR_INVALID_MODEL},
        {"ci_w_zp_len", false, U8, U8, U8, I32, 4, 4, 2, 3, 1, 0, EMBER_ERR_INVALID_MODEL},
        {"ci_y_dtype", false, U8, U8, U8, F32, 4, 4, 2, 1, 1, 0, EMBER_ERR_INVALID_MODEL},
        {"ql_y_i32", true, U8, U8, U8, I32, 4, 4, 2, 1, 1, 0, EMBER_ERR_UNSUPPORTED},
        {"ql_bias_len", true, U8, U8, U8, U8, 4, 4, 2, 1, 1, 3, EMBER_ERR_INVALID_MODEL},
        {"ql_w_zp_len", true, U8, U8, U8, U8, 4, 4, 2, 2, 1, 0, EMBER_ERR_INVALID_MODEL},
    };
    uint8_t buf[512] = {0};
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        const int64_t xd[4] = {1, 2, 5, 5}, wd[4] = {4, bads[i].w_c, 2, 2}, yd[4] = {1, 4, 4, 4};
        em_tensor in[9], out[1];
        t_node tn;
        em_op op = bads[i].qlinear ? EM_OP_QLINEARCONV : EM_OP_CONVINTEGER;
        int iw = bads[i].qlinear ? 3 : 1, iwz = bads[i].qlinear ? 5 : 3;
        for (int k = 0; k < 9; k++) {
            q_tensor(&in[k], F32, 0, NULL, buf);
        }
        q_tensor(&in[0], bads[i].xt, bads[i].x_rank, xd, buf);
        q_tensor(&in[iw], bads[i].wt, bads[i].w_rank, wd, buf);
        q_tensor(&in[2], bads[i].zt, 0, NULL, buf);
        q_tensor(&in[iwz], bads[i].wt, 1, &bads[i].z_len, buf);
        if (bads[i].qlinear) {
            q_tensor(&in[7], bads[i].yt, 0, NULL, buf);
            q_tensor(&in[8], I32, 1, &bads[i].bias_len, buf);
        }
        q_tensor(&out[0], bads[i].yt, 4, yd, buf);
        t_node_init(&tn, op, bads[i].name);
        t_set_int(&tn, "group", bads[i].group);
        int n_in = bads[i].qlinear ? (bads[i].bias_len ? 9 : 8) : 4;
        t_expect_error(q_run(op, &tn, in, n_in, out, 1, 0), bads[i].code, bads[i].name,
                       bads[i].name);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_convinteger_cases),
        cmocka_unit_test(test_qlinearconv_cases),
        cmocka_unit_test(test_threaded),
        cmocka_unit_test(test_conformance),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
