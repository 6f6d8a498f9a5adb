/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reductions over axes (ONNX Reduce*-18: axes as the optional int64 input 1, keepdims,
 * noop_with_empty_axes) and ArgMax/ArgMin-13.
 *
 * Reduce: absent or empty axes reduce every axis, or copy the input when noop_with_empty_axes
 * is set. Axes are in [-r, r-1] and must not repeat. Each output element walks its reduced
 * sub-box by coordinate arithmetic, so any set of axes needs no transposition. Floats are
 * accumulated in double; integers wrap (sums, products in uint64, then narrowed) except L2,
 * LogSum and LogSumExp, which are computed in double and stored truncated and saturated.
 * Empty reductions give the identity of the op as the ONNX reference does: Sum/L1/L2/SumSquare
 * 0, Prod 1, Max -inf (the dtype minimum for integers, false for bool), Min +inf (maximum,
 * true), LogSum and LogSumExp -inf, Mean NaN (0 for integers).
 * NaN propagates through Max/Min (numpy maximum/minimum).
 *
 * The axes input may only be known when run starts (prepare sees data for constants only),
 * so run parses it again. The planner inferred the output shape from the same values; should
 * they ever disagree, run writes zeros instead of reading out of bounds.
 *
 * ArgMax/ArgMin: the first extreme index along `axis`, or the last with select_last_index;
 * NaN counts as the extreme (numpy argmax/argmin).
 */
#include "ref.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct em_reduce_attrs {
    em_op op;
    ember_dtype dt;
    bool keepdims, noop, has_axes;
} em_reduce_attrs;

/* The reduced-axes mask from the axes tensor (NULL: absent). *identity when the node is a
 * copy (empty axes with noop_with_empty_axes). Returns an error text or NULL. */
static const char *axes_mask(const em_tensor *axes, int rank, bool noop, unsigned *mask,
                             bool *identity)
{
    int64_t count = 0;
    *mask = 0;
    *identity = false;
    if (axes != NULL) {
        if (axes->dtype != EMBER_DTYPE_I64 || axes->rank != 1) {
            return "axes must be a 1-D int64 tensor";
        }
        count = axes->dims[0];
    }
    if (count == 0) {
        *identity = noop;
        *mask = noop ? 0u : (rank > 0 ? (1u << rank) - 1u : 0u);
        return NULL;
    }
    if (axes->data == NULL) {
        return "axes values unknown";
    }
    const int64_t *v = axes->data;
    for (int64_t i = 0; i < count; i++) {
        int a;
        if (!em_rd_axis(v[i], rank, &a)) {
            return "an axis is out of range";
        }
        if (*mask & (1u << a)) {
            return "an axis is repeated";
        }
        *mask |= 1u << a;
    }
    return NULL;
}

/* Output dims of reducing `mask` out of dims[0..rank); returns the output rank. */
static int reduced_dims(const int64_t *dims, int rank, unsigned mask, bool keepdims, int64_t *od)
{
    int r = 0;
    for (int d = 0; d < rank; d++) {
        if (!(mask & (1u << d))) {
            od[r++] = dims[d];
        } else if (keepdims) {
            od[r++] = 1;
        }
    }
    return r;
}

static bool reduce_dtype_ok(em_op op, ember_dtype dt)
{
    if (dt == EMBER_DTYPE_BOOL) {
        return op == EM_OP_REDUCEMAX || op == EM_OP_REDUCEMIN;
    }
    return em_rd_is_float(dt) || em_rd_is_int(dt);
}

