/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CumSum-14, CumProd-26 and TopK-11, along one axis viewed as [outer, n, inner].
 *
 * CumSum-14 and CumProd-26 (one kernel): y[i] = sum / product of x[j] for j <= i (j < i when
 * exclusive; j >= i / j > i when reverse). CumSum: f32/f64 accumulate in double, i32/i64 wrap
 * (uint64). CumProd also takes f16 bf16 u32 u64; like numpy.cumprod in the input's dtype, the
 * running product of floats is rounded to the dtype after each step; integers wrap. The axis
 * is input 1 (a one-element i32/i64 tensor), read again in run since prepare sees it only when
 * constant; an axis out of range there (the planner validates constants) yields zeros rather
 * than undefined reads.
 *
 * TopK: the k largest (largest=1) or smallest elements of each line, in order, with their
 * int64 indices. Equal values keep the lower index first (the spec's tie rule), which a
 * stable merge sort of the line's indices gives; NaN sorts above every number. k is taken
 * from the planned output shape (prepare checks it against input K when K is constant);
 * `sorted` = 0 leaves the order unspecified, so the sorted order is returned for it too.
 * The sort needs 2 * n indices of scratch; lines are processed one after another.
 */
#include "ref.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- CumSum, CumProd ---------------------------------------------------------------------- */

typedef struct em_cumsum_attrs {
    ember_dtype dt;
    bool exclusive, reverse, prod, fl;
} em_cumsum_attrs;

ember_status *em_cumsum_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_cumsum_attrs a;
    int64_t exclusive, reverse, axis;
    const em_tensor *x = &ki->in[0], *ax = &ki->in[1];
    const bool prod = ki->node != NULL && ki->node->op == EM_OP_CUMPROD;
    const uint32_t dtypes =
        EM_NN_BIT(F32) | EM_NN_BIT(F64) | EM_NN_BIT(I32) | EM_NN_BIT(I64) |
        (prod ? EM_NN_BIT(F16) | EM_NN_BIT(BF16) | EM_NN_BIT(U32) | EM_NN_BIT(U64) : 0);
    int ai;

    memset(&a, 0, sizeof a);
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 2, 2, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (x)"));
    EMBER_TRY(em_nn_check_dtype(ki, x, dtypes, "input 0 (x)"));
    EMBER_TRY(em_ref_check_tensor(ki, ax, EMBER_DTYPE_UNDEFINED, "input 1 (axis)"));
    if ((ax->dtype != EMBER_DTYPE_I32 && ax->dtype != EMBER_DTYPE_I64) || ax->rank > 1 ||
        em_ref_prod(ax->dims, ax->rank) != 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "input 1 (axis) must be one int32 or int64 value");
    }
    if (ax->data != NULL && (!em_rd_scalar_int(ax, &axis) || !em_rd_axis(axis, x->rank, &ai))) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "axis is out of range for rank %d",
                            x->rank);
    }
    if (x->rank == 0) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input 0 (x) must have rank >= 1");
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0 (y)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], x->dims, x->rank, "output 0 (y)"));
    EMBER_TRY(em_ref_attr_int(ki, "exclusive", 0, &exclusive));
    EMBER_TRY(em_ref_attr_int(ki, "reverse", 0, &reverse));
    a.dt = x->dtype;
    a.exclusive = exclusive != 0;
    a.reverse = reverse != 0;
    a.prod = prod;
    a.fl = em_math_dom_of(a.dt) == EM_MATH_F;
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

/* Integer element i (i32 i64 u32 u64) as 64 bits, and the store that wraps to the width. */
static uint64_t scan_get_bits(ember_dtype dt, const void *p, int64_t i)
{
    switch (dt) {
    case EMBER_DTYPE_I32:
        return (uint64_t)(int64_t)((const int32_t *)p)[i];
    case EMBER_DTYPE_U32:
        return ((const uint32_t *)p)[i];
    default:
        return ((const uint64_t *)p)[i];
    }
}

