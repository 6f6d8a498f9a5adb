/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/quant_linear_ref.c: QuantizeLinear-21, DequantizeLinear-21 and
 * DynamicQuantizeLinear-11 against naive computations written here and the exact vectors of
 * ONNX's conformance cases (test_quantizelinear*, test_dequantizelinear*,
 * test_dynamicquantizelinear*). Per-tensor (rank 0 and [1] scales), per-axis (first, middle,
 * negative, last axis), blocked (block sizes that divide and that leave a remainder) scales;
 * zero points u8 i8 u16 i16 (i32 for DequantizeLinear) or absent, output_dtype; x f32 f16 bf16
 * i32; scales f32 f16 bf16; ties rounded half to even, saturation at both ends; and the
 * errors (dtypes, shapes of scales and zero points, axis, attributes).
 */
#define EM_QUANT_TEST_HELPERS_ONLY
#include "test_ref_quant_common.c"

/* ---- QuantizeLinear ------------------------------------------------------------------------ */

typedef struct q_case {
    const char *name;
    int rank;
    int64_t dims[4];
    int64_t axis, block;
    int s_rank;
    int64_t s_dims[4];
    ember_dtype x_dt, s_dt, zp_dt; /* zp_dt UNDEFINED: no zero point */
    int64_t out_attr;              /* output_dtype attribute; 0: not set */
} q_case;

/* Index of the scale of element e (coordinates from e by division). */
static int64_t scale_index(const int64_t *dims, int rank, int64_t axis, int64_t block,
                           const int64_t *s_dims, int s_rank, int64_t e)
{
    int64_t s_numel = t_numel(s_dims, s_rank), coord[4], rest = e;
    if (s_numel == 1 && s_rank <= 1) {
        return 0;
    }
    for (int d = rank - 1; d >= 0; d--) {
        coord[d] = rest % dims[d];
        rest /= dims[d];
    }
    int ax = (int)(axis < 0 ? axis + rank : axis);
    if (block == 0) {
        return coord[ax];
    }
    int64_t idx = 0;
    for (int d = 0; d < rank; d++) {
        idx = idx * s_dims[d] + (d == ax ? coord[d] / block : coord[d]);
    }
    return idx;
}

static void quantize_case(const q_case *c, unsigned const_mask)
{
    const int64_t n = t_numel(c->dims, c->rank), ns = t_numel(c->s_dims, c->s_rank);
    const bool has_zp = c->zp_dt != EMBER_DTYPE_UNDEFINED;
    const ember_dtype y_dt = has_zp        ? c->zp_dt
                             : c->out_attr ? (ember_dtype)c->out_attr
                                           : EMBER_DTYPE_U8;
    double lo, hi;
    q_range(y_dt, &lo, &hi);
    void *x = c->x_dt == EMBER_DTYPE_I32 ? q_random_int(c->x_dt, n, 11, -700, 700)
                                         : q_random_frac(c->x_dt, n, 11, -2400, 2400, 4.0);
    void *s = q_random_frac(c->s_dt, ns, 12, 3, 20, 8.0);
    void *zp = q_random_int(has_zp ? c->zp_dt : EMBER_DTYPE_U8, ns, 13, (int64_t)lo, (int64_t)hi);
    void *y = tm_buf(y_dt, n);
    double *ref = t_f64(n);
    for (int64_t e = 0; e < n; e++) {
        int64_t k = scale_index(c->dims, c->rank, c->axis, c->block, c->s_dims, c->s_rank, e);
        double xv = tm_get(c->x_dt, x, e), sv = tm_get(c->s_dt, s, k);
        double v = c->x_dt == EMBER_DTYPE_I32 ? xv / sv : (double)((float)xv / (float)sv);
        if (c->x_dt == c->s_dt && c->x_dt != EMBER_DTYPE_F32) {
            /* numpy (ONNX's reference) divides two f16 / bf16 arrays into that dtype, and
             * QuantizeLinear-23 says the division has the scale's precision */
            v = c->x_dt == EMBER_DTYPE_F16 ? tm_f16_dec(q_f16_enc(v))
                                           : tm_bf16_dec(q_bf16_round((float)v));
        }
        ref[e] = q_clamp(q_round_even(v) + (has_zp ? tm_get(c->zp_dt, zp, k) : 0.0), lo, hi);
    }
    em_tensor in[3], out[1];
    q_tensor(&in[0], c->x_dt, c->rank, c->dims, x);
    q_tensor(&in[1], c->s_dt, c->s_rank, c->s_dims, s);
    q_tensor(&in[2], c->zp_dt, c->s_rank, c->s_dims, zp);
    q_tensor(&out[0], y_dt, c->rank, c->dims, y);
    t_node tn;
    t_node_init(&tn, EM_OP_QUANTIZELINEAR, c->name);
    t_set_int(&tn, "axis", c->axis);
    if (c->block != 0) {
        t_set_int(&tn, "block_size", c->block);
    }
    if (c->out_attr != 0) {
        t_set_int(&tn, "output_dtype", c->out_attr);
    }
    t_expect_ok(q_run(EM_OP_QUANTIZELINEAR, &tn, in, has_zp ? 3 : 2, out, 1, const_mask), c->name);
    q_check(c->name, y, y_dt, ref, n, 0.0, 0.0);
    test_free(x);
    test_free(s);
    test_free(zp);
    test_free(y);
    test_free(ref);
}

