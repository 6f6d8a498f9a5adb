/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers of the math-family kernel tests (test_ref_math_*.c): typed buffers of every dtype
 * (f16 / bf16 encoded and decoded here, independently of the kernels), random inputs, numpy
 * broadcasting by coordinates, and one runner that checks an op on a case against a naive
 * per-element oracle in double, serially, on a 2-thread pool and in place.
 */
#ifndef EMBER_TESTS_KERNELS_TEST_REF_MATH_UTIL_H
#define EMBER_TESTS_KERNELS_TEST_REF_MATH_UTIL_H

#include "test_ref_util.h"

#include <stdio.h>

/* ---- dtypes ------------------------------------------------------------------------------- */

static const ember_dtype tm_all_dtypes[] = {
    EMBER_DTYPE_F32, EMBER_DTYPE_F64, EMBER_DTYPE_F16, EMBER_DTYPE_BF16, EMBER_DTYPE_I8,
    EMBER_DTYPE_I16, EMBER_DTYPE_I32, EMBER_DTYPE_I64, EMBER_DTYPE_U8,   EMBER_DTYPE_U16,
    EMBER_DTYPE_U32, EMBER_DTYPE_U64, EMBER_DTYPE_BOOL};
#define TM_N_DTYPES ((int)(sizeof tm_all_dtypes / sizeof tm_all_dtypes[0]))
static const ember_dtype tm_floats[] = {EMBER_DTYPE_F32, EMBER_DTYPE_F64, EMBER_DTYPE_F16,
                                        EMBER_DTYPE_BF16};

static inline bool tm_is_float(ember_dtype dt)
{
    return dt == EMBER_DTYPE_F32 || dt == EMBER_DTYPE_F64 || dt == EMBER_DTYPE_F16 ||
           dt == EMBER_DTYPE_BF16;
}

static inline bool tm_is_unsigned(ember_dtype dt)
{
    return dt == EMBER_DTYPE_U8 || dt == EMBER_DTYPE_U16 || dt == EMBER_DTYPE_U32 ||
           dt == EMBER_DTYPE_U64 || dt == EMBER_DTYPE_BOOL;
}

/* Half from its fields: (-1)^s * 2^(e-15) * 1.m, subnormals 2^-14 * 0.m. */
static inline double tm_f16_dec(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0    ? m / 1024.0 * pow(2.0, -14)
               : e == 31 ? (m ? NAN : INFINITY)
                         : (1.0 + m / 1024.0) * pow(2.0, e - 15);
    return (h >> 15) ? -v : v;
}

static inline double tm_bf16_dec(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Test inputs only: a half near f (truncating; normal range and zero). */
static inline uint16_t tm_f16_enc_trunc(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint16_t s = (uint16_t)((u >> 16) & 0x8000);
    int e = (int)((u >> 23) & 255) - 127 + 15;
    if (e <= 0) {
        return s;
    }
    return (uint16_t)(s | (uint32_t)e << 10 | ((u >> 13) & 1023));
}

static inline uint16_t tm_bf16_enc_trunc(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (uint16_t)(u >> 16);
}

static inline void *tm_buf(ember_dtype dt, int64_t n)
{
    return test_calloc((size_t)(n > 0 ? n : 1), em_dtype_size(dt));
}

/* Stores v (already representable, or truncated for f16/bf16, integers in range). */
static inline void tm_set(ember_dtype dt, void *p, int64_t i, double v)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
        ((float *)p)[i] = (float)v;
        break;
    case EMBER_DTYPE_F64:
        ((double *)p)[i] = v;
        break;
    case EMBER_DTYPE_F16:
        ((uint16_t *)p)[i] = tm_f16_enc_trunc((float)v);
        break;
    case EMBER_DTYPE_BF16:
        ((uint16_t *)p)[i] = tm_bf16_enc_trunc((float)v);
        break;
    case EMBER_DTYPE_I8:
        ((int8_t *)p)[i] = (int8_t)v;
        break;
    case EMBER_DTYPE_I16:
        ((int16_t *)p)[i] = (int16_t)v;
        break;
    case EMBER_DTYPE_I32:
        ((int32_t *)p)[i] = (int32_t)v;
        break;
    case EMBER_DTYPE_I64:
        ((int64_t *)p)[i] = (int64_t)v;
        break;
    case EMBER_DTYPE_U8:
        ((uint8_t *)p)[i] = (uint8_t)v;
        break;
    case EMBER_DTYPE_U16:
        ((uint16_t *)p)[i] = (uint16_t)v;
        break;
    case EMBER_DTYPE_U32:
        ((uint32_t *)p)[i] = (uint32_t)v;
        break;
    case EMBER_DTYPE_U64:
        ((uint64_t *)p)[i] = (uint64_t)v;
        break;
    default:
        ((uint8_t *)p)[i] = v != 0.0;
        break;
    }
}

