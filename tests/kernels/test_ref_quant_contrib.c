/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The com.microsoft quantized ops' reference kernels (kernels/ref/quant_ew_ref.c,
 * quant_pool_ref.c, quant_gemm_ref.c) against float references written here the spec's way
 * (dequantize each input, the float op, quantize with round half to even and saturation):
 * QLinearAdd / QLinearMul with numpy broadcasting both ways, u8 and s8, zero points absent and
 * present, saturating scales; QLinearSigmoid / QLinearLeakyRelu over every byte value;
 * QLinearConcat of three inputs of different parameters along axis 1 and -1 (and the exact
 * passthrough when the parameters are Y's); QLinearAveragePool with pads, strides, ceil_mode
 * and count_include_pad; QLinearGlobalAveragePool; QGemm with transA / transB, per-column B,
 * a C of [N] and [M, N], quantized and f32 outputs, 2 threads. Bad parameters fail in prepare
 * naming the node: zero, negative, NaN and infinite scales, zero points of another dtype or
 * length, a per-column scale of the wrong length.
 */
#define EM_QUANT_TEST_HELPERS_ONLY
#include "test_ref_quant_common.c"

#define U8 EMBER_DTYPE_U8
#define I8 EMBER_DTYPE_I8
#define F32 EMBER_DTYPE_F32
#define I32 EMBER_DTYPE_I32

/* The spec's quantization of real value v: saturate(round_half_even(v / s) + z). */
static double qq(double v, double s, double z, ember_dtype dt)
{
    double lo, hi;
    q_range(dt, &lo, &hi);
    return q_clamp(q_round_even(v / s) + z, lo, hi);
}

static void scale_t(em_tensor *t, const float *s)
{
    q_tensor(t, F32, 0, NULL, s);
}

static void zp_t(em_tensor *t, ember_dtype dt, const void *z)
{
    q_tensor(t, dt, 0, NULL, z);
}

static double zval(ember_dtype dt, const void *z)
{
    return z == NULL ? 0.0 : tm_get(dt, z, 0);
}

/* ---- QLinearAdd / QLinearMul --------------------------------------------------------------- */

static void check_binary(em_op op, ember_dtype dt, int ra, const int64_t *da, int rb,
                         const int64_t *db, float as, float bs, float cs, bool zps)
{
    const int64_t na = t_numel(da, ra), nb = t_numel(db, rb);
    double lo, hi;
    q_range(dt, &lo, &hi);
    void *a = q_random_int(dt, na, 11 + (uint64_t)na, (int64_t)lo, (int64_t)hi);
    void *b = q_random_int(dt, nb, 23 + (uint64_t)nb, (int64_t)lo, (int64_t)hi);
    _Alignas(8) uint8_t az[8], bz[8], cz[8];
    tm_set(dt, az, 0, dt == U8 ? 131 : -7);
    tm_set(dt, bz, 0, dt == U8 ? 3 : 100);
    tm_set(dt, cz, 0, dt == U8 ? 250 : -128);
    int ry = ra > rb ? ra : rb;
    int64_t dy[8];
    for (int d = 0; d < ry; d++) {
        int ia = d - (ry - ra), ib = d - (ry - rb);
        int64_t xa = ia >= 0 ? da[ia] : 1, xb = ib >= 0 ? db[ib] : 1;
        dy[d] = xa > xb ? xa : xb;
    }
    const int64_t ny = t_numel(dy, ry);
    void *y = tm_buf(dt, ny);
    em_tensor in[8], out[1];
    q_tensor(&in[0], dt, ra, da, a);
    scale_t(&in[1], &as);
    zp_t(&in[2], dt, az);
    q_tensor(&in[3], dt, rb, db, b);
    scale_t(&in[4], &bs);
    zp_t(&in[5], dt, bz);
    scale_t(&in[6], &cs);
    zp_t(&in[7], dt, cz);
    if (!zps) {
        t_absent(&in[2]);
        t_absent(&in[5]);
    }
    q_tensor(&out[0], dt, ry, dy, y);
    t_node tn;
    t_node_init(&tn, op, "qbin");
    t_expect_ok(q_run(op, &tn, in, zps ? 8 : 7, out, 1, 0xffu), "binary");
    int64_t c[8] = {0};
    for (int64_t i = 0; i < ny; i++) {
        int64_t ia = 0, ib = 0;
        for (int d = 0; d < ry; d++) {
            int xa = d - (ry - ra), xb = d - (ry - rb);
            if (xa >= 0) {
                ia = ia * da[xa] + (da[xa] == 1 ? 0 : c[d]);
            }
            if (xb >= 0) {
                ib = ib * db[xb] + (db[xb] == 1 ? 0 : c[d]);
            }
        }
        double ra_ = (tm_get(dt, a, ia) - (zps ? zval(dt, az) : 0)) * as;
        double rb_ = (tm_get(dt, b, ib) - (zps ? zval(dt, bz) : 0)) * bs;
        double want = qq(op == EM_OP_QLINEARADD ? ra_ + rb_ : ra_ * rb_, cs, zps ? zval(dt, cz) : 0,
                         dt);
        if (tm_get(dt, y, i) != want) {
            fail_msg("%s %s: element %lld is %g, want %g", em_op_name(op), em_dtype_name(dt),
                     (long long)i, tm_get(dt, y, i), want);
        }
        for (int d = ry - 1; d >= 0 && ++c[d] == dy[d]; d--) {
            c[d] = 0;
        }
    }
    test_free(a);
    test_free(b);
    test_free(y);
}

static void test_qlinear_add_mul(void **state)
{
    (void)state;
    const int64_t d4[4] = {2, 3, 5, 7}, d3[3] = {3, 1, 7}, d1[1] = {1}, d2[2] = {5, 1};
    const ember_dtype dts[2] = {U8, I8};
    const em_op ops[2] = {EM_OP_QLINEARADD, EM_OP_QLINEARMUL};
    for (int o = 0; o < 2; o++) {
        for (int t = 0; t < 2; t++) {
            float cs = ops[o] == EM_OP_QLINEARADD ? 0.031f : 0.9f;
            check_binary(ops[o], dts[t], 4, d4, 3, d3, 0.02f, 0.013f, cs, true);
            check_binary(ops[o], dts[t], 3, d3, 4, d4, 0.5f, 0.25f, cs, false);
            check_binary(ops[o], dts[t], 4, d4, 1, d1, 0.007f, 3.0f, cs, true);
            check_binary(ops[o], dts[t], 2, d2, 3, d3, 1e-3f, 1e-3f, 1e-5f, true); /* saturates */
        }
    }
}

/* ---- QLinearSigmoid / QLinearLeakyRelu ------------------------------------------------------ */

static void test_qlinear_unary(void **state)
{
    (void)state;
    const int64_t d[2] = {16, 16};
    for (int t = 0; t < 2; t++) {
        ember_dtype dt = t == 0 ? U8 : I8;
        for (int k = 0; k < 2; k++) {
            em_op op = k == 0 ? EM_OP_QLINEARSIGMOID : EM_OP_QLINEARLEAKYRELU;
            void *x = tm_buf(dt, 256), *y = tm_buf(dt, 256);
            for (int i = 0; i < 256; i++) {
                tm_set(dt, x, i, dt == U8 ? i : i - 128); /* every byte value */
            }
            float xs = 0.05f, ys = k == 0 ? 1.0f / 256.0f : 0.04f;
            _Alignas(8) uint8_t xz[8], yz[8];
            tm_set(dt, xz, 0, dt == U8 ? 120 : -8);
            tm_set(dt, yz, 0, dt == U8 ? (k == 0 ? 0 : 100) : (k == 0 ? -128 : 0));
            em_tensor in[5], out[1];
            q_tensor(&in[0], dt, 2, d, x);
            scale_t(&in[1], &xs);
            zp_t(&in[2], dt, xz);
            scale_t(&in[3], &ys);
            zp_t(&in[4], dt, yz);
            q_tensor(&out[0], dt, 2, d, y);
            t_node tn;
            t_node_init(&tn, op, "qunary");
            if (k == 1) {
                t_set_float(&tn, "alpha", 0.15f);
            }
            t_expect_ok(q_run(op, &tn, in, 5, out, 1, 0x1eu), "unary");
            for (int i = 0; i < 256; i++) {
                double v = (tm_get(dt, x, i) - zval(dt, xz)) * xs;
                v = k == 0 ? 1.0 / (1.0 + exp(-v)) : v < 0 ? v * (double)0.15f : v;
                double want = qq(v, ys, zval(dt, yz), dt);
                if (tm_get(dt, y, i) != want) {
                    fail_msg("%s %s: x %g gives %g, want %g", em_op_name(op), em_dtype_name(dt),
                             tm_get(dt, x, i), tm_get(dt, y, i), want);
                }
            }
            test_free(x);
            test_free(y);
        }
    }
}

/* ---- QLinearConcat --------------------------------------------------------------------------- */

static void check_concat(ember_dtype dt, int64_t axis, bool passthrough)
{
    const int64_t dx[3][3] = {{2, 3, 4}, {2, 1, 4}, {2, 2, 4}};
    const int ax = (int)(axis < 0 ? axis + 3 : axis);
    int64_t dxa[3][3];
    memcpy(dxa, dx, sizeof dx);
    if (ax == 2) { /* vary the last dim instead */
        for (int k = 0; k < 3; k++) {
            dxa[k][1] = 3;
            dxa[k][2] = dx[k][1] + 1;
        }
    }
    float xs[3] = {0.1f, 0.07f, 0.3f}, ys = passthrough ? 0.1f : 0.09f;
    _Alignas(8) uint8_t xz[3][8], yz[8];
    double lo, hi;
    q_range(dt, &lo, &hi);
    void *x[3];
    em_tensor in[11], out[1];
    int64_t dy[3] = {dxa[0][0], dxa[0][1], dxa[0][2]};
    dy[ax] = 0;
    tm_set(dt, yz, 0, dt == U8 ? 128 : 0);
    scale_t(&in[0], &ys);
    zp_t(&in[1], dt, yz);
    for (int k = 0; k < 3; k++) {
        x[k] = q_random_int(dt, t_numel(dxa[k], 3), 5 + (uint64_t)k, (int64_t)lo, (int64_t)hi);
        tm_set(dt, xz[k], 0, passthrough ? zval(dt, yz) : (dt == U8 ? 10 + 50 * k : -20 * k));
        if (passthrough) {
            xs[k] = ys;
        }
        q_tensor(&in[2 + 3 * k], dt, 3, dxa[k], x[k]);
        scale_t(&in[3 + 3 * k], &xs[k]);
        zp_t(&in[4 + 3 * k], dt, xz[k]);
        dy[ax] += dxa[k][ax];
    }
    void *y = tm_buf(dt, t_numel(dy, 3));
    q_tensor(&out[0], dt, 3, dy, y);
    t_node tn;
    t_node_init(&tn, EM_OP_QLINEARCONCAT, "qconcat");
    t_set_int(&tn, "axis", axis);
    t_expect_ok(q_run(EM_OP_QLINEARCONCAT, &tn, in, 11, out, 1, 0u), "concat");
    int64_t c[3];
    for (c[0] = 0; c[0] < dy[0]; c[0]++) {
        for (c[1] = 0; c[1] < dy[1]; c[1]++) {
            for (c[2] = 0; c[2] < dy[2]; c[2]++) {
                int k = 0;
                int64_t at = c[ax];
                while (at >= dxa[k][ax]) {
                    at -= dxa[k][ax];
                    k++;
                }
                int64_t xc[3] = {c[0], c[1], c[2]};
                xc[ax] = at;
                double xv = tm_get(dt, x[k], (xc[0] * dxa[k][1] + xc[1]) * dxa[k][2] + xc[2]);
                double want = qq((xv - zval(dt, xz[k])) * xs[k], ys, zval(dt, yz), dt);
                if (passthrough) {
                    assert_true(want == xv);
                }
                double got = tm_get(dt, y, (c[0] * dy[1] + c[1]) * dy[2] + c[2]);
                if (got != want) {
                    fail_msg("QLinearConcat axis %lld: got %g, want %g", (long long)axis, got,
                             want);
                }
            }
        }
    }
    for (int k = 0; k < 3; k++) {
        test_free(x[k]);
    }
    test_free(y);
}

static void test_qlinear_concat(void **state)
{
    (void)state;
    check_concat(U8, 1, false);
    check_concat(I8, -1, false);
    check_concat(U8, -2, true);
    check_concat(I8, 2, true);
}

/* ---- QLinearAveragePool / QLinearGlobalAveragePool ------------------------------------------ */

static void check_avgpool(ember_dtype dt, bool global, bool cip, bool ceil_mode)
{
    const int64_t dx[4] = {2, 3, 7, 6};
    const int64_t k[2] = {3, 2}, s[2] = {2, 2}, p[4] = {1, 0, 1, 1};
    int64_t dy[4] = {2, 3, 1, 1};
    if (!global) {
        for (int d = 0; d < 2; d++) {
            int64_t span = dx[2 + d] + p[d] + p[2 + d] - k[d];
            dy[2 + d] = (ceil_mode ? (span + s[d] - 1) / s[d] : span / s[d]) + 1;
            if (ceil_mode && (dy[2 + d] - 1) * s[d] >= dx[2 + d] + p[d]) {
                dy[2 + d]--;
            }
        }
    }
    double lo, hi;
    q_range(dt, &lo, &hi);
    void *x = q_random_int(dt, t_numel(dx, 4), 77, (int64_t)lo, (int64_t)hi);
    void *y = tm_buf(dt, t_numel(dy, 4));
    float xs = 0.02f, ys = 0.015f;
    _Alignas(8) uint8_t xz[8], yz[8];
    tm_set(dt, xz, 0, dt == U8 ? 100 : 5);
    tm_set(dt, yz, 0, dt == U8 ? 140 : -3);
    em_tensor in[5], out[1];
    q_tensor(&in[0], dt, 4, dx, x);
    scale_t(&in[1], &xs);
    zp_t(&in[2], dt, xz);
    scale_t(&in[3], &ys);
    zp_t(&in[4], dt, yz);
    q_tensor(&out[0], dt, 4, dy, y);
    em_op op = global ? EM_OP_QLINEARGLOBALAVERAGEPOOL : EM_OP_QLINEARAVERAGEPOOL;
    t_node tn;
    t_node_init(&tn, op, "qpool");
    if (!global) {
        t_set_ints(&tn, "kernel_shape", k, 2);
        t_set_ints(&tn, "strides", s, 2);
        t_set_ints(&tn, "pads", p, 4);
        t_set_int(&tn, "count_include_pad", cip);
        t_set_int(&tn, "ceil_mode", ceil_mode);
    }
    t_expect_ok(q_run(op, &tn, in, 5, out, 1, 0x1fu), "avgpool");
    for (int64_t pl = 0; pl < dx[0] * dx[1]; pl++) {
        for (int64_t oh = 0; oh < dy[2]; oh++) {
            for (int64_t ow = 0; ow < dy[3]; ow++) {
                double sum = 0;
                int64_t n = 0, npad = 0;
                int64_t kh = global ? dx[2] : k[0], kw = global ? dx[3] : k[1];
                for (int64_t i = 0; i < kh; i++) {
                    for (int64_t j = 0; j < kw; j++) {
                        int64_t h = global ? i : oh * s[0] - p[0] + i;
                        int64_t w = global ? j : ow * s[1] - p[1] + j;
                        bool in_x = h >= 0 && h < dx[2] && w >= 0 && w < dx[3];
                        bool in_pad = h < dx[2] + p[2] && w < dx[3] + p[3];
                        if (in_x) {
                            sum += (tm_get(dt, x, (pl * dx[2] + h) * dx[3] + w) - zval(dt, xz)) *
                                   xs;
                            n++;
                        } else if (in_pad) {
                            npad++;
                        }
                    }
                }
                int64_t count = cip ? n + npad : n;
                double want = qq(count > 0 ? sum / (double)count : 0.0, ys, zval(dt, yz), dt);
                double got = tm_get(dt, y, (pl * dy[2] + oh) * dy[3] + ow);
                if (got != want) {
                    fail_msg("%s cip %d ceil %d: plane %lld (%lld, %lld) is %g, want %g",
                             em_op_name(op), cip, ceil_mode, (long long)pl, (long long)oh,
                             (long long)ow, got, want);
                }
            }
        }
    }
    test_free(x);
    test_free(y);
}

static void test_qlinear_avgpool(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        ember_dtype dt = t == 0 ? U8 : I8;
        check_avgpool(dt, true, false, false);
        for (int m = 0; m < 4; m++) {
            check_avgpool(dt, false, m & 1, m >> 1);
        }
    }
}