#define F32 EMBER_DTYPE_F32
#define F16 EMBER_DTYPE_F16
#define BF16 EMBER_DTYPE_BF16
#define U8 EMBER_DTYPE_U8
#define I8 EMBER_DTYPE_I8
#define U16 EMBER_DTYPE_U16
#define I16 EMBER_DTYPE_I16
#define I32 EMBER_DTYPE_I32
#define NONE EMBER_DTYPE_UNDEFINED

/* clang-format off */
static const q_case q_cases[] = {
    {"scalar_u8", 1, {7}, 1, 0, 0, {0}, F32, F32, U8, 0},
    {"scalar1_i8", 2, {3, 5}, 1, 0, 1, {1}, F32, F32, I8, 0},
    {"no_zp_u8", 3, {2, 3, 5}, 1, 0, 0, {0}, F32, F32, NONE, 0},
    {"no_zp_out_i8", 2, {4, 3}, 1, 0, 0, {0}, F32, F32, NONE, EMBER_DTYPE_I8},
    {"no_zp_out_u16", 2, {4, 3}, 0, 0, 1, {4}, F32, F32, NONE, EMBER_DTYPE_U16},
    {"zp_and_attr", 1, {9}, 0, 0, 0, {0}, F32, F32, I16, EMBER_DTYPE_I16},
    {"axis0", 3, {3, 4, 5}, 0, 0, 1, {3}, F32, F32, U8, 0},
    {"axis1", 4, {2, 3, 3, 2}, 1, 0, 1, {3}, F32, F32, U8, 0},
    {"axis_m1", 3, {3, 4, 5}, -1, 0, 1, {5}, F32, F32, I8, 0},
    {"axis_last_u16", 2, {6, 7}, 1, 0, 1, {7}, F32, F32, U16, 0},
    {"axis_i16", 3, {2, 9, 2}, -2, 0, 1, {9}, F32, F32, I16, 0},
    {"block2_rem", 2, {3, 5}, 1, 2, 2, {3, 3}, F32, F32, U8, 0},
    {"block3_axis0", 3, {7, 2, 3}, 0, 3, 3, {3, 2, 3}, F32, F32, I8, 0},
    {"block_whole", 2, {4, 6}, 1, 6, 2, {4, 1}, F32, F32, U8, 0},
    {"block1", 2, {4, 3}, -1, 1, 2, {4, 3}, F32, F32, I16, 0},
    {"x_f16", 2, {5, 3}, 1, 0, 1, {3}, F16, F16, U8, 0},
    {"x_bf16", 2, {5, 3}, 0, 0, 1, {5}, BF16, BF16, I8, 0},
    {"x_f16_scale_f32", 1, {11}, 0, 0, 0, {0}, F16, F32, U8, 0},
    {"x_f32_scale_bf16", 2, {3, 4}, 1, 2, 2, {3, 2}, F32, BF16, I8, 0},
    {"x_i32", 2, {4, 5}, 1, 0, 1, {5}, I32, F32, I8, 0},
    {"x_i32_u16", 1, {13}, 0, 0, 0, {0}, I32, F32, U16, 0},
    {"empty", 2, {0, 3}, 1, 0, 1, {3}, F32, F32, U8, 0},
};
/* clang-format on */

