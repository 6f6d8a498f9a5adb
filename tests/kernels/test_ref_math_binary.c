/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/math_binary_ref.c: Add/Sub/Mul/Div on the dtypes kernels.def leaves out, Pow
 * with every base/exponent dtype pair, Mod (both fmod modes), BitShift, the comparisons,
 * And/Or/Xor, Where, the variadic Max/Min/Sum/Mean (1 to 4 inputs) and PRelu, against naive
 * per-element computations in double with numpy broadcasting by coordinates: same shapes,
 * scalars, rows, columns, rank mismatch, two-sided broadcasting, zero-sized axes and a tensor
 * split into parallel chunks mid-row; serially, threaded and in place. Integer edge cases
 * (wraparound, truncating division, x / 0, INT_MIN / -1, Mod signs, shifts past the width,
 * exact integer powers) and NaN in Max/Min and comparisons are checked exactly. Malformed
 * nodes fail cleanly.
 */
#include "test_ref_math_util.h"

#include <limits.h>

typedef struct bctx {
    em_op op;
    int mode; /* Mod: fmod; BitShift: 1 = left; Pow: 1 = integer exponent */
    ember_dtype dt;
} bctx;

/* Integer division truncating toward zero, x / 0 = 0. */
static double tdiv(double a, double b)
{
    if (b == 0) {
        return 0;
    }
    double q = a / b;
    return q < 0 ? ceil(q) : floor(q);
}

/* Truncated remainder (sign of a), or floored (sign of b) when `floor_mod`. */
static double tmod(double a, double b, bool floor_mod)
{
    if (b == 0) {
        return 0;
    }
    double r = a - b * tdiv(a, b);
    if (floor_mod && r != 0 && ((r < 0) != (b < 0))) {
        r += b;
    }
    return r;
}

static double nan_max(double a, double b, bool is_max)
{
    if (isnan(a) || isnan(b)) {
        return NAN;
    }
    return is_max ? (a > b ? a : b) : (a < b ? a : b);
}

static double binary_oracle(const double *x, int n_in, const void *ctx)
{
    const bctx *c = ctx;
    double a = x[0], b = n_in > 1 ? x[1] : 0.0;
    bool integer = !tm_is_float(c->dt);
    switch (c->op) {
    case EM_OP_ADD:
        return a + b;
    case EM_OP_SUB:
        return a - b;
    case EM_OP_MUL:
        return a * b;
    case EM_OP_DIV:
        return integer ? tdiv(a, b) : a / b;
    case EM_OP_POW: {
        double p = pow(a, b);
        if (!integer) {
            return p;
        }
        if (c->mode == 1 && b < 0) { /* integer exponent below 0: only 1 and -1 keep a power */
            return a == 1 || a == -1 ? p : 0;
        }
        return isnan(p) ? 0 : trunc(p); /* float exponent: the Cast rule */
    }
    case EM_OP_MOD:
        return integer ? tmod(a, b, c->mode == 0) : fmod(a, b);
    case EM_OP_BITSHIFT:
        return c->mode ? a * pow(2.0, b) : floor(a / pow(2.0, b));
    case EM_OP_EQUAL:
        return a == b;
    case EM_OP_LESS:
        return a < b;
    case EM_OP_LESSOREQUAL:
        return a <= b;
    case EM_OP_GREATER:
        return a > b;
    case EM_OP_GREATEROREQUAL:
        return a >= b;
    case EM_OP_AND:
        return a != 0 && b != 0;
    case EM_OP_OR:
        return a != 0 || b != 0;
    case EM_OP_XOR:
        return (a != 0) != (b != 0);
    case EM_OP_WHERE:
        return a != 0 ? x[1] : x[2];
    case EM_OP_PRELU:
        return a < 0 ? a * b : a;
    case EM_OP_MAX:
    case EM_OP_MIN:
    case EM_OP_SUM:
    case EM_OP_MEAN: {
        double r = a;
        for (int i = 1; i < n_in; i++) {
            r = c->op == EM_OP_SUM || c->op == EM_OP_MEAN ? r + x[i]
                                                          : nan_max(r, x[i], c->op == EM_OP_MAX);
        }
        return c->op == EM_OP_MEAN ? r / n_in : r;
    }
    default:
        fail_msg("no oracle for %s", em_op_name(c->op));
        return 0.0;
    }
}