ember_status *em_reduce_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_reduce_attrs a;
    int64_t keepdims, noop;
    const em_tensor *x = &ki->in[0];

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 2, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (data)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0 (reduced)"));
    if (!reduce_dtype_ok(ki->node->op, x->dtype)) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "dtype %s is not supported",
                            em_dtype_name(x->dtype));
    }
    if (em_node_attr(ki->node, "axes") != NULL) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED,
                            "attribute 'axes' (pre-opset-18 form); axes must be input 1");
    }
    EMBER_TRY(em_ref_attr_int(ki, "keepdims", 1, &keepdims));
    EMBER_TRY(em_ref_attr_int(ki, "noop_with_empty_axes", 0, &noop));
    a.op = ki->node->op;
    a.dt = x->dtype;
    a.keepdims = keepdims != 0;
    a.noop = noop != 0;
    a.has_axes = em_ref_has_input(ki, 1);
    const em_tensor *axes = a.has_axes ? &ki->in[1] : NULL;
    if (axes != NULL && (axes->dtype != EMBER_DTYPE_I64 || axes->rank != 1)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input 1 (axes) must be 1-D int64");
    }
    if (axes == NULL || axes->dims[0] == 0 || axes->data != NULL) {
        unsigned mask;
        bool identity;
        int64_t od[EM_MAX_RANK];
        const char *why = axes_mask(axes, x->rank, a.noop, &mask, &identity);
        if (why != NULL) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%s", why);
        }
        int orank = identity ? x->rank : reduced_dims(x->dims, x->rank, mask, a.keepdims, od);
        EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], identity ? x->dims : od, orank,
                                     "output 0 (reduced)"));
    }
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct reduce_job {
    const em_reduce_attrs *a;
    const void *x;
    void *y;
    em_rd_walk w;
    bool flat; /* f32 over trailing axes: element r of a group is x[base + r] */
} reduce_job;

/* Element r of the group at `base`, as a double. The flat case skips the coordinate walk and
 * the dtype switch (swin_v2's ReduceL2 over the head dim took 9x ORT's time); same values. */
static inline double reduce_at(const reduce_job *j, int64_t base, int64_t r)
{
    return j->flat ? (double)((const float *)j->x)[base + r]
                   : em_rd_load_f(j->x, j->a->dt, em_rd_walk_offset(&j->w, base, r));
}

/* The reduced axes are the innermost ones (strides 1, then the products of the dims). */
static bool reduce_trailing(const em_rd_walk *w)
{
    int64_t stride = 1;
    for (int d = w->n_red_axes - 1; d >= 0; d--) {
        if (w->red_stride[d] != stride) {
            return false;
        }
        stride *= w->red_dim[d];
    }
    return true;
}

static double reduce_float(const reduce_job *j, int64_t base)
{
    const em_op op = j->a->op;
    if (op == EM_OP_REDUCEMAX || op == EM_OP_REDUCEMIN || op == EM_OP_REDUCELOGSUMEXP) {
        bool mx = op != EM_OP_REDUCEMIN;
        double m = mx ? -INFINITY : INFINITY;
        for (int64_t r = 0; r < j->w.n_red; r++) {
            double v = reduce_at(j, base, r);
            if (isnan(v) || (mx ? v > m : v < m)) {
                m = isnan(m) ? m : v;
            }
        }
        if (op != EM_OP_REDUCELOGSUMEXP || !isfinite(m)) {
            return m; /* LogSumExp: +inf, NaN and an all -inf (or empty) set are their max */
        }
        double s = 0.0;
        for (int64_t r = 0; r < j->w.n_red; r++) {
            s += exp(reduce_at(j, base, r) - m);
        }
        return m + log(s);
    }
    double acc = op == EM_OP_REDUCEPROD ? 1.0 : 0.0;
    int64_t r0 = 0;
    if ((op == EM_OP_REDUCESUM || op == EM_OP_REDUCEMEAN) && j->flat) {
        const float *x = (const float *)j->x + base; /* the loop below without its switch */
        for (; r0 < j->w.n_red; r0++) {
            acc += x[r0];
        }
    }
    for (int64_t r = r0; r < j->w.n_red; r++) {
        double v = reduce_at(j, base, r);
        switch (op) {
        case EM_OP_REDUCEPROD:
            acc *= v;
            break;
        case EM_OP_REDUCEL1:
            acc += fabs(v);
            break;
        case EM_OP_REDUCEL2:
        case EM_OP_REDUCESUMSQUARE:
            acc += v * v;
            break;
        default: /* Sum, Mean, LogSum */
            acc += v;
            break;
        }
    }
    switch (op) {
    case EM_OP_REDUCEMEAN:
        return j->w.n_red > 0 ? acc / (double)j->w.n_red : NAN;
    case EM_OP_REDUCEL2:
        return sqrt(acc);
    case EM_OP_REDUCELOGSUM:
        return log(acc);
    default:
        return acc;
    }
}

