/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/reduce_axes_ref.c: the ten Reduce* ops (opset 18) and ArgMax/ArgMin against naive
 * computations in double (or exact integer arithmetic) that visit every input element once and
 * accumulate into the output it maps to. Cases: one, several, negative, all (absent or empty)
 * axes, noop_with_empty_axes, keepdims 0/1, rank 0 and 1, size-1 axes, empty reductions (the
 * identity values), zero outputs, trailing axes (f32 reads them flat), every supported dtype
 * (f32 f64 i32 i64 i8 u8, bool for Max/Min), axes given as a constant (checked in prepare)
 * or only at run time, integer wraparound, NaN propagation, threaded runs equal to serial
 * ones, and malformed nodes.
 */
#define EM_REDUCE_TEST_HELPERS_ONLY
#include "test_ref_reduce_common.c"

static const em_op reduce_ops[] = {
    EM_OP_REDUCESUM,       EM_OP_REDUCEMEAN,      EM_OP_REDUCEMAX, EM_OP_REDUCEMIN,
    EM_OP_REDUCEPROD,      EM_OP_REDUCEL1,        EM_OP_REDUCEL2,  EM_OP_REDUCELOGSUM,
    EM_OP_REDUCELOGSUMEXP, EM_OP_REDUCESUMSQUARE,
};

static const ember_dtype reduce_dtypes[] = {
    EMBER_DTYPE_F32, EMBER_DTYPE_F64, EMBER_DTYPE_I32,
    EMBER_DTYPE_I64, EMBER_DTYPE_I8,  EMBER_DTYPE_U8,
};

typedef struct reduce_case {
    const char *name;
    int rank;
    int64_t dims[5];
    int n_axes; /* -1: axes input absent */
    int64_t axes[5];
    int keepdims, noop;
} reduce_case;

/* clang-format off */
static const reduce_case reduce_cases[] = {
    {"axis1_keep", 3, {3, 4, 5}, 1, {1}, 1, 0},
    {"axes_m1_0_drop", 3, {3, 4, 5}, 2, {-1, 0}, 0, 0},
    {"absent_all_keep", 3, {3, 4, 5}, -1, {0}, 1, 0},
    {"absent_all_drop", 3, {3, 4, 5}, -1, {0}, 0, 0},
    {"empty_all_drop", 3, {2, 3, 2}, 0, {0}, 0, 0},
    {"empty_noop", 3, {3, 4, 5}, 0, {0}, 1, 1},
    {"absent_noop", 2, {3, 5}, -1, {0}, 0, 1},
    {"empty_set", 3, {2, 0, 3}, 1, {1}, 1, 0},
    {"empty_set_drop", 3, {2, 0, 3}, 1, {-2}, 0, 0},
    {"zero_outputs", 2, {0, 3}, 1, {1}, 1, 0},
    {"rank1", 1, {7}, 1, {0}, 0, 0},
    {"rank0", 0, {0}, -1, {0}, 1, 0},
    {"rank4_1_3", 4, {2, 3, 4, 5}, 2, {3, 1}, 1, 0},
    {"len1_axis", 3, {1, 17, 1}, 1, {-2}, 0, 0},
    {"rank5_mixed", 5, {2, 1, 3, 2, 3}, 3, {0, -1, 2}, 0, 0},
    /* trailing axes: f32 reads them without the coordinate walk */
    {"last_axis", 3, {3, 4, 5}, 1, {-1}, 1, 0},
    {"last_two_drop", 4, {2, 3, 4, 5}, 2, {3, 2}, 0, 0},
};
/* clang-format on */

static unsigned case_mask(const reduce_case *c)
{
    if (c->n_axes <= 0) {
        return c->noop ? 0u : (1u << c->rank) - 1u;
    }
    unsigned m = 0;
    for (int i = 0; i < c->n_axes; i++) {
        m |= 1u << (c->axes[i] < 0 ? c->axes[i] + c->rank : c->axes[i]);
    }
    return m;
}

static int case_out_dims(const reduce_case *c, unsigned mask, int64_t *od)
{
    int r = 0;
    for (int d = 0; d < c->rank; d++) {
        if (!(mask & (1u << d))) {
            od[r++] = c->dims[d];
        } else if (c->keepdims) {
            od[r++] = 1;
        }
    }
    return r;
}

