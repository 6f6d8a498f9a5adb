/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The x86 int8 kernels (quant_q8_avx2.c, qconv_u8_avx2.c, qgemm_*.c) against the reference
 * kernels, byte for byte (all are exact: see their headers):
 *   QuantizeLinear f32 -> u8 / s8 and DequantizeLinear u8 / s8 -> f32, per tensor: lengths
 *   around the vector widths, unroll steps and the parallel block; zero points absent, at
 *   both ends of the dtype and in between; scales spanning decades; inputs at exact halves
 *   (ties to even), NaN, +-inf, huge values, every byte value; a 2-thread pool; outputs
 *   never written past their end; and the forms declined (per-axis, f16 scales).
 *   QLinearConv: odd shapes, 1x1, 3x3, 7x7, strides, dilations, rows wide enough for the
 *   vector gathers (stride 1 and 2), asymmetric pads, auto_pad,
 *   batch 2, u8 / s8 for x, w and y; w zero points per tensor / per channel / absent; bias or
 *   none; scales spanning decades; extreme inputs (x all at one end, w all at the other, zero
 *   points at both ends) that saturate; serial and 2 threads; and the forms declined. The
 *   GEMM-core kernels (qgemm_driver.inc: "qg__avx2", the exact emulation of vpdpbusd, always;
 *   "qg__avxvnni" / "qg__avx512vnni" where CPUID has them) also on groups, depthwise, u8
 *   weights with any zero point, planes over 4096 pixels and K near 33000.
 *   QLinearMatMul / MatMulInteger (GEMM core): M, K, N off the blockings, 1-D A / B, batches
 *   with B shared or batched, every u8 / s8 pairing, zero points absent / per tensor / per
 *   column, saturation at both ends, B constant or not, MatMulInteger's int32 wrap, and the
 *   forms declined.
 * Skips when the CPU lacks the ISA (EMBER_ISA_MAX caps it).
 */
#include "test_x86_harness.h"

#include "common/rng.h"
#include "kernels/x86/x86.h" /* em_qlinearconv_u8_ubs__avx2 */

#define QT_MAX_IO 12

/* A kernel of `op` (any dtype) whose name ends with suffix, or NULL. */
static const em_kernel *qt_find(em_op op, const char *suffix)
{
    size_t ls = strlen(suffix);
    for (size_t i = 0; i < em_registry_count(); i++) {
        const em_kernel *k = em_registry_at(i);
        size_t ln = strlen(k->name);
        if (k->op == op && k->device == EM_DEV_CPU && ln >= ls &&
            strcmp(k->name + ln - ls, suffix) == 0) {
            return k;
        }
    }
    return NULL;
}

static const em_kernel *qt_ref(em_op op)
{
    return t_kernel(op, EMBER_DTYPE_UNDEFINED);
}

/* prepare (inputs in const_mask keep their data), run, release, like kt_run for 12 inputs and
 * n_out outputs. */