static inline double tm_get(ember_dtype dt, const void *p, int64_t i)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
        return ((const float *)p)[i];
    case EMBER_DTYPE_F64:
        return ((const double *)p)[i];
    case EMBER_DTYPE_F16:
        return tm_f16_dec(((const uint16_t *)p)[i]);
    case EMBER_DTYPE_BF16:
        return tm_bf16_dec(((const uint16_t *)p)[i]);
    case EMBER_DTYPE_I8:
        return ((const int8_t *)p)[i];
    case EMBER_DTYPE_I16:
        return ((const int16_t *)p)[i];
    case EMBER_DTYPE_I32:
        return ((const int32_t *)p)[i];
    case EMBER_DTYPE_I64:
        return (double)((const int64_t *)p)[i];
    case EMBER_DTYPE_U8:
        return ((const uint8_t *)p)[i];
    case EMBER_DTYPE_U16:
        return ((const uint16_t *)p)[i];
    case EMBER_DTYPE_U32:
        return ((const uint32_t *)p)[i];
    case EMBER_DTYPE_U64:
        return (double)((const uint64_t *)p)[i];
    default:
        return ((const uint8_t *)p)[i];
    }
}

/* Relative rounding error of storing a real into dt (0 for exact integer dtypes). */
static inline double tm_dtype_rtol(ember_dtype dt)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
        return 1e-6;
    case EMBER_DTYPE_F64:
        return 1e-12;
    case EMBER_DTYPE_F16:
        return 1e-3; /* half an ulp is 2^-11 */
    case EMBER_DTYPE_BF16:
        return 8e-3; /* 2^-8 */
    default:
        return 0.0;
    }
}

static inline double tm_dtype_atol(ember_dtype dt)
{
    return dt == EMBER_DTYPE_F16 ? 1e-7 : dt == EMBER_DTYPE_F32 ? 1e-40 : 0.0;
}

/* The reference kernel for (op, dt): the dtype's own entry, else the any-dtype one. The text
 * family's string rows of Cast, CastLike, Equal and Where (names ending in "_string__ref")
 * decline numeric nodes, so they are not the math engine's entry. */
static inline const em_kernel *tm_kernel(em_op op, ember_dtype dt)
{
    const em_kernel *any = NULL;
    for (size_t i = 0; i < em_ref_table.n; i++) {
        const em_kernel *k = &em_ref_table.kernels[i];
        size_t len = strlen(k->name);
        if (len > 12 && strcmp(k->name + len - 12, "_string__ref") == 0) {
            continue;
        }
        if (k->op == op && k->dtype == dt) {
            return k;
        }
        if (k->op == op && k->dtype == EMBER_DTYPE_UNDEFINED) {
            any = k;
        }
    }
    if (any == NULL && op == EM_OP_RELU) {
        /* Relu's integer dtypes have no registry entry yet (see kernels_math.def); the
         * engine handles them, so test it directly. */
        static const em_kernel relu_int = {"em_relu_int__ref",   EM_OP_RELU, EMBER_DTYPE_UNDEFINED,
                                           EM_DEV_CPU,           0,          0,
                                           em_math_prepare__ref, NULL,       em_math__ref};
        return &relu_int;
    }
    if (any == NULL) {
        fail_msg("no reference kernel for %s / %s", em_op_name(op), em_dtype_name(dt));
    }
    return any;
}

/* ---- cases -------------------------------------------------------------------------------- */

