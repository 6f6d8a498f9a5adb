/* SPDX-License-Identifier: Apache-2.0 */
/* The interpreter's sequence and optional ops, and the axis slicing / joining they and Scan use. */
#include "exec/interp_ops.h"

#include "core/alloc.h"
#include "core/status.h"
#include "core/strtensor.h"

#include <string.h>

/* ---- axis helpers ---- */

/* Elements before `axis` (outer) and bytes of one step along it (inner). */
static void axis_split(const em_tensor *t, int axis, int64_t *outer, size_t *inner)
{
    *outer = 1;
    *inner = em_dtype_size(t->dtype);
    for (int d = 0; d < axis; d++) {
        *outer *= t->dims[d];
    }
    for (int d = axis + 1; d < t->rank; d++) {
        *inner *= (size_t)t->dims[d];
    }
}

ember_status *em_rv_slice_axis(const ember_allocator *al, const em_rv *src, int axis,
                               int64_t start, int64_t len, bool keep_axis, em_rv *out)
{
    const em_tensor *t = &src->t;
    int64_t dims[EM_MAX_RANK];
    int rank = 0;
    for (int d = 0; d < t->rank; d++) {
        if (d == axis && !keep_axis) {
            continue;
        }
        dims[rank++] = d == axis ? len : t->dims[d];
    }
    ember_status *st = em_rv_new_tensor(al, t->dtype, dims, rank, out);
    if (st != NULL) {
        return st;
    }
    int64_t outer;
    size_t inner;
    axis_split(t, axis, &outer, &inner);
    const char *s = t->data;
    char *o = out->t.data;
    for (int64_t i = 0; i < outer && len > 0; i++) {
        memcpy(o + (size_t)i * (size_t)len * inner,
               s + ((size_t)i * (size_t)t->dims[axis] + (size_t)start) * inner,
               (size_t)len * inner);
    }
    return t->dtype == EMBER_DTYPE_STRING ? em_str_keep_bytes(out->s, src->s) : NULL;
}

ember_status *em_rv_concat(const ember_allocator *al, const em_rv *items, int n, int axis,
                           bool new_axis, const char *who, em_rv *out)
{
    if (n < 1) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "'%s': nothing to concatenate", who);
    }
    const em_tensor *t0 = &items[0].t;
    int rank = t0->rank + (new_axis ? 1 : 0);
    if (axis < 0 || axis >= rank || rank > EM_MAX_RANK) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "'%s': axis %d is out of range for rank %d",
                             who, axis, rank);
    }
    int64_t dims[EM_MAX_RANK], total = 0;
    for (int i = 0; i < n; i++) {
        const em_tensor *t = &items[i].t;
        bool ok = items[i].kind == EM_RV_TENSOR && t->dtype == t0->dtype && t->rank == t0->rank;
        for (int d = 0; ok && d < t->rank; d++) {
            ok = d == axis && !new_axis ? true : t->dims[d] == t0->dims[d];
        }
        if (!ok) {
            return em_status_new(EMBER_ERR_INVALID_ARG,
                                 "'%s': item %d does not match item 0 in dtype or shape", who, i);
        }
        total += new_axis ? 1 : t->dims[axis];
    }
    for (int d = 0, s = 0; d < rank; d++) {
        dims[d] = d == axis ? total : t0->dims[s];
        s += d == axis && new_axis ? 0 : 1;
    }
    ember_status *st = em_rv_new_tensor(al, t0->dtype, dims, rank, out);
    if (st != NULL) {
        return st;
    }
    int64_t outer;
    size_t inner;
    axis_split(&out->t, axis, &outer, &inner);
    char *o = out->t.data;
    size_t row = (size_t)total * inner, at = 0;
    for (int i = 0; i < n; i++) {
        size_t chunk = (new_axis ? 1 : (size_t)items[i].t.dims[axis]) * inner;
        const char *s = items[i].t.data;
        for (int64_t j = 0; j < outer && chunk > 0; j++) {
            memcpy(o + (size_t)j * row + at, s + (size_t)j * chunk, chunk);
        }
        at += chunk;
        if (t0->dtype == EMBER_DTYPE_STRING) {
            EMBER_TRY(em_str_keep_bytes(out->s, items[i].s));
        }
    }
    return NULL;
fail:
    return st;
}

/* ---- sequence ops ---- */