static void scan_set_bits(ember_dtype dt, void *p, int64_t i, uint64_t v)
{
    if (dt == EMBER_DTYPE_I32 || dt == EMBER_DTYPE_U32) {
        ((uint32_t *)p)[i] = (uint32_t)v;
    } else {
        ((uint64_t *)p)[i] = v;
    }
}

void em_cumsum__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_cumsum_attrs *a = state;
    const em_tensor *x = &in[0];
    int64_t axis;
    int ax;
    (void)ctx;
    if (!em_rd_scalar_int(&in[1], &axis) || !em_rd_axis(axis, x->rank, &ax)) {
        size_t out_bytes = em_tensor_nbytes(&out[0]);
        if (out_bytes > 0) {
            memset(out[0].data, 0, out_bytes);
        }
        return;
    }
    const int64_t outer = em_ref_prod(x->dims, ax), n = x->dims[ax];
    const int64_t inner = em_ref_prod(x->dims + ax + 1, x->rank - ax - 1);
    for (int64_t item = 0; item < outer * inner; item++) {
        int64_t base = (item / inner) * n * inner + item % inner;
        double sf = a->prod ? 1.0 : 0.0;
        uint64_t si = a->prod ? 1 : 0;
        for (int64_t s = 0; s < n; s++) {
            int64_t off = base + (a->reverse ? n - 1 - s : s) * inner;
            if (a->fl) {
                double v = em_nn_get(a->dt, x->data, off);
                double r = a->prod ? em_math_round(a->dt, sf * v) : sf + v;
                em_nn_set(a->dt, out[0].data, off, a->exclusive ? sf : r);
                sf = r;
            } else {
                uint64_t v = scan_get_bits(a->dt, x->data, off), r = a->prod ? si * v : si + v;
                scan_set_bits(a->dt, out[0].data, off, a->exclusive ? si : r);
                si = r;
            }
        }
    }
}

/* ---- TopK -------------------------------------------------------------------------------- */

typedef struct em_topk_attrs {
    ember_dtype dt;
    bool largest;
    int64_t outer, n, inner, k;
} em_topk_attrs;

static bool topk_dtype_ok(ember_dtype dt)
{
    return em_rd_is_float(dt) || em_rd_is_int(dt) || dt == EMBER_DTYPE_U64;
}

/* Checks the two outputs against X's shape with dims[ax] = k (k from output 0). */
static ember_status *topk_check_outputs(const em_kinfo *ki, int ax, int64_t *k)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0];
    int64_t dims[EM_MAX_RANK];
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0 (Values)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[1], EMBER_DTYPE_I64, "output 1 (Indices)"));
    *k = ki->out[0].rank == x->rank ? ki->out[0].dims[ax] : -1;
    if (*k < 0 || *k > x->dims[ax]) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "output 0 (Values) does not hold k <= %lld entries on axis %d",
                            (long long)x->dims[ax], ax);
    }
    memcpy(dims, x->dims, sizeof dims);
    dims[ax] = *k;
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], dims, x->rank, "output 0 (Values)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[1], dims, x->rank, "output 1 (Indices)"));
    return NULL;
fail:
    return st;
}

