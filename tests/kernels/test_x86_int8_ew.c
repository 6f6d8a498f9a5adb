/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/x86/int8_ew_avx2.c against the reference kernels, byte for byte: QLinearAdd and
 * QLinearMul (u8 / s8, lengths 0..67 and across the parallel block, same shapes and one
 * operand a single element either side, zero points absent and at both ends of the range,
 * scales from 1e-4 to 1e4 so that results saturate both ways, every byte value in A and B, 2
 * threads); QLinearSigmoid / QLinearLeakyRelu's tables over every byte value with several
 * parameters; MaxPool of u8 and s8 (kernels 1..4, strides 1..3, pads, dilations, ceil-mode
 * sizes, windows wholly in the padding, odd widths, 2 threads); QGemm with constant B (u8 / s8
 * A and B, transB, per-tensor and per-column B, C absent / [N] / [M, N], f32 and u8 outputs,
 * alpha 1 and 0.75, K up to 512, resnet's 512 x 1000). The kernels decline what they
 * do not handle (non-constant parameters, broadcasting by more than one element, Indices).
 */
#include "test_x86_harness.h"

#include "common/rng.h"

#define U8 EMBER_DTYPE_U8
#define I8 EMBER_DTYPE_I8

/* The x86 kernel named `name`, or NULL when this build / CPU has none. */
static const em_kernel *xk(const char *name)
{
    for (size_t i = 0; i < em_registry_count(); i++) {
        const em_kernel *k = em_registry_at(i);
        if (strcmp(k->name, name) == 0) {
            return kt_isa_ok(k) ? k : NULL;
        }
    }
    return NULL;
}

static void fill_bytes(uint8_t *p, int64_t n, uint64_t seed)
{
    test_rng r = {seed};
    for (int64_t i = 0; i < n; i++) {
        p[i] = (uint8_t)(i < 256 ? i * 97 + seed : test_rng_next(&r) >> 56);
    }
}

static void same(const char *what, const uint8_t *got, const uint8_t *want, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        if (got[i] != want[i]) {
            fail_msg("%s: element %lld is %d, reference %d", what, (long long)i, got[i], want[i]);
        }
    }
}

/* ---- QLinearAdd / QLinearMul ------------------------------------------------------------- */

static void bin_case(const em_kernel *k, em_op op, ember_dtype dt, int64_t n, int bcast, float as,
                     float bs, float cs, int zcase, em_threadpool *pool)
{
    uint8_t *a = test_malloc((size_t)(n + 1)), *b = test_malloc((size_t)(n + 1));
    uint8_t *y = test_malloc((size_t)(n + 1)), *r = test_malloc((size_t)(n + 1));
    fill_bytes(a, n + 1, 3);
    fill_bytes(b, n + 1, 71);
    const int64_t one = 1, dn = n;
    /* zero points: 0 absent, 1 low end, 2 high end, 3 middle */
    uint8_t zs[3];
    for (int i = 0; i < 3; i++) {
        int c = (zcase + i) % 4;
        zs[i] = (uint8_t)(c == 1 ? (dt == U8 ? 0 : 0x80) : c == 2 ? (dt == U8 ? 255 : 127)
                                                                   : (dt == U8 ? 128 : 0x03));
    }
    em_tensor in[8], out[1];
    t_tensor(&in[0], dt, 1, bcast == 1 ? &one : &dn, a);
    t_tensor(&in[1], EMBER_DTYPE_F32, 0, NULL, &as);
    t_tensor(&in[2], dt, 0, NULL, &zs[0]);
    t_tensor(&in[3], dt, 1, bcast == 2 ? &one : &dn, b);
    t_tensor(&in[4], EMBER_DTYPE_F32, 0, NULL, &bs);
    t_tensor(&in[5], dt, 0, NULL, &zs[1]);
    t_tensor(&in[6], EMBER_DTYPE_F32, 0, NULL, &cs);
    t_tensor(&in[7], dt, 0, NULL, &zs[2]);
    if (zcase == 0) {
        t_absent(&in[2]);
        t_absent(&in[5]);
    }
    t_node node;
    t_node_init(&node, op, "qbin");
    char what[160];
    snprintf(what, sizeof what, "%s %s n %lld bcast %d scales %g %g %g zcase %d", em_op_name(op),
             em_dtype_name(dt), (long long)n, bcast, (double)as, (double)bs, (double)cs, zcase);
    t_tensor(&out[0], dt, 1, &dn, y);
    t_expect_ok(kt_run(k, &node.n, in, zcase == 3 ? 7 : 8, out, 1, 0xf6u, pool), what);
    t_tensor(&out[0], dt, 1, &dn, r);
    t_expect_ok(kt_run(t_kernel(op, EMBER_DTYPE_UNDEFINED), &node.n, in, zcase == 3 ? 7 : 8, out,
                       1, 0xf6u, NULL),
                what);
    same(what, y, r, n);
    test_free(a);
    test_free(b);
    test_free(y);
    test_free(r);
}