/* Per-output accumulators of the naive reduction. */
typedef struct acc {
    double sum, abs, sq, prod, mx, mn, n;
    uint64_t isum, iprod, isq, iabs;
    int64_t imx, imn;
} acc;

static void int_range(ember_dtype dt, double *lo, double *hi)
{
    switch (dt) {
    case EMBER_DTYPE_I8:
        *lo = -128, *hi = 127;
        return;
    case EMBER_DTYPE_U8:
        *lo = 0, *hi = 255;
        return;
    case EMBER_DTYPE_BOOL:
        *lo = 0, *hi = 1;
        return;
    case EMBER_DTYPE_I32:
        *lo = -2147483648.0, *hi = 2147483647.0;
        return;
    default:
        *lo = -9223372036854775808.0, *hi = 9223372036854775807.0;
        return;
    }
}

/* The value an integer output holds for the exact (wrapped) 64-bit result v. */
static double wrap_to(ember_dtype dt, uint64_t v)
{
    switch (dt) {
    case EMBER_DTYPE_I8:
        return (double)(int8_t)(uint8_t)v;
    case EMBER_DTYPE_U8:
        return (double)(uint8_t)v;
    case EMBER_DTYPE_I32:
        return (double)(int32_t)(uint32_t)v;
    default:
        return (double)(int64_t)v;
    }
}

/* Double result saturated and truncated as the kernel stores integers. */
static double sat_to(ember_dtype dt, double v)
{
    double lo, hi;
    if (r_is_float(dt)) {
        return v;
    }
    int_range(dt, &lo, &hi);
    if (isnan(v)) {
        return 0.0;
    }
    v = trunc(v);
    return v < lo ? lo : (v > hi ? hi : v);
}

static double finish(em_op op, ember_dtype dt, const acc *a, double lse)
{
    bool fl = r_is_float(dt);
    switch (op) {
    case EM_OP_REDUCESUM:
        return fl ? a->sum : wrap_to(dt, a->isum);
    case EM_OP_REDUCEMEAN:
        if (fl) {
            return a->n > 0 ? a->sum / a->n : NAN;
        }
        return a->n > 0 ? (double)((int64_t)a->isum / (int64_t)a->n) : 0.0;
    case EM_OP_REDUCEMAX:
        return fl ? a->mx : (double)a->imx;
    case EM_OP_REDUCEMIN:
        return fl ? a->mn : (double)a->imn;
    case EM_OP_REDUCEPROD:
        return fl ? a->prod : wrap_to(dt, a->iprod);
    case EM_OP_REDUCEL1:
        return fl ? a->abs : wrap_to(dt, a->iabs);
    case EM_OP_REDUCEL2:
        return sat_to(dt, sqrt(a->sq));
    case EM_OP_REDUCELOGSUM:
        return sat_to(dt, log(a->sum));
    case EM_OP_REDUCELOGSUMEXP:
        return sat_to(dt, lse);
    case EM_OP_REDUCESUMSQUARE:
        return fl ? a->sq : wrap_to(dt, a->isq);
    default:
        fail();
        return 0.0;
    }
}

static void acc_init(acc *a, ember_dtype dt)
{
    double lo, hi;
    memset(a, 0, sizeof *a);
    a->prod = 1.0;
    a->iprod = 1;
    a->mx = -INFINITY;
    a->mn = INFINITY;
    int_range(dt, &lo, &hi);
    a->imx = dt == EMBER_DTYPE_I64 ? INT64_MIN : (int64_t)lo;
    a->imn = dt == EMBER_DTYPE_I64 ? INT64_MAX : (int64_t)hi;
}

static void acc_add(acc *a, double v, int64_t iv)
{
    a->sum += v;
    a->abs += fabs(v);
    a->sq += v * v;
    a->prod *= v;
    a->mx = isnan(a->mx) || isnan(v) ? NAN : fmax(a->mx, v);
    a->mn = isnan(a->mn) || isnan(v) ? NAN : fmin(a->mn, v);
    a->n += 1;
    a->isum += (uint64_t)iv;
    a->iprod *= (uint64_t)iv;
    a->isq += (uint64_t)iv * (uint64_t)iv;
    a->iabs += iv < 0 ? 0 - (uint64_t)iv : (uint64_t)iv;
    a->imx = iv > a->imx ? iv : a->imx;
    a->imn = iv < a->imn ? iv : a->imn;
}

