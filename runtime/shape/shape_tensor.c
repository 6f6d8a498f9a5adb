/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape functions of the tensor family (data movement and indexing), following the latest
 * ONNX operator specs (opset <= 21): Transpose, Concat, Unsqueeze/Squeeze (axes input),
 * Gather*, Scatter*, Slice (clamping rules of Slice-13), Shape (start/end), Expand
 * (bidirectional broadcast), ConstantOfShape, Split-18, Tile, Pad-18/21, Range, Size, OneHot,
 * DepthToSpace/SpaceToDepth, Trilu, ReverseSequence, EyeLike.
 * Inputs whose values decide the output shape (ops.def's value_inputs) arrive in in[i].value
 * when constant; when they are not, the affected dims (or the rank) come out unknown.
 */
#include "shape/shape.h"

#include "core/lowp.h"
#include "core/status.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define KNOWN(d) ((d).v >= 0)

static double ceil_div_f64(double a, double b)
{
    return ceil(a / b);
}

static bool present(const em_node *n, const em_shape *in, int i)
{
    return i < n->n_in && n->in[i] >= 0 && in[i].dtype != EMBER_DTYPE_UNDEFINED;
}

/* Reads a 0-D or 1-D i32/i64 constant into v[0..*count) (at most `max` entries). */
static ember_status *read_ints(const em_node *n, const em_tensor *t, const char *what, int64_t *v,
                               int max, int *count)
{
    if ((t->dtype != EMBER_DTYPE_I64 && t->dtype != EMBER_DTYPE_I32) || t->rank > 1) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): '%s' must be a 0-D or 1-D int32/int64 tensor",
                             n->name, em_op_name(n->op), what);
    }
    int64_t c = t->rank == 0 ? 1 : t->dims[0];
    if (c > max) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): '%s' has %lld entries, "
                             "at most %d allowed",
                             n->name, em_op_name(n->op), what, (long long)c, max);
    }
    for (int64_t i = 0; i < c; i++) {
        v[i] = t->dtype == EMBER_DTYPE_I64 ? ((const int64_t *)t->data)[i]
                                           : ((const int32_t *)t->data)[i];
    }
    *count = (int)c;
    return NULL;
}

/* Normalizes axis into [0, rank) (negative counts from the end). */
static ember_status *norm_axis(const em_node *n, int64_t axis, int rank, int *out)
{
    if (axis < -rank || axis >= rank) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): axis %lld is out of "
                             "range for rank %d",
                             n->name, em_op_name(n->op), (long long)axis, rank);
    }
    *out = (int)(axis < 0 ? axis + rank : axis);
    return NULL;
}

/* Normalizes a list of axes for `rank` into a mask, refusing repeats. */
static ember_status *axes_mask(const em_node *n, const int64_t *axes, int c, int rank,
                               unsigned *mask, int *norm)
{
    ember_status *st;
    *mask = 0;
    for (int i = 0; i < c; i++) {
        int a = 0;
        if ((st = norm_axis(n, axes[i], rank, &a)) != NULL) {
            return st;
        }
        if (*mask & (1u << a)) {
            return em_shape_bad(n, "an axis is repeated");
        }
        *mask |= 1u << a;
        if (norm != NULL) {
            norm[i] = a;
        }
    }
    return NULL;
}

static void set_unknown(em_shape *out, int rank)
{
    out->rank = rank;
    for (int i = 0; i < rank && i < EM_MAX_RANK; i++) {
        out->dims[i] = em_dim_unknown();
    }
}

/* out keeps in[0]'s dtype and shape (Trilu, ReverseSequence, ScatterElements, ScatterND). */
ember_status *em_shape_tensor_same(const em_node *n, const em_shape *in, em_shape *out)
{
    (void)n;
    *out = in[0];
    out->value = NULL;
    return NULL;
}

ember_status *em_shape_transpose(const em_node *n, const em_shape *in, em_shape *out)
{
    out->dtype = in[0].dtype;
    int r = in[0].rank;
    const int64_t *perm;
    int64_t c = em_node_attr_ints(n, "perm", &perm);
    if (r < 0) {
        set_unknown(out, c >= 0 && c <= EM_MAX_RANK ? (int)c : -1);
        return NULL;
    }
    if (c >= 0 && c != r) {
        return em_shape_bad(n, "'perm' does not have one entry per input axis");
    }
    unsigned seen = 0;
    out->rank = r;
    for (int i = 0; i < r; i++) {
        int64_t p = c >= 0 ? perm[i] : r - 1 - i;
        if (p < 0 || p >= r || (seen & (1u << p))) {
            return em_shape_bad(n, "'perm' is not a permutation of the input axes");
        }
        seen |= 1u << p;
        out->dims[i] = in[0].dims[p];
    }
    return NULL;
}