/* ---- broadcasting shapes ------------------------------------------------------------------ */

typedef struct bshape {
    const char *name;
    int ra, rb;
    int64_t ad[4], bd[4];
} bshape;

/* clang-format off */
static const bshape bshapes[] = {
    {"same", 2, 2, {7, 17}, {7, 17}},
    {"scalar_b", 2, 0, {7, 17}, {0}},
    {"scalar_a", 0, 2, {0}, {7, 17}},
    {"row", 3, 1, {3, 7, 17}, {17}},
    {"column", 2, 2, {7, 17}, {7, 1}},
    {"outer", 2, 2, {7, 1}, {1, 17}},
    {"mixed_4d", 4, 4, {2, 3, 1, 5}, {1, 3, 4, 1}},
    {"zero", 2, 2, {0, 3}, {1, 3}},
};
/* clang-format on */

static tm_case two(const bshape *s, ember_dtype da, ember_dtype db)
{
    tm_case c = {s->name, 2, {da, db}, {s->ra, s->rb}, {{0}}};
    memcpy(c.dims[0], s->ad, sizeof s->ad);
    memcpy(c.dims[1], s->bd, sizeof s->bd);
    return c;
}

static void run_binary(em_op op, int mode, ember_dtype dt, ember_dtype ydt, const tm_range *r,
                       const char *attr, const char *sval, em_threadpool *pool)
{
    for (size_t s = 0; s < sizeof bshapes / sizeof bshapes[0]; s++) {
        t_node tn;
        t_node_init(&tn, op, "binary");
        if (attr != NULL && sval != NULL) {
            t_set_string(&tn, attr, sval);
        } else if (attr != NULL) {
            t_set_int(&tn, attr, mode);
        }
        bctx ctx = {op, mode, dt};
        tm_case c = two(&bshapes[s], dt, dt);
        tm_opts opt = {r, 0.0, 0.0, false};
        tm_check(&tn, &c, ydt, binary_oracle, &ctx, &opt, true, pool);
    }
}

/* ---- arithmetic --------------------------------------------------------------------------- */

static void test_arith_extra_dtypes(void **state)
{
    (void)state;
    static const em_op ops[] = {EM_OP_ADD, EM_OP_SUB, EM_OP_MUL, EM_OP_DIV};
    static const ember_dtype dts[] = {EMBER_DTYPE_U8,  EMBER_DTYPE_I8,  EMBER_DTYPE_U16,
                                      EMBER_DTYPE_I16, EMBER_DTYPE_U32, EMBER_DTYPE_U64,
                                      EMBER_DTYPE_F16, EMBER_DTYPE_BF16};
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (int o = 0; o < 4; o++) {
        for (int t = 0; t < 8; t++) {
            ember_dtype dt = dts[t];
            bool uns = tm_is_unsigned(dt);
            /* Sub of unsigned stays non-negative: a in [10, 11), b in [0, 10). */
            tm_range r[2] = {{uns ? 10 : -9, uns ? 11 : 9}, {uns ? 0 : -9, uns ? 10 : 9}};
            if (ops[o] == EM_OP_SUB && uns) {
                r[0] = (tm_range){10, 20};
            } else if (uns) {
                r[0] = (tm_range){0, 11};
            }
            if (ops[o] == EM_OP_DIV && tm_is_float(dt)) {
                r[1] = (tm_range){0.5, 3};
            }
            run_binary(ops[o], 0, dt, dt, r, NULL, NULL, pool);
        }
    }
    em_threadpool_destroy(pool);
}