static ember_status *bad(const em_node *n, const char *what)
{
    return em_status_new(EMBER_ERR_INVALID_ARG, "node '%s' (%s): %s", n->name, em_op_name(n->op),
                         what);
}

/* A sequence of `cap` slots, n of them filled by sharing items. */
static ember_status *seq_new(const ember_allocator *al, ember_dtype elem, int cap, em_rv *out)
{
    memset(out, 0, sizeof *out);
    out->kind = EM_RV_SEQUENCE;
    out->elem = elem;
    if (cap > 0 && (out->items = em_calloc(al, (size_t)cap, sizeof *out->items)) == NULL) {
        return em_status_oom();
    }
    return NULL;
}

static ember_status *seq_push(const ember_allocator *al, em_rv *seq, const em_rv *item)
{
    ember_status *st = em_rv_share(al, item, &seq->items[seq->n]);
    seq->n++;
    return st;
}

/* Position input `pos` (absent: dflt) checked against [-n, n + extra). */
static ember_status *seq_pos(const em_node *n, const em_rv *pos, int len, int extra, int dflt,
                             int *out)
{
    int64_t p = dflt;
    if (pos != NULL && pos->kind == EM_RV_TENSOR && !em_rv_scalar_i64(pos, &p)) {
        return bad(n, "the position must be a one-element integer tensor");
    }
    if (p < -(int64_t)len || p >= (int64_t)len + extra) {
        return bad(n, "the position is out of range");
    }
    *out = (int)(p < 0 ? p + len : p);
    return NULL;
}

static ember_status *split_to_sequence(const ember_allocator *al, const em_node *n,
                                       const em_rv *x, const em_rv *split, em_rv *out)
{
    int64_t axis = em_node_attr_int(n, "axis", 0);
    bool keep = em_node_attr_int(n, "keepdims", 1) != 0;
    if (x->kind != EM_RV_TENSOR) {
        return bad(n, "input 0 must be a tensor");
    }
    axis = axis < 0 ? axis + x->t.rank : axis;
    if (axis < 0 || axis >= x->t.rank) {
        return bad(n, "axis is out of range");
    }
    int64_t len = x->t.dims[axis], n_parts = len, part = 1;
    const em_tensor *sp = split != NULL && split->kind == EM_RV_TENSOR ? &split->t : NULL;
    if (sp != NULL && sp->dtype != EMBER_DTYPE_I64 && sp->dtype != EMBER_DTYPE_I32) {
        return bad(n, "split must be an integer tensor");
    }
    if (sp != NULL && sp->rank == 0) {
        em_rv_scalar_i64(split, &part);
        if (part <= 0) {
            return bad(n, "split must be positive");
        }
        n_parts = (len + part - 1) / part;
        keep = true;
    } else if (sp != NULL) {
        n_parts = em_tensor_numel(sp);
        keep = true;
    }
    if (n_parts > (1 << 24)) {
        return bad(n, "too many parts");
    }
    ember_status *st = seq_new(al, x->t.dtype, (int)n_parts, out);
    for (int64_t i = 0, at = 0; i < n_parts && st == NULL; i++) {
        int64_t l = part;
        if (sp != NULL && sp->rank == 1) {
            l = sp->dtype == EMBER_DTYPE_I64 ? ((const int64_t *)sp->data)[i]
                                             : ((const int32_t *)sp->data)[i];
        } else if (at + l > len) {
            l = len - at;
        }
        if (l < 0 || at + l > len) {
            return bad(n, "split lengths do not add up to the axis length");
        }
        st = em_rv_slice_axis(al, x, (int)axis, at, l, keep, &out->items[i]);
        out->n = (int)i + 1;
        at += l;
        if (st == NULL && i == n_parts - 1 && at != len) {
            st = bad(n, "split lengths do not add up to the axis length");
        }
    }
    return st;
}