ember_status *em_shape_concat(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st;
    const em_attr *a = em_node_attr(n, "axis");
    if (a == NULL || a->type != EM_ATTR_INT) {
        return em_shape_bad(n, "attribute 'axis' is required");
    }
    out->dtype = in[0].dtype;
    int r = -1;
    for (int i = 0; i < n->n_in; i++) {
        if (in[i].dtype != in[0].dtype) {
            return em_shape_bad(n, "inputs have different dtypes");
        }
        if (in[i].rank >= 0 && r >= 0 && in[i].rank != r) {
            return em_shape_bad(n, "inputs have different ranks");
        }
        r = in[i].rank >= 0 ? in[i].rank : r;
    }
    if (r < 0) {
        return NULL;
    }
    int axis = 0;
    if ((st = norm_axis(n, a->i, r, &axis)) != NULL) {
        return st;
    }
    out->rank = r;
    int64_t sum = 0;
    bool all_ranked = true;
    for (int d = 0; d < r; d++) {
        out->dims[d] = em_dim_unknown();
    }
    for (int i = 0; i < n->n_in; i++) {
        if (in[i].rank < 0) {
            all_ranked = false;
            continue;
        }
        for (int d = 0; d < r; d++) {
            em_dim x = in[i].dims[d];
            if (d == axis) {
                if (KNOWN(x) && sum >= 0 && x.v > INT64_MAX - sum) {
                    return em_shape_bad(n, "the dims along 'axis' add up past 2^63 - 1");
                }
                sum = KNOWN(x) && sum >= 0 ? sum + x.v : -1;
                continue;
            }
            if (KNOWN(x) && KNOWN(out->dims[d]) && x.v != out->dims[d].v) {
                return em_shape_bad(n, "inputs differ in a dim other than 'axis'");
            }
            if (!KNOWN(out->dims[d]) && (KNOWN(x) || out->dims[d].sym == 0)) {
                out->dims[d] = x;
            }
        }
    }
    out->dims[axis] = all_ranked && sum >= 0 ? em_dim_known(sum) : em_dim_unknown();
    if (n->n_in == 1) {
        out->dims[axis] = in[0].dims[axis];
    }
    return NULL;
}

ember_status *em_shape_unsqueeze(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st;
    int64_t axes[EM_MAX_RANK];
    int c = 0;
    out->dtype = in[0].dtype;
    if (in[1].value == NULL) {
        int k = in[1].rank == 1 && KNOWN(in[1].dims[0]) ? (int)in[1].dims[0].v : -1;
        k = in[1].rank == 0 ? 1 : k;
        if (k >= 0 && in[0].rank >= 0 && in[0].rank + k > EM_MAX_RANK) {
            return em_shape_bad(n, "output rank too large");
        }
        set_unknown(out, k >= 0 && in[0].rank >= 0 ? in[0].rank + k : -1);
        return NULL;
    }
    if ((st = read_ints(n, in[1].value, "axes", axes, EM_MAX_RANK, &c)) != NULL) {
        return st;
    }
    if (in[0].rank < 0) {
        set_unknown(out, -1);
        return NULL;
    }
    int r = in[0].rank + c;
    if (r > EM_MAX_RANK) {
        return em_shape_bad(n, "output rank too large");
    }
    unsigned mask;
    if ((st = axes_mask(n, axes, c, r, &mask, NULL)) != NULL) {
        return st;
    }
    out->rank = r;
    for (int d = 0, s = 0; d < r; d++) {
        out->dims[d] = (mask & (1u << d)) ? em_dim_known(1) : in[0].dims[s++];
    }
    return NULL;
}

