/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Graph building for the TorchScript lowering (ts_lower.h): nodes with their shapes inferred
 * as they are added (so later code sees known dims and ranks), constants, outer values captured
 * into subgraphs, and errors pointing at the serialized code.
 */
#include "ts_flow.h"
#include "ts_ops_elem.h"

#include "core/alloc.h"
#include "core/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

ember_status *em_ts_err(ts_lower *L, ember_code code, em_ts_pos pos, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (pos.src == NULL) {
        return em_status_new(code, "%s: %s", L->what, msg);
    }
    return em_ts_error_at(code, pos, "%s", msg);
}

const char *em_ts_value_name(ts_lower *L, const char *base)
{
    return em_ts_printf(L, "%s.%lld", base, (long long)++L->counter);
}

const em_value *em_ts_val(ts_lower *L, int v) { return &L->g->values[v]; }

ember_status *em_ts_infer(ts_lower *L, const ts_call *c, int node)
{
    ember_status *st = em_graph_infer_node(L->g, node);
    if (st != NULL && c != NULL && c->pos.src != NULL) {
        ember_status *e = em_ts_error_at(ember_status_code(st), c->pos, "%s: %s", c->op,
                                         ember_status_message(st));
        ember_status_destroy(st);
        return e;
    }
    return st;
}

ember_status *em_ts_emit(ts_lower *L, const ts_call *c, em_op op, const int *in, int n_in,
                      int *out, int n_out, int *node)
{
    const char *base = c != NULL && c->node != NULL ? c->node : em_op_name(op);
    /* Loop and If nodes have as many outputs as the variables they carry. */
    const char **names = em_ts_arena_alloc(&L->arena, (size_t)(n_out > 0 ? n_out : 1) *
                                                          sizeof(char *));
    if (names == NULL) {
        return em_status_oom();
    }
    for (int i = 0; i < n_out; i++) {
        names[i] = em_ts_value_name(L, base);
        if (names[i] == NULL) {
            return em_status_oom();
        }
    }
    int ni = -1;
    ember_status *st = em_graph_add_node(L->g, op, base, in, n_in, names, n_out, &ni);
    if (st != NULL) {
        return st;
    }
    for (int i = 0; i < n_out; i++) {
        out[i] = L->g->nodes[ni].out[i];
    }
    if (node != NULL) {
        *node = ni;
        return NULL; /* the caller sets attributes, then calls em_ts_infer */
    }
    return em_ts_infer(L, c, ni);
}

ember_status *em_ts_const(ts_lower *L, ember_dtype dt, int rank, const int64_t *dims,
                       const void *data, int *out)
{
    const char *name = em_ts_value_name(L, "const");
    if (name == NULL) {
        return em_status_oom();
    }
    /* Constants live in the current graph: subgraphs need not capture them. */
    return em_graph_add_initializer_copy(L->g, name, dt, rank, dims, data, out);
}

ember_status *em_ts_const_i64s(ts_lower *L, const int64_t *v, int64_t n, int *out)
{
    return em_ts_const(L, EMBER_DTYPE_I64, 1, &n, v, out);
}

ember_status *em_ts_const_scalar(ts_lower *L, ember_dtype dt, double v, int *out)
{
    unsigned char buf[16] = {0};
    switch (dt) {
    case EMBER_DTYPE_F32: {
        float f = (float)v;
        memcpy(buf, &f, sizeof f);
        break;
    }
    case EMBER_DTYPE_F64:
        memcpy(buf, &v, sizeof v);
        break;
    case EMBER_DTYPE_I64: {
        int64_t i = (int64_t)v;
        memcpy(buf, &i, sizeof i);
        break;
    }
    case EMBER_DTYPE_I32: {
        int32_t i = (int32_t)v;
        memcpy(buf, &i, sizeof i);
        break;
    }
    case EMBER_DTYPE_BOOL:
    case EMBER_DTYPE_U8:
        buf[0] = (unsigned char)(v != 0);
        if (dt == EMBER_DTYPE_U8) {
            buf[0] = (unsigned char)v;
        }
        break;
    default: {
        /* Other dtypes: make an f32 constant and cast it. */
        int f = -1;
        TS_TRY(em_ts_const_scalar(L, EMBER_DTYPE_F32, v, &f));
        return em_ts_cast(L, NULL, f, dt, out);
    }
    }
    return em_ts_const(L, dt, 0, NULL, buf, out);
}