static ember_status *qt_run_n(const em_kernel *k, const em_node *node, em_tensor *in, int n_in,
                              em_tensor *out, int n_out, unsigned const_mask, em_threadpool *pool)
{
    em_tensor pin[QT_MAX_IO], pout[3];
    assert_true(n_in <= QT_MAX_IO && n_out <= 3);
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
    em_kinfo ki = {node,          n_in,         n_out, pin, pout, test_allocator(),
                   kt_features(), em_threadpool_size(pool), NULL};
    void *state = NULL;
    size_t scratch_bytes = 0;
    ember_status *st = k->prepare(&ki, &state, &scratch_bytes);
    if (st != NULL) {
        assert_null(state);
        return st;
    }
    void *scratch = scratch_bytes > 0 ? em_aligned_alloc(test_allocator(), scratch_bytes) : NULL;
    if (scratch_bytes > 0) {
        assert_non_null(scratch);
        memset(scratch, 0x7f, scratch_bytes);
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

static ember_status *qt_run(const em_kernel *k, const em_node *node, em_tensor *in, int n_in,
                            em_tensor *out, unsigned const_mask, em_threadpool *pool)
{
    return qt_run_n(k, node, in, n_in, out, 1, const_mask, pool);
}

static void qt_same_bytes(const char *name, const char *kernel, const void *got, const void *ref,
                          int64_t n, int elem)
{
    const uint8_t *g = got, *r = ref;
    for (int64_t i = 0; i < n * elem; i++) {
        if (g[i] != r[i]) {
            fail_msg("case %s, kernel %s: element %lld differs (byte %lld: %d, expected %d)", name,
                     kernel, (long long)(i / elem), (long long)i, g[i], r[i]);
        }
    }
}

/* n bytes equal to the reference's, and the 33 guard bytes after them (0xa5) untouched. */
static void qt_same_bytes_guarded(const char *name, const char *kernel, const uint8_t *got,
                                  const uint8_t *ref, int64_t n)
{
    qt_same_bytes(name, kernel, got, ref, n, 1);
    for (int i = 0; i < 33; i++) {
        if (got[n + i] != 0xa5) {
            fail_msg("case %s: wrote past the end", name);
        }
    }
}

/* ---- QuantizeLinear / DequantizeLinear --------------------------------------------------- */

static const int64_t q_sizes[] = {0, 1, 7, 8, 9, 31, 32, 33, 63, 100, 16383, 16384, 16385, 40001};
static const float q_scales[] = {1e-3f, 0.37f, 1.0f, 20.0f, 1.5e4f};

/* Zero point cases: -1 absent, else the value (u8: 0, 128, 255; s8: -128, 0, 127). */
static const int zp_u8[] = {-1, 0, 128, 255};
static const int zp_s8[] = {-1000, -128, 0, 127}; /* -1000: absent */

static void q_fill(float *x, int64_t n, float scale, uint64_t seed)
{
    test_rng r = {seed};
    for (int64_t i = 0; i < n; i++) {
        uint64_t v = test_rng_next(&r);
        switch (v % 8) {
        case 0: /* an exact tie: (k + 0.5) * scale, k in [-300, 300] */
            x[i] = ((float)((int64_t)(v >> 8) % 601 - 300) + 0.5f) * scale;
            break;
        case 1:
            x[i] = (float)((int64_t)(v >> 8) % 2001 - 1000) * scale * 0.25f;
            break;
        default:
            x[i] = ((float)((v >> 11) & 0xfffff) / (float)0xfffff - 0.5f) * 600.0f * scale;
        }
    }
    if (n > 6) {
        x[1] = NAN;
        x[2] = INFINITY;
        x[3] = -INFINITY;
        x[4] = 3e38f;
        x[5] = -3e38f;
        x[6] = 0.0f;
    }
}

static void q_case(const em_kernel *k, em_threadpool *pool, ember_dtype yt, int zp, float scale,
                   int64_t n)
{
    char name[96];
    snprintf(name, sizeof name, "quantize %s zp %d scale %g n %lld", em_dtype_name(yt), zp,
             (double)scale, (long long)n);
    t_node node;
    t_node_init(&node, EM_OP_QUANTIZELINEAR, "q");
    bool has_zp = zp != -1 && zp != -1000;
    uint8_t zpv = (uint8_t)(yt == EMBER_DTYPE_I8 ? (uint8_t)(int8_t)zp : (uint8_t)zp);
    if (!has_zp && yt == EMBER_DTYPE_I8) {
        t_set_int(&node, "output_dtype", EMBER_DTYPE_I8);
    }
    float *x = t_f32(n + 1);
    q_fill(x, n, scale, 900 + (uint64_t)n);
    uint8_t *ref = test_malloc((size_t)n + 1), *got = test_malloc((size_t)n + 33);
    memset(got, 0xa5, (size_t)n + 33);
    em_tensor in[3], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 1, &n, x);
    t_tensor(&in[1], EMBER_DTYPE_F32, 0, NULL, &scale);
    if (has_zp) {
        t_tensor(&in[2], yt, 0, NULL, &zpv);
    } else {
        t_absent(&in[2]);
    }
    t_tensor(&out[0], yt, 1, &n, ref);
    t_expect_ok(qt_run(qt_ref(EM_OP_QUANTIZELINEAR), &node.n, in, 3, out, 6, NULL), name);
    out[0].data = got;
    t_expect_ok(qt_run(k, &node.n, in, 3, out, 6, n > 20000 ? pool : NULL), name);
    qt_same_bytes_guarded(name, k->name, got, ref, n);
    test_free(x);
    test_free(ref);
    test_free(got);
}

static void test_quantize(void **state)
{
    const em_kernel *k = qt_find(EM_OP_QUANTIZELINEAR, *state);
    if (k == NULL || !kt_isa_ok(k)) {
        skip();
    }
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    for (int t = 0; t < 2; t++) {
        ember_dtype yt = t == 0 ? EMBER_DTYPE_U8 : EMBER_DTYPE_I8;
        for (int z = 0; z < 4; z++) {
            for (size_t s = 0; s < sizeof q_scales / sizeof q_scales[0]; s++) {
                for (size_t i = 0; i < sizeof q_sizes / sizeof q_sizes[0]; i++) {
                    q_case(k, pool, yt, t == 0 ? zp_u8[z] : zp_s8[z], q_scales[s], q_sizes[i]);
                }
            }
        }
    }
    em_threadpool_destroy(pool);
}

static void dq_case(const em_kernel *k, em_threadpool *pool, ember_dtype xt, int zp, float scale,
                    int64_t n)
{
    char name[96];
    snprintf(name, sizeof name, "dequantize %s zp %d scale %g n %lld", em_dtype_name(xt), zp,
             (double)scale, (long long)n);
    t_node node;
    t_node_init(&node, EM_OP_DEQUANTIZELINEAR, "dq");
    bool has_zp = zp != -1 && zp != -1000;
    uint8_t zpv = (uint8_t)(xt == EMBER_DTYPE_I8 ? (uint8_t)(int8_t)zp : (uint8_t)zp);
    uint8_t *x = test_malloc((size_t)n + 1);
    test_rng r = {500 + (uint64_t)n};
    for (int64_t i = 0; i < n; i++) {
        x[i] = (uint8_t)(i < 256 ? (uint64_t)i : test_rng_next(&r)); /* every byte value first */
    }
    float *ref = t_f32(n + 1), *got = t_f32(n + 9);
    for (int i = 0; i < 9; i++) {
        got[n + i] = 12345.0f;
    }
    em_tensor in[3], out[1];
    t_tensor(&in[0], xt, 1, &n, x);
    t_tensor(&in[1], EMBER_DTYPE_F32, 0, NULL, &scale);
    if (has_zp) {
        t_tensor(&in[2], xt, 0, NULL, &zpv);
    } else {
        t_absent(&in[2]);
    }
    t_tensor(&out[0], EMBER_DTYPE_F32, 1, &n, ref);
    t_expect_ok(qt_run(qt_ref(EM_OP_DEQUANTIZELINEAR), &node.n, in, 3, out, 6, NULL), name);
    out[0].data = got;
    t_expect_ok(qt_run(k, &node.n, in, 3, out, 6, n > 20000 ? pool : NULL), name);
    qt_same_bytes(name, k->name, got, ref, n, 4);
    for (int i = 0; i < 9; i++) {
        if (got[n + i] != 12345.0f) {
            fail_msg("case %s: wrote past the end", name);
        }
    }
    test_free(x);
    test_free(ref);
    test_free(got);
}

static void test_dequantize(void **state)
{
    const em_kernel *k = qt_find(EM_OP_DEQUANTIZELINEAR, *state);
    if (k == NULL || !kt_isa_ok(k)) {
        skip();
    }
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    for (int t = 0; t < 2; t++) {
        ember_dtype xt = t == 0 ? EMBER_DTYPE_U8 : EMBER_DTYPE_I8;
        for (int z = 0; z < 4; z++) {
            for (size_t s = 0; s < sizeof q_scales / sizeof q_scales[0]; s++) {
                for (size_t i = 0; i < sizeof q_sizes / sizeof q_sizes[0]; i++) {
                    dq_case(k, pool, xt, t == 0 ? zp_u8[z] : zp_s8[z], q_scales[s], q_sizes[i]);
                }
            }
        }
    }
    em_threadpool_destroy(pool);
}

/* Per-axis parameters and 16-bit scales go to the reference. */
/* DynamicQuantizeLinear: y, scale and zero point byte-equal to the reference over lengths
 * that span several parallel blocks, inputs of one sign (the range then has 0 at one end), all
 * zeros (scale 1), +-0 mixes, NaN (ignored by the range, quantized to the zero point; kind 5
 * puts whole vectors of it where a kernel that let NaN into its running minimum would lose
 * the negative range) and +-inf (an infinite range). */
static void dql_case(const em_kernel *k, em_threadpool *pool, int64_t n, int kind)
{
    char name[96];
    snprintf(name, sizeof name, "dynamicquantizelinear n %lld kind %d", (long long)n, kind);
    t_node node;
    t_node_init(&node, EM_OP_DYNAMICQUANTIZELINEAR, "dq");
    float *x = t_f32(n + 1);
    q_fill(x, n, 0.01f, 1700 + (uint64_t)n + (uint64_t)kind);
    for (int64_t i = 0; i < n; i++) {
        if (kind == 1 || kind == 2) { /* one sign, no inf (kind 1 positive, 2 negative) */
            float v = fabsf(isfinite(x[i]) ? x[i] : 1.0f);
            x[i] = kind == 1 ? v : -v;
        } else if (kind == 3) { /* zeros of both signs */
            x[i] = (i & 1) ? -0.0f : 0.0f;
        } else if (kind == 4 && !isnan(x[i])) { /* finite, with a NaN here and there */
            x[i] = isfinite(x[i]) ? x[i] : 2.5f;
        } else if (kind == 5) { /* negative, and a run of 8 NaNs ending each 16384 block */
            int64_t in_block = i % 16384;
            x[i] = in_block >= 16376 || (n < 16384 && i >= (n & ~(int64_t)7) - 8 &&
                                         i < (n & ~(int64_t)7))
                       ? NAN
                       : -fabsf(isfinite(x[i]) ? x[i] : 1.0f);
        }
    }
    uint8_t *ref = test_malloc((size_t)n + 1), *got = test_malloc((size_t)n + 33);
    memset(got, 0xa5, (size_t)n + 33);
    float rs = 0.0f, gs = 0.0f;
    uint8_t rz = 0, gz = 0;
    em_tensor in[1], out[3];
    t_tensor(&in[0], EMBER_DTYPE_F32, 1, &n, x);
    t_tensor(&out[0], EMBER_DTYPE_U8, 1, &n, ref);
    t_tensor(&out[1], EMBER_DTYPE_F32, 0, NULL, &rs);
    t_tensor(&out[2], EMBER_DTYPE_U8, 0, NULL, &rz);
    t_expect_ok(qt_run_n(qt_ref(EM_OP_DYNAMICQUANTIZELINEAR), &node.n, in, 1, out, 3, 0, NULL),
                name);
    out[0].data = got;
    out[1].data = &gs;
    out[2].data = &gz;
    t_expect_ok(qt_run_n(k, &node.n, in, 1, out, 3, 0, n > 20000 ? pool : NULL), name);
    qt_same_bytes(name, k->name, &gs, &rs, 1, 4);
    qt_same_bytes(name, k->name, &gz, &rz, 1, 1);
    qt_same_bytes_guarded(name, k->name, got, ref, n);
    test_free(x);
    test_free(ref);
    test_free(got);
}

static void test_dynamicquantizelinear(void **state)
{
    const em_kernel *k = qt_find(EM_OP_DYNAMICQUANTIZELINEAR, *state);
    if (k == NULL || !kt_isa_ok(k)) {
        skip();
    }
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    static const int64_t sizes[] = {1, 7, 8, 9, 33, 100, 16384, 16385, 40001, 100003};
    for (int kind = 0; kind < 6; kind++) {
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            dql_case(k, pool, sizes[i], kind);
        }
    }
    em_threadpool_destroy(pool);
}

