/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The math ops of opsets 18-28: kernels/ref/math_bits_ref.c (BitwiseAnd/Or/Xor/Not),
 * math_act_ref.c (Gelu, Swish, SwiGLU) and math_cumprod_ref.c (CumProd). Bitwise ops on every
 * integer dtype with broadcasting against an oracle on exact integers, plus the extreme bit
 * patterns of each width checked by hand; Gelu (erf and tanh forms), Swish and SwiGLU against
 * their formulas in double on every float dtype, serially, threaded and in place; CumProd along
 * each axis with exclusive / reverse on floats and integers, an i32 product that wraps, and
 * malformed nodes.
 */
#include "test_ref_math_util.h"

#include <limits.h>

#define F32 EMBER_DTYPE_F32

typedef struct bctx {
    em_op op;
    double alpha;
    int mode;
    ember_dtype dt;
} bctx;

/* Exact for the test's values (|v| < 2^31): the op on two's-complement int64 bits, then the
 * dtype's wrap (unsigned) or sign extension (signed). */
static double bits_oracle(const double *x, int n_in, const void *ctx)
{
    const bctx *b = ctx;
    (void)n_in;
    int64_t p = (int64_t)x[0], q = n_in > 1 ? (int64_t)x[1] : 0, r;
    switch (b->op) {
    case EM_OP_BITWISEAND:
        r = p & q;
        break;
    case EM_OP_BITWISEOR:
        r = p | q;
        break;
    case EM_OP_BITWISEXOR:
        r = p ^ q;
        break;
    default:
        r = ~p;
        break;
    }
    int bits = (int)em_dtype_size(b->dt) * 8;
    if (tm_is_unsigned(b->dt)) {
        return bits == 64 ? (double)(uint64_t)r : (double)((uint64_t)r & ((1ull << bits) - 1));
    }
    return (double)r; /* results of sign-extended inputs stay in range */
}

static void test_bitwise(void **state)
{
    (void)state;
    static const ember_dtype ints[] = {EMBER_DTYPE_I8,  EMBER_DTYPE_I16, EMBER_DTYPE_I32,
                                       EMBER_DTYPE_I64, EMBER_DTYPE_U8,  EMBER_DTYPE_U16,
                                       EMBER_DTYPE_U32};
    static const em_op ops[] = {EM_OP_BITWISEAND, EM_OP_BITWISEOR, EM_OP_BITWISEXOR,
                                EM_OP_BITWISENOT};
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t o = 0; o < 4; o++) {
        for (size_t d = 0; d < sizeof ints / sizeof ints[0]; d++) {
            ember_dtype dt = ints[d];
            bool one = ops[o] == EM_OP_BITWISENOT;
            tm_case c = {"bits", one ? 1 : 2, {dt, dt}, {3, 2}, {{3, 5, 7}, {5, 1}}};
            double hi = em_dtype_size(dt) == 1 ? 127 : 30000;
            tm_range r[2] = {{-hi, hi}, {-hi, hi}};
            tm_opts opt = {r, 0.0, 0.0, false};
            bctx b = {ops[o], 0, 0, dt};
            t_node tn;
            t_node_init(&tn, ops[o], "bits");
            tm_check(&tn, &c, dt, bits_oracle, &b, &opt, true, pool);
        }
    }
    em_threadpool_destroy(pool);
}

/* Extreme patterns: u64 ~0 and high bits, i8 -128, u8 wrap of Not. */
static void test_bitwise_edges(void **state)
{
    (void)state;
    uint64_t ua[3] = {0, UINT64_MAX, 0x8000000000000001ull}, ub[3] = {UINT64_MAX, 0xf0f0ull, 1};
    uint64_t uy[3];
    int8_t ia[2] = {-128, 127}, iy[2];
    uint8_t u8[2] = {0, 0xa5}, u8y[2];
    int64_t n3 = 3, n2 = 2;
    em_tensor in[2], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_BITWISEXOR, "edges");
    t_tensor(&in[0], EMBER_DTYPE_U64, 1, &n3, ua);
    t_tensor(&in[1], EMBER_DTYPE_U64, 1, &n3, ub);
    t_tensor(&out[0], EMBER_DTYPE_U64, 1, &n3, uy);
    t_expect_ok(tm_prepare(&tn, in, 2, out), "xor u64");
    assert_true(uy[0] == UINT64_MAX && uy[1] == (UINT64_MAX ^ 0xf0f0ull) &&
                uy[2] == 0x8000000000000000ull);
    t_node_init(&tn, EM_OP_BITWISENOT, "edges");
    t_tensor(&in[0], EMBER_DTYPE_I8, 1, &n2, ia);
    t_tensor(&out[0], EMBER_DTYPE_I8, 1, &n2, iy);
    t_expect_ok(tm_prepare(&tn, in, 1, out), "not i8");
    assert_true(iy[0] == 127 && iy[1] == -128);
    t_tensor(&in[0], EMBER_DTYPE_U8, 1, &n2, u8);
    t_tensor(&out[0], EMBER_DTYPE_U8, 1, &n2, u8y);
    t_expect_ok(tm_prepare(&tn, in, 1, out), "not u8");
    assert_true(u8y[0] == 0xff && u8y[1] == 0x5a);
    /* Floats and bool are refused. */
    t_tensor(&in[0], F32, 1, &n2, ua);
    t_tensor(&out[0], F32, 1, &n2, uy);
    t_expect_error(tm_prepare(&tn, in, 1, out), EMBER_ERR_UNSUPPORTED, "edges", "not f32");
}