/* Naive reduction of x into ref[n_out]: every input element visits its output. */
static void reduce_naive(const reduce_case *c, em_op op, ember_dtype dt, const void *x, double *ref,
                         int64_t n_out)
{
    unsigned mask = case_mask(c);
    int64_t n_in = t_numel(c->dims, c->rank);
    acc *a = test_calloc((size_t)(n_out > 0 ? n_out : 1), sizeof(acc));
    double *mx = t_f64(n_out), *se = t_f64(n_out);
    for (int64_t o = 0; o < n_out; o++) {
        acc_init(&a[o], dt);
    }
    int64_t coord[5] = {0};
    for (int64_t i = 0; i < n_in; i++) {
        int64_t o = 0;
        for (int d = 0; d < c->rank; d++) {
            if (!(mask & (1u << d))) {
                o = o * c->dims[d] + coord[d];
            }
        }
        double v = r_get(x, dt, i);
        acc_add(&a[o], v, r_is_float(dt) ? 0 : (int64_t)v);
        em_ref_coord_next(coord, c->dims, c->rank);
    }
    /* LogSumExp in a second pass: log(sum(exp(x - max))) + max. */
    for (int64_t o = 0; o < n_out; o++) {
        mx[o] = a[o].mx;
    }
    memset(coord, 0, sizeof coord);
    for (int64_t i = 0; i < n_in; i++) {
        int64_t o = 0;
        for (int d = 0; d < c->rank; d++) {
            if (!(mask & (1u << d))) {
                o = o * c->dims[d] + coord[d];
            }
        }
        se[o] += exp(r_get(x, dt, i) - mx[o]);
        em_ref_coord_next(coord, c->dims, c->rank);
    }
    for (int64_t o = 0; o < n_out; o++) {
        double lse = isfinite(mx[o]) ? mx[o] + log(se[o]) : mx[o];
        ref[o] = finish(op, dt, &a[o], lse);
    }
    test_free(a);
    test_free(mx);
    test_free(se);
}

static bool op_takes(em_op op, ember_dtype dt)
{
    (void)op;
    return dt != EMBER_DTYPE_BOOL;
}

/* Runs one (case, op, dtype), with the axes constant or not; returns the output buffer. */
static void *reduce_run(const reduce_case *c, em_op op, ember_dtype dt, const void *x,
                        bool axes_const, em_threadpool *pool, int64_t *n_out)
{
    unsigned mask = case_mask(c);
    int64_t od[5];
    int orank = c->n_axes <= 0 && c->noop ? c->rank : case_out_dims(c, mask, od);
    if (c->n_axes <= 0 && c->noop) {
        memcpy(od, c->dims, sizeof od);
    }
    *n_out = t_numel(od, orank);
    void *y = r_buf(dt, *n_out);
    r_set(y, dt, 0, 99); /* a kernel that forgets an element fails */
    int64_t axes_dims[1] = {c->n_axes > 0 ? c->n_axes : 0};
    em_tensor in[2], out[1];
    t_tensor(&in[0], dt, c->rank, c->dims, (void *)x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, axes_dims, (void *)c->axes);
    t_tensor(&out[0], dt, orank, od, y);
    t_node tn;
    t_node_init(&tn, op, c->name);
    t_set_int(&tn, "keepdims", c->keepdims);
    if (c->noop) {
        t_set_int(&tn, "noop_with_empty_axes", 1);
    }
    int n_in = c->n_axes < 0 ? 1 : 2;
    t_expect_ok(t_run_const(t_kernel(op, EMBER_DTYPE_UNDEFINED), &tn.n, in, n_in, out, 1, pool,
                            axes_const ? 0x2u : 0u),
                c->name);
    return y;
}