static void test_qdq_declines(void **state)
{
    const em_kernel *q = qt_find(EM_OP_QUANTIZELINEAR, *state);
    const em_kernel *dq = qt_find(EM_OP_DEQUANTIZELINEAR, *state);
    if (q == NULL || dq == NULL || !kt_isa_ok(q)) {
        skip();
    }
    t_node node;
    t_node_init(&node, EM_OP_QUANTIZELINEAR, "q");
    float x[6] = {0}, sc[3] = {1, 2, 3};
    uint8_t y[6], zp[3] = {0};
    uint16_t h = 0x3c00;
    int64_t d[2] = {3, 2}, d3 = 3;
    em_tensor in[3], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, d, x);
    t_tensor(&in[1], EMBER_DTYPE_F32, 1, &d3, sc);
    t_tensor(&in[2], EMBER_DTYPE_U8, 1, &d3, zp);
    t_tensor(&out[0], EMBER_DTYPE_U8, 2, d, y);
    t_set_int(&node, "axis", 0);
    t_expect_error(qt_run(q, &node.n, in, 3, out, 6, NULL), EMBER_ERR_UNSUPPORTED, "q",
                   "per-tensor");
    t_tensor(&in[1], EMBER_DTYPE_F16, 0, NULL, &h);
    t_tensor(&in[2], EMBER_DTYPE_U8, 0, NULL, zp);
    t_expect_error(qt_run(q, &node.n, in, 3, out, 6, NULL), EMBER_ERR_UNSUPPORTED, "q", "f32");
    t_node_init(&node, EM_OP_DEQUANTIZELINEAR, "dq");
    t_tensor(&in[0], EMBER_DTYPE_U8, 2, d, y);
    t_tensor(&out[0], EMBER_DTYPE_F16, 2, d, x);
    t_expect_error(qt_run(dq, &node.n, in, 3, out, 6, NULL), EMBER_ERR_UNSUPPORTED, "dq", "f32");
}

/* ---- QLinearConv ------------------------------------------------------------------------- */

typedef struct qc_case {
    const char *name;
    int64_t n, c, h, w, m, kh, kw;
    int64_t sh, sw, dh, dw, pads[4];
    const char *auto_pad;
    ember_dtype xt, wt, yt;
    int wzp;    /* 0 absent, 1 per tensor, 2 per channel */
    bool ws_pc; /* w scale per channel */
    bool bias;
    int extreme;   /* 0 random; 1 x at its max, w at its min; 2 x at its min, w at its max */
    float ys;      /* y scale */
    int64_t group; /* 0: 1 */
} qc_case;