/* ---- QGemm ----------------------------------------------------------------------------------- */

static void check_qgemm(bool ta, bool tb, bool per_col, int c_rank, bool quant_out,
                        em_threadpool *pool)
{
    const int64_t m = 5, k = 9, n = 6;
    const int64_t da[2] = {ta ? k : m, ta ? m : k}, db[2] = {tb ? n : k, tb ? k : n};
    void *a = q_random_int(U8, m * k, 3, 0, 255);
    void *b = q_random_int(I8, k * n, 4, -128, 127);
    int32_t *cb = q_random_int(I32, m * n, 5, -5000, 5000);
    float as = 0.03f, bs[6] = {0.01f, 0.02f, 0.005f, 0.04f, 0.011f, 0.007f}, ys = 0.2f;
    uint8_t az = 117, yz = 30;
    int8_t bz[6] = {0, 3, -4, 0, 1, -1};
    const int64_t nb = per_col ? n : 1, dc[2] = {m, n};
    const int64_t alpha_x4 = 3; /* alpha 0.75 */
    em_tensor in[9], out[1];
    q_tensor(&in[0], U8, 2, da, a);
    scale_t(&in[1], &as);
    zp_t(&in[2], U8, &az);
    q_tensor(&in[3], I8, 2, db, b);
    q_tensor(&in[4], F32, 1, &nb, bs);
    q_tensor(&in[5], I8, 1, &nb, bz);
    if (c_rank == 0) {
        t_absent(&in[6]);
    } else {
        q_tensor(&in[6], I32, c_rank, c_rank == 1 ? &n : dc, cb);
    }
    scale_t(&in[7], &ys);
    zp_t(&in[8], U8, &yz);
    float *yf = t_f32(m * n);
    uint8_t *yq = tm_buf(U8, m * n);
    if (quant_out) {
        q_tensor(&out[0], U8, 2, dc, yq);
    } else {
        q_tensor(&out[0], F32, 2, dc, yf);
    }
    t_node tn;
    t_node_init(&tn, EM_OP_QGEMM, "qgemm");
    t_set_int(&tn, "transA", ta);
    t_set_int(&tn, "transB", tb);
    t_set_float(&tn, "alpha", (float)alpha_x4 / 4.0f);
    t_expect_ok(q_run_pool(EM_OP_QGEMM, &tn, in, quant_out ? 9 : 7, out, 1, 0x1f6u, pool),
                "qgemm");
    for (int64_t i = 0; i < m; i++) {
        for (int64_t j = 0; j < n; j++) {
            int64_t pc = per_col ? j : 0;
            double acc = 0;
            for (int64_t l = 0; l < k; l++) {
                double av = tm_get(U8, a, ta ? l * m + i : i * k + l) - az;
                double bv = tm_get(I8, b, tb ? j * k + l : l * n + j) - bz[pc];
                acc += av * bv;
            }
            acc += c_rank == 0 ? 0 : cb[c_rank == 1 ? j : i * n + j];
            double real = 0.75 * (double)as * (double)bs[pc] * acc;
            if (quant_out) {
                double want = qq(real, ys, yz, U8);
                if (yq[i * n + j] != want) {
                    fail_msg("QGemm (%lld, %lld): %d, want %g", (long long)i, (long long)j,
                             yq[i * n + j], want);
                }
            } else if (fabs(yf[i * n + j] - real) > 1e-6 * fabs(real) + 1e-30) {
                fail_msg("QGemm f32 (%lld, %lld): %g, want %g", (long long)i, (long long)j,
                         (double)yf[i * n + j], real);
            }
        }
    }
    test_free(a);
    test_free(b);
    test_free(cb);
    test_free(yf);
    test_free(yq);
}