/* Wraparound, truncation, x / 0 and INT_MIN / -1 on the narrow integer dtypes. */
static void test_arith_edges(void **state)
{
    (void)state;
    int64_t n = 5;
    const int8_t a8[5] = {INT8_MIN, INT8_MAX, -7, 7, 5};
    const int8_t b8[5] = {-1, 1, 2, -2, 0};
    const uint8_t au[5] = {0, 255, 200, 7, 5};
    const uint8_t bu[5] = {1, 1, 100, 2, 0};
    int8_t y8[5];
    uint8_t yu[5];
    em_tensor in[2], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_DIV, "arith_edges");
    t_tensor(&in[0], EMBER_DTYPE_I8, 1, &n, (void *)a8);
    t_tensor(&in[1], EMBER_DTYPE_I8, 1, &n, (void *)b8);
    t_tensor(&out[0], EMBER_DTYPE_I8, 1, &n, y8);
    t_expect_ok(tm_prepare(&tn, in, 2, out), "div i8");
    const int8_t want_div[5] = {INT8_MIN, INT8_MAX, -3, -3, 0};
    assert_memory_equal(y8, want_div, sizeof want_div);
    tn.n.op = EM_OP_ADD;
    t_expect_ok(tm_prepare(&tn, in, 2, out), "add i8");
    const int8_t want_add[5] = {INT8_MAX, INT8_MIN, -5, 5, 5};
    assert_memory_equal(y8, want_add, sizeof want_add);
    tn.n.op = EM_OP_MUL;
    t_expect_ok(tm_prepare(&tn, in, 2, out), "mul i8");
    const int8_t want_mul[5] = {INT8_MIN, INT8_MAX, -14, -14, 0};
    assert_memory_equal(y8, want_mul, sizeof want_mul);
    t_tensor(&in[0], EMBER_DTYPE_U8, 1, &n, (void *)au);
    t_tensor(&in[1], EMBER_DTYPE_U8, 1, &n, (void *)bu);
    t_tensor(&out[0], EMBER_DTYPE_U8, 1, &n, yu);
    tn.n.op = EM_OP_SUB;
    t_expect_ok(tm_prepare(&tn, in, 2, out), "sub u8");
    const uint8_t want_sub[5] = {255, 254, 100, 5, 5};
    assert_memory_equal(yu, want_sub, sizeof want_sub);
    tn.n.op = EM_OP_ADD;
    t_expect_ok(tm_prepare(&tn, in, 2, out), "add u8");
    const uint8_t want_addu[5] = {1, 0, 44, 9, 5};
    assert_memory_equal(yu, want_addu, sizeof want_addu);
    tn.n.op = EM_OP_DIV;
    t_expect_ok(tm_prepare(&tn, in, 2, out), "div u8");
    const uint8_t want_divu[5] = {0, 255, 2, 3, 0};
    assert_memory_equal(yu, want_divu, sizeof want_divu);
}

/* ---- Pow ---------------------------------------------------------------------------------- */

static void test_pow(void **state)
{
    (void)state;
    static const ember_dtype bases[] = {EMBER_DTYPE_F32,  EMBER_DTYPE_F64, EMBER_DTYPE_F16,
                                        EMBER_DTYPE_BF16, EMBER_DTYPE_I32, EMBER_DTYPE_I64};
    for (int b = 0; b < 6; b++) {
        for (int e = 0; e < TM_N_DTYPES - 1; e++) {
            ember_dtype bd = bases[b], ed = tm_all_dtypes[e];
            bool fb = tm_is_float(bd), fe = tm_is_float(ed);
            /* Float bases stay positive (fractional exponents); integer results stay small. */
            tm_range r[2] = {{fb ? 0.5 : -6, fb ? 3 : 6}, {fb || !fe ? -2 : 0, 4}};
            for (size_t s = 0; s < sizeof bshapes / sizeof bshapes[0]; s += 3) {
                t_node tn;
                t_node_init(&tn, EM_OP_POW, "pow");
                bctx ctx = {EM_OP_POW, fe ? 0 : 1, bd};
                tm_case c = two(&bshapes[s], bd, ed);
                tm_opts opt = {r, 0.0, fb ? 1e-15 : 0.0, false};
                c.name = em_dtype_name(ed); /* the exponent's dtype names the case */
                tm_check(&tn, &c, bd, binary_oracle, &ctx, &opt, true, NULL);
            }
        }
    }
}