#define U8 EMBER_DTYPE_U8
#define I8 EMBER_DTYPE_I8
/* clang-format off */
static const qc_case qc_cases[] = {
    {"1x1", 1, 16, 7, 9, 24, 1, 1, 1, 1, 1, 1, {0}, NULL, U8, I8, U8, 1, true, true, 0, 0.05f, 1},
    {"3x3_pad1", 1, 5, 11, 13, 7, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, NULL, U8, I8, U8, 2, true, true,
     0, 0.02f, 1},
    {"3x3_s2_odd", 2, 3, 15, 17, 13, 3, 3, 2, 2, 1, 1, {1, 0, 2, 1}, NULL, U8, I8, U8, 0, true,
     false, 0, 0.3f, 1},
    {"7x7_s2_p3", 1, 3, 30, 29, 8, 7, 7, 2, 2, 1, 1, {3, 3, 3, 3}, NULL, U8, I8, U8, 1, true, true,
     0, 0.1f, 1},
    {"dil2", 1, 4, 12, 10, 6, 3, 3, 1, 1, 2, 2, {2, 2, 2, 2}, NULL, I8, I8, I8, 1, false, true, 0,
     0.007f, 1},
    {"same_upper", 1, 6, 9, 9, 5, 4, 2, 2, 1, 1, 1, {0}, "SAME_UPPER", U8, U8, I8, 2, false, true,
     0, 2.0f, 1},
    {"same_lower", 1, 6, 8, 7, 5, 3, 4, 1, 2, 1, 1, {0}, "SAME_LOWER", I8, U8, U8, 1, true, false,
     0, 0.5f, 1},
    {"valid_wide", 1, 33, 3, 40, 70, 2, 5, 1, 1, 1, 1, {0}, "VALID", U8, I8, U8, 1, true, true, 0,
     0.04f, 1},
    /* rows wide enough for the vector gathers (16 output columns at a time), both x types */
    {"wide_s1_s8", 1, 5, 4, 45, 11, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, NULL, I8, I8, U8, 2, true,
     true, 0, 0.05f, 1},
    {"wide_s2_u8", 1, 3, 5, 75, 9, 3, 3, 2, 2, 1, 1, {1, 1, 1, 2}, NULL, U8, I8, U8, 1, true, true,
     0, 0.05f, 1},
    {"wide_s2_s8_1x1", 2, 7, 3, 66, 10, 1, 1, 2, 2, 1, 1, {0}, NULL, I8, I8, I8, 1, true, true, 0,
     0.02f, 1},
    {"big_k", 1, 300, 5, 6, 9, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, NULL, U8, I8, U8, 2, true, true, 0,
     1.0f, 1},
    {"sat_hi", 1, 64, 6, 6, 7, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, NULL, U8, I8, U8, 1, true, true, 1,
     1e-3f, 1},
    {"sat_lo", 1, 64, 6, 6, 7, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, NULL, U8, I8, I8, 2, true, true, 2,
     1e-4f, 1},
    {"tiny_ys_scale_1e3", 1, 4, 5, 5, 3, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, NULL, U8, I8, U8, 1,
     true, true, 0, 1e3f, 1},
    {"ext_s8", 1, 9, 5, 5, 6, 1, 1, 1, 1, 1, 1, {0}, NULL, I8, I8, U8, 2, true, false, 1, 0.01f, 1},
    /* the GEMM-core kernels (qgemm_driver.inc) only: groups, depthwise, u8 weights whose zero
     * point is not 128 (the activations' sums), K near the limit */
    {"group2", 1, 6, 9, 11, 10, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, NULL, U8, I8, U8, 2, true, true, 0,
     0.05f, 2},
    {"group3_s2_u8w", 2, 9, 10, 9, 6, 3, 1, 2, 1, 1, 1, {1, 0, 0, 0}, NULL, I8, U8, I8, 2, true,
     true, 0, 0.03f, 3},
    {"depthwise", 1, 13, 12, 21, 13, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, NULL, U8, I8, U8, 1, true,
     true, 0, 0.01f, 13},
    {"depthwise_s2_x2", 1, 8, 11, 19, 16, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, NULL, U8, U8, U8, 2, true,
     true, 0, 0.01f, 8},
    {"dw_5x5_dil_s3", 2, 7, 17, 23, 7, 5, 5, 3, 3, 2, 1, {2, 3, 1, 0}, NULL, I8, I8, I8, 2, true,
     true, 0, 0.02f, 7},
    {"dw_sat_same", 1, 5, 9, 40, 5, 3, 3, 2, 1, 1, 1, {0}, "SAME_UPPER", U8, U8, U8, 2, true,
     true, 1, 1e-4f, 5},
    {"dw_1x1_wide", 1, 3, 2, 70, 3, 1, 1, 1, 1, 1, 1, {0}, NULL, U8, I8, U8, 1, false, false, 0,
     0.5f, 3},
    {"group4_sat", 1, 8, 5, 5, 12, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, NULL, U8, U8, U8, 2, true, true,
     1, 1e-4f, 4},
    {"u8w_zp_1x1", 1, 37, 5, 7, 9, 1, 1, 1, 1, 1, 1, {0}, NULL, U8, U8, U8, 2, true, true, 0,
     0.2f, 0},
    {"big_plane", 1, 5, 70, 65, 6, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, NULL, U8, I8, U8, 1, true, true,
     0, 0.05f, 0}, /* P > 4096: the im2col in several runs of rows */
    {"k_32k", 1, 3600, 3, 3, 5, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, NULL, U8, I8, U8, 2, true, true,
     0, 30.0f, 0},
    {"k_32k_ext", 1, 3660, 2, 2, 3, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, NULL, U8, U8, I8, 2, true,
     true, 2, 1e-3f, 0},
};
/* clang-format on */

static void qc_rand(void *p, ember_dtype dt, int64_t n, uint64_t seed, int extreme)
{
    test_rng r = {seed};
    for (int64_t i = 0; i < n; i++) {
        uint8_t v = (uint8_t)test_rng_next(&r);
        if (extreme == 1) {
            v = dt == U8 ? 255 : 127;
        } else if (extreme == 2) {
            v = dt == U8 ? 0 : (uint8_t)(int8_t)-128;
        }
        ((uint8_t *)p)[i] = v;
    }
}

/* Overwrites a case's random x (nx bytes) and w (nw bytes, rows of nw / m) and x's zero point. */
typedef void qc_fill_fn(uint8_t *x, int64_t nx, uint8_t *w, int64_t nw, int64_t m, uint8_t *xz,
                        bool x_s8);

/* Whether u8__avx2 takes its vpmaddubsw path for this node and x (prepare, ask, release). */
static bool qc_ubs_path(const em_kernel *k, const em_node *node, const em_tensor *in,
                        const em_tensor *out)
{
    em_tensor pin[9], pout = *out;
    for (int i = 0; i < 9; i++) {
        pin[i] = in[i];
    }
    pin[0].data = NULL;
    pout.data = NULL;
    em_kinfo ki = {node, 9, 1, pin, &pout, test_allocator(), kt_features(), 1, NULL};
    void *state = NULL;
    size_t scratch_bytes = 0;
    t_expect_ok(k->prepare(&ki, &state, &scratch_bytes), "ubs prepare");
    bool ubs = em_qlinearconv_u8_ubs__avx2(state, &in[0]);
    k->release(test_allocator(), state);
    return ubs;
}

static void qc_run_case_fill(const em_kernel *k, const qc_case *c, em_threadpool *pool,
                             qc_fill_fn *fill, int want_ubs);

static void qc_run_case(const em_kernel *k, const qc_case *c, em_threadpool *pool)
{
    qc_run_case_fill(k, c, pool, NULL, -1);
}

