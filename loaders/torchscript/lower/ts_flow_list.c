/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lists of run-time length in the TorchScript lowering (ts_flow.h): a list a loop on tensor data
 * appends to is collected while the body is lowered (TA_APPENDING: one iteration's items, which
 * become the Loop's scan outputs) and is their stack after the loop (TA_STACK), which the code
 * after it may stack, concatenate, measure or index.
 */
#include "ts_flow.h"
#include "ts_ops.h"

#include "core/alloc.h"
#include "core/status.h"

#include <string.h>

/* Node op(in...) with one int attribute, shapes inferred. */
static ember_status *emit_attr(ts_lower *L, const ts_call *c, em_op op, const int *in, int n_in,
                               const char *attr, int64_t v, int *out)
{
    int node = -1;
    TS_TRY(em_ts_emit(L, c, op, in, n_in, out, 1, &node));
    if (attr != NULL) {
        TS_TRY(em_node_set_int(L->g, node, attr, v));
    }
    return em_ts_infer(L, c, node);
}

static ember_status *unsqueeze(ts_lower *L, const ts_call *c, int x, int64_t axis, int *out)
{
    int in[2] = {x, -1};
    TS_TRY(em_ts_const_i64s(L, &axis, 1, &in[1]));
    return em_ts_emit(L, c, EM_OP_UNSQUEEZE, in, 2, out, 1, NULL);
}

/* Dims [start, end) of x's shape as a 1-D tensor (end < 0: to the last). */
static ember_status *shape_part(ts_lower *L, const ts_call *c, int x, int64_t start,
                                int64_t end, int *out)
{
    int node = -1;
    TS_TRY(em_ts_emit(L, c, EM_OP_SHAPE, &x, 1, out, 1, &node));
    TS_TRY(em_node_set_int(L->g, node, "start", start));
    if (end >= 0) {
        TS_TRY(em_node_set_int(L->g, node, "end", end));
    }
    return em_ts_infer(L, c, node);
}

/* x with dims d and d+1 merged into one. */
static ember_status *merge_dims(ts_lower *L, const ts_call *c, int x, int d, int rank, int *out)
{
    int parts[3], np = 0, shape = -1;
    int64_t minus1 = -1;
    if (d > 0) {
        TS_TRY(shape_part(L, c, x, 0, d, &parts[np++]));
    }
    TS_TRY(em_ts_const_i64s(L, &minus1, 1, &parts[np++]));
    if (d + 2 < rank) {
        TS_TRY(shape_part(L, c, x, d + 2, -1, &parts[np++]));
    }
    TS_TRY(emit_attr(L, c, EM_OP_CONCAT, parts, np, "axis", 0, &shape));
    int in[2] = {x, shape};
    return em_ts_emit(L, c, EM_OP_RESHAPE, in, 2, out, 1, NULL);
}

/* x with axis 0 moved to position d. */
static ember_status *axis0_to(ts_lower *L, const ts_call *c, int x, int d, int rank, int *out)
{
    int64_t perm[EM_MAX_RANK];
    int node = -1;
    if (d == 0) {
        *out = x;
        return NULL;
    }
    for (int j = 0; j < rank; j++) {
        perm[j] = j < d ? j + 1 : j == d ? 0 : j;
    }
    TS_TRY(em_ts_emit(L, c, EM_OP_TRANSPOSE, &x, 1, out, 1, &node));
    TS_TRY(em_node_set_ints(L->g, node, "perm", perm, rank));
    return em_ts_infer(L, c, node);
}

static ember_status *stack_dim(ts_lower *L, ts_av **args, size_t n, const char **kwn,
                               ts_av **kwv, size_t nk, em_ts_pos pos, int64_t *dim)
{
    const ts_av *d = n >= 2 ? args[1] : NULL;
    for (size_t k = 0; k < nk; k++) {
        d = strcmp(kwn[k], "dim") == 0 ? kwv[k] : d;
    }
    *dim = d != NULL && d->k == TA_INT ? d->u.i : 0;
    if (d != NULL && d->k != TA_INT) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, pos, "the dim of a stack or cat must be a known "
                      "int");
    }
    return NULL;
}