ember_status *em_topk_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_topk_attrs a;
    int64_t axis, largest, sorted, kv;
    const em_tensor *x = &ki->in[0], *kt = &ki->in[1];
    int ax;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 2, 2, 2));
    if (ki->n_out != 2) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%d outputs, expected 2", ki->n_out);
    }
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (X)"));
    if (!topk_dtype_ok(x->dtype)) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "dtype %s is not supported",
                            em_dtype_name(x->dtype));
    }
    EMBER_TRY(em_ref_check_tensor(ki, kt, EMBER_DTYPE_I64, "input 1 (K)"));
    if (kt->rank > 1 || em_ref_prod(kt->dims, kt->rank) != 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input 1 (K) must hold one value");
    }
    EMBER_TRY(em_ref_attr_int(ki, "axis", -1, &axis));
    EMBER_TRY(em_ref_attr_int(ki, "largest", 1, &largest));
    EMBER_TRY(em_ref_attr_int(ki, "sorted", 1, &sorted));
    if (!em_rd_axis(axis, x->rank, &ax)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "axis %lld is out of range for rank %d",
                            (long long)axis, x->rank);
    }
    EMBER_TRY(topk_check_outputs(ki, ax, &a.k));
    if (kt->data != NULL && em_rd_scalar_int(kt, &kv) && kv != a.k) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "K = %lld but the outputs hold %lld",
                            (long long)kv, (long long)a.k);
    }
    a.dt = x->dtype;
    a.largest = largest != 0;
    a.outer = em_ref_prod(x->dims, ax);
    a.n = x->dims[ax];
    a.inner = em_ref_prod(x->dims + ax + 1, x->rank - ax - 1);
    *scratch_bytes = (size_t)(a.n > 0 ? a.n : 1) * 2 * sizeof(int64_t);
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

/* Three-way comparison of elements i and j; NaN is above every number and equal to NaN. */
static int cmp3(const void *x, ember_dtype dt, int64_t i, int64_t j)
{
    if (dt == EMBER_DTYPE_U64) {
        uint64_t a = ((const uint64_t *)x)[i], b = ((const uint64_t *)x)[j];
        return (a > b) - (a < b);
    }
    if (em_rd_is_float(dt)) {
        double a = em_rd_load_f(x, dt, i), b = em_rd_load_f(x, dt, j);
        if (isnan(a) || isnan(b)) {
            return isnan(a) - isnan(b);
        }
        return (a > b) - (a < b);
    }
    int64_t a = em_rd_load_i(x, dt, i), b = em_rd_load_i(x, dt, j);
    return (a > b) - (a < b);
}

typedef struct topk_line {
    const em_topk_attrs *a;
    const void *x;
    int64_t base; /* element offset of the line's first element */
} topk_line;

/* Does element p (a position on the line) come strictly before q in the output order? */
static bool topk_before(const topk_line *l, int64_t p, int64_t q)
{
    int c = cmp3(l->x, l->a->dt, l->base + p * l->a->inner, l->base + q * l->a->inner);
    return l->a->largest ? c > 0 : c < 0;
}

/* Stable bottom-up merge sort of idx[0..n) using tmp[0..n); the result ends in idx. */
static void topk_sort(const topk_line *l, int64_t *idx, int64_t *tmp, int64_t n)
{
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) {
                tmp[o++] = topk_before(l, idx[j], idx[i]) ? idx[j++] : idx[i++];
            }
            while (i < mid) {
                tmp[o++] = idx[i++];
            }
            while (j < hi) {
                tmp[o++] = idx[j++];
            }
        }
        memcpy(idx, tmp, sizeof(int64_t) * (size_t)n);
    }
}

void em_topk__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_topk_attrs *a = state;
    int64_t *idx = ctx->scratch, *tmp = idx + (a->n > 0 ? a->n : 1);
    size_t esz = em_dtype_size(a->dt);
    const char *x = in[0].data;
    char *vals = out[0].data;
    int64_t *inds = out[1].data;
    for (int64_t item = 0; item < a->outer * a->inner && a->k > 0; item++) {
        int64_t o = item / a->inner, r = item % a->inner;
        topk_line l = {a, x, o * a->n * a->inner + r};
        for (int64_t i = 0; i < a->n; i++) {
            idx[i] = i;
        }
        topk_sort(&l, idx, tmp, a->n);
        for (int64_t i = 0; i < a->k; i++) {
            int64_t dst = (o * a->k + i) * a->inner + r;
            memcpy(vals + (size_t)dst * esz, x + (size_t)(l.base + idx[i] * a->inner) * esz, esz);
            inds[dst] = idx[i];
        }
    }
}