/* ---- Gelu, Swish, SwiGLU ------------------------------------------------------------------- */

static double act_oracle(const double *x, int n_in, const void *ctx)
{
    const bctx *b = ctx;
    double v = x[0];
    (void)n_in;
    switch (b->op) {
    case EM_OP_GELU:
        if (b->mode) { /* 0.5 (1 + tanh z) written as e^z / (e^z + e^-z) */
            double z = sqrt(2.0 / 3.14159265358979323846) * (v + 0.044715 * v * v * v);
            return v / (1.0 + exp(-2.0 * z));
        }
        return v * 0.5 * erfc(-v / sqrt(2.0));
    case EM_OP_SWISH:
        return v / (1.0 + exp(-b->alpha * v));
    default:
        return v / (1.0 + exp(-b->alpha * v)) * x[1];
    }
}

static void test_activations(void **state)
{
    (void)state;
    static const struct {
        em_op op;
        const char *approx;
        float alpha; /* 0: attribute absent (1) */
    } acts[] = {
        {EM_OP_GELU, NULL, 0},      {EM_OP_GELU, "tanh", 0},   {EM_OP_GELU, "none", 0},
        {EM_OP_SWISH, NULL, 0},     {EM_OP_SWISH, NULL, 0.5f}, {EM_OP_SWIGLU, NULL, 0},
        {EM_OP_SWIGLU, NULL, 1.7f},
    };
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t a = 0; a < sizeof acts / sizeof acts[0]; a++) {
        for (int d = 0; d < 4; d++) {
            ember_dtype dt = tm_floats[d];
            bool two = acts[a].op == EM_OP_SWIGLU;
            tm_case c = {"act", two ? 2 : 1, {dt, dt}, {3, 3}, {{2, 9, 5}, {2, 9, 5}}};
            tm_range r[2] = {{-6, 6}, {-3, 3}};
            /* Swish rounds alpha * x, the sigmoid and Swish(A) to the dtype on the way. */
            double extra = acts[a].op == EM_OP_GELU ? 0.0
                           : dt == EMBER_DTYPE_F16  ? 3e-3
                           : dt == EMBER_DTYPE_BF16 ? 2.4e-2
                                                    : 0.0;
            tm_opts opt = {r, extra, extra, false};
            bctx b = {acts[a].op, acts[a].alpha != 0 ? acts[a].alpha : 1.0,
                      acts[a].approx != NULL && acts[a].approx[0] == 't', dt};
            t_node tn;
            t_node_init(&tn, acts[a].op, "act");
            if (acts[a].approx != NULL) {
                t_set_string(&tn, "approximate", acts[a].approx);
            }
            if (acts[a].alpha != 0) {
                t_set_float(&tn, "alpha", acts[a].alpha);
            }
            tm_check(&tn, &c, dt, act_oracle, &b, &opt, true, pool);
        }
    }
    em_threadpool_destroy(pool);
    /* Gelu(1) = 0.5 (1 + erf(1/sqrt(2))) = 0.841344746...; a bad approximate is refused. */
    float x = 1.0f, y;
    int64_t one = 1;
    em_tensor in[1], out[1];
    t_tensor(&in[0], F32, 1, &one, &x);
    t_tensor(&out[0], F32, 1, &one, &y);
    t_node tn;
    t_node_init(&tn, EM_OP_GELU, "gelu_one");
    t_expect_ok(tm_prepare(&tn, in, 1, out), "gelu(1)");
    assert_true(fabs(y - 0.8413447460685429) < 1e-7);
    t_set_string(&tn, "approximate", "tanh"); /* 0.5 (1 + tanh(sqrt(2/pi) 1.044715)) */
    t_expect_ok(tm_prepare(&tn, in, 1, out), "gelu_tanh(1)");
    assert_true(fabs(y - 0.8411919906082768) < 1e-7);
    tn.n.n_attrs = 0;
    t_set_string(&tn, "approximate", "sigmoid");
    t_expect_error(tm_prepare(&tn, in, 1, out), EMBER_ERR_INVALID_MODEL, "gelu_one", "approx");
}

/* ---- CumProd ------------------------------------------------------------------------------- */