static void reduce_check(const reduce_case *c, em_op op, ember_dtype dt, em_threadpool *pool)
{
    int64_t n_in = t_numel(c->dims, c->rank), n_out;
    double lo = -2.0, hi = 2.0;
    if (op == EM_OP_REDUCELOGSUM) {
        lo = r_is_float(dt) ? 0.1 : 1.0; /* a positive sum, so log is defined */
    }
    if (dt == EMBER_DTYPE_U8) {
        lo = 0.0, hi = 4.0;
    }
    void *x = r_random(dt, n_in, (uint64_t)(n_in * 31 + op), lo, hi);
    void *y = reduce_run(c, op, dt, x, false, NULL, &n_out);
    void *yc = reduce_run(c, op, dt, x, true, pool, &n_out);
    double *ref = t_f64(n_out);
    if (c->n_axes <= 0 && c->noop) {
        for (int64_t i = 0; i < n_out; i++) {
            ref[i] = r_get(x, dt, i);
        }
    } else {
        reduce_naive(c, op, dt, x, ref, n_out);
    }
    char name[128];
    snprintf(name, sizeof name, "%s/%s", c->name, em_op_name(op));
    double rtol = dt == EMBER_DTYPE_F32 ? 2e-6 : 1e-12;
    r_check(name, y, dt, ref, n_out, 1e-7, rtol);
    assert_memory_equal(y, yc, (size_t)(n_out > 0 ? n_out : 1) * em_dtype_size(dt));
    test_free(x);
    test_free(y);
    test_free(yc);
    test_free(ref);
}

static void test_reduce_cases(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t ci = 0; ci < sizeof reduce_cases / sizeof reduce_cases[0]; ci++) {
        for (size_t oi = 0; oi < sizeof reduce_ops / sizeof reduce_ops[0]; oi++) {
            for (size_t di = 0; di < sizeof reduce_dtypes / sizeof reduce_dtypes[0]; di++) {
                if (op_takes(reduce_ops[oi], reduce_dtypes[di])) {
                    reduce_check(&reduce_cases[ci], reduce_ops[oi], reduce_dtypes[di], pool);
                }
            }
        }
    }
    em_threadpool_destroy(pool);
}

/* The identity values of empty reductions, written out (ONNX reference behaviour). */
static void test_reduce_empty_identities(void **state)
{
    (void)state;
    static const struct {
        em_op op;
        double f32, i32;
    } ids[] = {
        {EM_OP_REDUCESUM, 0.0, 0.0},
        {EM_OP_REDUCEPROD, 1.0, 1.0},
        {EM_OP_REDUCEMAX, -INFINITY, INT32_MIN},
        {EM_OP_REDUCEMIN, INFINITY, INT32_MAX},
        {EM_OP_REDUCEL1, 0.0, 0.0},
        {EM_OP_REDUCEL2, 0.0, 0.0},
        {EM_OP_REDUCELOGSUM, -INFINITY, INT32_MIN},
        {EM_OP_REDUCELOGSUMEXP, -INFINITY, INT32_MIN},
        {EM_OP_REDUCESUMSQUARE, 0.0, 0.0},
        {EM_OP_REDUCEMEAN, NAN, 0.0},
    };
    const reduce_case *c = &reduce_cases[7]; /* [2, 0, 3] over axis 1 */
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        int64_t n_out;
        double ref[6];
        float fx[1] = {0};
        int32_t ix[1] = {0};
        void *y = reduce_run(c, ids[i].op, EMBER_DTYPE_F32, fx, false, NULL, &n_out);
        assert_int_equal(n_out, 6);
        for (int k = 0; k < 6; k++) {
            ref[k] = ids[i].f32;
        }
        r_check(em_op_name(ids[i].op), y, EMBER_DTYPE_F32, ref, 6, 0, 0);
        test_free(y);
        y = reduce_run(c, ids[i].op, EMBER_DTYPE_I32, ix, false, NULL, &n_out);
        for (int k = 0; k < 6; k++) {
            ref[k] = ids[i].i32;
        }
        r_check(em_op_name(ids[i].op), y, EMBER_DTYPE_I32, ref, 6, 0, 0);
        test_free(y);
    }
}