/* want_ubs: -1 either path; 0 / 1 the int16 / vpmaddubsw path of u8__avx2 must run. */
static void qc_run_case_fill(const em_kernel *k, const qc_case *c, em_threadpool *pool,
                             qc_fill_fn *fill, int want_ubs)
{
    t_node node;
    t_node_init(&node, EM_OP_QLINEARCONV, c->name);
    int64_t ks[2] = {c->kh, c->kw}, st[2] = {c->sh, c->sw}, dl[2] = {c->dh, c->dw};
    t_set_ints(&node, "kernel_shape", ks, 2);
    t_set_ints(&node, "strides", st, 2);
    t_set_ints(&node, "dilations", dl, 2);
    int64_t pb[2], oh, ow, in[2] = {c->h, c->w};
    if (c->auto_pad != NULL) {
        t_set_string(&node, "auto_pad", c->auto_pad);
    } else {
        t_set_ints(&node, "pads", c->pads, 4);
    }
    for (int d = 0; d < 2; d++) {
        int64_t ext = (ks[d] - 1) * dl[d] + 1, o;
        if (c->auto_pad == NULL) {
            o = (in[d] + c->pads[d] + c->pads[d + 2] - ext) / st[d] + 1;
        } else if (strcmp(c->auto_pad, "VALID") == 0) {
            o = (in[d] - ext) / st[d] + 1;
        } else {
            o = (in[d] + st[d] - 1) / st[d];
        }
        pb[d] = o;
    }
    oh = pb[0], ow = pb[1];
    const int64_t group = c->group > 0 ? c->group : 1;
    if (group > 1) {
        t_set_int(&node, "group", group);
    }
    int64_t xd[4] = {c->n, c->c, c->h, c->w}, wd[4] = {c->m, c->c / group, c->kh, c->kw};
    int64_t yd[4] = {c->n, c->m, oh, ow}, md = c->m;
    int64_t nx = t_numel(xd, 4), nw = t_numel(wd, 4), ny = t_numel(yd, 4);
    uint8_t *x = test_malloc((size_t)nx), *w = test_malloc((size_t)nw);
    uint8_t *ref = test_malloc((size_t)ny), *got = test_malloc((size_t)ny);
    uint8_t xz = 0, wz[128], yz = 0;
    float xs = 0.02f, ws[128], ys = c->ys;
    int32_t b[128];
    assert_true(c->m <= 128);
    qc_rand(x, c->xt, nx, 11, c->extreme);
    qc_rand(w, c->wt, nw, 12, c->extreme == 0 ? 0 : 3 - c->extreme);
    qc_rand(&xz, c->xt, 1, 13, c->extreme == 0 ? 0 : 3 - c->extreme); /* the far end */
    qc_rand(wz, c->wt, c->m, 14, c->extreme == 0 ? 0 : c->extreme);
    qc_rand(&yz, c->yt, 1, 15, 0);
    if (fill != NULL) {
        fill(x, nx, w, nw, c->m, &xz, c->xt == I8);
    }
    test_rng r = {16};
    for (int64_t i = 0; i < c->m; i++) {
        /* w scales over three decades; bias up to +-2^20 */
        ws[i] = (float)(1 + test_rng_next(&r) % 999) * 1e-5f;
        b[i] = (int32_t)(test_rng_next(&r) % 2097153) - 1048576;
    }
    em_tensor tin[9], out[1];
    int64_t one = 1;
    t_tensor(&tin[0], c->xt, 4, xd, x);
    t_tensor(&tin[1], EMBER_DTYPE_F32, 0, NULL, &xs);
    t_tensor(&tin[2], c->xt, 0, NULL, &xz);
    t_tensor(&tin[3], c->wt, 4, wd, w);
    t_tensor(&tin[4], EMBER_DTYPE_F32, c->ws_pc ? 1 : 0, c->ws_pc ? &md : NULL, ws);
    if (c->wzp == 0) {
        t_absent(&tin[5]);
    } else {
        t_tensor(&tin[5], c->wt, 1, c->wzp == 2 ? &md : &one, wz);
    }
    t_tensor(&tin[6], EMBER_DTYPE_F32, 0, NULL, &ys);
    t_tensor(&tin[7], c->yt, 0, NULL, &yz);
    if (c->bias) {
        t_tensor(&tin[8], EMBER_DTYPE_I32, 1, &md, b);
    } else {
        t_absent(&tin[8]);
    }
    t_tensor(&out[0], c->yt, 4, yd, ref);
    t_expect_ok(qt_run(qt_ref(EM_OP_QLINEARCONV), &node.n, tin, 9, out, 0x1fe, NULL), c->name);
    int n_sat = 0;
    for (int64_t i = 0; i < ny; i++) {
        int v = c->yt == U8 ? ref[i] : (int8_t)ref[i];
        n_sat += v == (c->yt == U8 ? 0 : -128) || v == (c->yt == U8 ? 255 : 127);
    }
    if (c->extreme != 0 && n_sat == 0) {
        fail_msg("case %s: the extreme case saturates nothing", c->name);
    }
    if (want_ubs >= 0 && qc_ubs_path(k, &node.n, tin, out) != (want_ubs == 1)) {
        fail_msg("case %s: u8__avx2 should take its %s path", c->name,
                 want_ubs == 1 ? "vpmaddubsw" : "int16");
    }
    for (int t = 0; t < 2; t++) {
        memset(got, 0x5a, (size_t)ny);
        out[0].data = got;
        t_expect_ok(qt_run(k, &node.n, tin, 9, out, 0x1fe, t == 0 ? NULL : pool), c->name);
        qt_same_bytes(c->name, k->name, got, ref, ny, 1);
    }
    test_free(x);
    test_free(w);
    test_free(ref);
    test_free(got);
}

/* Names the kernel under test, or says why it is skipped. */
static const em_kernel *qt_kernel_or_skip(em_op op, const char *suffix)
{
    const em_kernel *k = qt_find(op, suffix);
    if (k == NULL || !kt_isa_ok(k)) {
        print_message("skipped %s%s: %s\n", em_op_name(op), suffix,
                      k == NULL ? "not built" : "this CPU lacks its ISA (CPUID / EMBER_ISA_MAX)");
        return NULL;
    }
    return k;
}

static void test_qlinearconv(void **state)
{
    const em_kernel *k = qt_kernel_or_skip(EM_OP_QLINEARCONV, *state);
    if (k == NULL) {
        skip();
    }
    /* the int16 kernel takes group 1 and K <= 33000; the GEMM-core ones every case here */
    const bool core = strstr(k->name, "_qg__") != NULL, dw = strstr(k->name, "_dw__") != NULL;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    for (size_t i = 0; i < sizeof qc_cases / sizeof qc_cases[0]; i++) {
        const qc_case *c = &qc_cases[i];
        const bool is_dw = c->group > 1 && c->group == c->c && c->group == c->m;
        if ((!core && !dw && c->group > 1) || (dw && !is_dw) || (core && is_dw)) {
            continue;
        }
        qc_run_case(k, &qc_cases[i], pool);
    }
    em_threadpool_destroy(pool);
}

/* ---- QLinearConv: u8__avx2's vpmaddubsw path and its fallback ------------------------------
 * vpmaddubsw saturates each pair sum x0 w0 + x1 w1 to int16; the kernel takes that path only
 * when every activation (as the u8 the dot sees, x ^ 0x80 for s8) and x's zero point are at
 * most xlim, the largest u8 for which every weight pair's sum stays in int16 (qconv_u8_avx2.c).
 * Each fill below says which path must run; the output is compared byte for byte either way.
 * The shapes include 1x1 stride-1 convs without padding, whose packing reads x directly. */

/* x and its zero point as the dot's u8 values vals[], chosen at random. */
static void qc_fill_x(uint8_t *x, int64_t nx, uint8_t *xz, bool x_s8, const uint8_t *vals,
                      int n_vals, uint64_t seed)
{
    test_rng r = {seed};
    const uint8_t f = x_s8 ? 0x80 : 0;
    for (int64_t i = 0; i < nx; i++) {
        x[i] = (uint8_t)(vals[test_rng_next(&r) % (uint64_t)n_vals] ^ f);
    }
    *xz = (uint8_t)(vals[test_rng_next(&r) % (uint64_t)n_vals] ^ f);
}

/* 7-bit weights ([-64, 64], ORT's reduce_range): every pair exact for any u8 x. */
static void qc_fill_w7(uint8_t *x, int64_t nx, uint8_t *w, int64_t nw, int64_t m, uint8_t *xz,
                       bool x_s8)
{
    (void)m;
    static const uint8_t xv[] = {0, 127, 128, 255, 1, 254, 77, 200};
    qc_fill_x(x, nx, xz, x_s8, xv, 8, 21);
    test_rng r = {22};
    for (int64_t i = 0; i < nw; i++) {
        w[i] = (uint8_t)(int8_t)((int)(test_rng_next(&r) % 129) - 64);
    }
}

/* Any s8 weights, both ends included, with activations <= 127 (PyTorch's reduce_range):
 * pair sums at most 127 * 256. */
static void qc_fill_x127(uint8_t *x, int64_t nx, uint8_t *w, int64_t nw, int64_t m, uint8_t *xz,
                         bool x_s8)
{
    (void)m;
    static const uint8_t xv[] = {0, 127, 126, 1, 64, 100};
    qc_fill_x(x, nx, xz, x_s8, xv, 6, 23);
    test_rng r = {24};
    for (int64_t i = 0; i < nw; i++) {
        uint64_t v = test_rng_next(&r);
        w[i] = v % 3 == 0 ? (uint8_t)(v % 2 ? 127 : 0x80) : (uint8_t)(v >> 8);
    }
}

