/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The interpreter's side of string tensors (strtensor.h): which graphs hold strings, which ops
 * may see them (EM_OPF_STRINGS on their rows in the op lists), and the lifetimes of a kernel
 * node's string outputs. An op without the flag fails with a clear error on a string input or
 * output instead of reading pointers as numbers.
 */
#include "exec/interp_ops.h"

#include "core/status.h"
#include "core/strtensor.h"

#include <stdio.h>
#include <string.h>

static bool graph_has_strings(const em_graph *g, int depth)
{
    for (int v = 0; v < g->n_values; v++) {
        if (g->values[v].dtype == EMBER_DTYPE_STRING) {
            return true;
        }
    }
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const em_node *n = &g->nodes[ni];
        if (n->op == EM_OP_CAST && em_node_attr_int(n, "to", 0) == EMBER_DTYPE_STRING) {
            return true;
        }
        switch (n->op) {
#define EM_OP(id, name, min_in, max_in, min_out, max_out, flags, shape, vin, grad)             \
    case EM_OP_##id:
#include "ir/ops_text.def"
#undef EM_OP
            if (n->op != EM_OP_TFIDFVECTORIZER) {
                return true;
            }
            break;
        default:
            break;
        }
        for (int a = 0; a < n->n_attrs && depth < 64; a++) {
            if (n->attrs[a].type == EM_ATTR_GRAPH && n->attrs[a].g != NULL &&
                graph_has_strings(n->attrs[a].g, depth + 1)) {
                return true;
            }
        }
    }
    return false;
}

bool em_graph_has_strings(const em_graph *g) { return graph_has_strings(g, 0); }

/* Ops flagged EM_OPF_STRINGS in the op lists: their kernels move string elements as 8-byte
 * values, or have string kernels of their own (the text family; Cast, CastLike, Equal and
 * Where in kernels_text.def; LabelEncoder's string keys and values). ScatterElements and
 * ScatterND copy strings but cannot reduce them. */
static bool takes_strings(const em_node *n)
{
    if ((em_op_info_of(n->op)->flags & EM_OPF_STRINGS) == 0) {
        return false;
    }
    if (n->op == EM_OP_SCATTERELEMENTS || n->op == EM_OP_SCATTERND) {
        return strcmp(em_node_attr_string(n, "reduction", "none"), "none") == 0;
    }
    return true;
}

/* The dtypes the text family's Cast rows convert strings from and to. */
static bool castable(ember_dtype dt)
{
    switch (dt) {
    case EMBER_DTYPE_F32: case EMBER_DTYPE_F64: case EMBER_DTYPE_F16: case EMBER_DTYPE_BF16:
    case EMBER_DTYPE_I8: case EMBER_DTYPE_I16: case EMBER_DTYPE_I32: case EMBER_DTYPE_I64:
    case EMBER_DTYPE_U8: case EMBER_DTYPE_U16: case EMBER_DTYPE_U32: case EMBER_DTYPE_U64:
    case EMBER_DTYPE_BOOL: case EMBER_DTYPE_STRING:
        return true;
    default:
        return false;
    }
}

ember_status *em_interp_str_check(const em_node *n, const em_tensor *tin, const em_tensor *tout)
{
    bool cast = n->op == EM_OP_CAST || n->op == EM_OP_CASTLIKE;
    if (cast && n->n_in > 0 && n->n_out > 0 &&
        (tin[0].dtype == EMBER_DTYPE_STRING || tout[0].dtype == EMBER_DTYPE_STRING) &&
        (!castable(tin[0].dtype) || !castable(tout[0].dtype))) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "node '%s' (%s): a cast from %s to %s is not "
                             "supported", n->name, em_op_name(n->op), em_dtype_name(tin[0].dtype),
                             em_dtype_name(tout[0].dtype));
    }
    for (int i = 0; i < n->n_in + n->n_out; i++) {
        const em_tensor *t = i < n->n_in ? &tin[i] : &tout[i - n->n_in];
        if (t->dtype == EMBER_DTYPE_STRING && !takes_strings(n)) {
            return em_status_new(EMBER_ERR_UNSUPPORTED,
                                 "node '%s' (%s): %s %d is a string tensor, which ember's %s "
                                 "does not take",
                                 n->name, em_op_name(n->op), i < n->n_in ? "input" : "output",
                                 i < n->n_in ? i : i - n->n_in, em_op_name(n->op));
        }
    }
    return NULL;
}

ember_status *em_interp_str_finish(const em_node *n, const em_rv *env, em_storage **st,
                                   const em_tensor *tout)
{
    ember_status *err = NULL;
    char who[300];
    snprintf(who, sizeof who, "node '%s' (%s)", n->name, em_op_name(n->op));
    for (int o = 0; o < n->n_out; o++) {
        if (tout[o].dtype != EMBER_DTYPE_STRING) {
            continue;
        }
        ember_status *e = em_str_out_finish(st[o], &tout[o], who);
        for (int i = 0; i < n->n_in && e == NULL; i++) {
            const em_rv *v = n->in[i] >= 0 ? &env[n->in[i]] : NULL;
            if (v != NULL && v->kind == EM_RV_TENSOR && v->t.dtype == EMBER_DTYPE_STRING) {
                e = em_str_keep_bytes(st[o], v->s);
            }
        }
        if (err == NULL) {
            err = e;
        } else {
            ember_status_destroy(e);
        }
    }
    return err;
}
