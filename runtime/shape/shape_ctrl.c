/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape functions of control flow and sequence / optional ops (ops_ctrl.def). These run at load
 * time on symbolic shapes only: the interpreter computes every real shape while it runs. They
 * give the value kinds (tensor, sequence, optional) and dtypes, and dims where a branch or body
 * states them. Dims taken from a subgraph keep their known values but not their symbols (a
 * subgraph has its own symbol table).
 */
#include "shape/shape.h"

#include "core/status.h"

#include <string.h>

static const em_graph *graph_attr(const em_node *n, const char *name)
{
    const em_attr *a = em_node_attr(n, name);
    return a != NULL && a->type == EM_ATTR_GRAPH ? a->g : NULL;
}

/* The shape of output `o` of subgraph `g`, symbols dropped. */
static void sub_output(const em_graph *g, int o, em_shape *s)
{
    const em_value *v = &g->values[g->outputs[o]];
    memset(s, 0, sizeof *s);
    s->vt = v->vt;
    s->dtype = v->dtype;
    s->rank = v->rank;
    for (int d = 0; d < v->rank; d++) {
        s->dims[d] = v->dims[d].v >= 0 ? em_dim_known(v->dims[d].v) : em_dim_unknown();
    }
}

/* Keeps in `a` only what `b` agrees with. */
static void merge(em_shape *a, const em_shape *b)
{
    if (a->dtype == EMBER_DTYPE_UNDEFINED) {
        a->dtype = b->dtype;
    }
    if (a->rank != b->rank) {
        a->rank = -1;
        return;
    }
    for (int d = 0; d < a->rank; d++) {
        if (a->dims[d].v != b->dims[d].v || a->dims[d].sym != b->dims[d].sym) {
            a->dims[d] = em_dim_unknown();
        }
    }
}

ember_status *em_shape_if(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_graph *t = graph_attr(n, "then_branch"), *e = graph_attr(n, "else_branch");
    (void)in;
    if (t == NULL || e == NULL) {
        return em_shape_bad(n, "needs graph attributes then_branch and else_branch");
    }
    if (t->n_outputs != n->n_out || e->n_outputs != n->n_out) {
        return em_shape_bad(n, "then_branch and else_branch must each produce one value per "
                               "output of the node");
    }
    for (int o = 0; o < n->n_out; o++) {
        em_shape b;
        sub_output(t, o, &out[o]);
        sub_output(e, o, &b);
        if (out[o].vt != b.vt && b.dtype != EMBER_DTYPE_UNDEFINED) {
            out[o].vt = out[o].vt == EM_VT_OPTIONAL || b.vt == EM_VT_OPTIONAL ? EM_VT_OPTIONAL
                                                                              : out[o].vt;
        }
        merge(&out[o], &b);
    }
    return NULL;
}

ember_status *em_shape_loop(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_graph *b = graph_attr(n, "body");
    if (b == NULL) {
        return em_shape_bad(n, "needs graph attribute body");
    }
    int n_carried = n->n_in - 2, n_scan = n->n_out - n_carried;
    if (n_carried < 0 || n_scan < 0 || b->n_outputs != 1 + n_carried + n_scan || b->n_inputs < 2 + n_carried) {
        return em_shape_bad(n, "body inputs/outputs do not match the node's (iteration, "
                               "condition, loop-carried values, scan outputs)");
    }
    for (int i = 0; i < n_carried; i++) {
        out[i] = in[2 + i];
        out[i].value = NULL;
        em_shape bs;
        sub_output(b, 1 + i, &bs);
        if (bs.dtype != EMBER_DTYPE_UNDEFINED) {
            out[i].vt = bs.vt; /* what the body makes: an optional input may become a value */
        }
        merge(&out[i], &bs);
    }
    for (int k = 0; k < n_scan; k++) {
        em_shape *s = &out[n_carried + k];
        sub_output(b, 1 + n_carried + k, s);
        if (s->rank >= 0 && s->rank < EM_MAX_RANK) {
            memmove(&s->dims[1], &s->dims[0], sizeof s->dims[0] * (size_t)s->rank);
            s->dims[0] = em_dim_unknown();
            s->rank++;
        } else {
            s->rank = -1;
        }
    }
    return NULL;
}

