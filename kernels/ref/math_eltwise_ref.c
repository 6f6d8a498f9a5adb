/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Elementwise ops. Relu, Sigmoid, Tanh (f32, evaluated in double and rounded once) and Add,
 * Sub, Mul, Div (f32, f64, i32, i64) with numpy multidirectional broadcasting (ONNX
 * Broadcasting.md): shapes are right-aligned and each axis pair is equal or has a 1.
 *
 * Binary ops: prepare drops the size-1 output axes and merges neighbouring axes along which
 * each input is either fully present or fully broadcast, so "same shape" becomes one axis and
 * "matrix + row" two. run walks the output in order over [begin, end) chunks with one
 * strided inner loop per output row (stride 0 along broadcast axes).
 *
 * In-place: out[0] may be in[0] exactly. Then in[0] has the output's shape (same element
 * count, and broadcasting only ever adds elements), so element i of out is computed from
 * element i of in[0] only, read before it is written. No loop uses `restrict`.
 *
 * Integers follow two's-complement wraparound (computed in unsigned arithmetic, so no signed
 * overflow), Div truncates toward zero as C does, x / 0 is defined as 0 (ONNX leaves it
 * undefined; this never traps), and INT_MIN / -1 wraps to INT_MIN.
 */
#include "ref.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Elements per parallel chunk: elementwise work is cheap, so only split large tensors. */
#define EW_GRAIN ((int64_t)1 << 15)

/* ---- unary -------------------------------------------------------------------------------- */

typedef struct em_unary_attrs {
    int64_t numel;
} em_unary_attrs;

ember_status *em_unary_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_unary_attrs a;
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[0], EMBER_DTYPE_F32, "input 0 (X)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], EMBER_DTYPE_F32, "output 0 (Y)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], ki->in[0].dims, ki->in[0].rank, "output 0 (Y)"));
    a.numel = em_ref_prod(ki->in[0].dims, ki->in[0].rank);
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct unary_job {
    const float *x;
    float *y;
} unary_job;

/* NaN propagates (only x < 0 maps to 0); -0 stays -0. */
static float relu(float x)
{
    return x < 0.0f ? 0.0f : x;
}

/* 1 / (1 + e^-x), written so that exp never overflows. */
static float sigmoid(float x)
{
    double v = x;
    if (v >= 0.0) {
        return (float)(1.0 / (1.0 + exp(-v)));
    }
    double e = exp(v);
    return (float)(e / (1.0 + e));
}

static float tanh_f32(float x)
{
    return (float)tanh((double)x);
}

#define EM_REF_UNARY(op, fn)                                                                       \
    static void op##_task(void *arg, int64_t begin, int64_t end)                                   \
    {                                                                                              \
        const unary_job *j = arg;                                                                  \
        for (int64_t i = begin; i < end; i++) {                                                    \
            j->y[i] = fn(j->x[i]);                                                                 \
        }                                                                                          \
    }                                                                                              \
    void em_##op##_f32__ref(const void *state, const em_tensor *in, em_tensor *out,                \
                            const em_kctx *ctx)                                                    \
    {                                                                                              \
        const em_unary_attrs *a = state;                                                           \
        unary_job j = {in[0].data, out[0].data};                                                   \
        em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->numel, EW_GRAIN, op##_task, &j);        \
    }

EM_REF_UNARY(relu, relu)
EM_REF_UNARY(sigmoid, sigmoid)
EM_REF_UNARY(tanh, tanh_f32)

/* ---- binary: broadcasting plan ------------------------------------------------------------ */

typedef struct em_binary_attrs {
    int rank; /* >= 1 after merging */
    int64_t dims[EM_MAX_RANK];
    int64_t sa[EM_MAX_RANK]; /* element strides of A and B; 0 along broadcast axes */
    int64_t sb[EM_MAX_RANK];
    int64_t numel;
} em_binary_attrs;

/* Y's shape from A and B (right-aligned, each pair equal or one of them 1). The aligned dims
 * of A and B go to da and db. */