#define TM_MAX_IN 5

/* An op applied to inputs of the given dtypes and shapes; dtype UNDEFINED = absent input. */
typedef struct tm_case {
    const char *name;
    int n_in;
    ember_dtype dt[TM_MAX_IN];
    int rank[TM_MAX_IN];
    int64_t dims[TM_MAX_IN][4];
} tm_case;

/* Values of input i: uniform in [lo, hi), rounded to integers for integer dtypes. */
typedef struct tm_range {
    double lo, hi;
} tm_range;

/* The oracle: the expected output element from the input elements (x[i] of absent inputs
 * is NaN). For an integer or bool output it must return the exact value. */
typedef double (*tm_oracle)(const double *x, int n_in, const void *ctx);

static inline int tm_out_shape(const tm_case *c, int64_t *yd, bool first_only)
{
    int r = 0;
    for (int i = 0; i < c->n_in; i++) {
        if (c->dt[i] != EMBER_DTYPE_UNDEFINED && (!first_only || i == 0) && c->rank[i] > r) {
            r = c->rank[i];
        }
    }
    for (int d = 0; d < r; d++) {
        yd[d] = 1;
        for (int i = 0; i < c->n_in; i++) {
            if (c->dt[i] == EMBER_DTYPE_UNDEFINED || (first_only && i > 0)) {
                continue;
            }
            int id = d - (r - c->rank[i]);
            if (id >= 0 && c->dims[i][id] != 1) {
                yd[d] = c->dims[i][id];
            }
        }
    }
    return r;
}

/* Index into an input of output coordinate yc (numpy broadcasting; rank <= y_rank). */
static inline int64_t tm_bindex(const int64_t *dims, int rank, const int64_t *yc, int y_rank)
{
    int64_t idx = 0;
    for (int d = 0; d < rank; d++) {
        idx = idx * dims[d] + (dims[d] == 1 ? 0 : yc[d + (y_rank - rank)]);
    }
    return idx;
}

static inline void tm_fill(ember_dtype dt, void *p, int64_t n, uint64_t seed, tm_range r)
{
    test_rng g = {seed};
    for (int64_t i = 0; i < n; i++) {
        double v = r.lo + (r.hi - r.lo) * (double)(test_rng_next(&g) >> 11) * 0x1p-53;
        if (!tm_is_float(dt)) {
            v = floor(v);
            if (tm_is_unsigned(dt) && v < 0) {
                v = -v;
            }
        }
        tm_set(dt, p, i, v);
    }
}

typedef struct tm_opts {
    const tm_range *ranges; /* per input; NULL: [-4, 4) */
    double atol, rtol;      /* added to the output dtype's rounding */
    bool first_only;        /* inputs >= 1 do not shape the output (Clip, CastLike) */
} tm_opts;

/* Runs node `tn` (its op and attributes set) on case c with output dtype ydt: serially, on
 * `pool`, and in place (out = in[0]) when `inplace` and input 0 has the output's shape. */