static void test_quantize_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof q_cases / sizeof q_cases[0]; i++) {
        quantize_case(&q_cases[i], 0u);
        quantize_case(&q_cases[i], 0x7u);
    }
}

/* The conformance cases test_quantizelinear and test_quantizelinear_axis. */
static void test_quantize_conformance(void **state)
{
    (void)state;
    const float x1[6] = {0, 2, 3, 1000, -254, -1000};
    const float s1 = 2.0f;
    const uint8_t z1 = 128;
    const double want1[6] = {128, 129, 130, 255, 1, 0};
    uint8_t y1[6];
    em_tensor in[3], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_QUANTIZELINEAR, "test_quantizelinear");
    q_tensor(&in[0], F32, 1, Q_DIMS(6), x1);
    q_tensor(&in[1], F32, 0, NULL, &s1);
    q_tensor(&in[2], U8, 0, NULL, &z1);
    q_tensor(&out[0], U8, 1, Q_DIMS(6), y1);
    t_expect_ok(q_run(EM_OP_QUANTIZELINEAR, &tn, in, 3, out, 1, 0), "test_quantizelinear");
    q_check("test_quantizelinear", y1, U8, want1, 6, 0, 0);

    const float x2[18] = {-162, 10, -100, 232, -20,  -50,  -76,  0,    0,
                          252,  32, -44,  245, -485, -960, -270, -375, -470};
    const float s2[3] = {2, 4, 5};
    const uint8_t z2[3] = {84, 24, 196};
    const double want2[18] = {3,  89, 34, 200, 74, 59, 5,   24,  24,
                              87, 32, 13, 245, 99, 4,  142, 121, 102};
    uint8_t y2[18];
    t_node_init(&tn, EM_OP_QUANTIZELINEAR, "test_quantizelinear_axis");
    q_tensor(&in[0], F32, 4, Q_DIMS(1, 3, 3, 2), x2);
    q_tensor(&in[1], F32, 1, Q_DIMS(3), s2);
    q_tensor(&in[2], U8, 1, Q_DIMS(3), z2);
    q_tensor(&out[0], U8, 4, Q_DIMS(1, 3, 3, 2), y2);
    t_expect_ok(q_run(EM_OP_QUANTIZELINEAR, &tn, in, 3, out, 1, 0), "axis");
    q_check("test_quantizelinear_axis", y2, U8, want2, 18, 0, 0);

    /* And back: test_dequantizelinear_axis is the inverse pair. */
    float d2[18];
    double dwant[18];
    for (int i = 0; i < 18; i++) {
        dwant[i] = x2[i];
    }
    t_node_init(&tn, EM_OP_DEQUANTIZELINEAR, "test_dequantizelinear_axis");
    q_tensor(&in[0], U8, 4, Q_DIMS(1, 3, 3, 2), y2);
    q_tensor(&out[0], F32, 4, Q_DIMS(1, 3, 3, 2), d2);
    t_expect_ok(q_run(EM_OP_DEQUANTIZELINEAR, &tn, in, 3, out, 1, 0), "dq axis");
    q_check("test_dequantizelinear_axis", d2, F32, dwant, 18, 0, 0);
}

/* Ties, saturation and NaN through the kernel (not only the helper). */
static void test_quantize_special(void **state)
{
    (void)state;
    const float x[8] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 1e30f, -1e30f, NAN};
    const float s = 1.0f;
    const int8_t z = -3;
    const double want[8] = {-3, -1, -1, -3, -5, 127, -128, -3};
    int8_t y[8];
    em_tensor in[3], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_QUANTIZELINEAR, "ties");
    t_set_int(&tn, "saturate", 0); /* ignored by integer types */
    q_tensor(&in[0], F32, 1, Q_DIMS(8), x);
    q_tensor(&in[1], F32, 0, NULL, &s);
    q_tensor(&in[2], I8, 0, NULL, &z);
    q_tensor(&out[0], I8, 1, Q_DIMS(8), y);
    t_expect_ok(q_run(EM_OP_QUANTIZELINEAR, &tn, in, 3, out, 1, 0), "ties");
    q_check("ties", y, I8, want, 8, 0, 0);
}