/* Bool Max (any) and Min (all), including the empty set (false / true). */
static void test_reduce_bool(void **state)
{
    (void)state;
    static const uint8_t x[6] = {0, 1, 0, 0, 0, 0}; /* [2, 3]: rows {0,1,0}, {0,0,0} */
    static const struct {
        em_op op;
        const reduce_case c;
        double ref[3];
        int n;
    } cases[] = {
        {EM_OP_REDUCEMAX, {"bool_max", 2, {2, 3}, 1, {1}, 0, 0}, {1, 0}, 2},
        {EM_OP_REDUCEMIN, {"bool_min", 2, {2, 3}, 1, {0}, 1, 0}, {0, 0, 0}, 3},
        {EM_OP_REDUCEMAX, {"bool_max_empty", 2, {0, 3}, 1, {0}, 0, 0}, {0, 0, 0}, 3},
        {EM_OP_REDUCEMIN, {"bool_min_empty", 2, {0, 3}, 1, {0}, 0, 0}, {1, 1, 1}, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t n_out;
        void *y = reduce_run(&cases[i].c, cases[i].op, EMBER_DTYPE_BOOL, x, true, NULL, &n_out);
        assert_int_equal(n_out, cases[i].n);
        r_check(cases[i].c.name, y, EMBER_DTYPE_BOOL, cases[i].ref, n_out, 0, 0);
        test_free(y);
    }
}

/* Integer sums and products wrap; NaN propagates through Max/Min; LogSumExp of huge values. */
static void test_reduce_special_values(void **state)
{
    (void)state;
    const reduce_case all = {"all", 1, {3}, -1, {0}, 0, 0};
    int64_t n_out;
    int32_t xi[3] = {INT32_MAX, 1, 0};
    void *y = reduce_run(&all, EM_OP_REDUCESUM, EMBER_DTYPE_I32, xi, false, NULL, &n_out);
    assert_int_equal(*(int32_t *)y, INT32_MIN);
    test_free(y);
    int64_t xl[3] = {INT64_MAX, INT64_MAX, 3};
    y = reduce_run(&all, EM_OP_REDUCEPROD, EMBER_DTYPE_I64, xl, false, NULL, &n_out);
    assert_true(*(int64_t *)y == (int64_t)((uint64_t)INT64_MAX * (uint64_t)INT64_MAX * 3u));
    test_free(y);
    float xf[3] = {1.0f, NAN, 3.0f};
    static const em_op nan_ops[] = {EM_OP_REDUCEMAX, EM_OP_REDUCEMIN, EM_OP_REDUCESUM,
                                    EM_OP_REDUCELOGSUMEXP};
    for (size_t i = 0; i < sizeof nan_ops / sizeof nan_ops[0]; i++) {
        y = reduce_run(&all, nan_ops[i], EMBER_DTYPE_F32, xf, false, NULL, &n_out);
        assert_true(isnan(*(float *)y));
        test_free(y);
    }
    float big[3] = {1000.0f, 1000.0f, -INFINITY};
    y = reduce_run(&all, EM_OP_REDUCELOGSUMEXP, EMBER_DTYPE_F32, big, false, NULL, &n_out);
    assert_true(fabs(*(float *)y - (1000.0 + log(2.0))) < 1e-3);
    test_free(y);
    float inf[3] = {1.0f, INFINITY, 2.0f};
    y = reduce_run(&all, EM_OP_REDUCELOGSUMEXP, EMBER_DTYPE_F32, inf, false, NULL, &n_out);
    assert_true(isinf(*(float *)y) && *(float *)y > 0);
    test_free(y);
}

/* axes known only at run time and inconsistent with the planned output: zeros, no OOB read. */
static void test_reduce_runtime_axes_mismatch(void **state)
{
    (void)state;
    float x[6] = {1, 2, 3, 4, 5, 6}, y[3] = {7, 7, 7};
    int64_t axes[1] = {5};
    static const int64_t xd[2] = {2, 3}, ad[1] = {1}, yd[2] = {1, 3};
    em_tensor in[2], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, xd, x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, ad, axes);
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, yd, y);
    t_node tn;
    t_node_init(&tn, EM_OP_REDUCESUM, "runtime_axes");
    t_expect_ok(t_run_const(t_kernel(EM_OP_REDUCESUM, EMBER_DTYPE_UNDEFINED), &tn.n, in, 2, out, 1,
                            NULL, 0),
                "runtime_axes");
    for (int i = 0; i < 3; i++) {
        assert_true(y[i] == 0.0f);
    }
    axes[0] = 1; /* consistent with [1, 3]? no: axis 1 gives [2, 1] -> also zeros */
    y[0] = 7;
    t_expect_ok(t_run_const(t_kernel(EM_OP_REDUCESUM, EMBER_DTYPE_UNDEFINED), &tn.n, in, 2, out, 1,
                            NULL, 0),
                "runtime_axes");
    assert_true(y[0] == 0.0f);
    axes[0] = -2; /* axis 0 gives [1, 3]: computed */
    t_expect_ok(t_run_const(t_kernel(EM_OP_REDUCESUM, EMBER_DTYPE_UNDEFINED), &tn.n, in, 2, out, 1,
                            NULL, 0),
                "runtime_axes");
    assert_true(y[0] == 5.0f && y[1] == 7.0f && y[2] == 9.0f);
}