ember_status *em_shape_squeeze(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st;
    int64_t axes[EM_MAX_RANK];
    int c = 0, r = in[0].rank;
    unsigned mask = 0;
    out->dtype = in[0].dtype;
    bool has_axes = present(n, in, 1);
    if (r < 0 || (has_axes && in[1].value == NULL)) {
        set_unknown(out, -1);
        return NULL;
    }
    if (has_axes) {
        if ((st = read_ints(n, in[1].value, "axes", axes, EM_MAX_RANK, &c)) != NULL ||
            (st = axes_mask(n, axes, c, r, &mask, NULL)) != NULL) {
            return st;
        }
        for (int d = 0; d < r; d++) {
            if ((mask & (1u << d)) && KNOWN(in[0].dims[d]) && in[0].dims[d].v != 1) {
                return em_shape_bad(n, "a squeezed axis does not have size 1");
            }
        }
    } else {
        for (int d = 0; d < r; d++) {
            if (!KNOWN(in[0].dims[d])) {
                set_unknown(out, -1); /* cannot tell whether it is 1 */
                return NULL;
            }
            mask |= in[0].dims[d].v == 1 ? 1u << d : 0;
        }
    }
    out->rank = 0;
    for (int d = 0; d < r; d++) {
        if (!(mask & (1u << d))) {
            out->dims[out->rank++] = in[0].dims[d];
        }
    }
    return NULL;
}

ember_status *em_shape_gather(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st;
    out->dtype = in[0].dtype;
    if (in[1].dtype != EMBER_DTYPE_I32 && in[1].dtype != EMBER_DTYPE_I64) {
        return em_shape_bad(n, "indices must be int32 or int64");
    }
    if (in[0].rank < 0 || in[1].rank < 0) {
        return NULL;
    }
    int axis = 0, r = in[0].rank, q = in[1].rank;
    if (r < 1) {
        return em_shape_bad(n, "data must have rank >= 1");
    }
    if ((st = norm_axis(n, em_node_attr_int(n, "axis", 0), r, &axis)) != NULL) {
        return st;
    }
    if (r - 1 + q > EM_MAX_RANK) {
        return em_shape_bad(n, "output rank too large");
    }
    out->rank = 0;
    for (int d = 0; d < axis; d++) {
        out->dims[out->rank++] = in[0].dims[d];
    }
    for (int d = 0; d < q; d++) {
        out->dims[out->rank++] = in[1].dims[d];
    }
    for (int d = axis + 1; d < r; d++) {
        out->dims[out->rank++] = in[0].dims[d];
    }
    return NULL;
}

ember_status *em_shape_gatherelements(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st;
    out->dtype = in[0].dtype;
    if (in[1].dtype != EMBER_DTYPE_I32 && in[1].dtype != EMBER_DTYPE_I64) {
        return em_shape_bad(n, "indices must be int32 or int64");
    }
    out->rank = in[1].rank;
    memcpy(out->dims, in[1].dims, sizeof out->dims);
    if (in[0].rank >= 0 && in[1].rank >= 0) {
        int axis = 0;
        if (in[0].rank != in[1].rank || in[0].rank < 1) {
            return em_shape_bad(n, "data and indices must have the same rank >= 1");
        }
        if ((st = norm_axis(n, em_node_attr_int(n, "axis", 0), in[0].rank, &axis)) != NULL) {
            return st;
        }
    }
    return NULL;
}

ember_status *em_shape_gathernd(const em_node *n, const em_shape *in, em_shape *out)
{
    out->dtype = in[0].dtype;
    if (in[1].dtype != EMBER_DTYPE_I64) {
        return em_shape_bad(n, "indices must be int64");
    }
    int64_t b = em_node_attr_int(n, "batch_dims", 0);
    int r = in[0].rank, q = in[1].rank;
    if (r < 0 || q < 0) {
        return NULL;
    }
    if (q < 1 || r < 1 || b < 0 || b >= q || b >= r) {
        return em_shape_bad(n, "need rank(data) >= 1, rank(indices) >= 1 and batch_dims "
                               "below both");
    }
    em_dim kd = in[1].dims[q - 1];
    if (!KNOWN(kd)) {
        set_unknown(out, -1);
        return NULL;
    }
    int64_t k = kd.v;
    if (k < 1 || k > r - b) {
        return em_shape_bad(n, "indices' last dim must be in [1, rank(data) - batch_dims]");
    }
    for (int d = 0; d < b; d++) {
        if (KNOWN(in[0].dims[d]) && KNOWN(in[1].dims[d]) && in[0].dims[d].v != in[1].dims[d].v) {
            return em_shape_bad(n, "batch dims of data and indices differ");
        }
    }
    if (q - 1 + r - b - k > EM_MAX_RANK) {
        return em_shape_bad(n, "output rank too large");
    }
    out->rank = 0;
    for (int d = 0; d < q - 1; d++) {
        out->dims[out->rank++] = in[1].dims[d];
    }
    for (int d = (int)(b + k); d < r; d++) {
        out->dims[out->rank++] = in[0].dims[d];
    }
    return NULL;
}