static ember_status *binary_broadcast(const em_kinfo *ki, int64_t *y_dims, int *y_rank, int64_t *da,
                                      int64_t *db)
{
    const em_tensor *ta = &ki->in[0], *tb = &ki->in[1];
    int r = ta->rank > tb->rank ? ta->rank : tb->rank;
    for (int d = 0; d < r; d++) {
        int ia = d - (r - ta->rank), ib = d - (r - tb->rank);
        da[d] = ia >= 0 ? ta->dims[ia] : 1;
        db[d] = ib >= 0 ? tb->dims[ib] : 1;
        if (da[d] != db[d] && da[d] != 1 && db[d] != 1) {
            char sa[160], sb[160];
            em_tensor_shape_str(ta, sa, sizeof sa);
            em_tensor_shape_str(tb, sb, sizeof sb);
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "shapes %s and %s do not broadcast",
                                sa, sb);
        }
        y_dims[d] = da[d] == 1 ? db[d] : da[d];
    }
    *y_rank = r;
    return NULL;
}

/* Drops size-1 axes of Y and merges runs of axes with the same broadcast pattern. */
static void binary_merge(const int64_t *y_dims, int y_rank, const int64_t *da, const int64_t *db,
                         em_binary_attrs *a)
{
    bool bca[EM_MAX_RANK], bcb[EM_MAX_RANK];
    int r = 0;
    for (int d = 0; d < y_rank; d++) {
        if (y_dims[d] == 1) {
            continue;
        }
        bool ba = da[d] == 1, bb = db[d] == 1;
        if (r > 0 && bca[r - 1] == ba && bcb[r - 1] == bb) {
            a->dims[r - 1] *= y_dims[d];
            continue;
        }
        a->dims[r] = y_dims[d];
        bca[r] = ba;
        bcb[r] = bb;
        r++;
    }
    if (r == 0) { /* a single element */
        a->dims[0] = 1;
        bca[0] = bcb[0] = true;
        r = 1;
    }
    a->rank = r;
    int64_t na = 1, nb = 1;
    for (int d = r - 1; d >= 0; d--) {
        a->sa[d] = bca[d] ? 0 : na;
        a->sb[d] = bcb[d] ? 0 : nb;
        na *= bca[d] ? 1 : a->dims[d];
        nb *= bcb[d] ? 1 : a->dims[d];
    }
}

ember_status *em_binary_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_binary_attrs a = {0};
    int64_t y_dims[EM_MAX_RANK], da[EM_MAX_RANK], db[EM_MAX_RANK];
    int y_rank = 0;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 2, 2, 1));
    ember_dtype dt = ki->in[0].dtype;
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[0], EMBER_DTYPE_UNDEFINED, "input 0 (A)"));
    if (dt != EMBER_DTYPE_F32 && dt != EMBER_DTYPE_F64 && dt != EMBER_DTYPE_I32 &&
        dt != EMBER_DTYPE_I64) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED,
                            "dtype %s (reference kernels handle f32, f64, i32, i64)",
                            em_dtype_name(dt));
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[1], dt, "input 1 (B)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], dt, "output 0 (C)"));
    EMBER_TRY(binary_broadcast(ki, y_dims, &y_rank, da, db));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], y_dims, y_rank, "output 0 (C)"));
    a.numel = em_ref_prod(y_dims, y_rank);
    binary_merge(y_dims, y_rank, da, db, &a);
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

/* ---- binary: run -------------------------------------------------------------------------- */

/* o[i] = a[i * sa] op b[i * sb] for i in [0, n), all pointers already offset (elements). */
typedef void (*binary_row_fn)(void *o, int64_t oi, const void *a, int64_t ai, int64_t sa,
                              const void *b, int64_t bi, int64_t sb, int64_t n);

typedef struct binary_job {
    const em_binary_attrs *a;
    binary_row_fn row;
    const void *pa, *pb;
    void *y;
} binary_job;