/* Every pair at the bound: positive part or negative magnitude exactly 128 (xlim 255). */
static const int8_t qc_pairs_128[][2] = {{64, 64},  {127, 1},   {1, 127},    {-128, 0},
                                         {0, -128}, {-64, -64}, {127, -128}, {-128, 127},
                                         {100, 28}, {-100, -28}};

static void qc_fill_pairs(uint8_t *w, int64_t nw, int64_t m, int bad)
{
    test_rng r = {25};
    const int64_t k = nw / m;
    for (int64_t row = 0; row < m; row++) {
        for (int64_t i = 0; i < k; i += 2) {
            const int8_t *pr = qc_pairs_128[test_rng_next(&r) % 10];
            w[row * k + i] = (uint8_t)pr[0];
            if (i + 1 < k) {
                w[row * k + i + 1] = (uint8_t)pr[1];
            }
        }
    }
    if (bad != 0 && k >= 2) { /* one pair of one row just past the bound: 129 */
        int64_t row = m / 2, i = (k / 2 - 1) / 2 * 2;
        w[row * k + i] = (uint8_t)(int8_t)(bad * 65);
        w[row * k + i + 1] = (uint8_t)(int8_t)(bad * 64);
    }
}

static const uint8_t qc_x_high[] = {255, 255, 254, 0, 128, 255, 127};

static void qc_fill_bound128(uint8_t *x, int64_t nx, uint8_t *w, int64_t nw, int64_t m, uint8_t *xz,
                             bool x_s8)
{
    qc_fill_x(x, nx, xz, x_s8, qc_x_high, 7, 26);
    qc_fill_pairs(w, nw, m, 0);
}

/* One pair at 129 (+65 +64, then -65 -64): xlim 254, so x = 255 must take the int16 path ... */
static void qc_fill_bound129(uint8_t *x, int64_t nx, uint8_t *w, int64_t nw, int64_t m, uint8_t *xz,
                             bool x_s8)
{
    qc_fill_x(x, nx, xz, x_s8, qc_x_high, 7, 27);
    qc_fill_pairs(w, nw, m, 1);
}

static void qc_fill_bound129n(uint8_t *x, int64_t nx, uint8_t *w, int64_t nw, int64_t m,
                              uint8_t *xz, bool x_s8)
{
    qc_fill_x(x, nx, xz, x_s8, qc_x_high, 7, 28);
    qc_fill_pairs(w, nw, m, -1);
}

/* ... and x <= 254 the vpmaddubsw one (254 * 129 = 32766 fits). */
static void qc_fill_bound129_x254(uint8_t *x, int64_t nx, uint8_t *w, int64_t nw, int64_t m,
                                  uint8_t *xz, bool x_s8)
{
    static const uint8_t xv[] = {254, 254, 253, 0, 128};
    qc_fill_x(x, nx, xz, x_s8, xv, 5, 29);
    qc_fill_pairs(w, nw, m, nx % 2 ? 1 : -1);
}

/* Full-range weights (as ORT's per-channel s8) with full-range x: the int16 path. */
static void qc_fill_full(uint8_t *x, int64_t nx, uint8_t *w, int64_t nw, int64_t m, uint8_t *xz,
                         bool x_s8)
{
    qc_fill_x(x, nx, xz, x_s8, qc_x_high, 7, 30);
    qc_fill_x127(NULL, 0, w, nw, m, xz, x_s8);
    w[0] = 127, w[1] = 127;
}

/* clang-format off */
static const qc_case qc_ubs_cases[] = {
    {"ubs_3x3_pad1", 1, 5, 11, 13, 7, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, NULL, U8, I8, U8, 0, true,
     true, 0, 0.02f, 1},
    {"ubs_7x7_s2_x2", 2, 3, 30, 29, 13, 7, 7, 2, 2, 1, 1, {3, 3, 3, 3}, NULL, U8, I8, U8, 0, true,
     true, 0, 0.1f, 1},
    {"ubs_1x1_s2_s8x", 2, 7, 3, 66, 10, 1, 1, 2, 2, 1, 1, {0}, NULL, I8, I8, I8, 0, true, true, 0,
     0.02f, 1},
    {"ubs_wide_s1", 1, 5, 4, 45, 11, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, NULL, U8, I8, U8, 0, true,
     true, 0, 0.05f, 1},
    {"ubs_big_k", 1, 300, 5, 6, 9, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, NULL, U8, I8, U8, 0, true, true,
     0, 1.0f, 1},
    {"ubs_dil_asym_s8x", 1, 4, 12, 23, 6, 3, 2, 1, 2, 2, 1, {2, 0, 1, 1}, NULL, I8, I8, U8, 0,
     false, true, 0, 0.007f, 1},
    {"ubs_sat", 1, 64, 6, 6, 7, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, NULL, U8, I8, U8, 0, true, true, 0,
     1e-4f, 1},
    /* 1x1 stride 1 without padding: the packing reads x's planes directly */
    {"ubs_1x1_s1_c7_s8x", 2, 7, 5, 9, 10, 1, 1, 1, 1, 1, 1, {0}, NULL, I8, I8, U8, 0, true, true,
     0, 0.05f, 1},
    {"ubs_1x1_s1_c8_p240", 1, 8, 6, 40, 12, 1, 1, 1, 1, 1, 1, {0}, NULL, U8, I8, U8, 0, true,
     true, 0, 0.05f, 1},
    {"ubs_1x1_s1_c37_p243", 1, 37, 9, 27, 6, 1, 1, 1, 1, 1, 1, {0}, NULL, U8, I8, I8, 0, false,
     true, 0, 0.1f, 1},
};
/* clang-format on */

static void test_qlinearconv_ubs(void **state)
{
    const em_kernel *k = qt_kernel_or_skip(EM_OP_QLINEARCONV, *state);
    if (k == NULL) {
        skip();
    }
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    static qc_fill_fn *const fills[] = {qc_fill_w7,       qc_fill_x127,      qc_fill_bound128,
                                        qc_fill_bound129, qc_fill_bound129n, qc_fill_bound129_x254,
                                        qc_fill_full};
    static const int want[] = {1, 1, 1, 0, 0, 1, 0};
    for (size_t i = 0; i < sizeof qc_ubs_cases / sizeof qc_ubs_cases[0]; i++) {
        for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) {
            qc_run_case_fill(k, &qc_ubs_cases[i], pool, fills[f], want[f]);
        }
    }
    /* u8 weights whose w - w_zp leaves s8 (zero point 0): the int16 path for any x */
    qc_case c = qc_ubs_cases[0];
    c.wt = U8;
    qc_run_case_fill(k, &c, pool, qc_fill_x127, 0);
    em_threadpool_destroy(pool);
}