static void test_quantize_errors(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        ember_dtype x_dt, s_dt, zp_dt, y_dt;
        int s_rank;
        int64_t s_dim, zp_dim, axis, block, out_attr, saturate;
        ember_code code;
    } bads[] = {
        {"x_f64", EMBER_DTYPE_F64, F32, U8, U8, 0, 1, 1, 1, 0, 0, 1, EMBER_ERR_UNSUPPORTED},
        {"x_u8", U8, F32, U8, U8, 0, 1, 1, 1, 0, 0, 1, EMBER_ERR_UNSUPPORTED},
        {"scale_f64", F32, EMBER_DTYPE_F64, U8, U8, 0, 1, 1, 1, 0, 0, 1, EMBER_ERR_UNSUPPORTED},
        {"zp_i32", F32, F32, I32, I32, 0, 1, 1, 1, 0, 0, 1, EMBER_ERR_UNSUPPORTED},
        {"out_float", F32, F32, NONE, F32, 0, 1, 1, 1, 0, 1, 1, EMBER_ERR_UNSUPPORTED},
        {"out_float8_y_u8", F32, F32, NONE, U8, 0, 1, 1, 1, 0, 17, 1, EMBER_ERR_INVALID_MODEL},
        {"out_mismatch", F32, F32, U8, U8, 0, 1, 1, 1, 0, EMBER_DTYPE_I8, 1,
         EMBER_ERR_INVALID_MODEL},
        {"y_dtype", F32, F32, U8, I8, 0, 1, 1, 1, 0, 0, 1, EMBER_ERR_INVALID_MODEL},
        {"zp_shape", F32, F32, U8, U8, 1, 4, 1, 1, 0, 0, 1, EMBER_ERR_INVALID_MODEL},
        {"axis_len", F32, F32, U8, U8, 1, 3, 3, 1, 0, 0, 1, EMBER_ERR_INVALID_MODEL},
        {"axis_range", F32, F32, U8, U8, 1, 4, 4, 2, 0, 0, 1, EMBER_ERR_INVALID_MODEL},
        {"block_neg", F32, F32, U8, U8, 1, 4, 4, 1, -1, 0, 1, EMBER_ERR_INVALID_MODEL},
        {"block_1d", F32, F32, U8, U8, 1, 4, 4, 1, 2, 0, 1, EMBER_ERR_INVALID_MODEL},
        {"saturate_2", F32, F32, U8, U8, 0, 1, 1, 1, 0, 0, 2, EMBER_ERR_INVALID_MODEL},
    };
    float buf[64] = {0};
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        em_tensor in[3], out[1];
        int n_in = bads[i].zp_dt == NONE ? 2 : 3;
        q_tensor(&in[0], bads[i].x_dt, 2, Q_DIMS(3, 4), buf);
        q_tensor(&in[1], bads[i].s_dt, bads[i].s_rank, &bads[i].s_dim, buf);
        q_tensor(&in[2], bads[i].zp_dt, bads[i].s_rank, &bads[i].zp_dim, buf);
        q_tensor(&out[0], bads[i].y_dt, 2, Q_DIMS(3, 4), buf);
        t_node tn;
        t_node_init(&tn, EM_OP_QUANTIZELINEAR, bads[i].name);
        t_set_int(&tn, "axis", bads[i].axis);
        t_set_int(&tn, "block_size", bads[i].block);
        t_set_int(&tn, "saturate", bads[i].saturate);
        if (bads[i].out_attr != 0) {
            t_set_int(&tn, "output_dtype", bads[i].out_attr);
        }
        t_expect_error(q_run(EM_OP_QUANTIZELINEAR, &tn, in, n_in, out, 1, 0), bads[i].code,
                       bads[i].name, bads[i].name);
    }
    /* Output shape other than x's, a wrongly typed attribute. */
    em_tensor in[2], out[1];
    q_tensor(&in[0], F32, 2, Q_DIMS(3, 4), buf);
    q_tensor(&in[1], F32, 0, NULL, buf);
    q_tensor(&out[0], U8, 2, Q_DIMS(4, 3), buf);
    t_node tn;
    t_node_init(&tn, EM_OP_QUANTIZELINEAR, "y_shape");
    t_expect_error(q_run(EM_OP_QUANTIZELINEAR, &tn, in, 2, out, 1, 0), EMBER_ERR_INVALID_MODEL,
                   "y_shape", "y_shape");
    q_tensor(&out[0], U8, 2, Q_DIMS(3, 4), buf);
    t_node_init(&tn, EM_OP_QUANTIZELINEAR, "axis_float");
    t_set_float(&tn, "axis", 1.0f);
    t_expect_error(q_run(EM_OP_QUANTIZELINEAR, &tn, in, 2, out, 1, 0), EMBER_ERR_INVALID_MODEL,
                   "axis_float", "axis_float");
}