static void test_qlinear_binary(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    assert_null(em_threadpool_create(test_allocator(), 2, &pool));
    static const float sc[][3] = {{0.02f, 0.013f, 0.031f}, {1e-4f, 2e-4f, 1e4f},
                                  {10.0f, 7.0f, 1e-3f},    {0.1f, 0.1f, 0.1f}};
    for (int o = 0; o < 2; o++) {
        em_op op = o == 0 ? EM_OP_QLINEARADD : EM_OP_QLINEARMUL;
        const em_kernel *k = xk(o == 0 ? "em_qlinearadd_i8__avx2" : "em_qlinearmul_i8__avx2");
        if (k == NULL) {
            skip();
        }
        for (int t = 0; t < 2; t++) {
            for (int64_t n = 0; n < 68; n++) {
                bin_case(k, op, t ? I8 : U8, n, (int)(n % 3), sc[n % 4][0], sc[n % 4][1],
                         sc[n % 4][2], (int)(n % 4), NULL);
            }
            for (int s = 0; s < 4; s++) {
                bin_case(k, op, t ? I8 : U8, 3 * 16384 + 5, s % 3, sc[s][0], sc[s][1], sc[s][2], s,
                         pool);
            }
        }
    }
    em_threadpool_destroy(pool);
}

/* Declined: a parameter not constant, broadcasting by more than one element. */
static void test_qlinear_binary_declines(void **state)
{
    (void)state;
    const em_kernel *k = xk("em_qlinearadd_i8__avx2");
    if (k == NULL) {
        skip();
    }
    uint8_t a[6] = {0}, b[3] = {0}, y[6], z = 0;
    float s = 0.1f;
    const int64_t da[2] = {2, 3}, db[1] = {3};
    em_tensor in[8], out[1];
    t_tensor(&in[0], U8, 2, da, a);
    t_tensor(&in[1], EMBER_DTYPE_F32, 0, NULL, &s);
    t_tensor(&in[2], U8, 0, NULL, &z);
    t_tensor(&in[3], U8, 1, db, b);
    t_tensor(&in[4], EMBER_DTYPE_F32, 0, NULL, &s);
    t_tensor(&in[5], U8, 0, NULL, &z);
    t_tensor(&in[6], EMBER_DTYPE_F32, 0, NULL, &s);
    t_tensor(&in[7], U8, 0, NULL, &z);
    t_tensor(&out[0], U8, 2, da, y);
    t_node node;
    t_node_init(&node, EM_OP_QLINEARADD, "qadd");
    ember_status *st = kt_run(k, &node.n, in, 8, out, 1, 0xf6u, NULL);
    assert_int_equal(ember_status_code(st), EMBER_ERR_UNSUPPORTED);
    ember_status_destroy(st);
    t_tensor(&in[3], U8, 2, da, a);
    st = kt_run(k, &node.n, in, 8, out, 1, 0xf4u, NULL); /* A's scale not constant */
    assert_int_equal(ember_status_code(st), EMBER_ERR_UNSUPPORTED);
    ember_status_destroy(st);
}