/* torch.stack / torch.cat / len / [i] of list x (a stack of rank `rank`: items of rank - 1). */
static ember_status *stack_op(ts_lower *L, const ts_call *c, int x, int rank, ts_av **args,
                              size_t n, const char **kwn, ts_av **kwv, size_t nk, bool *done,
                              ts_av **out)
{
    const char *q = c->op;
    int64_t d = 0;
    int y = -1;
    *done = true;
    if (strcmp(q, "torch.stack") == 0 || strcmp(q, "torch.cat") == 0 ||
        strcmp(q, "torch.concat") == 0) {
        bool stack = q[6] == 's';
        int r = stack ? rank : rank - 1; /* dims of the result, for a negative dim */
        TS_TRY(stack_dim(L, args, n, kwn, kwv, nk, c->pos, &d));
        d = d < 0 ? d + r : d;
        if (d < 0 || d >= r) {
            return em_ts_err(L, EMBER_ERR_INVALID_ARG, c->pos, "%s: dim out of range", q);
        }
        TS_TRY(axis0_to(L, c, x, (int)d, rank, &y));
        if (!stack) { /* [.., N, item_d, ..] -> [.., N * item_d, ..] */
            TS_TRY(merge_dims(L, c, y, (int)d, rank, &y));
        }
        return em_ts_ret_tensor(L, y, out);
    }
    if ((strcmp(q, "len") == 0 || strcmp(q, "torch.len") == 0) && n == 1) {
        int s = -1, shape = -1;
        TS_TRY(shape_part(L, c, x, 0, 1, &s));
        TS_TRY(em_ts_const(L, EMBER_DTYPE_I64, 1, (int64_t[]){0}, NULL, &shape));
        int in[2] = {s, shape};
        TS_TRY(em_ts_emit(L, c, EM_OP_RESHAPE, in, 2, &y, 1, NULL));
        TS_TRY(em_ts_ret_tensor(L, y, out));
        (*out)->k = TA_SCALAR;
        return NULL;
    }
    if (strcmp(q, "torch.__getitem__") == 0 && n == 2 &&
        (args[1]->k == TA_INT || args[1]->k == TA_SCALAR)) {
        int in[2] = {x, -1};
        TS_TRY(em_ts_as_tensor(L, c, args[1], EMBER_DTYPE_I64, &in[1]));
        TS_TRY(emit_attr(L, c, EM_OP_GATHER, in, 2, "axis", 0, &y));
        return em_ts_ret_tensor(L, y, out);
    }
    *done = false;
    return NULL;
}

ember_status *em_ts_flow_builtin(ts_lower *L, const char *q, ts_av **args, size_t n,
                              const char **kwn, ts_av **kwv, size_t nk, em_ts_pos pos,
                              bool *handled, ts_av **out)
{
    bool stacked = false, appending = false;
    for (size_t i = 0; i < n + nk; i++) {
        const ts_av *a = i < n ? args[i] : kwv[i - n];
        stacked = stacked || a->k == TA_STACK;
        appending = appending || a->k == TA_APPENDING;
    }
    *handled = stacked || appending;
    if (appending) {
        if (strcmp(q, "torch.append") == 0 && n == 2 && nk == 0 &&
            args[0]->k == TA_APPENDING) {
            /* One iteration's item: a scan output of the loop. */
            TS_TRY(em_ts_list_append(L, args[0], args[1]));
            *out = args[0];
            return NULL;
        }
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, pos, "%s of a list that the enclosing loop on "
                      "tensor data appends to: inside that loop the list can only be appended "
                      "to (read it after the loop)", q);
    }
    if (!stacked) {
        return NULL;
    }
    if (n >= 1 && args[0]->k == TA_STACK) {
        ts_call c = {.op = q, .pos = pos, .node = "list"};
        int x = -1;
        bool done = false;
        TS_TRY(em_ts_use(L, args[0], &x));
        int rank = em_ts_val(L, x)->rank;
        if (rank < 1) {
            return em_ts_err(L, EMBER_ERR_UNSUPPORTED, pos, "%s of a list of tensors of unknown "
                          "rank", q);
        }
        TS_TRY(stack_op(L, &c, x, rank, args, n, kwn, kwv, nk, &done, out));
        if (done) {
            return NULL;
        }
    }
    return em_ts_err(L, EMBER_ERR_UNSUPPORTED, pos, "%s of a list whose length is known only at run "
                  "time (appended to in a loop on tensor data): such a list can only be stacked "
                  "(torch.stack), concatenated (torch.cat), measured (len) or indexed", q);
}