/* ---- DequantizeLinear ---------------------------------------------------------------------- */

typedef struct dq_case {
    const char *name;
    int rank;
    int64_t dims[4];
    int64_t axis, block;
    int s_rank;
    int64_t s_dims[4];
    ember_dtype x_dt, s_dt;
    bool has_zp;
    int64_t out_attr;
} dq_case;

/* The expected output code / value of (x - zp) * s rounded to float32, then to y_dt. */
static double dq_expect(double v, ember_dtype y_dt)
{
    float f = (float)v;
    if (y_dt == F16) {
        return tm_f16_dec(q_f16_enc(f));
    }
    if (y_dt == BF16) {
        return tm_bf16_dec(q_bf16_round(f));
    }
    return f;
}

static void dequantize_case(const dq_case *c)
{
    const int64_t n = t_numel(c->dims, c->rank), ns = t_numel(c->s_dims, c->s_rank);
    const ember_dtype y_dt = c->out_attr ? (ember_dtype)c->out_attr : c->s_dt;
    double lo, hi;
    q_range(c->x_dt, &lo, &hi);
    if (c->x_dt == I32) {
        lo = -3000000, hi = 3000000;
    }
    void *x = q_random_int(c->x_dt, n, 21, (int64_t)lo, (int64_t)hi);
    void *s = q_random_frac(c->s_dt, ns, 22, 1, 40, 16.0);
    void *zp = q_random_int(c->x_dt, ns, 23, (int64_t)lo, (int64_t)hi);
    void *y = tm_buf(y_dt, n);
    double *ref = t_f64(n);
    for (int64_t e = 0; e < n; e++) {
        int64_t k = scale_index(c->dims, c->rank, c->axis, c->block, c->s_dims, c->s_rank, e);
        double z = c->has_zp ? tm_get(c->x_dt, zp, k) : 0.0;
        ref[e] = dq_expect((tm_get(c->x_dt, x, e) - z) * tm_get(c->s_dt, s, k), y_dt);
    }
    em_tensor in[3], out[1];
    q_tensor(&in[0], c->x_dt, c->rank, c->dims, x);
    q_tensor(&in[1], c->s_dt, c->s_rank, c->s_dims, s);
    q_tensor(&in[2], c->x_dt, c->s_rank, c->s_dims, zp);
    q_tensor(&out[0], y_dt, c->rank, c->dims, y);
    t_node tn;
    t_node_init(&tn, EM_OP_DEQUANTIZELINEAR, c->name);
    t_set_int(&tn, "axis", c->axis);
    t_set_int(&tn, "block_size", c->block);
    if (c->out_attr != 0) {
        t_set_int(&tn, "output_dtype", c->out_attr);
    }
    t_expect_ok(q_run(EM_OP_DEQUANTIZELINEAR, &tn, in, c->has_zp ? 3 : 2, out, 1, 0), c->name);
    q_check(c->name, y, y_dt, ref, n, 0.0, 0.0);
    test_free(x);
    test_free(s);
    test_free(zp);
    test_free(y);
    test_free(ref);
}