/* ---- the tables ------------------------------------------------------------------------------ */

static void test_qlinear_lut(void **state)
{
    (void)state;
    static const float ps[][2] = {{0.05f, 1.0f / 256.0f}, {1e-3f, 1e-4f}, {3.0f, 0.5f}};
    static const int zs[][2] = {{120, 0}, {255, 255}, {0, 128}};
    const int64_t n = 256 + 37;
    for (int o = 0; o < 2; o++) {
        em_op op = o == 0 ? EM_OP_QLINEARSIGMOID : EM_OP_QLINEARLEAKYRELU;
        const em_kernel *k =
            xk(o == 0 ? "em_qlinearsigmoid_lut__avx2" : "em_qlinearleakyrelu_lut__avx2");
        if (k == NULL) {
            skip();
        }
        for (int t = 0; t < 2; t++) {
            ember_dtype dt = t ? I8 : U8;
            for (int p = 0; p < 3; p++) {
                uint8_t x[256 + 37], y[256 + 37], r[256 + 37];
                fill_bytes(x, n, 9);
                uint8_t xz = (uint8_t)(zs[p][0] ^ (t ? 0x80 : 0)), yz = (uint8_t)(zs[p][1] ^ (t ? 0x80 : 0));
                float xs = ps[p][0], ys = ps[p][1];
                em_tensor in[5], out[1];
                t_tensor(&in[0], dt, 1, &n, x);
                t_tensor(&in[1], EMBER_DTYPE_F32, 0, NULL, &xs);
                t_tensor(&in[2], dt, 0, NULL, &xz);
                t_tensor(&in[3], EMBER_DTYPE_F32, 0, NULL, &ys);
                t_tensor(&in[4], dt, 0, NULL, &yz);
                t_node node;
                t_node_init(&node, op, "qlut");
                if (o == 1 && p > 0) {
                    t_set_float(&node, "alpha", p == 1 ? 0.3f : -2.5f);
                }
                t_tensor(&out[0], dt, 1, &n, y);
                t_expect_ok(kt_run(k, &node.n, in, 5, out, 1, 0x1eu, NULL), "lut");
                t_tensor(&out[0], dt, 1, &n, r);
                t_expect_ok(kt_run(t_kernel(op, EMBER_DTYPE_UNDEFINED), &node.n, in, 5, out, 1,
                                   0x1eu, NULL),
                            "lut ref");
                same(em_op_name(op), y, r, n);
            }
        }
    }
}

/* ---- MaxPool of u8 / s8 ------------------------------------------------------------------- */