/* Index of graph `g` among the frames (the current graph last); -1 when not found. */
static int frame_of(const ts_lower *L, const em_graph *g)
{
    if (g == L->g) {
        return L->n_frames;
    }
    for (int i = L->n_frames; i-- > 0;) {
        if (L->frames[i] == g) {
            return i;
        }
    }
    return -1;
}

ember_status *em_ts_add_input(ts_lower *L, const char *base, ember_dtype dt, int rank,
                           const int64_t *dims, const char *const *syms, int *out)
{
    const char *name = em_ts_value_name(L, base);
    if (name == NULL) {
        return em_status_oom();
    }
    return em_graph_add_input(L->g, name, dt, rank, dims, syms, out);
}

ember_status *em_ts_use(ts_lower *L, const ts_av *a, int *out)
{
    int f = frame_of(L, a->u.t.g);
    if (f < 0) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: a tensor computed inside an `if` or "
                             "loop on tensor data is used after it through a list, dict or "
                             "attribute (only variables carry values out of these)", L->what);
    }
    int v = a->u.t.v;
    const em_graph *src = a->u.t.g;
    /* Capture into each graph after frame f, down to the current one. */
    for (int i = f + 1; i <= L->n_frames; i++) {
        em_graph *g = i == L->n_frames ? L->g : L->frames[i];
        const em_value *sv = &src->values[v];
        int w = em_graph_find_value(g, sv->name);
        if (w < 0) {
            /* Symbolic dims by name: each graph numbers its own symbols. */
            int64_t dims[EM_MAX_RANK];
            const char *syms[EM_MAX_RANK];
            for (int d = 0; d < sv->rank; d++) {
                dims[d] = sv->dims[d].v;
                syms[d] = sv->dims[d].sym > 0 && sv->dims[d].sym <= src->n_syms
                              ? src->sym_names[sv->dims[d].sym - 1] : NULL;
            }
            ember_status *st = em_graph_add_input(g, sv->name, sv->dtype, sv->rank, dims, syms,
                                                  &w);
            if (st != NULL) {
                return st;
            }
        }
        v = w;
        src = g;
    }
    *out = v;
    return NULL;
}

static ember_dtype scalar_dtype(const ts_av *a)
{
    return a->k == TA_BOOL ? EMBER_DTYPE_BOOL
           : a->k == TA_INT ? EMBER_DTYPE_I64 : EMBER_DTYPE_F32;
}

ember_status *em_ts_as_tensor(ts_lower *L, const ts_call *c, const ts_av *a, ember_dtype like,
                           int *out)
{
    switch (a->k) {
    case TA_TENSOR:
    case TA_SCALAR: {
        TS_TRY(em_ts_use(L, a, out));
        if (like == EMBER_DTYPE_UNDEFINED || a->k == TA_TENSOR) {
            return NULL;
        }
        return em_ts_cast(L, c, *out, like, out);
    }
    case TA_BOOL:
    case TA_INT:
    case TA_FLOAT: {
        double v = a->k == TA_BOOL ? a->u.b : a->k == TA_INT ? (double)a->u.i : a->u.f;
        return em_ts_const_scalar(L, like != EMBER_DTYPE_UNDEFINED ? like : scalar_dtype(a), v, out);
    }
    default:
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c != NULL ? c->pos : (em_ts_pos){0},
                      "%s: expected a tensor or a number, got %s", c != NULL ? c->op : "value",
                      em_ts_kind_name(a->k));
    }
}