/* Slice-13 clamping of one axis of size `dim`; returns the output size. */
static int64_t slice_len(int64_t dim, int64_t start, int64_t end, int64_t step)
{
    start = start < 0 ? start + dim : start;
    end = end < 0 ? end + dim : end;
    if (step > 0) {
        start = start < 0 ? 0 : (start > dim ? dim : start);
        end = end < 0 ? 0 : (end > dim ? dim : end);
        return end > start ? (end - start - 1) / step + 1 : 0;
    }
    start = start < 0 ? 0 : (start > dim - 1 ? dim - 1 : start);
    end = end < -1 ? -1 : (end > dim - 1 ? dim - 1 : end);
    /* step < 0: count of start, start+step, ... above end; step may be INT64_MIN. */
    return start > end ? (int64_t)(((uint64_t)(start - end) - 1) / (0 - (uint64_t)step)) + 1 : 0;
}

ember_status *em_shape_slice(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st;
    int64_t starts[EM_MAX_RANK], ends[EM_MAX_RANK], axes[EM_MAX_RANK], steps[EM_MAX_RANK];
    int cs, ce, ca, ct;
    int r = in[0].rank;
    out->dtype = in[0].dtype;
    if (r < 0) {
        return NULL;
    }
    bool has_axes = present(n, in, 3), has_steps = present(n, in, 4);
    if (in[1].value == NULL || in[2].value == NULL || (has_axes && in[3].value == NULL) ||
        (has_steps && in[4].value == NULL)) {
        set_unknown(out, r);
        return NULL;
    }
    if ((st = read_ints(n, in[1].value, "starts", starts, EM_MAX_RANK, &cs)) != NULL ||
        (st = read_ints(n, in[2].value, "ends", ends, EM_MAX_RANK, &ce)) != NULL) {
        return st;
    }
    ca = ct = cs;
    for (int i = 0; i < cs; i++) {
        axes[i] = i;
        steps[i] = 1;
    }
    if ((has_axes && (st = read_ints(n, in[3].value, "axes", axes, EM_MAX_RANK, &ca)) != NULL) ||
        (has_steps && (st = read_ints(n, in[4].value, "steps", steps, EM_MAX_RANK, &ct)) != NULL)) {
        return st;
    }
    if (ce != cs || ca != cs || ct != cs) {
        return em_shape_bad(n, "starts, ends, axes and steps differ in length");
    }
    int na[EM_MAX_RANK];
    unsigned mask;
    if ((st = axes_mask(n, axes, cs, r, &mask, na)) != NULL) {
        return st;
    }
    *out = in[0];
    out->value = NULL;
    for (int i = 0; i < cs; i++) {
        if (steps[i] == 0) {
            return em_shape_bad(n, "a step is 0");
        }
        em_dim d = in[0].dims[na[i]];
        out->dims[na[i]] = KNOWN(d) ? em_dim_known(slice_len(d.v, starts[i], ends[i], steps[i]))
                                    : em_dim_unknown();
    }
    return NULL;
}

ember_status *em_shape_shape(const em_node *n, const em_shape *in, em_shape *out)
{
    out->dtype = EMBER_DTYPE_I64;
    out->rank = 1;
    int r = in[0].rank;
    if (r < 0) {
        out->dims[0] = em_dim_unknown();
        return NULL;
    }
    int64_t s = em_node_attr_int(n, "start", 0), e = em_node_attr_int(n, "end", r);
    s = s < 0 ? s + r : s;
    e = e < 0 ? e + r : e;
    s = s < 0 ? 0 : (s > r ? r : s);
    e = e < 0 ? 0 : (e > r ? r : e);
    out->dims[0] = em_dim_known(e > s ? e - s : 0);
    return NULL;
}

ember_status *em_shape_size(const em_node *n, const em_shape *in, em_shape *out)
{
    (void)n;
    (void)in;
    out->dtype = EMBER_DTYPE_I64;
    out->rank = 0;
    return NULL;
}