static void test_reduce_errors(void **state)
{
    (void)state;
    float buf[64] = {0};
    static const int64_t xd[3] = {2, 3, 4}, kd[3] = {2, 1, 4}, bad_od[3] = {2, 3, 1};
    static const struct {
        const char *name;
        em_op op;
        ember_dtype x_dt, axes_dt, y_dt;
        int n_axes;
        int64_t axes[2];
        const int64_t *yd;
        bool axes_attr;
        ember_code code;
    } bads[] = {
        {"r_axis_range",
         EM_OP_REDUCESUM,
         EMBER_DTYPE_F32,
         EMBER_DTYPE_I64,
         EMBER_DTYPE_F32,
         1,
         {3},
         kd,
         false,
         EMBER_ERR_INVALID_MODEL},
        {"r_axis_neg_range",
         EM_OP_REDUCEMAX,
         EMBER_DTYPE_F32,
         EMBER_DTYPE_I64,
         EMBER_DTYPE_F32,
         1,
         {-4},
         kd,
         false,
         EMBER_ERR_INVALID_MODEL},
        {"r_axis_repeat",
         EM_OP_REDUCEMEAN,
         EMBER_DTYPE_F32,
         EMBER_DTYPE_I64,
         EMBER_DTYPE_F32,
         2,
         {1, -2},
         kd,
         false,
         EMBER_ERR_INVALID_MODEL},
        {"r_axes_i32",
         EM_OP_REDUCESUM,
         EMBER_DTYPE_F32,
         EMBER_DTYPE_I32,
         EMBER_DTYPE_F32,
         1,
         {1},
         kd,
         false,
         EMBER_ERR_INVALID_MODEL},
        {"r_bad_out_shape",
         EM_OP_REDUCESUM,
         EMBER_DTYPE_F32,
         EMBER_DTYPE_I64,
         EMBER_DTYPE_F32,
         1,
         {1},
         bad_od,
         false,
         EMBER_ERR_INVALID_MODEL},
        {"r_bad_out_dtype",
         EM_OP_REDUCESUM,
         EMBER_DTYPE_F32,
         EMBER_DTYPE_I64,
         EMBER_DTYPE_F64,
         1,
         {1},
         kd,
         false,
         EMBER_ERR_INVALID_MODEL},
        {"r_bool_sum",
         EM_OP_REDUCESUM,
         EMBER_DTYPE_BOOL,
         EMBER_DTYPE_I64,
         EMBER_DTYPE_BOOL,
         1,
         {1},
         kd,
         false,
         EMBER_ERR_UNSUPPORTED},
        {"r_u16",
         EM_OP_REDUCEMAX,
         EMBER_DTYPE_U16,
         EMBER_DTYPE_I64,
         EMBER_DTYPE_U16,
         1,
         {1},
         kd,
         false,
         EMBER_ERR_UNSUPPORTED},
        {"r_axes_attr",
         EM_OP_REDUCESUM,
         EMBER_DTYPE_F32,
         EMBER_DTYPE_I64,
         EMBER_DTYPE_F32,
         1,
         {1},
         kd,
         true,
         EMBER_ERR_UNSUPPORTED},
    };
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        int64_t ad[1] = {bads[i].n_axes};
        em_tensor in[2], out[1];
        t_tensor(&in[0], bads[i].x_dt, 3, xd, buf);
        t_tensor(&in[1], bads[i].axes_dt, 1, ad, (void *)bads[i].axes);
        t_tensor(&out[0], bads[i].y_dt, 3, bads[i].yd, buf);
        t_node tn;
        t_node_init(&tn, bads[i].op, bads[i].name);
        if (bads[i].axes_attr) {
            t_set_ints(&tn, "axes", bads[i].axes, 1);
        }
        t_expect_error(t_run_const(t_kernel(bads[i].op, EMBER_DTYPE_UNDEFINED), &tn.n, in, 2, out,
                                   1, NULL, 0x2u),
                       bads[i].code, bads[i].name, bads[i].name);
    }
}