static void test_pow_edges(void **state)
{
    (void)state;
    int64_t n = 6;
    const int64_t base[6] = {3, -2, 1, -1, 2, 5};
    const int64_t ex[6] = {40, 63, -5, -3, -1, 0};
    int64_t y[6];
    em_tensor in[2], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_POW, "pow_edges");
    t_tensor(&in[0], EMBER_DTYPE_I64, 1, &n, (void *)base);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &n, (void *)ex);
    t_tensor(&out[0], EMBER_DTYPE_I64, 1, &n, y);
    t_expect_ok(tm_prepare(&tn, in, 2, out), "pow i64");
    uint64_t p = 1;
    for (int i = 0; i < 40; i++) {
        p *= 3u; /* 3^40 mod 2^64 */
    }
    assert_true(y[0] == (int64_t)p);
    assert_true(y[1] == INT64_MIN); /* (-2)^63 */
    assert_true(y[2] == 1 && y[3] == -1 && y[4] == 0 && y[5] == 1);
    /* int base, float exponent: truncation toward zero, saturating */
    const int32_t b32[3] = {2, -3, 10};
    const float e32[3] = {0.5f, 3.0f, 20.0f};
    int32_t y32[3];
    n = 3;
    t_tensor(&in[0], EMBER_DTYPE_I32, 1, &n, (void *)b32);
    t_tensor(&in[1], EMBER_DTYPE_F32, 1, &n, (void *)e32);
    t_tensor(&out[0], EMBER_DTYPE_I32, 1, &n, y32);
    t_expect_ok(tm_prepare(&tn, in, 2, out), "pow i32 f32");
    assert_true(y32[0] == 1 && y32[1] == -27 && y32[2] == INT32_MAX);
}

/* ---- Mod and BitShift --------------------------------------------------------------------- */

static void test_mod(void **state)
{
    (void)state;
    for (int t = 0; t < TM_N_DTYPES - 1; t++) {
        ember_dtype dt = tm_all_dtypes[t];
        bool f = tm_is_float(dt), uns = tm_is_unsigned(dt);
        for (int mode = f ? 1 : 0; mode < 2; mode++) {
            tm_range r[2] = {{uns ? 0 : -20, 20}, {uns ? 0 : -7, 7}};
            run_binary(EM_OP_MOD, mode, dt, dt, r, "fmod", NULL, NULL);
        }
    }
    /* Signs, zero divisors and INT_MIN % -1, exactly. */
    int64_t n = 6;
    const int32_t a[6] = {-7, 7, -7, 7, 5, INT32_MIN};
    const int32_t b[6] = {3, -3, -3, 3, 0, -1};
    int32_t y[6];
    em_tensor in[2], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_MOD, "mod_edges");
    t_tensor(&in[0], EMBER_DTYPE_I32, 1, &n, (void *)a);
    t_tensor(&in[1], EMBER_DTYPE_I32, 1, &n, (void *)b);
    t_tensor(&out[0], EMBER_DTYPE_I32, 1, &n, y);
    t_expect_ok(tm_prepare(&tn, in, 2, out), "mod");
    const int32_t want0[6] = {2, -2, -1, 1, 0, 0};
    assert_memory_equal(y, want0, sizeof want0);
    t_set_int(&tn, "fmod", 1);
    t_expect_ok(tm_prepare(&tn, in, 2, out), "fmod");
    const int32_t want1[6] = {-1, 1, -1, 1, 0, 0};
    assert_memory_equal(y, want1, sizeof want1);
}