/* The length (or unknown) of a 1-D value input whose values are not known. */
static int len_of(const em_shape *s)
{
    return s->rank == 1 && KNOWN(s->dims[0]) && s->dims[0].v <= EM_MAX_RANK ? (int)s->dims[0].v
                                                                            : -1;
}

ember_status *em_shape_expand(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st;
    int64_t v[EM_MAX_RANK];
    int c = 0;
    out->dtype = in[0].dtype;
    if (in[1].value == NULL) {
        int k = len_of(&in[1]);
        set_unknown(out, k >= 0 && in[0].rank >= 0 ? (in[0].rank > k ? in[0].rank : k) : -1);
        return NULL;
    }
    if ((st = read_ints(n, in[1].value, "shape", v, EM_MAX_RANK, &c)) != NULL) {
        return st;
    }
    if (in[1].value->dtype != EMBER_DTYPE_I64 || in[1].value->rank != 1) {
        return em_shape_bad(n, "'shape' must be a 1-D int64 tensor");
    }
    em_shape t;
    memset(&t, 0, sizeof t);
    t.rank = c;
    for (int i = 0; i < c; i++) {
        if (v[i] < 0) {
            return em_shape_bad(n, "'shape' has a negative entry");
        }
        t.dims[i] = em_dim_known(v[i]);
    }
    return em_shape_broadcast(n, &in[0], &t, out);
}

ember_status *em_shape_constantofshape(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st;
    int64_t v[EM_MAX_RANK];
    int c = 0;
    const em_attr *a = em_node_attr(n, "value");
    out->dtype = EMBER_DTYPE_F32;
    if (a != NULL) {
        if (a->type != EM_ATTR_TENSOR || !em_dtype_valid(a->t.dtype) || a->t.data == NULL ||
            em_tensor_numel(&a->t) != 1) {
            return em_shape_bad(n, "attribute 'value' must be a one-element tensor");
        }
        out->dtype = a->t.dtype;
    }
    if (in[0].dtype != EMBER_DTYPE_I64) {
        return em_shape_bad(n, "input must be int64");
    }
    if (in[0].value == NULL) {
        set_unknown(out, len_of(&in[0]));
        return NULL;
    }
    if (in[0].value->rank != 1) {
        return em_shape_bad(n, "input must be 1-D");
    }
    if ((st = read_ints(n, in[0].value, "input", v, EM_MAX_RANK, &c)) != NULL) {
        return st;
    }
    out->rank = c;
    for (int i = 0; i < c; i++) {
        if (v[i] < 0) {
            return em_shape_bad(n, "input has a negative entry");
        }
        out->dims[i] = em_dim_known(v[i]);
    }
    return NULL;
}

/* Sizes of Split's outputs along its axis (dim known), from the split input, num_outputs, or
 * equal parts. */
static ember_status *split_sizes(const em_node *n, const em_shape *in, int64_t dim, int64_t *sizes)
{
    int64_t nout = n->n_out;
    const em_attr *no = em_node_attr(n, "num_outputs");
    if (present(n, in, 1)) {
        const em_tensor *t = in[1].value;
        if (no != NULL) {
            return em_shape_bad(n, "both 'split' and 'num_outputs' are given");
        }
        if (t->dtype != EMBER_DTYPE_I64 || t->rank != 1 || t->dims[0] != nout) {
            return em_shape_bad(n, "'split' must be 1-D int64 with one entry per output");
        }
        int64_t sum = 0;
        for (int64_t i = 0; i < nout; i++) {
            sizes[i] = ((const int64_t *)t->data)[i];
            if (sizes[i] < 0 || sizes[i] > dim - sum) {
                return em_shape_bad(n, "'split' entries are negative or exceed the axis");
            }
            sum += sizes[i];
        }
        return sum == dim ? NULL : em_shape_bad(n, "'split' does not sum to the axis size");
    }
    if (no != NULL) {
        if (no->type != EM_ATTR_INT || no->i != nout) {
            return em_shape_bad(n, "'num_outputs' differs from the number of outputs");
        }
        int64_t chunk = (dim + nout - 1) / nout;
        for (int64_t i = 0; i < nout; i++) {
            int64_t left = dim - chunk * i;
            sizes[i] = left < 0 ? 0 : (left < chunk ? left : chunk);
        }
        /* ONNX requires every output to be non-empty except a shorter last one. */
        if (chunk * (nout - 1) >= dim && dim > 0) {
            return em_shape_bad(n, "'num_outputs' is too large for the axis");
        }
        return NULL;
    }
    if (dim % nout != 0) {
        return em_shape_bad(n, "the axis does not split into equal parts");
    }
    for (int64_t i = 0; i < nout; i++) {
        sizes[i] = dim / nout;
    }
    return NULL;
}