static void pool_case(const em_kernel *k, ember_dtype dt, int64_t ih, int64_t iw, int64_t kh,
                      int64_t kw, int64_t s, int64_t pad, int64_t dil, bool ceil_mode,
                      em_threadpool *pool)
{
    const int64_t ext_h = (kh - 1) * dil + 1, ext_w = (kw - 1) * dil + 1;
    int64_t oh = (ih + 2 * pad - ext_h + (ceil_mode ? s - 1 : 0)) / s + 1;
    int64_t ow = (iw + 2 * pad - ext_w + (ceil_mode ? s - 1 : 0)) / s + 1;
    if (ceil_mode && (oh - 1) * s >= ih + pad) {
        oh--;
    }
    if (ceil_mode && (ow - 1) * s >= iw + pad) {
        ow--;
    }
    if (oh < 1 || ow < 1) {
        return;
    }
    const int64_t dx[4] = {2, 3, ih, iw}, dy[4] = {2, 3, oh, ow};
    const int64_t nx = 6 * ih * iw, ny = 6 * oh * ow;
    uint8_t *x = test_malloc((size_t)nx), *y = test_malloc((size_t)ny), *r = test_malloc((size_t)ny);
    fill_bytes(x, nx, (uint64_t)(ih * 31 + iw));
    t_node node;
    t_node_init(&node, EM_OP_MAXPOOL, "maxpool");
    const int64_t ks[2] = {kh, kw}, st[2] = {s, s}, dl[2] = {dil, dil}, pd[4] = {pad, pad, pad, pad};
    t_set_ints(&node, "kernel_shape", ks, 2);
    t_set_ints(&node, "strides", st, 2);
    t_set_ints(&node, "dilations", dl, 2);
    t_set_ints(&node, "pads", pd, 4);
    t_set_int(&node, "ceil_mode", ceil_mode);
    em_tensor in[1], out[1];
    t_tensor(&in[0], dt, 4, dx, x);
    char what[160];
    snprintf(what, sizeof what, "maxpool %s %lldx%lld k %lldx%lld s %lld p %lld d %lld ceil %d",
             em_dtype_name(dt), (long long)ih, (long long)iw, (long long)kh, (long long)kw,
             (long long)s, (long long)pad, (long long)dil, ceil_mode);
    t_tensor(&out[0], dt, 4, dy, y);
    t_expect_ok(kt_run(k, &node.n, in, 1, out, 1, 0u, pool), what);
    t_tensor(&out[0], dt, 4, dy, r);
    t_expect_ok(kt_run(t_kernel(EM_OP_MAXPOOL, EMBER_DTYPE_UNDEFINED), &node.n, in, 1, out, 1, 0u,
                       NULL),
                what);
    same(what, y, r, ny);
    test_free(x);
    test_free(y);
    test_free(r);
}

static void test_maxpool_i8(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    assert_null(em_threadpool_create(test_allocator(), 2, &pool));
    for (int t = 0; t < 2; t++) {
        const em_kernel *k = xk(t ? "em_maxpool_s8__avx2" : "em_maxpool_u8__avx2");
        if (k == NULL) {
            skip();
        }
        int c = 0;
        for (int64_t kk = 1; kk <= 4; kk++) {
            for (int64_t s = 1; s <= 3; s++) {
                for (int64_t pad = 0; pad < (kk == 3 ? 2 : kk) && pad <= 2; pad++) {
                    for (int64_t dil = 1; dil <= 2; dil++) {
                        c++;
                        pool_case(k, t ? I8 : U8, 5 + c % 7, 9 + c % 5, kk, kk == 3 ? 2 : kk, s,
                                  pad, dil, c % 2 == 0, c % 3 == 0 ? pool : NULL);
                    }
                }
            }
        }
        pool_case(k, t ? I8 : U8, 112, 112, 3, 3, 2, 1, 1, false, pool); /* resnet's */
    }
    em_threadpool_destroy(pool);
}

/* ---- QGemm -------------------------------------------------------------------------------- */

