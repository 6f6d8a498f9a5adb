/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The shape module's common part: dim helpers, numpy broadcasting (em_shape_broadcast), the
 * shape of the elementwise ops of every family (em_shape_ew), the table of each op's shape
 * function (the shape_fn column of the op lists), and the graph-level pass. The other shape
 * functions live with their family, in shape_<family>[_*].c.
 */
#include "shape/shape.h"

#include "core/alloc.h"
#include "core/status.h"

#include <string.h>

#define KNOWN(d) ((d).v >= 0)

em_dim em_dim_known(int64_t v)
{
    em_dim d = {v, 0};
    return d;
}

em_dim em_dim_unknown(void)
{
    em_dim d = {-1, 0};
    return d;
}

static bool dim_same(em_dim a, em_dim b)
{
    if (KNOWN(a) && KNOWN(b)) {
        return a.v == b.v;
    }
    return a.sym != 0 && a.sym == b.sym;
}

ember_status *em_shape_bad(const em_node *n, const char *what)
{
    return em_status_new(EMBER_ERR_INVALID_MODEL, "node '%s' (%s): %s", n->name,
                         em_op_name(n->op), what);
}

ember_status *em_shape_broadcast(const em_node *n, const em_shape *a, const em_shape *b,
                                 em_shape *out)
{
    if (a->rank < 0 || b->rank < 0) {
        out->rank = -1;
        return NULL;
    }
    int r = a->rank > b->rank ? a->rank : b->rank;
    out->rank = r;
    for (int i = 0; i < r; i++) {
        int ia = i - (r - a->rank), ib = i - (r - b->rank);
        em_dim da = ia >= 0 ? a->dims[ia] : em_dim_known(1);
        em_dim db = ib >= 0 ? b->dims[ib] : em_dim_known(1);
        if (KNOWN(da) && da.v == 1) {
            out->dims[i] = db;
        } else if (KNOWN(db) && db.v == 1) {
            out->dims[i] = da;
        } else if (KNOWN(da) && KNOWN(db)) {
            if (da.v != db.v) {
                return em_status_new(EMBER_ERR_INVALID_MODEL,
                                     "node '%s' (%s): shapes do not broadcast: dim %d is %lld "
                                     "vs %lld",
                                     n->name, em_op_name(n->op), i, (long long)da.v,
                                     (long long)db.v);
            }
            out->dims[i] = da;
        } else if (dim_same(da, db)) {
            out->dims[i] = da;
        } else if (KNOWN(da)) {
            out->dims[i] = da; /* the other must be 1 or equal: take the known size */
        } else if (KNOWN(db)) {
            out->dims[i] = db;
        } else {
            out->dims[i] = em_dim_unknown();
        }
    }
    return NULL;
}

ember_status *em_shape_ew(const em_node *n, const em_shape *in, em_shape *out)
{
    if (n->n_in == 1) {
        *out = in[0];
        out->value = NULL;
        return NULL;
    }
    if (in[0].dtype != in[1].dtype && in[0].dtype && in[1].dtype) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): input dtypes differ: %s vs %s", n->name,
                             em_op_name(n->op), em_dtype_name(in[0].dtype),
                             em_dtype_name(in[1].dtype));
    }
    out->dtype = in[0].dtype;
    return em_shape_broadcast(n, &in[0], &in[1], out);
}

static const em_shape_fn shape_fns[EM_OP_COUNT] = {
#define EM_OP(id, name, min_in, max_in, min_out, max_out, flags, shape, vin, grad)             \
    [EM_OP_##id] = shape,
#include "ir/ops.def"
#undef EM_OP
};

em_shape_fn em_shape_fn_of(em_op op)
{
    return (unsigned)op < EM_OP_COUNT ? shape_fns[op] : NULL;
}

/* Whether the known, non-zero dims of s multiply to at most INT64_MAX. Inference checks it on
 * every node's inputs and outputs, so shape functions can multiply an input's dims freely. */
static bool dims_fit(const em_shape *s)
{
    int64_t p = 1;
    for (int d = 0; d < s->rank && d < EM_MAX_RANK; d++) {
        if (KNOWN(s->dims[d]) && s->dims[d].v > 0) {
            if (p > INT64_MAX / s->dims[d].v) {
                return false;
            }
            p *= s->dims[d].v;
        }
    }
    return true;
}

static ember_status *too_large(const em_node *n, const char *side, int i)
{
    return em_status_new(EMBER_ERR_INVALID_MODEL,
                         "node '%s' (%s): %s %d has more than INT64_MAX elements", n->name,
                         em_op_name(n->op), side, i);
}

ember_status *em_shape_infer_node(const em_node *n, const em_shape *in, em_shape *out)
{
    for (int i = 0; i < n->n_out; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].rank = -1;
    }
    for (int i = 0; i < n->n_in; i++) {
        if (n->in[i] >= 0 && in[i].dtype == EMBER_DTYPE_UNDEFINED && i == 0) {
            return em_shape_bad(n, "input 0 has no known dtype");
        }
    }
    if ((unsigned)n->op >= EM_OP_COUNT) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "node '%s': unknown op", n->name);
    }
    for (int i = 0; i < n->n_in; i++) {
        if (n->in[i] >= 0 && !dims_fit(&in[i])) {
            return too_large(n, "input", i);
        }
    }
    ember_status *st = shape_fns[n->op](n, in, out);
    for (int o = 0; o < n->n_out && st == NULL; o++) {
        if (!dims_fit(&out[o])) {
            st = too_large(n, "output", o);
        }
    }
    return st;
}