/* clang-format off */
static const dq_case dq_cases[] = {
    {"u8_scalar", 1, {9}, 1, 0, 0, {0}, U8, F32, true, 0},
    {"i8_no_zp", 2, {3, 4}, 1, 0, 1, {1}, I8, F32, false, 0},
    {"u16_axis0", 3, {3, 2, 5}, 0, 0, 1, {3}, U16, F32, true, 0},
    {"i16_axis_m1", 3, {3, 2, 5}, -1, 0, 1, {5}, I16, F32, true, 0},
    {"i32", 2, {4, 3}, 1, 0, 1, {3}, I32, F32, true, 0},
    {"i32_no_zp", 1, {5}, 0, 0, 0, {0}, I32, F32, false, 0},
    {"blocked", 2, {5, 7}, 1, 3, 2, {5, 3}, U8, F32, true, 0},
    {"blocked_axis0", 3, {5, 2, 2}, 0, 2, 3, {3, 2, 2}, I8, F32, true, 0},
    {"scale_f16", 2, {3, 5}, 0, 0, 1, {3}, U8, F16, true, 0},
    {"scale_bf16", 2, {3, 5}, 1, 0, 1, {5}, I8, BF16, true, 0},
    {"out_attr_f16", 2, {2, 6}, 1, 0, 1, {6}, I16, F32, true, EMBER_DTYPE_F16},
    {"out_attr_f32", 1, {6}, 0, 0, 0, {0}, U8, BF16, false, EMBER_DTYPE_F32},
};
/* clang-format on */

static void test_dequantize_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof dq_cases / sizeof dq_cases[0]; i++) {
        dequantize_case(&dq_cases[i]);
    }
}

/* test_dequantizelinear, plus extreme codes. */
static void test_dequantize_conformance(void **state)
{
    (void)state;
    const uint8_t x[4] = {0, 3, 128, 255};
    const float s = 2.0f;
    const uint8_t z = 128;
    const double want[4] = {-256, -250, 0, 254};
    float y[4];
    em_tensor in[3], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_DEQUANTIZELINEAR, "test_dequantizelinear");
    q_tensor(&in[0], U8, 1, Q_DIMS(4), x);
    q_tensor(&in[1], F32, 0, NULL, &s);
    q_tensor(&in[2], U8, 0, NULL, &z);
    q_tensor(&out[0], F32, 1, Q_DIMS(4), y);
    t_expect_ok(q_run(EM_OP_DEQUANTIZELINEAR, &tn, in, 3, out, 1, 0), "dq");
    q_check("test_dequantizelinear", y, F32, want, 4, 0, 0);
    /* int32 extremes: (x - zp) needs more than 32 bits. */
    const int32_t xi[2] = {INT32_MAX, INT32_MIN};
    const int32_t zi = -5;
    const float si = 0.5f;
    const double wi[2] = {(float)(((double)INT32_MAX + 5) * 0.5), (float)((INT32_MIN + 5.0) * 0.5)};
    t_node_init(&tn, EM_OP_DEQUANTIZELINEAR, "i32_extremes");
    q_tensor(&in[0], I32, 1, Q_DIMS(2), xi);
    q_tensor(&in[1], F32, 0, NULL, &si);
    q_tensor(&in[2], I32, 0, NULL, &zi);
    q_tensor(&out[0], F32, 1, Q_DIMS(2), y);
    t_expect_ok(q_run(EM_OP_DEQUANTIZELINEAR, &tn, in, 3, out, 1, 0), "i32");
    q_check("i32_extremes", y, F32, wi, 2, 0, 0);
}

static void test_dequantize_errors(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        ember_dtype x_dt, s_dt, zp_dt, y_dt;
        int64_t s_dim, axis, out_attr;
        ember_code code;
    } bads[] = {
        {"x_f32", F32, F32, F32, F32, 1, 1, 0, EMBER_ERR_UNSUPPORTED},
        {"x_i64", EMBER_DTYPE_I64, F32, EMBER_DTYPE_I64, F32, 1, 1, 0, EMBER_ERR_UNSUPPORTED},
        {"scale_f64", U8, EMBER_DTYPE_F64, U8, EMBER_DTYPE_F64, 1, 1, 0, EMBER_ERR_UNSUPPORTED},
        {"zp_dtype", U8, F32, I8, F32, 1, 1, 0, EMBER_ERR_INVALID_MODEL},
        {"y_dtype", U8, F32, U8, F16, 1, 1, 0, EMBER_ERR_INVALID_MODEL},
        {"out_attr_i8", U8, F32, U8, I8, 1, 1, EMBER_DTYPE_I8, EMBER_ERR_UNSUPPORTED},
        {"axis_len", U8, F32, U8, F32, 3, 1, 0, EMBER_ERR_INVALID_MODEL},
        {"axis_range", U8, F32, U8, F32, 4, -3, 0, EMBER_ERR_INVALID_MODEL},
    };
    float buf[64] = {0};
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        em_tensor in[3], out[1];
        q_tensor(&in[0], bads[i].x_dt, 2, Q_DIMS(3, 4), buf);
        q_tensor(&in[1], bads[i].s_dt, 1, &bads[i].s_dim, buf);
        q_tensor(&in[2], bads[i].zp_dt, 1, &bads[i].s_dim, buf);
        q_tensor(&out[0], bads[i].y_dt, 2, Q_DIMS(3, 4), buf);
        t_node tn;
        t_node_init(&tn, EM_OP_DEQUANTIZELINEAR, bads[i].name);
        t_set_int(&tn, "axis", bads[i].axis);
        if (bads[i].out_attr != 0) {
            t_set_int(&tn, "output_dtype", bads[i].out_attr);
        }
        t_expect_error(q_run(EM_OP_DEQUANTIZELINEAR, &tn, in, 3, out, 1, 0), bads[i].code,
                       bads[i].name, bads[i].name);
    }
}