static inline void tm_check(const t_node *tn, const tm_case *c, ember_dtype ydt, tm_oracle f,
                            const void *ctx, const tm_opts *o, bool inplace, em_threadpool *pool)
{
    int64_t yd[4], yc[4];
    int yr = tm_out_shape(c, yd, o->first_only);
    int64_t ny = t_numel(yd, yr);
    void *x[TM_MAX_IN] = {0};
    double xv[TM_MAX_IN];
    for (int i = 0; i < c->n_in; i++) {
        if (c->dt[i] != EMBER_DTYPE_UNDEFINED) {
            int64_t n = t_numel(c->dims[i], c->rank[i]);
            x[i] = tm_buf(c->dt[i], n);
            tm_range r = o->ranges != NULL ? o->ranges[i] : (tm_range){-4.0, 4.0};
            tm_fill(c->dt[i], x[i], n, 1000u * (uint64_t)i + (uint64_t)n + (uint64_t)ydt, r);
        }
    }
    double *ref = t_f64(ny);
    for (int64_t e = 0; e < ny; e++) {
        int64_t rest = e;
        for (int d = yr - 1; d >= 0; d--) {
            yc[d] = rest % yd[d];
            rest /= yd[d];
        }
        for (int i = 0; i < c->n_in; i++) {
            xv[i] = NAN;
            if (x[i] != NULL) {
                int64_t k =
                    (o->first_only && i > 0) ? 0 : tm_bindex(c->dims[i], c->rank[i], yc, yr);
                xv[i] = tm_get(c->dt[i], x[i], k);
            }
        }
        ref[e] = f(xv, c->n_in, ctx);
    }
    bool can_inplace =
        inplace && c->dt[0] == ydt && c->rank[0] == yr && t_numel(c->dims[0], c->rank[0]) == ny;
    for (int mode = 0; mode < (can_inplace ? 3 : 2); mode++) {
        char name[200];
        snprintf(name, sizeof name, "%s/%s/%s->%s/%s", em_op_name(tn->n.op), c->name,
                 em_dtype_name(c->dt[0]), em_dtype_name(ydt),
                 mode == 0   ? "serial"
                 : mode == 1 ? "threaded"
                             : "inplace");
        void *x0 = NULL, *y;
        if (mode == 2) { /* a fresh copy of input 0 becomes the output */
            size_t nb = (size_t)ny * em_dtype_size(ydt);
            x0 = tm_buf(ydt, ny);
            memcpy(x0, x[0], nb);
            y = x0;
        } else {
            y = tm_buf(ydt, ny);
        }
        em_tensor in[TM_MAX_IN], out[1];
        for (int i = 0; i < c->n_in; i++) {
            if (x[i] == NULL) {
                t_absent(&in[i]);
            } else {
                t_tensor(&in[i], c->dt[i], c->rank[i], c->dims[i], mode == 2 && i == 0 ? x0 : x[i]);
            }
        }
        t_tensor(&out[0], ydt, yr, yd, y);
        const em_kernel *k = tm_kernel(tn->n.op, c->dt[0]);
        t_expect_ok(t_run(k, &tn->n, in, c->n_in, out, 1, mode == 1 ? pool : NULL), name);
        double rtol = o->rtol + tm_dtype_rtol(ydt), atol = o->atol + tm_dtype_atol(ydt);
        for (int64_t e = 0; e < ny; e++) {
            double got = tm_get(ydt, y, e);
            if (!t_close(got, ref[e], atol, rtol)) {
                fail_msg("case %s: index %lld: got %.17g, expected %.17g", name, (long long)e, got,
                         ref[e]);
            }
        }
        test_free(y);
    }
    for (int i = 0; i < c->n_in; i++) {
        if (x[i] != NULL) {
            test_free(x[i]);
        }
    }
    test_free(ref);
}

/* A status from running the kernel of tn's op for in[0]'s dtype on the given tensors. */
static inline ember_status *tm_prepare(const t_node *tn, em_tensor *in, int n_in, em_tensor *out)
{
    return t_run(tm_kernel(tn->n.op, in[0].dtype), &tn->n, in, n_in, out, 1, NULL);
}

/* t_run for up to 16 inputs (variadic ops): prepare sees no data, then run, then release. */
static inline ember_status *tm_run_many(const em_kernel *k, const em_node *node, em_tensor *in,
                                        int n_in, em_tensor *out)
{
    em_tensor pin[16], pout[1];
    assert_true(n_in <= 16);
    for (int i = 0; i < n_in; i++) {
        pin[i] = in[i];
        pin[i].data = NULL;
    }
    pout[0] = out[0];
    pout[0].data = NULL;
    em_kinfo ki = {node, n_in, 1, pin, pout, test_allocator(), 0, 1, NULL};
    void *state = NULL;
    size_t scratch_bytes = 0;
    ember_status *st = k->prepare(&ki, &state, &scratch_bytes);
    if (st != NULL) {
        assert_null(state);
        return st;
    }
    assert_true(scratch_bytes == 0);
    em_kctx ctx = {NULL, NULL};
    k->run(state, in, out, &ctx);
    em_free(test_allocator(), state);
    return NULL;
}

#endif /* EMBER_TESTS_KERNELS_TEST_REF_MATH_UTIL_H */