static ember_status *seq_op(const em_interp *it, const em_node *n, const em_rv *in, em_rv *out)
{
    const ember_allocator *al = it->al;
    const em_rv *s = n->n_in > 0 ? &in[0] : NULL;
    bool is_seq = s != NULL && s->kind == EM_RV_SEQUENCE;
    ember_status *st = NULL;
    int pos = 0;
    switch (n->op) {
    case EM_OP_SEQUENCEEMPTY:
        return seq_new(al, (ember_dtype)em_node_attr_int(n, "dtype", EMBER_DTYPE_F32), 0, out);
    case EM_OP_SEQUENCECONSTRUCT:
        st = seq_new(al, in[0].t.dtype, n->n_in, out);
        for (int i = 0; i < n->n_in && st == NULL; i++) {
            if (in[i].kind != EM_RV_TENSOR || in[i].t.dtype != in[0].t.dtype) {
                return bad(n, "every input must be a tensor of one dtype");
            }
            st = seq_push(al, out, &in[i]);
        }
        return st;
    case EM_OP_SEQUENCEINSERT:
        if (!is_seq || in[1].kind != EM_RV_TENSOR ||
            (s->n > 0 && in[1].t.dtype != s->items[0].t.dtype) ||
            (s->n == 0 && s->elem != EMBER_DTYPE_UNDEFINED && in[1].t.dtype != s->elem)) {
            return bad(n, "needs a sequence and a tensor of its dtype");
        }
        EMBER_TRY(seq_pos(n, n->n_in > 2 ? &in[2] : NULL, s->n, 1, s->n, &pos));
        st = seq_new(al, in[1].t.dtype, s->n + 1, out);
        for (int i = 0; i <= s->n && st == NULL; i++) {
            st = seq_push(al, out, i == pos ? &in[1] : &s->items[i < pos ? i : i - 1]);
        }
        return st;
    case EM_OP_SEQUENCEERASE:
        if (!is_seq) {
            return bad(n, "input 0 must be a sequence");
        }
        EMBER_TRY(seq_pos(n, n->n_in > 1 ? &in[1] : NULL, s->n, 0, s->n - 1, &pos));
        st = seq_new(al, s->elem, s->n, out);
        for (int i = 0; i < s->n && st == NULL; i++) {
            st = i == pos ? NULL : seq_push(al, out, &s->items[i]);
        }
        return st;
    case EM_OP_SEQUENCEAT:
        if (!is_seq) {
            return bad(n, "input 0 must be a sequence");
        }
        EMBER_TRY(seq_pos(n, &in[1], s->n, 0, 0, &pos));
        return em_rv_share(al, &s->items[pos], out);
    case EM_OP_SEQUENCELENGTH:
        if (!is_seq) {
            return bad(n, "input 0 must be a sequence");
        }
        EMBER_TRY(em_rv_new_tensor(al, EMBER_DTYPE_I64, NULL, 0, out));
        *(int64_t *)out->t.data = s->n;
        return NULL;
    case EM_OP_SPLITTOSEQUENCE:
        return split_to_sequence(al, n, &in[0], n->n_in > 1 ? &in[1] : NULL, out);
    case EM_OP_CONCATFROMSEQUENCE: {
        bool new_axis = em_node_attr_int(n, "new_axis", 0) != 0;
        int64_t axis = em_node_attr_int(n, "axis", 0);
        if (!is_seq || s->n == 0) {
            return bad(n, "input 0 must be a non-empty sequence");
        }
        int r = s->items[0].t.rank + (new_axis ? 1 : 0);
        axis = axis < 0 ? axis + r : axis;
        return em_rv_concat(al, s->items, s->n, (int)axis, new_axis, n->name, out);
    }
    case EM_OP_OPTIONAL:
        if (s != NULL && s->kind != EM_RV_ABSENT) {
            return em_rv_share(al, s, out);
        }
        out->kind = EM_RV_NONE;
        return NULL;
    case EM_OP_OPTIONALHASELEMENT:
        EMBER_TRY(em_rv_new_tensor(al, EMBER_DTYPE_BOOL, NULL, 0, out));
        *(uint8_t *)out->t.data = s != NULL && s->kind != EM_RV_ABSENT && s->kind != EM_RV_NONE;
        return NULL;
    case EM_OP_OPTIONALGETELEMENT:
        if (s->kind == EM_RV_NONE || s->kind == EM_RV_ABSENT) {
            return bad(n, "the optional input has no value");
        }
        return em_rv_share(al, s, out);
    default:
        return bad(n, "not a sequence op");
    }
fail:
    return st;
}

ember_status *em_interp_seq_op(const em_interp *it, const em_node *n, const em_rv *in,
                               em_rv *out)
{
    ember_status *st = seq_op(it, n, in, out);
    if (st != NULL) {
        em_rv_clear(it->al, out);
    }
    return st;
}