static void test_bitshift(void **state)
{
    (void)state;
    static const ember_dtype dts[] = {EMBER_DTYPE_U8, EMBER_DTYPE_U16, EMBER_DTYPE_U32,
                                      EMBER_DTYPE_U64};
    for (int t = 0; t < 4; t++) {
        tm_range r[2] = {{0, 16}, {0, 4}};
        run_binary(EM_OP_BITSHIFT, 1, dts[t], dts[t], r, "direction", "LEFT", NULL);
        run_binary(EM_OP_BITSHIFT, 0, dts[t], dts[t], r, "direction", "RIGHT", NULL);
    }
    int64_t n = 4;
    const uint8_t a[4] = {1, 255, 128, 3};
    const uint8_t b[4] = {8, 1, 200, 7};
    uint8_t y[4];
    em_tensor in[2], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_BITSHIFT, "shift_edges");
    t_set_string(&tn, "direction", "LEFT");
    t_tensor(&in[0], EMBER_DTYPE_U8, 1, &n, (void *)a);
    t_tensor(&in[1], EMBER_DTYPE_U8, 1, &n, (void *)b);
    t_tensor(&out[0], EMBER_DTYPE_U8, 1, &n, y);
    t_expect_ok(tm_prepare(&tn, in, 2, out), "shl");
    const uint8_t want_l[4] = {0, 254, 0, 128};
    assert_memory_equal(y, want_l, sizeof want_l);
    tn.attrs[0].s = "RIGHT";
    t_expect_ok(tm_prepare(&tn, in, 2, out), "shr");
    const uint8_t want_r[4] = {0, 127, 0, 0};
    assert_memory_equal(y, want_r, sizeof want_r);
}

/* ---- comparisons, logic, Where ------------------------------------------------------------ */

static void test_compare(void **state)
{
    (void)state;
    static const em_op ops[] = {EM_OP_EQUAL, EM_OP_LESS, EM_OP_LESSOREQUAL, EM_OP_GREATER,
                                EM_OP_GREATEROREQUAL};
    for (int o = 0; o < 5; o++) {
        for (int t = 0; t < TM_N_DTYPES; t++) {
            ember_dtype dt = tm_all_dtypes[t];
            if (dt == EMBER_DTYPE_BOOL && ops[o] != EM_OP_EQUAL) {
                continue;
            }
            tm_range r[2] = {{-3, 3}, {-3, 3}}; /* small integers: many ties */
            if (dt == EMBER_DTYPE_BOOL) {
                r[0] = r[1] = (tm_range){0, 2};
            }
            run_binary(ops[o], 0, dt, EMBER_DTYPE_BOOL, r, NULL, NULL, NULL);
        }
    }
    /* NaN compares false, also with itself. */
    int64_t n = 3;
    const float a[3] = {NAN, 1.0f, NAN};
    const float b[3] = {NAN, NAN, 1.0f};
    uint8_t y[3];
    em_tensor in[2], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_EQUAL, "nan_cmp");
    t_tensor(&in[0], EMBER_DTYPE_F32, 1, &n, (void *)a);
    t_tensor(&in[1], EMBER_DTYPE_F32, 1, &n, (void *)b);
    t_tensor(&out[0], EMBER_DTYPE_BOOL, 1, &n, y);
    static const em_op all[] = {EM_OP_EQUAL, EM_OP_LESS, EM_OP_LESSOREQUAL, EM_OP_GREATER,
                                EM_OP_GREATEROREQUAL};
    for (int o = 0; o < 5; o++) {
        tn.n.op = all[o];
        t_expect_ok(tm_prepare(&tn, in, 2, out), "nan_cmp");
        assert_true(y[0] == 0 && y[1] == 0 && y[2] == 0);
    }
}

static void test_logic(void **state)
{
    (void)state;
    static const em_op ops[] = {EM_OP_AND, EM_OP_OR, EM_OP_XOR};
    for (int o = 0; o < 3; o++) {
        tm_range r[2] = {{0, 2}, {0, 2}};
        run_binary(ops[o], 0, EMBER_DTYPE_BOOL, EMBER_DTYPE_BOOL, r, NULL, NULL, NULL);
    }
}