static void gemm_case(const em_kernel *k, int64_t m, int64_t kk, int64_t n, int v,
                      em_threadpool *pool)
{
    const bool tb = v & 1, per_col = v & 2, y_q = v & 4, a_s8 = v & 8;
    const int c_rank = (v >> 4) % 3;
    const ember_dtype at = a_s8 ? I8 : U8, bt = (v & 32) ? U8 : I8;
    const int64_t da[2] = {m, kk}, db[2] = {tb ? n : kk, tb ? kk : n}, dy[2] = {m, n};
    const int64_t nb = per_col ? n : 1, dc[2] = {m, n};
    uint8_t *a = test_malloc((size_t)(m * kk)), *b = test_malloc((size_t)(kk * n));
    int32_t *c = test_malloc(sizeof(int32_t) * (size_t)(m * n));
    float *bs = test_malloc(sizeof(float) * (size_t)n), *yf = test_malloc(4 * (size_t)(m * n));
    float *rf = test_malloc(4 * (size_t)(m * n));
    uint8_t *bz = test_malloc((size_t)n);
    fill_bytes(a, m * kk, (uint64_t)v);
    fill_bytes(b, kk * n, (uint64_t)v + 5);
    fill_bytes(bz, n, 2);
    test_rng r = {(uint64_t)v};
    for (int64_t i = 0; i < m * n; i++) {
        c[i] = (int32_t)(test_rng_next(&r) % 200001) - 100000;
    }
    for (int64_t i = 0; i < n; i++) {
        bs[i] = 0.001f * (float)(1 + i % 7);
    }
    float as = 0.02f, ys = 0.5f;
    uint8_t az = a_s8 ? 0xf0 : 121, yz = 77;
    em_tensor in[9], out[1];
    t_tensor(&in[0], at, 2, da, a);
    t_tensor(&in[1], EMBER_DTYPE_F32, 0, NULL, &as);
    t_tensor(&in[2], at, 0, NULL, &az);
    t_tensor(&in[3], bt, 2, db, b);
    t_tensor(&in[4], EMBER_DTYPE_F32, 1, &nb, bs);
    t_tensor(&in[5], bt, 1, &nb, bz);
    t_tensor(&in[6], EMBER_DTYPE_I32, c_rank, c_rank == 1 ? &n : dc, c);
    if (c_rank == 0) {
        t_absent(&in[6]);
    }
    t_tensor(&in[7], EMBER_DTYPE_F32, 0, NULL, &ys);
    t_tensor(&in[8], U8, 0, NULL, &yz);
    t_node node;
    t_node_init(&node, EM_OP_QGEMM, "qgemm");
    t_set_int(&node, "transB", tb);
    t_set_float(&node, "alpha", v % 5 == 0 ? 0.75f : 1.0f);
    char what[128];
    snprintf(what, sizeof what, "qgemm %lldx%lldx%lld variant %d", (long long)m, (long long)kk,
             (long long)n, v);
    const int n_in = y_q ? 9 : 7;
    const unsigned cm = 0x1feu;
    t_tensor(&out[0], y_q ? U8 : EMBER_DTYPE_F32, 2, dy, yf);
    t_expect_ok(kt_run(k, &node.n, in, n_in, out, 1, cm, pool), what);
    t_tensor(&out[0], y_q ? U8 : EMBER_DTYPE_F32, 2, dy, rf);
    t_expect_ok(kt_run(t_kernel(EM_OP_QGEMM, EMBER_DTYPE_UNDEFINED), &node.n, in, n_in, out, 1, cm,
                       NULL),
                what);
    same(what, (const uint8_t *)yf, (const uint8_t *)rf, y_q ? m * n : 4 * m * n);
    test_free(a);
    test_free(b);
    test_free(c);
    test_free(bs);
    test_free(yf);
    test_free(rf);
    test_free(bz);
}

static void test_qgemm_i8(void **state)
{
    (void)state;
    const em_kernel *k = xk("em_qgemm_i8__avx2");
    if (k == NULL) {
        skip();
    }
    em_threadpool *pool = NULL;
    assert_null(em_threadpool_create(test_allocator(), 2, &pool));
    static const int64_t sz[][3] = {{1, 1, 1}, {3, 7, 5}, {5, 33, 17}, {2, 300, 41}, {1, 512, 1000}};
    for (size_t s = 0; s < sizeof sz / sizeof sz[0]; s++) {
        for (int v = 0; v < 64; v++) {
            gemm_case(k, sz[s][0], sz[s][1], sz[s][2], v, v % 4 == 0 ? pool : NULL);
        }
    }
    em_threadpool_destroy(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qlinear_binary),
        cmocka_unit_test(test_qlinear_binary_declines),
        cmocka_unit_test(test_qlinear_lut),
        cmocka_unit_test(test_maxpool_i8),
        cmocka_unit_test(test_qgemm_i8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