/* ---- ArgMax / ArgMin --------------------------------------------------------------------- */

typedef struct arg_case {
    const char *name;
    int rank;
    int64_t dims[4];
    bool set_axis;
    int64_t axis;
    int keepdims, last;
} arg_case;

/* clang-format off */
static const arg_case arg_cases[] = {
    {"default_axis", 3, {5, 3, 4}, false, 0, 1, 0},
    {"axis1_keep", 3, {3, 6, 4}, true, 1, 1, 0},
    {"axis_m1_drop", 3, {3, 4, 7}, true, -1, 0, 0},
    {"axis1_last", 3, {3, 9, 2}, true, 1, 1, 1},
    {"axis_m3_last_drop", 3, {6, 2, 3}, true, -3, 0, 1},
    {"rank1", 1, {11}, false, 0, 0, 0},
    {"len1_axis", 2, {4, 1}, true, 1, 1, 1},
    {"zero_outer", 2, {0, 5}, true, 1, 1, 0},
};
/* clang-format on */

static void arg_naive(const arg_case *c, bool is_max, ember_dtype dt, const void *x, double *ref)
{
    int ax = (int)(c->set_axis ? (c->axis < 0 ? c->axis + c->rank : c->axis) : 0);
    int64_t outer = t_numel(c->dims, ax), n = c->dims[ax];
    int64_t inner = t_numel(c->dims + ax + 1, c->rank - ax - 1);
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t in = 0; in < inner; in++) {
            int64_t best = -1;
            double bv = 0.0;
            for (int64_t i = 0; i < n; i++) {
                double v = r_get(x, dt, (o * n + i) * inner + in);
                bool better = best < 0 || (is_max ? v > bv : v < bv) || (c->last && v == bv);
                if (better) {
                    best = i;
                    bv = v;
                }
            }
            ref[o * inner + in] = (double)best;
        }
    }
}

static void test_arg_cases(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t ci = 0; ci < sizeof arg_cases / sizeof arg_cases[0]; ci++) {
        const arg_case *c = &arg_cases[ci];
        for (size_t di = 0; di < sizeof reduce_dtypes / sizeof reduce_dtypes[0]; di++) {
            for (int mx = 0; mx < 2; mx++) {
                ember_dtype dt = reduce_dtypes[di];
                em_op op = mx ? EM_OP_ARGMAX : EM_OP_ARGMIN;
                int ax = (int)(c->set_axis ? (c->axis < 0 ? c->axis + c->rank : c->axis) : 0);
                int64_t od[4], n_in = t_numel(c->dims, c->rank);
                int orank = 0;
                for (int d = 0; d < c->rank; d++) {
                    if (d != ax || c->keepdims) {
                        od[orank++] = d == ax ? 1 : c->dims[d];
                    }
                }
                int64_t n_out = t_numel(od, orank);
                /* Small integer ranges make ties common, so first/last index matters. */
                void *x = r_random(dt, n_in, (uint64_t)(n_in + ci * 7 + di), 0.0, 3.0);
                int64_t *y = test_calloc((size_t)(n_out > 0 ? n_out : 1), sizeof(int64_t));
                int64_t *yp = test_calloc((size_t)(n_out > 0 ? n_out : 1), sizeof(int64_t));
                double *ref = t_f64(n_out);
                em_tensor in[1], out[1];
                t_tensor(&in[0], dt, c->rank, c->dims, x);
                t_tensor(&out[0], EMBER_DTYPE_I64, orank, od, y);
                t_node tn;
                t_node_init(&tn, op, c->name);
                if (c->set_axis) {
                    t_set_int(&tn, "axis", c->axis);
                }
                t_set_int(&tn, "keepdims", c->keepdims);
                t_set_int(&tn, "select_last_index", c->last);
                const em_kernel *k = t_kernel(op, EMBER_DTYPE_UNDEFINED);
                t_expect_ok(t_run(k, &tn.n, in, 1, out, 1, NULL), c->name);
                out[0].data = yp;
                t_expect_ok(t_run(k, &tn.n, in, 1, out, 1, pool), c->name);
                arg_naive(c, mx != 0, dt, x, ref);
                r_check(c->name, y, EMBER_DTYPE_I64, ref, n_out, 0, 0);
                assert_memory_equal(y, yp, (size_t)(n_out > 0 ? n_out : 1) * sizeof(int64_t));
                test_free(x);
                test_free(y);
                test_free(yp);
                test_free(ref);
            }
        }
    }
    em_threadpool_destroy(pool);
}