static void test_where(void **state)
{
    (void)state;
    /* clang-format off */
    static const struct { const char *name; int r[3]; int64_t d[3][4]; } shapes[] = {
        {"same", {2, 2, 2}, {{5, 7}, {5, 7}, {5, 7}}},
        {"cond_row", {1, 2, 2}, {{7}, {5, 7}, {5, 7}}},
        {"three_way", {3, 2, 1}, {{2, 1, 7}, {5, 1}, {7}}},
        {"scalars", {2, 0, 0}, {{5, 7}, {0}, {0}}},
        {"zero", {2, 2, 1}, {{0, 7}, {1, 7}, {7}}},
    };
    /* clang-format on */
    for (int t = 0; t < TM_N_DTYPES; t++) {
        ember_dtype dt = tm_all_dtypes[t];
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            t_node tn;
            t_node_init(&tn, EM_OP_WHERE, "where");
            bctx ctx = {EM_OP_WHERE, 0, dt};
            tm_case c = {shapes[s].name, 3, {EMBER_DTYPE_BOOL, dt, dt}, {0}, {{0}}};
            for (int i = 0; i < 3; i++) {
                c.rank[i] = shapes[s].r[i];
                memcpy(c.dims[i], shapes[s].d[i], sizeof c.dims[i]);
            }
            tm_range r[3] = {{0, 2}, {-50, 50}, {-50, 50}};
            tm_opts opt = {r, 0.0, 0.0, false};
            tm_check(&tn, &c, dt, binary_oracle, &ctx, &opt, false, NULL);
        }
    }
}

/* ---- variadic ----------------------------------------------------------------------------- */

static void test_variadic(void **state)
{
    (void)state;
    static const em_op ops[] = {EM_OP_MAX, EM_OP_MIN, EM_OP_SUM, EM_OP_MEAN};
    /* clang-format off */
    static const struct { const char *name; int n; int r[4]; int64_t d[4][4]; } shapes[] = {
        {"one", 1, {2}, {{5, 7}}},
        {"two_same", 2, {2, 2}, {{5, 7}, {5, 7}}},
        {"three_bcast", 3, {2, 1, 0}, {{5, 7}, {7}, {0}}},
        {"four_mixed", 4, {3, 2, 1, 3}, {{2, 1, 7}, {5, 1}, {7}, {2, 5, 7}}},
        {"large", 2, {2, 1}, {{300, 257}, {257}}},
    };
    /* clang-format on */
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (int o = 0; o < 4; o++) {
        for (int t = 0; t < TM_N_DTYPES - 1; t++) {
            ember_dtype dt = tm_all_dtypes[t];
            if ((ops[o] == EM_OP_SUM || ops[o] == EM_OP_MEAN) && !tm_is_float(dt)) {
                continue;
            }
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
                if (s == 4 && dt != EMBER_DTYPE_F32 && dt != EMBER_DTYPE_I8) {
                    continue;
                }
                t_node tn;
                t_node_init(&tn, ops[o], "variadic");
                bctx ctx = {ops[o], 0, dt};
                tm_case c = {shapes[s].name, shapes[s].n, {dt, dt, dt, dt}, {0}, {{0}}};
                for (int i = 0; i < c.n_in; i++) {
                    c.rank[i] = shapes[s].r[i];
                    memcpy(c.dims[i], shapes[s].d[i], sizeof c.dims[i]);
                }
                tm_range r[4] = {{-9, 9}, {-9, 9}, {-9, 9}, {-9, 9}};
                tm_opts opt = {r, 0.0, 1e-15, false};
                tm_check(&tn, &c, dt, binary_oracle, &ctx, &opt, true, pool);
            }
        }
    }
    em_threadpool_destroy(pool);
    /* NaN wins in Max and Min, wherever it is. */
    int64_t n = 3;
    const float a[3] = {NAN, 1.0f, 2.0f}, b[3] = {1.0f, NAN, 3.0f};
    float y[3];
    em_tensor in[2], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_MAX, "nan_max");
    t_tensor(&in[0], EMBER_DTYPE_F32, 1, &n, (void *)a);
    t_tensor(&in[1], EMBER_DTYPE_F32, 1, &n, (void *)b);
    t_tensor(&out[0], EMBER_DTYPE_F32, 1, &n, y);
    t_expect_ok(tm_prepare(&tn, in, 2, out), "nan_max");
    assert_true(isnan(y[0]) && isnan(y[1]) && y[2] == 3.0f);
    tn.n.op = EM_OP_MIN;
    t_expect_ok(tm_prepare(&tn, in, 2, out), "nan_min");
    assert_true(isnan(y[0]) && isnan(y[1]) && y[2] == 2.0f);
}