static void int_limits(ember_dtype dt, int64_t *lo, int64_t *hi)
{
    switch (dt) {
    case EMBER_DTYPE_I8:
        *lo = INT8_MIN, *hi = INT8_MAX;
        return;
    case EMBER_DTYPE_U8:
        *lo = 0, *hi = UINT8_MAX;
        return;
    case EMBER_DTYPE_BOOL:
        *lo = 0, *hi = 1;
        return;
    case EMBER_DTYPE_I32:
        *lo = INT32_MIN, *hi = INT32_MAX;
        return;
    default:
        *lo = INT64_MIN, *hi = INT64_MAX;
        return;
    }
}

/* Two's-complement reinterpretation without implementation-defined conversions. */
static int64_t u64_to_i64(uint64_t u)
{
    return u <= INT64_MAX ? (int64_t)u : (int64_t)(u - ((uint64_t)1 << 63)) + INT64_MIN;
}

/* Integer Sum/Mean/Prod/L1/SumSquare/Max/Min; sums and products wrap in uint64. */
static int64_t reduce_int(const reduce_job *j, int64_t base)
{
    const em_op op = j->a->op;
    const ember_dtype dt = j->a->dt;
    if (op == EM_OP_REDUCEMAX || op == EM_OP_REDUCEMIN) {
        int64_t lo, hi;
        int_limits(dt, &lo, &hi);
        int64_t m = op == EM_OP_REDUCEMAX ? lo : hi;
        for (int64_t r = 0; r < j->w.n_red; r++) {
            int64_t v = em_rd_load_i(j->x, dt, em_rd_walk_offset(&j->w, base, r));
            m = op == EM_OP_REDUCEMAX ? (v > m ? v : m) : (v < m ? v : m);
        }
        return m;
    }
    uint64_t acc = op == EM_OP_REDUCEPROD ? 1u : 0u;
    for (int64_t r = 0; r < j->w.n_red; r++) {
        int64_t v = em_rd_load_i(j->x, dt, em_rd_walk_offset(&j->w, base, r));
        uint64_t u = (uint64_t)v;
        switch (op) {
        case EM_OP_REDUCEPROD:
            acc *= u;
            break;
        case EM_OP_REDUCEL1:
            acc += v < 0 ? 0u - u : u;
            break;
        case EM_OP_REDUCESUMSQUARE:
            acc += u * u;
            break;
        default: /* Sum, Mean */
            acc += u;
            break;
        }
    }
    if (op == EM_OP_REDUCEMEAN) {
        /* Truncating division of the (wrapped) sum, as integer Mean does in ONNX Runtime. */
        return j->w.n_red > 0 ? u64_to_i64(acc) / j->w.n_red : 0;
    }
    return u64_to_i64(acc);
}

static void reduce_task(void *arg, int64_t begin, int64_t end)
{
    const reduce_job *j = arg;
    const em_reduce_attrs *a = j->a;
    bool in_double = em_rd_is_float(a->dt) || a->op == EM_OP_REDUCEL2 ||
                     a->op == EM_OP_REDUCELOGSUM || a->op == EM_OP_REDUCELOGSUMEXP;
    for (int64_t o = begin; o < end; o++) {
        int64_t base = em_rd_walk_base(&j->w, o);
        if (in_double) {
            em_rd_store_f(j->y, a->dt, o, reduce_float(j, base));
        } else {
            em_rd_store_i(j->y, a->dt, o, reduce_int(j, base));
        }
    }
}

void em_reduce__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_reduce_attrs *a = state;
    const em_tensor *x = &in[0];
    size_t out_bytes = em_tensor_nbytes(&out[0]);
    unsigned mask;
    bool identity;
    int64_t od[EM_MAX_RANK];
    const char *why = axes_mask(a->has_axes ? &in[1] : NULL, x->rank, a->noop, &mask, &identity);
    int orank =
        why == NULL && !identity ? reduced_dims(x->dims, x->rank, mask, a->keepdims, od) : x->rank;
    if (why != NULL || orank != out[0].rank ||
        memcmp(identity ? x->dims : od, out[0].dims, sizeof(int64_t) * (size_t)orank) != 0) {
        if (out_bytes > 0) {
            memset(out[0].data, 0, out_bytes); /* inconsistent with the plan: see header */
        }
        return;
    }
    if (identity) {
        if (out_bytes > 0 && out[0].data != x->data) {
            memcpy(out[0].data, x->data, out_bytes);
        }
        return;
    }
    reduce_job j;
    j.a = a;
    j.x = x->data;
    j.y = out[0].data;
    em_rd_walk_init(&j.w, x->dims, x->rank, mask);
    j.flat = a->dt == EMBER_DTYPE_F32 && reduce_trailing(&j.w);
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, j.w.n_groups, 64, reduce_task, &j);
}