/* Grouped convs and run-time weights go to the reference. */
static void test_qlinearconv_declines(void **state)
{
    const em_kernel *k = qt_find(EM_OP_QLINEARCONV, *state);
    if (k == NULL || !kt_isa_ok(k)) {
        skip();
    }
    t_node node;
    t_node_init(&node, EM_OP_QLINEARCONV, "qc");
    uint8_t x[32] = {0}, w[32] = {0}, y[32], z = 0;
    float s = 1.0f;
    int64_t xd[4] = {1, 2, 2, 2}, wd[4] = {2, 1, 1, 1}, yd[4] = {1, 2, 2, 2};
    em_tensor in[8], out[1];
    t_tensor(&in[0], U8, 4, xd, x);
    t_tensor(&in[1], EMBER_DTYPE_F32, 0, NULL, &s);
    t_tensor(&in[2], U8, 0, NULL, &z);
    t_tensor(&in[3], I8, 4, wd, w);
    t_tensor(&in[4], EMBER_DTYPE_F32, 0, NULL, &s);
    t_tensor(&in[5], I8, 0, NULL, &z);
    t_tensor(&in[6], EMBER_DTYPE_F32, 0, NULL, &s);
    t_tensor(&in[7], U8, 0, NULL, &z);
    t_tensor(&out[0], U8, 4, yd, y);
    t_set_int(&node, "group", 2);
    t_expect_error(qt_run(k, &node.n, in, 8, out, 0xfe, NULL), EMBER_ERR_UNSUPPORTED, "qc",
                   "group");
    t_node_init(&node, EM_OP_QLINEARCONV, "qc");
    wd[1] = 2;
    t_tensor(&in[3], I8, 4, wd, w);
    t_expect_error(qt_run(k, &node.n, in, 8, out, 0xf6, NULL), EMBER_ERR_UNSUPPORTED, "qc",
                   "constants");
}

/* ---- QLinearMatMul / MatMulInteger --------------------------------------------------------- */

typedef struct qm_case {
    const char *name;
    int ra;           /* A's rank (1..4); its batch dims are bdims[0 .. ra - 3] */
    int rb;           /* B's rank: 1, 2 (shared by the batch) or ra (batched like A) */
    int64_t bdims[2]; /* batch dims */
    int64_t m, k, n;
    ember_dtype at, bt, yt;
    int azp, bzp; /* 0 absent, 1 per tensor; bzp 2 per column */
    bool bs_pc;   /* b scale per column */
    int extreme;  /* as qc_case */
    float ys;
} qm_case;

/* clang-format off */
static const qm_case qm_cases[] = {
    {"2d_odd", 2, 2, {0}, 7, 13, 19, U8, I8, U8, 1, 1, false, 0, 0.05f},
    {"2d_pc", 2, 2, {0}, 33, 70, 41, U8, I8, U8, 1, 2, true, 0, 0.1f},
    {"2d_u8u8", 2, 2, {0}, 9, 31, 50, U8, U8, I8, 1, 2, true, 0, 0.3f},
    {"2d_s8s8", 2, 2, {0}, 5, 66, 17, I8, I8, I8, 1, 1, false, 0, 0.02f},
    {"2d_s8u8_nozp", 2, 2, {0}, 12, 9, 35, I8, U8, U8, 0, 0, false, 0, 0.05f},
    {"vec_a", 1, 2, {0}, 1, 40, 23, U8, I8, U8, 1, 2, true, 0, 0.05f},
    {"vec_b", 2, 1, {0}, 11, 29, 1, U8, I8, U8, 1, 1, false, 0, 0.05f},
    {"k1", 2, 2, {0}, 6, 1, 9, U8, I8, U8, 1, 1, false, 0, 0.001f},
    {"batch_shared", 4, 2, {2, 3}, 5, 21, 18, U8, I8, U8, 1, 2, true, 0, 0.05f},
    {"batch_batched", 3, 3, {3, 0}, 10, 27, 33, U8, U8, U8, 1, 1, false, 0, 0.05f},
    {"big_k", 2, 2, {0}, 4, 4099, 20, U8, I8, U8, 1, 2, true, 0, 2.0f},
    {"k_33000", 2, 2, {0}, 3, 33000, 5, U8, U8, U8, 1, 2, true, 0, 40.0f},
    {"sat_hi", 2, 2, {0}, 9, 300, 21, U8, I8, U8, 1, 1, true, 1, 1e-3f},
    {"sat_lo", 2, 2, {0}, 9, 300, 21, U8, U8, I8, 1, 2, true, 2, 1e-4f},
    {"ext_s8", 2, 2, {0}, 8, 64, 16, I8, I8, U8, 1, 2, false, 1, 1e-2f},
    {"big", 2, 2, {0}, 70, 200, 100, U8, I8, U8, 1, 2, true, 0, 0.05f},
};
/* clang-format on */

/* One case of QLinearMatMul (qlinear) or MatMulInteger against the reference, serially and on
 * 2 threads, B constant (as prepare packs it) or not. */
static void qm_run_case(const em_kernel *k, const qm_case *c, bool qlinear, bool b_const,
                        em_threadpool *pool)
{
    t_node node;
    t_node_init(&node, qlinear ? EM_OP_QLINEARMATMUL : EM_OP_MATMULINTEGER, c->name);
    int64_t ad[4], bd[4], yd[4];
    int nbat = c->ra - 2 > 0 ? c->ra - 2 : 0, yr = 0;
    for (int d = 0; d < nbat; d++) {
        ad[d] = c->bdims[d];
        yd[yr++] = c->bdims[d];
    }
    if (c->ra >= 2) {
        ad[nbat] = c->m;
        yd[yr++] = c->m;
    }
    ad[c->ra - 1] = c->k;
    if (c->rb == 1) {
        bd[0] = c->k;
    } else {
        for (int d = 0; d < c->rb - 2; d++) {
            bd[d] = c->bdims[d];
        }
        bd[c->rb - 2] = c->k;
        bd[c->rb - 1] = c->n;
        yd[yr++] = c->n;
    }
    int64_t na = t_numel(ad, c->ra), nb = t_numel(bd, c->rb), ny = t_numel(yd, yr);
    const int ye = qlinear ? 1 : 4;
    const ember_dtype yt = qlinear ? c->yt : EMBER_DTYPE_I32;
    uint8_t *a = test_malloc((size_t)na + 1), *b = test_malloc((size_t)nb + 1);
    uint8_t *ref = test_malloc((size_t)(ny * ye) + 1), *got = test_malloc((size_t)(ny * ye) + 1);
    uint8_t az = 0, bz[128], yz = 0;
    float as = 0.02f, bs[128], ys = c->ys;
    assert_true(c->n <= 128);
    qc_rand(a, c->at, na, 21, c->extreme);
    qc_rand(b, c->bt, nb, 22, c->extreme == 0 ? 0 : 3 - c->extreme);
    qc_rand(&az, c->at, 1, 23, c->extreme == 0 ? 0 : 3 - c->extreme);
    qc_rand(bz, c->bt, c->n, 24, c->extreme);
    qc_rand(&yz, c->yt, 1, 25, 0);
    test_rng r = {26};
    for (int64_t i = 0; i < c->n; i++) {
        bs[i] = (float)(1 + test_rng_next(&r) % 999) * 1e-5f; /* three decades */
    }
    em_tensor tin[8], out[1];
    int64_t one = 1, nn = c->n;
    int ia = 0, ib = qlinear ? 3 : 1, iaz = 2, ibz = qlinear ? 5 : 3, n_in = qlinear ? 8 : 4;
    t_tensor(&tin[ia], c->at, c->ra, ad, a);
    t_tensor(&tin[ib], c->bt, c->rb, bd, b);
    if (c->azp == 0) {
        t_absent(&tin[iaz]);
    } else {
        t_tensor(&tin[iaz], c->at, 0, NULL, &az);
    }
    if (c->bzp == 0) {
        t_absent(&tin[ibz]);
    } else {
        t_tensor(&tin[ibz], c->bt, 1, c->bzp == 2 ? &nn : &one, bz);
    }
    if (qlinear) {
        t_tensor(&tin[1], EMBER_DTYPE_F32, 0, NULL, &as);
        t_tensor(&tin[4], EMBER_DTYPE_F32, c->bs_pc ? 1 : 0, c->bs_pc ? &nn : NULL, bs);
        t_tensor(&tin[6], EMBER_DTYPE_F32, 0, NULL, &ys);
        t_tensor(&tin[7], c->yt, 0, NULL, &yz);
    }
    const unsigned cmask = b_const ? 1u << ib : 0;
    t_tensor(&out[0], yt, yr, yd, ref);
    t_expect_ok(qt_run(qt_ref(node.n.op), &node.n, tin, n_in, out, 0xff, NULL), c->name);
    if (qlinear && c->extreme != 0) {
        int n_sat = 0;
        for (int64_t i = 0; i < ny; i++) {
            int v = c->yt == U8 ? ref[i] : (int8_t)ref[i];
            n_sat += v == (c->yt == U8 ? 0 : -128) || v == (c->yt == U8 ? 255 : 127);
        }
        if (n_sat == 0) {
            fail_msg("case %s: the extreme case saturates nothing", c->name);
        }
    }
    for (int t = 0; t < 2; t++) {
        memset(got, 0x5a, (size_t)(ny * ye) + 1);
        out[0].data = got;
        t_expect_ok(qt_run(k, &node.n, tin, n_in, out, cmask, t == 0 ? NULL : pool), c->name);
        qt_same_bytes(c->name, k->name, got, ref, ny, ye);
        assert_int_equal(got[ny * ye], 0x5a); /* nothing past the end */
    }
    test_free(a);
    test_free(b);
    test_free(ref);
    test_free(got);
}