static void binary_task(void *arg, int64_t begin, int64_t end)
{
    const binary_job *j = arg;
    const em_binary_attrs *s = j->a;
    const int last = s->rank - 1;
    int64_t c[EM_MAX_RANK];
    int64_t rest = begin;
    for (int d = last; d >= 0; d--) {
        c[d] = rest % s->dims[d];
        rest /= s->dims[d];
    }
    int64_t i = begin;
    while (i < end) {
        int64_t ia = 0, ib = 0;
        for (int d = 0; d <= last; d++) {
            ia += c[d] * s->sa[d];
            ib += c[d] * s->sb[d];
        }
        int64_t n = s->dims[last] - c[last];
        if (n > end - i) {
            n = end - i;
        }
        j->row(j->y, i, j->pa, ia, s->sa[last], j->pb, ib, s->sb[last], n);
        i += n;
        c[last] += n - 1; /* the last element done; em_ref_coord_next carries from there */
        em_ref_coord_next(c, s->dims, s->rank);
    }
}

static void binary_run(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx,
                       binary_row_fn row)
{
    const em_binary_attrs *a = state;
    binary_job j = {a, row, in[0].data, in[1].data, out[0].data};
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->numel, EW_GRAIN, binary_task, &j);
}

/* Integer arithmetic in unsigned: wraps instead of overflowing (the conversion back to the
 * signed type is modular on every compiler ember supports). */
/* clang-format off */
#define EM_REF_INT_OPS(sig, T, U)                                                    \
    static T add_##sig(T x, T y) { return (T)((U)x + (U)y); }                        \
    static T sub_##sig(T x, T y) { return (T)((U)x - (U)y); }                        \
    static T mul_##sig(T x, T y) { return (T)((U)x * (U)y); }                        \
    static T div_##sig(T x, T y)                                                     \
    {                                                                                \
        if (y == 0) {                                                                \
            return 0; /* defined as 0: never trap on a zero divisor */               \
        }                                                                            \
        if (y == -1) {                                                               \
            return (T)((U)0 - (U)x); /* INT_MIN / -1 wraps to INT_MIN */             \
        }                                                                            \
        return (T)(x / y); /* C truncates toward zero */                             \
    }
EM_REF_INT_OPS(i32, int32_t, uint32_t)
EM_REF_INT_OPS(i64, int64_t, uint64_t)

#define EM_REF_FLOAT_OPS(sig, T)                        \
    static T add_##sig(T x, T y) { return x + y; }      \
    static T sub_##sig(T x, T y) { return x - y; }      \
    static T mul_##sig(T x, T y) { return x * y; }      \
    static T div_##sig(T x, T y) { return x / y; }
EM_REF_FLOAT_OPS(f32, float)
EM_REF_FLOAT_OPS(f64, double)
/* clang-format on */

#define EM_REF_BINARY(op, sig, T)                                                                  \
    static void op##_##sig##_row(void *o_, int64_t oi, const void *a_, int64_t ai, int64_t sa,     \
                                 const void *b_, int64_t bi, int64_t sb, int64_t n)                \
    {                                                                                              \
        T *o = (T *)o_ + oi;                                                                       \
        const T *a = (const T *)a_ + ai, *b = (const T *)b_ + bi;                                  \
        for (int64_t i = 0; i < n; i++) {                                                          \
            o[i] = op##_##sig(a[i * sa], b[i * sb]);                                               \
        }                                                                                          \
    }                                                                                              \
    void em_##op##_##sig##__ref(const void *state, const em_tensor *in, em_tensor *out,            \
                                const em_kctx *ctx)                                                \
    {                                                                                              \
        binary_run(state, in, out, ctx, op##_##sig##_row);                                         \
    }

#define EM_REF_BINARY_ALL(op)                                                                      \
    EM_REF_BINARY(op, f32, float)                                                                  \
    EM_REF_BINARY(op, f64, double)                                                                 \
    EM_REF_BINARY(op, i32, int32_t)                                                                \
    EM_REF_BINARY(op, i64, int64_t)

EM_REF_BINARY_ALL(add)
EM_REF_BINARY_ALL(sub)
EM_REF_BINARY_ALL(mul)
EM_REF_BINARY_ALL(div)