/* ---- ArgMax / ArgMin --------------------------------------------------------------------- */

typedef struct em_argreduce_attrs {
    bool is_max, last;
    ember_dtype dt;
    int64_t outer, n, inner;
} em_argreduce_attrs;

ember_status *em_argreduce_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_argreduce_attrs a;
    int64_t axis, keepdims, last, od[EM_MAX_RANK];
    const em_tensor *x = &ki->in[0];
    int ax;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (data)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], EMBER_DTYPE_I64, "output 0 (reduced)"));
    if (!em_rd_is_float(x->dtype) && !em_rd_is_int(x->dtype)) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "dtype %s is not supported",
                            em_dtype_name(x->dtype));
    }
    EMBER_TRY(em_ref_attr_int(ki, "axis", 0, &axis));
    EMBER_TRY(em_ref_attr_int(ki, "keepdims", 1, &keepdims));
    EMBER_TRY(em_ref_attr_int(ki, "select_last_index", 0, &last));
    if (!em_rd_axis(axis, x->rank, &ax)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "axis %lld is out of range for rank %d",
                            (long long)axis, x->rank);
    }
    int orank = reduced_dims(x->dims, x->rank, 1u << ax, keepdims != 0, od);
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], od, orank, "output 0 (reduced)"));
    a.is_max = ki->node->op == EM_OP_ARGMAX;
    a.last = last != 0;
    a.dt = x->dtype;
    a.outer = em_ref_prod(x->dims, ax);
    a.n = x->dims[ax];
    a.inner = em_ref_prod(x->dims + ax + 1, x->rank - ax - 1);
    if (a.n == 0 && a.outer * a.inner > 0) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "axis %d is empty: no index to return",
                            ax);
    }
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct arg_job {
    const em_argreduce_attrs *a;
    const void *x;
    int64_t *y;
} arg_job;

/* Does v replace the current best b? Ties replace only with select_last_index. */
static bool arg_better(const em_argreduce_attrs *a, double v, double b)
{
    if (isnan(v) || isnan(b)) {
        return isnan(v) && (!isnan(b) || a->last);
    }
    return a->is_max ? (v > b || (a->last && v == b)) : (v < b || (a->last && v == b));
}

static bool arg_better_i(const em_argreduce_attrs *a, int64_t v, int64_t b)
{
    return a->is_max ? (v > b || (a->last && v == b)) : (v < b || (a->last && v == b));
}

static void arg_task(void *arg, int64_t begin, int64_t end)
{
    const arg_job *j = arg;
    const em_argreduce_attrs *a = j->a;
    const int64_t n = a->n, inner = a->inner;
    bool fl = em_rd_is_float(a->dt);
    for (int64_t item = begin; item < end; item++) {
        int64_t base = (item / inner) * n * inner + item % inner;
        int64_t best = 0;
        for (int64_t i = 1; i < n; i++) {
            int64_t pi = base + i * inner, pb = base + best * inner;
            bool take =
                fl ? arg_better(a, em_rd_load_f(j->x, a->dt, pi), em_rd_load_f(j->x, a->dt, pb))
                   : arg_better_i(a, em_rd_load_i(j->x, a->dt, pi), em_rd_load_i(j->x, a->dt, pb));
            best = take ? i : best;
        }
        j->y[item] = best;
    }
}

void em_argreduce__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_argreduce_attrs *a = state;
    arg_job j = {a, in[0].data, out[0].data};
    if (a->n == 0) {
        return;
    }
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->outer * a->inner, 64, arg_task, &j);
}