ember_status *em_shape_scan(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_graph *b = graph_attr(n, "body");
    int64_t m = em_node_attr_int(n, "num_scan_inputs", -1);
    if (b == NULL || m < 1 || m > n->n_in) {
        return em_shape_bad(n, "needs graph attribute body and num_scan_inputs in [1, inputs]");
    }
    int n_state = n->n_in - (int)m, n_scan = n->n_out - n_state;
    if (em_node_attr_int(n, "ember_scan8", 0)) { /* opset 8: input 0 is sequence_lens */
        n_state--;
        n_scan = n->n_out - n_state;
    }
    if (n_scan < 0 || b->n_outputs != n_state + n_scan) {
        return em_shape_bad(n, "body outputs do not match the node's (states, scan outputs)");
    }
    for (int i = 0; i < n->n_out; i++) {
        sub_output(b, i, &out[i]);
        if (i >= n_state) { /* one more axis: where it goes depends on scan_output_axes */
            out[i].rank = out[i].rank >= 0 && out[i].rank < EM_MAX_RANK ? out[i].rank + 1 : -1;
            for (int d = 0; d < out[i].rank; d++) {
                out[i].dims[d] = em_dim_unknown();
            }
        }
    }
    (void)in;
    return NULL;
}

ember_status *em_shape_seqmap(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_graph *b = graph_attr(n, "body");
    (void)in;
    if (b == NULL || b->n_outputs != n->n_out) {
        return em_shape_bad(n, "needs graph attribute body with one output per node output");
    }
    for (int o = 0; o < n->n_out; o++) {
        sub_output(b, o, &out[o]);
        out[o].vt = EM_VT_SEQUENCE;
    }
    return NULL;
}

static bool is_seq(const em_shape *s)
{
    return s->vt == EM_VT_SEQUENCE || s->vt == EM_VT_OPTIONAL_SEQUENCE;
}

/* Sequence and optional ops. */
ember_status *em_shape_seq(const em_node *n, const em_shape *in, em_shape *out)
{
    out->rank = -1;
    switch (n->op) {
    case EM_OP_SEQUENCEEMPTY:
        out->vt = EM_VT_SEQUENCE;
        out->dtype = (ember_dtype)em_node_attr_int(n, "dtype", EMBER_DTYPE_F32);
        break;
    case EM_OP_SEQUENCECONSTRUCT:
        *out = in[0];
        out->value = NULL;
        for (int i = 1; i < n->n_in; i++) {
            if (in[i].dtype != in[0].dtype) {
                return em_shape_bad(n, "every input must have the same dtype");
            }
            merge(out, &in[i]);
        }
        out->vt = EM_VT_SEQUENCE;
        break;
    case EM_OP_SEQUENCEINSERT:
    case EM_OP_SEQUENCEERASE:
        if (!is_seq(&in[0])) {
            return em_shape_bad(n, "input 0 must be a sequence");
        }
        *out = in[0];
        out->value = NULL;
        if (n->op == EM_OP_SEQUENCEINSERT) {
            merge(out, &in[1]);
        }
        out->vt = EM_VT_SEQUENCE;
        break;
    case EM_OP_SEQUENCEAT:
    case EM_OP_CONCATFROMSEQUENCE:
        if (!is_seq(&in[0])) {
            return em_shape_bad(n, "input 0 must be a sequence");
        }
        out->dtype = in[0].dtype;
        if (n->op == EM_OP_SEQUENCEAT) {
            out->rank = in[0].rank;
            memcpy(out->dims, in[0].dims, sizeof out->dims);
        }
        break;
    case EM_OP_SEQUENCELENGTH:
        out->dtype = EMBER_DTYPE_I64;
        out->rank = 0;
        break;
    case EM_OP_SPLITTOSEQUENCE:
        out->vt = EM_VT_SEQUENCE;
        out->dtype = in[0].dtype;
        break;
    case EM_OP_OPTIONAL:
        if (n->n_in == 1 && n->in[0] >= 0) {
            *out = in[0];
            out->value = NULL;
            out->vt = is_seq(&in[0]) ? EM_VT_OPTIONAL_SEQUENCE : EM_VT_OPTIONAL;
        } else {
            const int64_t *ty = NULL; /* the loader keeps a type attribute as (kind, dtype) */
            if (em_node_attr_ints(n, "type", &ty) != 2) {
                return em_shape_bad(n, "an Optional without input needs its type attribute");
            }
            out->vt = ty[0] == EM_VT_SEQUENCE ? EM_VT_OPTIONAL_SEQUENCE : EM_VT_OPTIONAL;
            out->dtype = (ember_dtype)ty[1];
        }
        break;
    case EM_OP_OPTIONALHASELEMENT:
        out->dtype = EMBER_DTYPE_BOOL;
        out->rank = 0;
        break;
    case EM_OP_OPTIONALGETELEMENT:
        *out = in[0];
        out->value = NULL;
        out->vt = is_seq(&in[0]) ? EM_VT_SEQUENCE : EM_VT_TENSOR;
        break;
    default:
        return em_shape_bad(n, "not a sequence op");
    }
    return NULL;
}