/* ---- DynamicQuantizeLinear ---------------------------------------------------------------- */

/* The spec's float32 algorithm, written out: returns scale, fills zp and y. */
static float dynq_ref(const float *x, int64_t n, double *y, double *zp)
{
    float lo = 0.0f, hi = 0.0f;
    for (int64_t i = 0; i < n; i++) {
        if (x[i] < lo) {
            lo = x[i];
        }
        if (x[i] > hi) {
            hi = x[i];
        }
    }
    float scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
    *zp = q_round_even(q_clamp((double)(0.0f - lo / scale), 0, 255));
    for (int64_t i = 0; i < n; i++) {
        y[i] = isnan(x[i]) ? *zp : q_clamp(q_round_even((double)(x[i] / scale)) + *zp, 0, 255);
    }
    return scale;
}

static void dynq_run(const char *name, const float *x, int rank, const int64_t *dims, uint8_t *y,
                     float *scale, uint8_t *zp)
{
    em_tensor in[1], out[3];
    q_tensor(&in[0], F32, rank, dims, x);
    q_tensor(&out[0], U8, rank, dims, y);
    q_tensor(&out[1], F32, 0, NULL, scale);
    q_tensor(&out[2], U8, 0, NULL, zp);
    t_node tn;
    t_node_init(&tn, EM_OP_DYNAMICQUANTIZELINEAR, name);
    t_expect_ok(q_run(EM_OP_DYNAMICQUANTIZELINEAR, &tn, in, 1, out, 3, 0), name);
}

static void test_dynquant_conformance(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int n;
        float x[12];
        double y[12];
        float scale;
        double zp;
    } cases[] = {
        {"test_dynamicquantizelinear",
         6,
         {0, 2, -3, -2.5f, 1.34f, 0.5f},
         {153, 255, 0, 26, 221, 179},
         0.019607843831181526f,
         153},
        {"test_dynamicquantizelinear_max_adjusted",
         6,
         {-1, -2.1f, -1.3f, -2.5f, -3.34f, -4},
         {191, 121, 172, 96, 42, 0},
         0.01568627543747425f,
         255},
        {"test_dynamicquantizelinear_min_adjusted",
         12,
         {1, 2.1f, 1.3f, 2.5f, 3.34f, 4, 1.5f, 2.6f, 3.9f, 4, 3, 2.345f},
         {64, 134, 83, 159, 213, 255, 96, 166, 249, 255, 191, 149},
         0.01568627543747425f,
         0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint8_t y[12], zp;
        float scale;
        int64_t n = cases[c].n;
        dynq_run(cases[c].name, cases[c].x, 1, &n, y, &scale, &zp);
        q_check(cases[c].name, y, U8, cases[c].y, n, 0, 0);
        assert_true(scale == cases[c].scale);
        assert_int_equal(zp, (int)cases[c].zp);
    }
}