static void test_qgemm(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    assert_null(em_threadpool_create(test_allocator(), 2, &pool));
    for (int v = 0; v < 32; v++) {
        check_qgemm(v & 1, v >> 1 & 1, v >> 2 & 1, (v >> 3) % 3, v >> 4 & 1, v & 8 ? pool : NULL);
    }
    em_threadpool_destroy(pool);
}

/* ---- Bad parameters ---------------------------------------------------------------------- */

static void test_bad_params(void **state)
{
    (void)state;
    const int64_t d[1] = {4};
    uint8_t x[4] = {1, 2, 3, 4}, y[4], z = 3;
    int8_t zs8 = 0;
    const float bad[4] = {0.0f, -0.5f, NAN, INFINITY};
    const float ok = 0.1f;
    for (int i = 0; i < 4; i++) {
        em_tensor in[5], out[1];
        q_tensor(&in[0], U8, 1, d, x);
        scale_t(&in[1], &ok);
        zp_t(&in[2], U8, &z);
        scale_t(&in[3], &bad[i]);
        zp_t(&in[4], U8, &z);
        q_tensor(&out[0], U8, 1, d, y);
        t_node tn;
        t_node_init(&tn, EM_OP_QLINEARSIGMOID, "bad_scale_node");
        ember_status *st = q_run(EM_OP_QLINEARSIGMOID, &tn, in, 5, out, 1, 0x1eu);
        assert_non_null(st);
        assert_non_null(strstr(ember_status_message(st), "positive and finite"));
        t_expect_error(st, EMBER_ERR_INVALID_MODEL, "bad_scale_node", "bad scale");
    }
    /* a zero point of another dtype than x */
    em_tensor in[8], out[1];
    q_tensor(&in[0], U8, 1, d, x);
    scale_t(&in[1], &ok);
    zp_t(&in[2], I8, &zs8);
    q_tensor(&in[3], U8, 1, d, x);
    scale_t(&in[4], &ok);
    zp_t(&in[5], U8, &z);
    scale_t(&in[6], &ok);
    zp_t(&in[7], U8, &z);
    q_tensor(&out[0], U8, 1, d, y);
    t_node tn;
    t_node_init(&tn, EM_OP_QLINEARADD, "bad_zp_node");
    t_expect_error(q_run(EM_OP_QLINEARADD, &tn, in, 8, out, 1, 0xffu), EMBER_ERR_INVALID_MODEL,
                   "bad_zp_node", "zero point dtype");
    /* QGemm: a per-column scale of 3 values for N = 2, a negative per-column scale */
    const int64_t dab[2] = {2, 2}, three = 3, two = 2;
    const float bs3[3] = {0.1f, 0.1f, 0.1f}, bsneg[2] = {0.1f, -0.1f};
    const int8_t bz3[3] = {0, 0, 0};
    int8_t b[4] = {1, 2, 3, 4};
    float yf[4];
    for (int c = 0; c < 2; c++) {
        q_tensor(&in[0], U8, 2, dab, x);
        scale_t(&in[1], &ok);
        zp_t(&in[2], U8, &z);
        q_tensor(&in[3], I8, 2, dab, b);
        q_tensor(&in[4], F32, 1, c == 0 ? &three : &two, c == 0 ? bs3 : bsneg);
        q_tensor(&in[5], I8, 1, c == 0 ? &three : &two, bz3);
        q_tensor(&out[0], F32, 2, dab, yf);
        t_node_init(&tn, EM_OP_QGEMM, "bad_qgemm");
        t_expect_error(q_run(EM_OP_QGEMM, &tn, in, 6, out, 1, 0x3fu), EMBER_ERR_INVALID_MODEL,
                       "bad_qgemm", "qgemm b_scale");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qlinear_add_mul), cmocka_unit_test(test_qlinear_unary),
        cmocka_unit_test(test_qlinear_concat),  cmocka_unit_test(test_qlinear_avgpool),
        cmocka_unit_test(test_qgemm),           cmocka_unit_test(test_bad_params),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