ember_status *em_shape_split(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st;
    int axis = 0;
    int r = in[0].rank;
    for (int o = 0; o < n->n_out; o++) {
        out[o].dtype = in[0].dtype;
    }
    if (r < 0) {
        return NULL;
    }
    if ((st = norm_axis(n, em_node_attr_int(n, "axis", 0), r, &axis)) != NULL) {
        return st;
    }
    int64_t sizes[64];
    bool known =
        KNOWN(in[0].dims[axis]) && n->n_out <= 64 && (!present(n, in, 1) || in[1].value != NULL);
    if (known && (st = split_sizes(n, in, in[0].dims[axis].v, sizes)) != NULL) {
        return st;
    }
    for (int o = 0; o < n->n_out; o++) {
        out[o] = in[0];
        out[o].value = NULL;
        out[o].dims[axis] = known ? em_dim_known(sizes[o]) : em_dim_unknown();
    }
    if (!known && n->n_out == 1) {
        out[0].dims[axis] = in[0].dims[axis];
    }
    return NULL;
}

ember_status *em_shape_tile(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st;
    int64_t v[EM_MAX_RANK];
    int c = 0, r = in[0].rank;
    out->dtype = in[0].dtype;
    if (in[1].value == NULL || r < 0) {
        set_unknown(out, r);
        return NULL;
    }
    if ((st = read_ints(n, in[1].value, "repeats", v, EM_MAX_RANK, &c)) != NULL) {
        return st;
    }
    if (in[1].value->dtype != EMBER_DTYPE_I64 || in[1].value->rank != 1 || c != r) {
        return em_shape_bad(n, "'repeats' must be 1-D int64 with one entry per input axis");
    }
    out->rank = r;
    for (int d = 0; d < r; d++) {
        em_dim x = in[0].dims[d];
        if (v[d] < 0) {
            return em_shape_bad(n, "'repeats' has a negative entry");
        }
        if (KNOWN(x) && x.v != 0 && v[d] > INT64_MAX / x.v) {
            return em_shape_bad(n, "output too large");
        }
        out->dims[d] = KNOWN(x) ? em_dim_known(x.v * v[d]) : (v[d] == 1 ? x : em_dim_unknown());
        if (v[d] == 0) {
            out->dims[d] = em_dim_known(0);
        }
    }
    return NULL;
}

ember_status *em_shape_pad(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st;
    int64_t pads[2 * EM_MAX_RANK], axes[EM_MAX_RANK];
    int cp, ca, r = in[0].rank;
    out->dtype = in[0].dtype;
    bool has_axes = present(n, in, 3);
    if (r < 0 || in[1].value == NULL || (has_axes && in[3].value == NULL)) {
        set_unknown(out, r);
        return NULL;
    }
    if (in[1].value->dtype != EMBER_DTYPE_I64) {
        return em_shape_bad(n, "'pads' must be int64");
    }
    if ((st = read_ints(n, in[1].value, "pads", pads, 2 * EM_MAX_RANK, &cp)) != NULL) {
        return st;
    }
    ca = r;
    for (int i = 0; i < r; i++) {
        axes[i] = i;
    }
    if (has_axes && (st = read_ints(n, in[3].value, "axes", axes, EM_MAX_RANK, &ca)) != NULL) {
        return st;
    }
    if (cp != 2 * ca) {
        return em_shape_bad(n, "'pads' must have two entries per padded axis");
    }
    int na[EM_MAX_RANK];
    unsigned mask;
    if ((st = axes_mask(n, axes, ca, r, &mask, na)) != NULL) {
        return st;
    }
    *out = in[0];
    out->value = NULL;
    for (int i = 0; i < ca; i++) {
        em_dim x = in[0].dims[na[i]];
        int64_t b = pads[i], e = pads[ca + i];
        if (b < -((int64_t)1 << 60) || b > ((int64_t)1 << 60) || e < -((int64_t)1 << 60) ||
            e > ((int64_t)1 << 60)) {
            return em_shape_bad(n, "'pads' entry out of range");
        }
        if (!KNOWN(x)) {
            out->dims[na[i]] = b == 0 && e == 0 ? x : em_dim_unknown();
            continue;
        }
        if (x.v + b + e < 0) {
            return em_shape_bad(n, "negative 'pads' remove more than the axis holds");
        }
        out->dims[na[i]] = em_dim_known(x.v + b + e);
    }
    return NULL;
}