static void test_dynquant_naive(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int64_t dims[2];
        float lo, hi;
    } cases[] = {
        {"mixed", {7, 5}, -3.0f, 5.0f},
        {"positive", {3, 3}, 0.25f, 9.0f},
        {"negative", {1, 13}, -40.0f, -0.5f},
        {"tiny", {2, 2}, -1e-6f, 1e-6f},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int64_t n = cases[c].dims[0] * cases[c].dims[1];
        float *x = t_random_f32(n, 31 + c, cases[c].lo, cases[c].hi);
        uint8_t *y = test_calloc((size_t)n, 1), zp;
        double *ref = t_f64(n), rzp;
        float scale;
        float rs = dynq_ref(x, n, ref, &rzp);
        dynq_run(cases[c].name, x, 2, cases[c].dims, y, &scale, &zp);
        q_check(cases[c].name, y, U8, ref, n, 0, 0);
        assert_true(scale == rs);
        assert_int_equal(zp, (int)rzp);
        test_free(x);
        test_free(y);
        test_free(ref);
    }
    /* All zeros: scale 1, zero point 0; NaN is ignored for the range and maps to the zp. */
    const float z[3] = {0, 0, 0}, xn[4] = {NAN, -1.0f, 1.0f, 0.5f};
    uint8_t y[4], zp;
    float scale;
    double want[4], wzp;
    const double want_z[3] = {0, 0, 0};
    dynq_run("zeros", z, 1, Q_DIMS(3), y, &scale, &zp);
    q_check("zeros", y, U8, want_z, 3, 0, 0);
    assert_true(scale == 1.0f);
    assert_int_equal(zp, 0);
    float ws = dynq_ref(xn, 4, want, &wzp);
    dynq_run("nan", xn, 1, Q_DIMS(4), y, &scale, &zp);
    q_check("nan", y, U8, want, 4, 0, 0);
    assert_true(scale == ws && zp == wzp && y[0] == zp);
    /* A 0-D input. */
    const float one = -2.0f;
    dynq_run("scalar", &one, 0, NULL, y, &scale, &zp);
    assert_int_equal(y[0], 0);
    assert_int_equal(zp, 255);
}

static void test_dynquant_errors(void **state)
{
    (void)state;
    double buf[8] = {0};
    em_tensor in[1], out[3];
    t_node tn;
    q_tensor(&in[0], EMBER_DTYPE_F64, 1, Q_DIMS(3), buf);
    q_tensor(&out[0], U8, 1, Q_DIMS(3), buf);
    q_tensor(&out[1], F32, 0, NULL, buf);
    q_tensor(&out[2], U8, 0, NULL, buf);
    t_node_init(&tn, EM_OP_DYNAMICQUANTIZELINEAR, "dq_f64");
    t_expect_error(q_run(EM_OP_DYNAMICQUANTIZELINEAR, &tn, in, 1, out, 3, 0), EMBER_ERR_UNSUPPORTED,
                   "dq_f64", "f64");
    q_tensor(&in[0], F32, 1, Q_DIMS(3), buf);
    t_node_init(&tn, EM_OP_DYNAMICQUANTIZELINEAR, "dq_two_outputs");
    t_expect_error(q_run(EM_OP_DYNAMICQUANTIZELINEAR, &tn, in, 1, out, 2, 0),
                   EMBER_ERR_INVALID_MODEL, "dq_two_outputs", "outputs");
    q_tensor(&out[1], F32, 1, Q_DIMS(1), buf);
    t_node_init(&tn, EM_OP_DYNAMICQUANTIZELINEAR, "dq_scale_shape");
    t_expect_error(q_run(EM_OP_DYNAMICQUANTIZELINEAR, &tn, in, 1, out, 3, 0),
                   EMBER_ERR_INVALID_MODEL, "dq_scale_shape", "scale shape");
    q_tensor(&out[1], F32, 0, NULL, buf);
    q_tensor(&out[2], I8, 0, NULL, buf);
    t_node_init(&tn, EM_OP_DYNAMICQUANTIZELINEAR, "dq_zp_i8");
    t_expect_error(q_run(EM_OP_DYNAMICQUANTIZELINEAR, &tn, in, 1, out, 3, 0),
                   EMBER_ERR_INVALID_MODEL, "dq_zp_i8", "zp dtype");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantize_cases),    cmocka_unit_test(test_quantize_conformance),
        cmocka_unit_test(test_quantize_special),  cmocka_unit_test(test_quantize_errors),
        cmocka_unit_test(test_dequantize_cases),  cmocka_unit_test(test_dequantize_conformance),
        cmocka_unit_test(test_dequantize_errors), cmocka_unit_test(test_dynquant_conformance),
        cmocka_unit_test(test_dynquant_naive),    cmocka_unit_test(test_dynquant_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