ember_status *em_ts_flow_stack_list(ts_lower *L, const ts_call *c, ts_av *list, const int *scan,
                                 size_t k)
{
    int s = scan[0];
    if (k > 1) { /* [N, ...] k times -> [N, k, ...] -> [N * k, ...] */
        int *parts = em_ts_arena_alloc(&L->arena, k * sizeof(int));
        if (parts == NULL) {
            return em_status_oom();
        }
        for (size_t j = 0; j < k; j++) {
            TS_TRY(unsqueeze(L, c, scan[j], 1, &parts[j]));
        }
        TS_TRY(emit_attr(L, c, EM_OP_CONCAT, parts, (int)k, "axis", 1, &s));
        int rank = em_ts_val(L, s)->rank;
        if (rank < 2) {
            return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "items of unknown rank appended to "
                          "a list in a loop on tensor data");
        }
        TS_TRY(merge_dims(L, c, s, 0, rank, &s));
    }
    size_t np = list->u.seq.n;
    if (np > 0) { /* the items from before the loop come first */
        int *parts = em_ts_arena_alloc(&L->arena, (np + 1) * sizeof(int));
        if (parts == NULL) {
            return em_status_oom();
        }
        for (size_t j = 0; j < np; j++) {
            int x = -1;
            TS_TRY(em_ts_as_tensor(L, c, list->u.seq.items[j], EMBER_DTYPE_UNDEFINED, &x));
            TS_TRY(unsqueeze(L, c, x, 0, &parts[j]));
        }
        parts[np] = s;
        TS_TRY(emit_attr(L, c, EM_OP_CONCAT, parts, (int)np + 1, "axis", 0, &s));
    }
    list->k = TA_STACK;
    list->u.t.v = s;
    list->u.t.g = L->g;
    return NULL;
}

/* ---- in the loop ---- */

ember_status *em_ts_flow_mark_appends(ts_lower *L, const ts_appended *ap, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ts_av *fresh = em_ts_seq(L, TA_LIST, 0);
        if (fresh == NULL) {
            return em_status_oom();
        }
        ap[i].list->k = TA_APPENDING; /* undone by the caller's em_ts_snap_restore */
        ap[i].list->u.seq = fresh->u.seq;
    }
    return NULL;
}

static bool is_marked(const ts_appended *ap, size_t n, const ts_av *list)
{
    for (size_t i = 0; i < n; i++) {
        if (ap[i].list == list) {
            return true;
        }
    }
    return false;
}

ember_status *em_ts_flow_appends(ts_lower *L, const ts_snap *snap, ts_appended *ap, size_t *n_ap,
                              em_ts_pos pos, bool *changed)
{
    for (size_t i = 0; i < *n_ap; i++) {
        ap[i].items = ap[i].list->u.seq.items;
        ap[i].n = ap[i].list->u.seq.n;
    }
    for (size_t i = 0; i < snap->n; i++) {
        const ts_snap_rec *r = &snap->r[i];
        bool grown = false;
        if (is_marked(ap, *n_ap, r->c) || !em_ts_snap_changed(snap, i, &grown)) {
            continue;
        }
        if (grown && r->k == TA_LIST) {
            ap[(*n_ap)++] = (ts_appended){r->c, NULL, 0};
            *changed = true;
            continue;
        }
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, pos, "%s",
                      r->k == TA_APPENDING || r->c->k == TA_STACK
                          ? "a list is appended to in a loop on tensor data nested in another "
                            "such loop that appends to it too: not supported"
                          : "a list or dict is changed inside a loop on tensor data other than "
                            "by append(): not supported");
    }
    return NULL;
}