/* Range's element count from scalar start/limit/delta: max(ceil((limit - start) / delta), 0). */
static ember_status *range_count(const em_node *n, const em_shape *in, int64_t *count)
{
    ember_dtype dt = in[0].dtype;
    const void *p[3] = {in[0].value->data, in[1].value->data, in[2].value->data};
    if (dt == EMBER_DTYPE_F32 || dt == EMBER_DTYPE_F64 || dt == EMBER_DTYPE_F16 ||
        dt == EMBER_DTYPE_BF16) {
        double v[3];
        for (int i = 0; i < 3; i++) {
            v[i] = dt == EMBER_DTYPE_F32   ? (double)*(const float *)p[i]
                   : dt == EMBER_DTYPE_F64 ? *(const double *)p[i]
                                           : em_lowp_to_double(dt, *(const uint16_t *)p[i]);
        }
        if (v[2] == 0 || v[2] != v[2]) {
            return em_shape_bad(n, "delta is 0 or NaN");
        }
        double c = ceil_div_f64(v[1] - v[0], v[2]);
        if (!(c <= 1e15)) {
            return em_shape_bad(n, "too many elements (or a non-finite bound)");
        }
        *count = c > 0 ? (int64_t)c : 0;
        return NULL;
    }
    int64_t v[3];
    for (int i = 0; i < 3; i++) {
        v[i] = dt == EMBER_DTYPE_I64   ? *(const int64_t *)p[i]
               : dt == EMBER_DTYPE_I32 ? *(const int32_t *)p[i]
                                       : *(const int16_t *)p[i];
    }
    if (v[2] == 0) {
        return em_shape_bad(n, "delta is 0");
    }
    /* Exact in unsigned arithmetic: |limit - start| fits uint64. */
    bool up = v[2] > 0;
    if ((up && v[1] <= v[0]) || (!up && v[1] >= v[0])) {
        *count = 0;
        return NULL;
    }
    uint64_t span = up ? (uint64_t)v[1] - (uint64_t)v[0] : (uint64_t)v[0] - (uint64_t)v[1];
    uint64_t step = up ? (uint64_t)v[2] : 0 - (uint64_t)v[2];
    uint64_t c = (span - 1) / step + 1;
    if (c > ((uint64_t)1 << 62)) {
        return em_shape_bad(n, "too many elements");
    }
    *count = (int64_t)c;
    return NULL;
}

ember_status *em_shape_range(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_dtype dt = in[0].dtype;
    out->dtype = dt;
    out->rank = 1;
    out->dims[0] = em_dim_unknown();
    if (in[1].dtype != dt || in[2].dtype != dt) {
        return em_shape_bad(n, "start, limit and delta have different dtypes");
    }
    if (dt != EMBER_DTYPE_F32 && dt != EMBER_DTYPE_F64 && dt != EMBER_DTYPE_I16 &&
        dt != EMBER_DTYPE_I32 && dt != EMBER_DTYPE_I64 && dt != EMBER_DTYPE_F16 &&
        dt != EMBER_DTYPE_BF16) {
        return em_shape_bad(n, "dtype must be f32, f64, f16, bf16, i16, i32 or i64");
    }
    for (int i = 0; i < 3; i++) {
        if (in[i].rank > 1 || (in[i].rank == 1 && KNOWN(in[i].dims[0]) && in[i].dims[0].v != 1)) {
            return em_shape_bad(n, "start, limit and delta must be scalars");
        }
    }
    if (in[0].value == NULL || in[1].value == NULL || in[2].value == NULL) {
        return NULL;
    }
    int64_t c = 0;
    ember_status *st = range_count(n, in, &c);
    if (st == NULL) {
        out->dims[0] = em_dim_known(c);
    }
    return st;
}

