/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pickle's values once STOP is reached: the walk that refuses cycles and nesting deeper
 * than EM_TS_PICKLE_MAX_DEPTH (iterative, with an explicit path of at most that many
 * frames), and the read-only helpers of ts_pickle.h.
 */
#include "ts_pickle.h"

#include "ts_pickle_internal.h"

#include <string.h>

#include "core/status.h"

static size_t n_children(const em_tsv *v)
{
    switch (v->kind) {
    case EM_TSV_TUPLE: case EM_TSV_LIST: return v->u.seq.n;
    case EM_TSV_DICT: return 2 * v->u.dict.n;
    case EM_TSV_OBJECT: return 1;
    case EM_TSV_TENSOR: return 2;
    default: return 0;
    }
}

/* Child i < n_children(v); NULL for a tensor's absent scales or zero points. */
static em_tsv *child(const em_tsv *v, size_t i)
{
    switch (v->kind) {
    case EM_TSV_TUPLE: case EM_TSV_LIST: return v->u.seq.items[i];
    case EM_TSV_DICT:
        return i < v->u.dict.n ? v->u.dict.keys[i] : v->u.dict.values[i - v->u.dict.n];
    case EM_TSV_OBJECT: return v->u.obj.state;
    default: return (em_tsv *)(uintptr_t)(i == 0 ? v->u.t.scales : v->u.t.zero_points);
    }
}

static bool is_container(const em_tsv *v)
{
    return v->kind == EM_TSV_TUPLE || v->kind == EM_TSV_LIST || v->kind == EM_TSV_DICT ||
           v->kind == EM_TSV_OBJECT || (v->kind == EM_TSV_TENSOR && v->u.t.scales != NULL);
}

typedef struct walk_frame {
    em_tsv *v;
    size_t next;
} walk_frame;

/* Depth-first from the root with an explicit path: a child found on the path is a cycle;
 * each value's depth (containers nested in it, itself included) is computed once. */
ember_status *em_tsp_walk(const tsp *p, em_tsv *root)
{
    walk_frame path[EM_TS_PICKLE_MAX_DEPTH + 1];
    size_t n = 1;
    path[0] = (walk_frame){root, 0};
    tsv_node_of(root)->walk = 1;
    while (n > 0) {
        walk_frame *f = &path[n - 1];
        tsv_node *fn = tsv_node_of(f->v);
        if (f->next == n_children(f->v)) {
            fn->depth += is_container(f->v);
            fn->walk = 2;
            if (--n > 0) {
                tsv_node *pn = tsv_node_of(path[n - 1].v);
                pn->depth = pn->depth > fn->depth ? pn->depth : fn->depth;
            }
            continue;
        }
        em_tsv *c = child(f->v, f->next++);
        tsv_node *cn = c != NULL ? tsv_node_of(c) : NULL;
        if (cn == NULL || cn->walk == 2) {
            fn->depth = cn == NULL || fn->depth > cn->depth ? fn->depth : cn->depth;
        } else if (cn->walk == 1) {
            return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: a container holds itself",
                                 p->what);
        } else if (n > EM_TS_PICKLE_MAX_DEPTH) {
            break; /* n containers on the path: too deep, whatever c is */
        } else {
            cn->walk = 1;
            path[n++] = (walk_frame){c, 0};
        }
    }
    if (n > 0 || tsv_node_of(root)->depth > EM_TS_PICKLE_MAX_DEPTH) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "%s: values nested deeper than %d containers", p->what,
                             EM_TS_PICKLE_MAX_DEPTH);
    }
    return NULL;
}

/* ---- helpers ----------------------------------------------------------------------------- */

const em_tsv *em_tsv_dict_get(const em_tsv *d, const char *key)
{
    if (d == NULL || d->kind != EM_TSV_DICT || key == NULL) {
        return NULL;
    }
    size_t n = strlen(key);
    for (size_t i = d->u.dict.n; i-- > 0;) {
        const em_tsv *k = d->u.dict.keys[i];
        if (k->kind == EM_TSV_STR && k->u.str.n == n && memcmp(k->u.str.s, key, n) == 0) {
            return d->u.dict.values[i];
        }
    }
    return NULL;
}

bool em_tsv_tensor_contiguous(const em_tsv_tensor *t)
{
    int64_t expect = 1;
    for (int i = t->rank - 1; i >= 0; i--) {
        if (t->sizes[i] != 1 && t->strides[i] != expect) {
            return false;
        }
        expect *= t->sizes[i];
    }
    return true;
}

const char *em_tsv_kind_name(em_tsv_kind k)
{
    static const char *const names[] = {"None",  "bool", "int",    "float",  "str",
                                        "bytes", "tuple", "list",  "dict",   "tensor",
                                        "object", "device", "global"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}