static void cumprod_run(ember_dtype dt, int rank, const int64_t *dims, int64_t axis, bool excl,
                        bool rev)
{
    char name[96];
    snprintf(name, sizeof name, "cumprod/%s/axis%lld%s%s", em_dtype_name(dt), (long long)axis,
             excl ? "/excl" : "", rev ? "/rev" : "");
    int64_t n = t_numel(dims, rank), ax = axis < 0 ? axis + rank : axis;
    void *x = tm_buf(dt, n), *y = tm_buf(dt, n);
    tm_fill(dt, x, n, 61 + (uint64_t)n,
            tm_is_float(dt) ? (tm_range){-1.9, 1.9} : (tm_range){-3, 4});
    const int64_t len = dims[ax], inner = t_numel(dims + ax + 1, rank - (int)ax - 1);
    double *ref = t_f64(n);
    for (int64_t e = 0; e < n; e++) { /* the product of the elements before e along the axis */
        int64_t pos = e / inner % len, first = e - pos * inner;
        double p = 1.0;
        for (int64_t j = 0; j < len; j++) {
            bool take = rev ? (excl ? j > pos : j >= pos) : (excl ? j < pos : j <= pos);
            p *= take ? tm_get(dt, x, first + j * inner) : 1.0;
        }
        ref[e] = p;
    }
    em_tensor in[2], out[1];
    int64_t av = axis;
    t_tensor(&in[0], dt, rank, dims, x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 0, NULL, &av);
    t_tensor(&out[0], dt, rank, dims, y);
    t_node tn;
    t_node_init(&tn, EM_OP_CUMPROD, name);
    t_set_int(&tn, "exclusive", excl);
    t_set_int(&tn, "reverse", rev);
    t_expect_ok(tm_prepare(&tn, in, 2, out), name);
    double tol = dt == EMBER_DTYPE_BF16 ? 4e-2 : dt == EMBER_DTYPE_F16 ? 5e-3 : 1e-6;
    for (int64_t e = 0; e < n; e++) {
        if (!t_close(tm_get(dt, y, e), ref[e], tm_is_float(dt) ? tol : 0.0,
                     tm_is_float(dt) ? tol : 0.0)) {
            fail_msg("case %s: index %lld: got %.9g, expected %.9g", name, (long long)e,
                     tm_get(dt, y, e), ref[e]);
        }
    }
    test_free(x);
    test_free(y);
    test_free(ref);
}

static void test_cumprod(void **state)
{
    (void)state;
    static const ember_dtype dts[] = {F32,
                                      EMBER_DTYPE_F64,
                                      EMBER_DTYPE_F16,
                                      EMBER_DTYPE_BF16,
                                      EMBER_DTYPE_I32,
                                      EMBER_DTYPE_I64,
                                      EMBER_DTYPE_U32,
                                      EMBER_DTYPE_U64};
    static const int64_t d3[3] = {3, 5, 2}, d1[1] = {7};
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
        for (int flags = 0; flags < 4; flags++) {
            cumprod_run(dts[i], 1, d1, 0, flags & 1, flags & 2);
            cumprod_run(dts[i], 3, d3, 1, flags & 1, flags & 2);
            cumprod_run(dts[i], 3, d3, -1, flags & 1, flags & 2);
            cumprod_run(dts[i], 3, d3, 0, flags & 1, flags & 2);
        }
    }
    /* i32 wraps: 65537^2 = 2^32 + 2^17 + 1 -> 131073; then * 2^16 -> 2^33 + 2^32 + 2^16 -> 65536.
     */
    int32_t x[3] = {65537, 65537, 65536}, y[3];
    int64_t n = 3, axis = 0;
    em_tensor in[2], out[1];
    t_tensor(&in[0], EMBER_DTYPE_I32, 1, &n, x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &(int64_t){1}, &axis);
    t_tensor(&out[0], EMBER_DTYPE_I32, 1, &n, y);
    t_node tn;
    t_node_init(&tn, EM_OP_CUMPROD, "cumprod_wrap");
    t_expect_ok(tm_prepare(&tn, in, 2, out), "cumprod_wrap");
    assert_true(y[0] == 65537 && y[1] == 131073 && y[2] == (int32_t)(131073u * 65536u));
    /* An axis out of range (known while planning), an axis of two values, a bool input. */
    axis = 1;
    t_expect_error(
        t_run_const(tm_kernel(EM_OP_CUMPROD, EMBER_DTYPE_I32), &tn.n, in, 2, out, 1, NULL, 0x2),
        EMBER_ERR_INVALID_MODEL, "cumprod_wrap", "axis range");
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &(int64_t){2}, x);
    t_expect_error(tm_prepare(&tn, in, 2, out), EMBER_ERR_INVALID_MODEL, "cumprod_wrap",
                   "two axes");
    t_tensor(&in[0], EMBER_DTYPE_BOOL, 1, &n, x);
    t_tensor(&out[0], EMBER_DTYPE_BOOL, 1, &n, y);
    t_expect_error(tm_prepare(&tn, in, 2, out), EMBER_ERR_UNSUPPORTED, "cumprod_wrap", "bool");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bitwise),
        cmocka_unit_test(test_bitwise_edges),
        cmocka_unit_test(test_activations),
        cmocka_unit_test(test_cumprod),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