ember_status *em_shape_onehot(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st;
    int axis = 0, r = in[0].rank;
    out->dtype = in[2].dtype;
    if (in[2].rank >= 0 && (in[2].rank != 1 || (KNOWN(in[2].dims[0]) && in[2].dims[0].v != 2))) {
        return em_shape_bad(n, "'values' must be a 1-D tensor of 2 elements");
    }
    if (r < 0) {
        return NULL;
    }
    if (r + 1 > EM_MAX_RANK) {
        return em_shape_bad(n, "output rank too large");
    }
    if ((st = norm_axis(n, em_node_attr_int(n, "axis", -1), r + 1, &axis)) != NULL) {
        return st;
    }
    em_dim depth = em_dim_unknown();
    const em_tensor *dv = in[1].value;
    if (dv != NULL) {
        if (em_tensor_numel(dv) != 1) {
            return em_shape_bad(n, "'depth' must hold one value");
        }
        double v;
        switch (dv->dtype) {
        case EMBER_DTYPE_F32:
            v = *(const float *)dv->data;
            break;
        case EMBER_DTYPE_F64:
            v = *(const double *)dv->data;
            break;
        case EMBER_DTYPE_I32:
            v = *(const int32_t *)dv->data;
            break;
        case EMBER_DTYPE_I64:
            v = (double)*(const int64_t *)dv->data;
            break;
        default:
            return em_shape_bad(n, "'depth' must be f32, f64, i32 or i64");
        }
        if (!(v >= 1 && v < 1e15)) {
            return em_shape_bad(n, "'depth' must be >= 1");
        }
        depth = em_dim_known((int64_t)v);
    }
    out->rank = r + 1;
    for (int d = 0, s = 0; d <= r; d++) {
        out->dims[d] = d == axis ? depth : in[0].dims[s++];
    }
    return NULL;
}

/* DepthToSpace (to_space) and SpaceToDepth on NCHW. */
static ember_status *space_depth(const em_node *n, const em_shape *in, em_shape *out, bool to_space)
{
    out->dtype = in[0].dtype;
    if (in[0].rank < 0) {
        set_unknown(out, 4);
        return NULL;
    }
    if (in[0].rank != 4) {
        return em_shape_bad(n, "input must be 4-D (NCHW)");
    }
    int64_t b = em_node_attr_int(n, "blocksize", 0);
    if (b < 1 || b > ((int64_t)1 << 20)) {
        return em_shape_bad(n, "'blocksize' must be >= 1");
    }
    const em_dim *x = in[0].dims;
    out->rank = 4;
    out->dims[0] = x[0];
    if (to_space) {
        if (KNOWN(x[1]) && x[1].v % (b * b) != 0) {
            return em_shape_bad(n, "channels are not a multiple of blocksize^2");
        }
        out->dims[1] = KNOWN(x[1]) ? em_dim_known(x[1].v / (b * b)) : em_dim_unknown();
        for (int d = 2; d < 4; d++) {
            out->dims[d] = KNOWN(x[d]) ? em_dim_known(x[d].v * b) : em_dim_unknown();
        }
        return NULL;
    }
    out->dims[1] = KNOWN(x[1]) ? em_dim_known(x[1].v * b * b) : em_dim_unknown();
    for (int d = 2; d < 4; d++) {
        if (KNOWN(x[d]) && x[d].v % b != 0) {
            return em_shape_bad(n, "height or width is not a multiple of blocksize");
        }
        out->dims[d] = KNOWN(x[d]) ? em_dim_known(x[d].v / b) : em_dim_unknown();
    }
    return NULL;
}

ember_status *em_shape_depthtospace(const em_node *n, const em_shape *in, em_shape *out)
{
    return space_depth(n, in, out, true);
}

ember_status *em_shape_spacetodepth(const em_node *n, const em_shape *in, em_shape *out)
{
    return space_depth(n, in, out, false);
}

ember_status *em_shape_eyelike(const em_node *n, const em_shape *in, em_shape *out)
{
    if (in[0].rank >= 0 && in[0].rank != 2) {
        return em_shape_bad(n, "input must be 2-D");
    }
    const em_attr *a = em_node_attr(n, "dtype");
    *out = in[0];
    out->value = NULL;
    if (a != NULL) {
        if (a->type != EM_ATTR_INT || !em_dtype_valid((ember_dtype)a->i)) {
            return em_shape_bad(n, "attribute 'dtype' is not a supported dtype");
        }
        out->dtype = (ember_dtype)a->i;
    }
    return NULL;
}