static void test_prelu(void **state)
{
    (void)state;
    static const ember_dtype dts[] = {EMBER_DTYPE_F32,  EMBER_DTYPE_F64, EMBER_DTYPE_F16,
                                      EMBER_DTYPE_BF16, EMBER_DTYPE_I32, EMBER_DTYPE_I64,
                                      EMBER_DTYPE_U32,  EMBER_DTYPE_U64};
    /* clang-format off */
    static const struct { const char *name; int r[2]; int64_t d[2][4]; } shapes[] = {
        {"same", {2, 2}, {{5, 7}, {5, 7}}},
        {"channel", {4, 3}, {{2, 3, 4, 5}, {3, 1, 1}}},
        {"scalar", {3, 0}, {{2, 3, 4}, {0}}},
        {"last", {3, 1}, {{2, 3, 4}, {4}}},
    };
    /* clang-format on */
    for (int t = 0; t < 8; t++) {
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            t_node tn;
            t_node_init(&tn, EM_OP_PRELU, "prelu");
            bctx ctx = {EM_OP_PRELU, 0, dts[t]};
            tm_case c = {shapes[s].name, 2, {dts[t], dts[t]}, {0}, {{0}}};
            for (int i = 0; i < 2; i++) {
                c.rank[i] = shapes[s].r[i];
                memcpy(c.dims[i], shapes[s].d[i], sizeof c.dims[i]);
            }
            tm_range r[2] = {{-9, 9}, {0, 3}};
            tm_opts opt = {r, 0.0, 0.0, false};
            tm_check(&tn, &c, dts[t], binary_oracle, &ctx, &opt, true, NULL);
        }
    }
}

/* ---- errors ------------------------------------------------------------------------------- */

static ember_status *try2(t_node *tn, ember_dtype da, int ra, const int64_t *ad, ember_dtype db,
                          int rb, const int64_t *bd, ember_dtype dy, int ry, const int64_t *yd)
{
    static uint64_t ab[64], bb[64], yb[64];
    em_tensor in[2], out[1];
    t_tensor(&in[0], da, ra, ad, ab);
    t_tensor(&in[1], db, rb, bd, bb);
    t_tensor(&out[0], dy, ry, yd, yb);
    return tm_prepare(tn, in, 2, out);
}