ember_status *em_ts_int_list_tensor(ts_lower *L, const ts_call *c, const ts_av *list, int *out)
{
    if (list->k == TA_TENSOR) {
        return em_ts_use(L, list, out);
    }
    if (list->k == TA_INT) { /* int[N] arguments may be given one int */
        return em_ts_const_i64s(L, &list->u.i, 1, out);
    }
    if (list->k != TA_LIST && list->k != TA_TUPLE) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: expected a list of ints, got %s",
                      c->op, em_ts_kind_name(list->k));
    }
    size_t n = list->u.seq.n;
    bool all_known = true;
    for (size_t i = 0; i < n; i++) {
        ts_ak k = list->u.seq.items[i]->k;
        if (k == TA_SCALAR) {
            all_known = false;
        } else if (k != TA_INT) {
            return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: item %zu of an int list is "
                          "%s", c->op, i, em_ts_kind_name(k));
        }
    }
    int64_t *vals = em_ts_arena_alloc(&L->arena, (n > 0 ? n : 1) * sizeof(int64_t));
    if (vals == NULL) {
        return em_status_oom();
    }
    for (size_t i = 0; i < n; i++) {
        vals[i] = list->u.seq.items[i]->k == TA_INT ? list->u.seq.items[i]->u.i : 0;
    }
    if (all_known) {
        return em_ts_const_i64s(L, vals, (int64_t)n, out);
    }
    /* Concat of [1]-shaped pieces: runs of known ints as constants, dynamic scalars
     * unsqueezed. */
    int *pieces = em_ts_arena_alloc(&L->arena, n * sizeof(int));
    if (pieces == NULL) {
        return em_status_oom();
    }
    int np = 0;
    for (size_t i = 0; i < n;) {
        ember_status *st;
        if (list->u.seq.items[i]->k == TA_INT) {
            size_t j = i;
            while (j < n && list->u.seq.items[j]->k == TA_INT) {
                j++;
            }
            st = em_ts_const_i64s(L, vals + i, (int64_t)(j - i), &pieces[np++]);
            i = j;
        } else {
            int s = -1, ax = -1, r = -1;
            int64_t zero = 0;
            st = em_ts_as_tensor(L, c, list->u.seq.items[i], EMBER_DTYPE_I64, &s);
            if (st == NULL) {
                st = em_ts_const_i64s(L, &zero, 1, &ax);
            }
            if (st == NULL) {
                int in[2] = {s, ax};
                st = em_ts_emit(L, c, EM_OP_UNSQUEEZE, in, 2, &r, 1, NULL);
            }
            pieces[np++] = r;
            i++;
        }
        if (st != NULL) {
            return st;
        }
    }
    if (np == 1) {
        *out = pieces[0];
        return NULL;
    }
    int node = -1;
    ember_status *st = em_ts_emit(L, c, EM_OP_CONCAT, pieces, np, out, 1, &node);
    if (st == NULL) {
        st = em_node_set_int(L->g, node, "axis", 0);
    }
    return st != NULL ? st : em_ts_infer(L, c, node);
}

/* ---- subgraphs ---- */

ember_status *em_ts_sub_enter(ts_lower *L, em_graph *sub)
{
    em_graph **f = em_ts_arena_alloc(&L->arena, (size_t)(L->n_frames + 1) * sizeof *f);
    if (f == NULL) {
        return em_status_oom();
    }
    if (L->n_frames > 0) {
        memcpy(f, L->frames, (size_t)L->n_frames * sizeof *f);
    }
    f[L->n_frames] = L->g;
    L->frames = f;
    L->n_frames++;
    L->g = sub;
    return NULL;
}

void em_ts_sub_leave(ts_lower *L) { L->g = L->frames[--L->n_frames]; }

ember_status *em_ts_sub_attach(ts_lower *L, int node, const char *name, em_graph **sub)
{
    em_attr *a = NULL;
    TS_TRY(em_node_add_attr(L->g, node, name, EM_ATTR_GRAPH, &a));
    a->g = *sub;
    *sub = NULL;
    return NULL;
}

ember_status *em_ts_add_output(ts_lower *L, const ts_call *c, int v)
{
    int o = -1;
    TS_TRY(em_ts_emit(L, c, EM_OP_IDENTITY, &v, 1, &o, 1, NULL));
    return em_graph_mark_output(L->g, o);
}