/* NaN is the extreme for both ArgMax and ArgMin (numpy); the first one unless select_last. */
static void test_arg_nan(void **state)
{
    (void)state;
    float x[5] = {1.0f, NAN, 7.0f, NAN, -3.0f};
    static const int64_t xd[1] = {5};
    for (int last = 0; last < 2; last++) {
        for (int mx = 0; mx < 2; mx++) {
            int64_t y = -1;
            em_tensor in[1], out[1];
            t_tensor(&in[0], EMBER_DTYPE_F32, 1, xd, x);
            t_tensor(&out[0], EMBER_DTYPE_I64, 0, NULL, &y);
            t_node tn;
            em_op op = mx ? EM_OP_ARGMAX : EM_OP_ARGMIN;
            t_node_init(&tn, op, "arg_nan");
            t_set_int(&tn, "keepdims", 0);
            t_set_int(&tn, "select_last_index", last);
            t_expect_ok(t_run(t_kernel(op, EMBER_DTYPE_UNDEFINED), &tn.n, in, 1, out, 1, NULL),
                        "arg_nan");
            assert_int_equal(y, last ? 3 : 1);
        }
    }
}

static void test_arg_errors(void **state)
{
    (void)state;
    float buf[64] = {0};
    static const int64_t xd[3] = {2, 3, 4}, kd[3] = {2, 1, 4}, zd[3] = {2, 0, 4};
    static const struct {
        const char *name;
        ember_dtype x_dt, y_dt;
        const int64_t *x_dims, *y_dims;
        int64_t axis;
        ember_code code;
    } bads[] = {
        {"a_axis_range", EMBER_DTYPE_F32, EMBER_DTYPE_I64, xd, kd, 3, EMBER_ERR_INVALID_MODEL},
        {"a_axis_neg", EMBER_DTYPE_F32, EMBER_DTYPE_I64, xd, kd, -4, EMBER_ERR_INVALID_MODEL},
        {"a_out_i32", EMBER_DTYPE_F32, EMBER_DTYPE_I32, xd, kd, 1, EMBER_ERR_INVALID_MODEL},
        {"a_out_shape", EMBER_DTYPE_F32, EMBER_DTYPE_I64, xd, xd, 1, EMBER_ERR_INVALID_MODEL},
        {"a_empty_axis", EMBER_DTYPE_F32, EMBER_DTYPE_I64, zd, kd, 1, EMBER_ERR_INVALID_MODEL},
        {"a_bool", EMBER_DTYPE_BOOL, EMBER_DTYPE_I64, xd, kd, 1, EMBER_ERR_UNSUPPORTED},
    };
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        em_tensor in[1], out[1];
        t_tensor(&in[0], bads[i].x_dt, 3, bads[i].x_dims, buf);
        t_tensor(&out[0], bads[i].y_dt, 3, bads[i].y_dims, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_ARGMAX, bads[i].name);
        t_set_int(&tn, "axis", bads[i].axis);
        t_expect_error(
            t_run(t_kernel(EM_OP_ARGMAX, EMBER_DTYPE_UNDEFINED), &tn.n, in, 1, out, 1, NULL),
            bads[i].code, bads[i].name, bads[i].name);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduce_cases),
        cmocka_unit_test(test_reduce_empty_identities),
        cmocka_unit_test(test_reduce_bool),
        cmocka_unit_test(test_reduce_special_values),
        cmocka_unit_test(test_reduce_runtime_axes_mismatch),
        cmocka_unit_test(test_reduce_errors),
        cmocka_unit_test(test_arg_cases),
        cmocka_unit_test(test_arg_nan),
        cmocka_unit_test(test_arg_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