static void value_to_shape(const em_value *v, em_shape *s)
{
    memset(s, 0, sizeof *s);
    s->vt = v->vt;
    s->dtype = v->dtype;
    s->rank = v->rank;
    memcpy(s->dims, v->dims, sizeof s->dims);
    s->value = v->kind == EM_VAL_INITIALIZER ? &v->init : NULL;
}

/* Gives body inputs of subgraph `sub` of node `n` of `g` that have no declared dtype the dtype
 * of what will be bound to them: an outer value captured by name (dtype and shape: it is the
 * same tensor), or for Loop the iteration count, the condition and the loop-carried values,
 * for Scan the states and scan inputs (dtype only: shapes may change between iterations).
 * The outer values before `n` are inferred already, which they were not while loading. */
static void seed_subgraph_inputs(const em_graph *g, const em_node *n, em_graph *sub)
{
    for (int i = 0; i < sub->n_inputs; i++) {
        em_value *v = &sub->values[sub->inputs[i]];
        if (v->dtype != EMBER_DTYPE_UNDEFINED) {
            continue;
        }
        int outer = em_graph_find_value(g, v->name), src = -1;
        if (outer >= 0 && g->values[outer].dtype != EMBER_DTYPE_UNDEFINED) {
            const em_value *o = &g->values[outer];
            v->dtype = o->dtype;
            v->vt = o->vt;
            if (v->rank < 0) {
                v->rank = o->rank;
                for (int d = 0; d < o->rank; d++) {
                    v->dims[d] = o->dims[d].v >= 0 ? em_dim_known(o->dims[d].v) : em_dim_unknown();
                }
            }
            continue;
        }
        if (n->op == EM_OP_LOOP) {
            v->dtype = i == 0 ? EMBER_DTYPE_I64 : i == 1 ? EMBER_DTYPE_BOOL : EMBER_DTYPE_UNDEFINED;
            src = i >= 2 && i < n->n_in ? n->in[i] : -1;
        } else if (n->op == EM_OP_SCAN && !em_node_attr_int(n, "ember_scan8", 0)) {
            src = i < n->n_in ? n->in[i] : -1;
        }
        if (src >= 0) {
            v->dtype = g->values[src].dtype;
            v->vt = g->values[src].vt;
        }
    }
}

/* Shapes of one node of `g`: in and out hold at least n_in and n_out entries. */
static ember_status *infer_node_shapes(em_graph *g, em_node *n, em_shape *in, em_shape *out)
{
    for (int a = 0; a < n->n_attrs; a++) { /* subgraphs first: If/Loop/Scan read their outputs */
        if (n->attrs[a].type == EM_ATTR_GRAPH && n->attrs[a].g != NULL) {
            seed_subgraph_inputs(g, n, n->attrs[a].g);
            /* Best effort: a body input may have no declared type (the enclosing node's inputs
             * give it at run time), and the interpreter infers every shape again while it
             * runs, where errors name the node. */
            ember_status_destroy(em_graph_infer_shapes(n->attrs[a].g));
        }
    }
    for (int i = 0; i < n->n_in; i++) {
        if (n->in[i] < 0) {
            memset(&in[i], 0, sizeof in[i]);
            in[i].rank = -1;
        } else {
            value_to_shape(&g->values[n->in[i]], &in[i]);
        }
    }
    ember_status *st = em_shape_infer_node(n, in, out);
    if (st != NULL) {
        return st;
    }
    for (int o = 0; o < n->n_out; o++) {
        em_value *v = &g->values[n->out[o]];
        /* A dim the shape function cannot tell keeps what the value knew already: loaders
         * name dims that inference cannot (TorchScript: a conv's output size as a symbol of its
         * input's), and inferring again after graph passes must not forget them. */
        bool keep = v->rank == out[o].rank && v->dtype == out[o].dtype && v->rank > 0;
        for (int d = 0; keep && d < v->rank; d++) {
            em_dim nd = out[o].dims[d];
            if (nd.v < 0 && nd.sym == 0) {
                out[o].dims[d] = v->dims[d];
            }
        }
        v->vt = out[o].vt;
        v->dtype = out[o].dtype;
        v->rank = out[o].rank;
        memcpy(v->dims, out[o].dims, sizeof v->dims);
    }
    return NULL;
}

ember_status *em_graph_infer_node(em_graph *g, int node)
{
    em_shape in_small[16], out_small[8];
    em_node *n = &g->nodes[node];
    em_shape *in = in_small, *out = out_small;
    if (n->n_in > 16) {
        in = em_malloc(g->al, sizeof *in * (size_t)n->n_in);
    }
    if (n->n_out > 8) {
        out = em_malloc(g->al, sizeof *out * (size_t)n->n_out);
    }
    ember_status *st = in == NULL || out == NULL ? em_status_oom()
                                                 : infer_node_shapes(g, n, in, out);
    if (in != in_small) {
        em_free(g->al, in);
    }
    if (out != out_small) {
        em_free(g->al, out);
    }
    return st;
}

ember_status *em_graph_infer_shapes(em_graph *g)
{
    for (int ni = 0; ni < g->n_nodes; ni++) {
        ember_status *st = em_graph_infer_node(g, ni);
        if (st != NULL) {
            return st;
        }
    }
    return NULL;
}