static void test_errors(void **state)
{
    (void)state;
    const int64_t d3[1] = {3}, d4[1] = {4}, d34[2] = {3, 4}, d43[2] = {4, 3};
    t_node tn;
    t_node_init(&tn, EM_OP_ADD, "bad_add");
    t_expect_error(try2(&tn, EMBER_DTYPE_U8, 1, d3, EMBER_DTYPE_I8, 1, d3, EMBER_DTYPE_U8, 1, d3),
                   EMBER_ERR_INVALID_MODEL, "bad_add", "dtype mismatch");
    t_expect_error(try2(&tn, EMBER_DTYPE_U8, 1, d3, EMBER_DTYPE_U8, 1, d4, EMBER_DTYPE_U8, 1, d4),
                   EMBER_ERR_INVALID_MODEL, "bad_add", "no broadcast");
    t_expect_error(try2(&tn, EMBER_DTYPE_U8, 1, d4, EMBER_DTYPE_U8, 2, d34, EMBER_DTYPE_U8, 2, d43),
                   EMBER_ERR_INVALID_MODEL, "bad_add", "wrong output shape");
    t_node_init(&tn, EM_OP_EQUAL, "bad_eq");
    t_expect_error(
        try2(&tn, EMBER_DTYPE_F32, 1, d3, EMBER_DTYPE_F32, 1, d3, EMBER_DTYPE_F32, 1, d3),
        EMBER_ERR_INVALID_MODEL, "bad_eq", "equal to f32");
    t_node_init(&tn, EM_OP_LESS, "bad_less");
    t_expect_error(
        try2(&tn, EMBER_DTYPE_BOOL, 1, d3, EMBER_DTYPE_BOOL, 1, d3, EMBER_DTYPE_BOOL, 1, d3),
        EMBER_ERR_UNSUPPORTED, "bad_less", "less of bool");
    t_node_init(&tn, EM_OP_MOD, "bad_mod");
    t_set_int(&tn, "fmod", 2);
    t_expect_error(
        try2(&tn, EMBER_DTYPE_I32, 1, d3, EMBER_DTYPE_I32, 1, d3, EMBER_DTYPE_I32, 1, d3),
        EMBER_ERR_INVALID_MODEL, "bad_mod", "fmod 2");
    t_node_init(&tn, EM_OP_BITSHIFT, "bad_shift");
    t_expect_error(try2(&tn, EMBER_DTYPE_U8, 1, d3, EMBER_DTYPE_U8, 1, d3, EMBER_DTYPE_U8, 1, d3),
                   EMBER_ERR_INVALID_MODEL, "bad_shift", "no direction");
    t_set_string(&tn, "direction", "UP");
    t_expect_error(try2(&tn, EMBER_DTYPE_U8, 1, d3, EMBER_DTYPE_U8, 1, d3, EMBER_DTYPE_U8, 1, d3),
                   EMBER_ERR_INVALID_MODEL, "bad_shift", "direction UP");
    t_node_init(&tn, EM_OP_PRELU, "bad_prelu");
    t_expect_error(
        try2(&tn, EMBER_DTYPE_F32, 1, d4, EMBER_DTYPE_F32, 2, d34, EMBER_DTYPE_F32, 2, d34),
        EMBER_ERR_INVALID_MODEL, "bad_prelu", "slope larger than X");
    t_node_init(&tn, EM_OP_POW, "bad_pow");
    t_expect_error(try2(&tn, EMBER_DTYPE_U8, 1, d3, EMBER_DTYPE_F32, 1, d3, EMBER_DTYPE_U8, 1, d3),
                   EMBER_ERR_UNSUPPORTED, "bad_pow", "u8 base");
    t_expect_error(
        try2(&tn, EMBER_DTYPE_F32, 1, d3, EMBER_DTYPE_BOOL, 1, d3, EMBER_DTYPE_F32, 1, d3),
        EMBER_ERR_UNSUPPORTED, "bad_pow", "bool exponent");
    t_node_init(&tn, EM_OP_SUM, "bad_sum");
    t_expect_error(
        try2(&tn, EMBER_DTYPE_I32, 1, d3, EMBER_DTYPE_I32, 1, d3, EMBER_DTYPE_I32, 1, d3),
        EMBER_ERR_UNSUPPORTED, "bad_sum", "sum of i32");
    /* Where: a condition that is not bool; X and Y of different dtypes. */
    static uint64_t b0[8], b1[8], b2[8], by[8];
    em_tensor in[3], out[1];
    t_node_init(&tn, EM_OP_WHERE, "bad_where");
    t_tensor(&in[0], EMBER_DTYPE_U8, 1, d3, b0);
    t_tensor(&in[1], EMBER_DTYPE_F32, 1, d3, b1);
    t_tensor(&in[2], EMBER_DTYPE_F32, 1, d3, b2);
    t_tensor(&out[0], EMBER_DTYPE_F32, 1, d3, by);
    t_expect_error(tm_prepare(&tn, in, 3, out), EMBER_ERR_UNSUPPORTED, "bad_where", "u8 cond");
    in[0].dtype = EMBER_DTYPE_BOOL;
    in[2].dtype = EMBER_DTYPE_F64;
    t_expect_error(tm_prepare(&tn, in, 3, out), EMBER_ERR_INVALID_MODEL, "bad_where", "X vs Y");
    t_expect_error(tm_prepare(&tn, in, 2, out), EMBER_ERR_INVALID_MODEL, "bad_where", "2 inputs");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arith_extra_dtypes),
        cmocka_unit_test(test_arith_edges),
        cmocka_unit_test(test_pow),
        cmocka_unit_test(test_pow_edges),
        cmocka_unit_test(test_mod),
        cmocka_unit_test(test_bitshift),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_logic),
        cmocka_unit_test(test_where),
        cmocka_unit_test(test_variadic),
        cmocka_unit_test(test_prelu),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