static void qm_test(const char *suffix, em_op op)
{
    const em_kernel *k = qt_kernel_or_skip(op, suffix);
    if (k == NULL) {
        skip();
    }
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    for (size_t i = 0; i < sizeof qm_cases / sizeof qm_cases[0]; i++) {
        for (int bc = 0; bc < 2; bc++) {
            qm_run_case(k, &qm_cases[i], op == EM_OP_QLINEARMATMUL, bc == 1, pool);
        }
    }
    em_threadpool_destroy(pool);
}

static void test_qlinearmatmul(void **state)
{
    qm_test(*state, EM_OP_QLINEARMATMUL);
}

static void test_matmulinteger(void **state)
{
    qm_test(*state, EM_OP_MATMULINTEGER);
}

/* MatMulInteger's int32 sums wrap as the reference's do: K * 255 * 255 past 2^31. */
static void test_matmulinteger_wrap(void **state)
{
    const em_kernel *k = qt_kernel_or_skip(EM_OP_MATMULINTEGER, *state);
    if (k == NULL) {
        skip();
    }
    const qm_case c = {"wrap", 2, 2, {0}, 3, 40000, 9, U8, I8, U8, 1, 2, false, 1, 1.0f};
    qm_run_case(k, &c, false, true, NULL);
}

/* What the GEMM-core matmuls leave to the reference: empty products, A broadcast over B's
 * batch, per-row A zero points. */
static void test_qmatmul_declines(void **state)
{
    const em_kernel *k = qt_kernel_or_skip(EM_OP_MATMULINTEGER, *state);
    if (k == NULL) {
        skip();
    }
    t_node node;
    t_node_init(&node, EM_OP_MATMULINTEGER, "mmi");
    uint8_t a[64] = {0}, b[64] = {0}, z[4] = {0};
    int32_t y[64];
    int64_t ad[3] = {1, 2, 0}, bd[3] = {2, 0, 3}, yd[3] = {2, 2, 3}, four = 2;
    em_tensor in[4], out[1];
    t_tensor(&in[0], U8, 2, ad + 1, a);
    t_tensor(&in[1], I8, 2, bd + 1, b);
    t_absent(&in[2]);
    t_absent(&in[3]);
    t_tensor(&out[0], EMBER_DTYPE_I32, 2, yd + 1, y);
    t_expect_error(qt_run(k, &node.n, in, 4, out, 2, NULL), EMBER_ERR_UNSUPPORTED, "mmi", "empty");
    ad[2] = bd[1] = 4;
    t_tensor(&in[0], U8, 3, ad, a);
    t_tensor(&in[1], I8, 3, bd, b);
    t_tensor(&out[0], EMBER_DTYPE_I32, 3, yd, y);
    t_expect_error(qt_run(k, &node.n, in, 4, out, 2, NULL), EMBER_ERR_UNSUPPORTED, "mmi",
                   "batched as A");
    t_tensor(&in[0], U8, 2, ad + 1, a);
    t_tensor(&in[1], I8, 2, bd + 1, b);
    t_tensor(&in[2], U8, 1, &four, z);
    t_tensor(&out[0], EMBER_DTYPE_I32, 2, yd + 1, y);
    t_expect_error(qt_run(k, &node.n, in, 4, out, 2, NULL), EMBER_ERR_UNSUPPORTED, "mmi",
                   "per tensor");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KT_TEST(test_quantize, "__avx2"),
        KT_TEST(test_dequantize, "__avx2"),
        KT_TEST(test_dynamicquantizelinear, "q8__avx2"),
        KT_TEST(test_qdq_declines, "__avx2"),
        KT_TEST(test_qlinearconv, "u8__avx2"),
        KT_TEST(test_qlinearconv_declines, "u8__avx2"),
        KT_TEST(test_qlinearconv_ubs, "u8__avx2"),
        KT_TEST(test_qlinearconv, "qg__avx2"),
        KT_TEST(test_qlinearconv, "dw__avx2"),
        KT_TEST(test_qlinearconv, "qg__avxvnni"),
        KT_TEST(test_qlinearconv, "qg__avx512vnni"),
        KT_TEST(test_qlinearmatmul, "qg__avx2"),
        KT_TEST(test_qlinearmatmul, "qg__avxvnni"),
        KT_TEST(test_qlinearmatmul, "qg__avx512vnni"),
        KT_TEST(test_matmulinteger, "qg__avx2"),
        KT_TEST(test_matmulinteger, "qg__avxvnni"),
        KT_TEST(test_matmulinteger, "qg__avx512vnni"),
        KT_TEST(test_matmulinteger_wrap, "qg__avx2"),
        KT_TEST(test_qmatmul_declines, "qg__avx2"),
        KT_TEST(test_matmulinteger_wrap, "qg__avxvnni"),
        KT_TEST(test_matmulinteger_wrap, "qg__avx512vnni"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
