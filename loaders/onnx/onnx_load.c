/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ModelProto -> em_graph. Order of work: a wire-level scan bounds nesting (onnx_wire.c);
 * protobuf-c unpacks with the model's allocator; the opset imports are checked; one pass over
 * every graph lists all unsupported operators at once; then each graph is built: initializers,
 * inputs that are not initializers, nodes in file order (each through opset normalisation,
 * onnx_opset.c), outputs. Names resolve through a hash per graph; a subgraph that reads a value
 * of an enclosing graph gets it as an extra input of the subgraph (after its declared inputs)
 * with the same name, which is how an executor of If/Loop/Scan bodies binds captured values.
 * Ownership: every em_graph builder copies names; tensors retain their storage.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "onnx_internal.h"

#include "core/alloc.h"
#include "core/status.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bounds on counts from the file beyond what the file size already bounds: indices are int. */
enum { ONNX_MAX_ITEMS = 1 << 26 };

ember_status *em_onnx_err(const onnx_ctx *c, ember_code code, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return em_status_new(code, "onnx: %s: %s", c->what, msg);
}

static ember_status *wrap(const onnx_ctx *c, ember_status *st)
{
    return em_status_wrap(st, "onnx: %s", c->what);
}

static bool is_default_domain(const char *d)
{
    return d == NULL || d[0] == '\0' || strcmp(d, "ai.onnx") == 0;
}

/* The training ops of ai.onnx.preview.training (ember has a backward mode); every other op is
 * of the default domain. */
static const char *const training_domain = "ai.onnx.preview.training";

static bool is_training_op(const char *op)
{
    return strcmp(op, "Adagrad") == 0 || strcmp(op, "Adam") == 0 ||
           strcmp(op, "Momentum") == 0 || strcmp(op, "Gradient") == 0;
}

/* The classical ML ops of ai.onnx.ml that ember runs (runtime/ir/ops_ml.def). */
static const char *const ml_domain = "ai.onnx.ml";
#define EM_ONNX_ML_OPSET_MAX 5

static bool is_ml_op(const char *op)
{
    return strcmp(op, "ArrayFeatureExtractor") == 0 || strcmp(op, "Binarizer") == 0 ||
           strcmp(op, "LabelEncoder") == 0 || strcmp(op, "TreeEnsemble") == 0;
}

/* FlexAttention of ai.onnx.preview (version 1), expanded at load (onnx_flex.c). */
static const char *const preview_domain = "ai.onnx.preview";

/* ONNX Runtime's quantized contrib ops of com.microsoft (version 1) that ember runs
 * (runtime/ir/ops_quant.def), as its quantizer writes them in QOperator format. */
static const char *const ms_domain = "com.microsoft";

static bool is_ms_op(const char *op)
{
    static const char *const ops[] = {"QLinearAdd",         "QLinearMul",
                                      "QLinearSigmoid",     "QLinearLeakyRelu",
                                      "QLinearConcat",      "QLinearAveragePool",
                                      "QLinearGlobalAveragePool", "QGemm"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (strcmp(op, ops[i]) == 0) {
            return true;
        }
    }
    return false;
}

/* com.microsoft ops that are the default domain's op of the same name (same inputs and
 * attributes), and those onnx_msquant.c expands. */
static bool is_ms_alias(const char *op)
{
    return strcmp(op, "QuantizeLinear") == 0 || strcmp(op, "DequantizeLinear") == 0;
}

/* True when ember knows op `op` of `domain`. */
static bool domain_op_known(const char *domain, const char *op)
{
    if (is_default_domain(domain)) {
        return !is_training_op(op) && !is_ml_op(op) && !is_ms_op(op) &&
               !em_onnx_ms_expanded(op) && strcmp(op, "FlexAttention") != 0;
    }
    if (strcmp(domain, ms_domain) == 0) {
        return is_ms_op(op) || is_ms_alias(op) || em_onnx_ms_expanded(op);
    }
    if (strcmp(domain, ml_domain) == 0) {
        return is_ml_op(op);
    }
    if (strcmp(domain, preview_domain) == 0) {
        return strcmp(op, "FlexAttention") == 0;
    }
    return strcmp(domain, training_domain) == 0 && is_training_op(op);
}

const Onnx__AttributeProto *em_onnx_node_attr(const Onnx__NodeProto *np, const char *name,
                                           size_t *index)
{
    for (size_t i = 0; i < np->n_attribute; i++) {
        const char *n = np->attribute[i]->name;
        if (n != NULL && strcmp(n, name) == 0) {
            if (index != NULL) {
                *index = i;
            }
            return np->attribute[i];
        }
    }
    return NULL;
}

/* ---- scopes ---- */

static uint32_t hash_str(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++) {
        h = (h ^ (uint8_t)*s) * 16777619u;
    }
    return h;
}

static int scope_find(const onnx_scope *sc, const char *name)
{
    if (sc->cap == 0) {
        return -1;
    }
    for (uint32_t i = hash_str(name) & (uint32_t)(sc->cap - 1);;
         i = (i + 1) & (uint32_t)(sc->cap - 1)) {
        int s = sc->slots[i];
        if (s == 0) {
            return -1;
        }
        if (strcmp(sc->g->values[s - 1].name, name) == 0) {
            return s - 1;
        }
    }
}

static void scope_insert(onnx_scope *sc, int idx)
{
    const char *name = sc->g->values[idx].name;
    uint32_t i = hash_str(name) & (uint32_t)(sc->cap - 1);
    while (sc->slots[i] != 0) {
        i = (i + 1) & (uint32_t)(sc->cap - 1);
    }
    sc->slots[i] = idx + 1;
    sc->n++;
}

ember_status *em_onnx_scope_put(const onnx_ctx *c, onnx_scope *sc, int idx)
{
    const char *name = sc->g->values[idx].name;
    if (scope_find(sc, name) >= 0) {
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL, "value '%s' is defined twice", name);
    }
    if ((sc->n + 1) * 2 > sc->cap) {
        int nc = sc->cap ? sc->cap * 2 : 64;
        int *old = sc->slots, oc = sc->cap;
        sc->slots = em_calloc(sc->g->al, (size_t)nc, sizeof(int));
        if (sc->slots == NULL) {
            sc->slots = old;
            return em_status_oom();
        }
        sc->cap = nc;
        sc->n = 0;
        for (int i = 0; i < oc; i++) {
            if (old[i] != 0) {
                scope_insert(sc, old[i] - 1);
            }
        }
        em_free(sc->g->al, old);
    }
    scope_insert(sc, idx);
    return NULL;
}

/* The value `name` names in `sc`, capturing it from enclosing graphs when needed; -1 if none. */
static ember_status *scope_resolve(onnx_ctx *c, onnx_scope *sc, const char *name, int *idx)
{
    *idx = scope_find(sc, name);
    if (*idx >= 0 || sc->parent == NULL) {
        return NULL;
    }
    int outer;
    ember_status *st = scope_resolve(c, sc->parent, name, &outer);
    if (st != NULL || outer < 0) {
        return st;
    }
    const em_value *ov = &sc->parent->g->values[outer];
    int64_t dims[EM_MAX_RANK];
    const char *names[EM_MAX_RANK];
    for (int d = 0; d < ov->rank; d++) {
        dims[d] = ov->dims[d].v;
        names[d] = ov->dims[d].sym > 0 ? sc->parent->g->sym_names[ov->dims[d].sym - 1] : NULL;
    }
    st = em_graph_add_input(sc->g, name, ov->dtype, ov->rank, dims, names, idx);
    if (st == NULL) {
        sc->g->values[*idx].vt = ov->vt;
    }
    return st != NULL ? wrap(c, st) : em_onnx_scope_put(c, sc, *idx);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool em_onnx_name_used(const onnx_scope *sc, const char *name)
{
    return sc->n_used > 0 &&
           bsearch(&name, sc->used, sc->n_used, sizeof *sc->used, cmp_str) != NULL;
}

/* Counts (names == NULL) or collects the names read by the nodes of `gp` and its subgraphs. */
static size_t collect_used(const Onnx__GraphProto *gp, const char **names, size_t n)
{
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *np = gp->node[i];
        for (size_t k = 0; k < np->n_input; k++) {
            if (names != NULL) {
                names[n] = np->input[k];
            }
            n++;
        }
        for (size_t a = 0; a < np->n_attribute; a++) {
            const Onnx__AttributeProto *ap = np->attribute[a];
            if (ap->g != NULL) {
                n = collect_used(ap->g, names, n);
            }
            for (size_t k = 0; k < ap->n_graphs; k++) {
                n = collect_used(ap->graphs[k], names, n);
            }
        }
    }
    for (size_t i = 0; i < gp->n_output; i++) {
        if (names != NULL) {
            names[n] = gp->output[i]->name != NULL ? gp->output[i]->name : "";
        }
        n++;
    }
    return n;
}

static ember_status *scope_init(onnx_scope *sc, em_graph *g, onnx_scope *parent,
                                const Onnx__GraphProto *gp)
{
    memset(sc, 0, sizeof *sc);
    sc->g = g;
    sc->parent = parent;
    size_t n = collect_used(gp, NULL, 0);
    sc->used = em_malloc(g->al, sizeof(char *) * (n ? n : 1));
    if (sc->used == NULL) {
        return em_status_oom();
    }
    sc->n_used = collect_used(gp, sc->used, 0);
    qsort(sc->used, sc->n_used, sizeof *sc->used, cmp_str);
    return NULL;
}

static void scope_free(onnx_scope *sc)
{
    em_free(sc->g->al, sc->slots);
    em_free(sc->g->al, (void *)sc->used);
}

/* ---- helpers for rewrites ---- */

void em_onnx_fresh_name(onnx_ctx *c, const onnx_scope *sc, const char *base, const char *suffix,
                     char *buf, size_t cap)
{
    do {
        snprintf(buf, cap, "%s__%s_%u", base, suffix, c->serial++);
    } while (scope_find(sc, buf) >= 0);
}

ember_status *em_onnx_add_const(onnx_ctx *c, onnx_scope *sc, const char *base, const char *suffix,
                             ember_dtype dt, const void *data, int64_t n, int rank, int *idx)
{
    char name[256];
    em_onnx_fresh_name(c, sc, base, suffix, name, sizeof name);
    ember_status *st = em_graph_add_initializer_copy(sc->g, name, dt, rank, &n, data, idx);
    return st != NULL ? wrap(c, st) : em_onnx_scope_put(c, sc, *idx);
}

ember_status *em_onnx_add_node_n(onnx_ctx *c, onnx_scope *sc, const char *op,
                              const char *node_name, const int *in, int n_in, int n_out,
                              const char *const *out_names, int *node, int *out_values)
{
    em_op id;
    char names[EM_ONNX_MAX_ADDED_OUTPUTS][256];
    const char *outs[EM_ONNX_MAX_ADDED_OUTPUTS];
    if (!em_op_from_name(op, &id)) {
        return em_onnx_err(c, EMBER_ERR_UNSUPPORTED, "node '%s': needs op %s, which ember lacks",
                        node_name, op);
    }
    if (n_out < 1 || n_out > EM_ONNX_MAX_ADDED_OUTPUTS) {
        return em_onnx_err(c, EMBER_ERR_INTERNAL, "node '%s': %d outputs for an added %s",
                        node_name, n_out, op);
    }
    for (int o = 0; o < n_out; o++) {
        outs[o] = out_names != NULL ? out_names[o] : NULL;
        if (outs[o] == NULL) {
            em_onnx_fresh_name(c, sc, node_name, op, names[o], sizeof names[o]);
            outs[o] = names[o];
        }
    }
    ember_status *st = em_graph_add_node(sc->g, id, node_name, in, n_in, outs, n_out, node);
    if (st != NULL) {
        return wrap(c, st);
    }
    for (int o = 0; o < n_out; o++) {
        out_values[o] = sc->g->nodes[*node].out[o];
        st = em_onnx_scope_put(c, sc, out_values[o]);
        if (st != NULL) {
            return st;
        }
    }
    return NULL;
}

ember_status *em_onnx_add_node(onnx_ctx *c, onnx_scope *sc, const char *op, const char *node_name,
                            const int *in, int n_in, const char *out_name, int *node,
                            int *out_value)
{
    return em_onnx_add_node_n(c, sc, op, node_name, in, n_in, 1, &out_name, node, out_value);
}

/* ---- attributes ---- */

static ember_status *build_graph(onnx_ctx *c, const Onnx__GraphProto *gp, em_graph *g,
                                 onnx_scope *parent, int depth);
static ember_status *type_decode(onnx_ctx *c, const Onnx__TypeProto *tp, const char *name,
                                 em_vtype *vt, ember_dtype *dt,
                                 const Onnx__TensorShapeProto **shape);

/* Attributes of old IR versions have no type: it is told by the field that is set. */
static Onnx__AttributeProto__AttributeType attr_type(const Onnx__AttributeProto *ap)
{
    if (ap->has_type) {
        return ap->type;
    }
    if (ap->has_f)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
    if (ap->has_i)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    if (ap->has_s)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
    if (ap->t != NULL)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
    if (ap->g != NULL)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
    if (ap->n_floats)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS;
    if (ap->n_ints)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
    if (ap->n_strings)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS;
    return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED;
}

static char *bytes_dup(const ember_allocator *al, ProtobufCBinaryData b)
{
    char *s = em_malloc(al, b.len + 1);
    if (s != NULL) {
        if (b.len > 0) {
            memcpy(s, b.data, b.len);
        }
        s[b.len] = '\0';
    }
    return s;
}

static ember_status *attr_strings(const ember_allocator *al, em_attr *a,
                                  const Onnx__AttributeProto *ap)
{
    a->strings = em_calloc(al, ap->n_strings ? ap->n_strings : 1, sizeof(char *));
    if (a->strings == NULL) {
        return em_status_oom();
    }
    for (size_t k = 0; k < ap->n_strings; k++) {
        a->strings[k] = bytes_dup(al, ap->strings[k]);
        a->n = (int64_t)k + 1;
        if (a->strings[k] == NULL) {
            return em_status_oom();
        }
    }
    return NULL;
}

static ember_status *attr_tensor(onnx_ctx *c, onnx_scope *sc, const onnx_pending *p,
                                 const Onnx__AttributeProto *ap, int node)
{
    em_tensor t;
    em_storage *s = NULL;
    size_t off;
    em_attr *a;
    char what[300];
    snprintf(what, sizeof what, "%s.%s", p->name, ap->name);
    ember_status *st = em_onnx_tensor_convert(c, ap->t, what, &t, &s, &off);
    if (st == NULL) {
        st = em_node_add_attr(sc->g, node, ap->name, EM_ATTR_TENSOR, &a);
    }
    if (st != NULL) {
        em_storage_release(s);
        return st;
    }
    a->t = t;
    a->t.data = (char *)em_storage_data(s) + off;
    a->storage = s;
    return NULL;
}

static ember_status *attr_graph(onnx_ctx *c, onnx_scope *sc, const Onnx__AttributeProto *ap,
                                int node)
{
    em_graph *sub = NULL;
    em_attr *a;
    ember_status *st = em_graph_new(sc->g->al, &sub);
    if (st == NULL) {
        st = build_graph(c, ap->g, sub, sc, sc->depth + 1);
    }
    if (st == NULL) {
        st = em_node_add_attr(sc->g, node, ap->name, EM_ATTR_GRAPH, &a);
    }
    if (st != NULL) {
        em_graph_destroy(sub);
        return st;
    }
    a->g = sub;
    return NULL;
}

static ember_status *attr_convert(onnx_ctx *c, onnx_scope *sc, const onnx_pending *p,
                                  const Onnx__AttributeProto *ap, int node)
{
    em_graph *g = sc->g;
    em_attr *a = NULL;
    ember_status *st = NULL;
    switch (attr_type(ap)) {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
        return em_node_set_float(g, node, ap->name, ap->f);
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
        return em_node_set_int(g, node, ap->name, ap->i);
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
        st = em_node_add_attr(g, node, ap->name, EM_ATTR_STRING, &a);
        if (st == NULL && (a->s = bytes_dup(g->al, ap->s)) == NULL) {
            st = em_status_oom();
        }
        return st;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
        return em_node_set_ints(g, node, ap->name, ap->ints, (int64_t)ap->n_ints);
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
        return em_node_set_floats(g, node, ap->name, ap->floats, (int64_t)ap->n_floats);
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS:
        st = em_node_add_attr(g, node, ap->name, EM_ATTR_STRINGS, &a);
        return st != NULL ? st : attr_strings(g->al, a, ap);
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR:
        if (ap->t == NULL) {
            break;
        }
        return attr_tensor(c, sc, p, ap, node);
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH:
        if (ap->g == NULL) {
            break;
        }
        return attr_graph(c, sc, ap, node);
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO: {
        /* Kept as ints (kind, element dtype): Optional's `type` is the one user. */
        em_vtype vt;
        ember_dtype dt;
        const Onnx__TensorShapeProto *shape;
        char what[300];
        snprintf(what, sizeof what, "node '%s' (%s): attribute '%s'", p->name, p->np->op_type,
                 ap->name);
        st = type_decode(c, ap->tp, what, &vt, &dt, &shape);
        int64_t v[2] = {vt == EM_VT_OPTIONAL_SEQUENCE ? EM_VT_SEQUENCE : vt, dt};
        return st != NULL ? st : em_node_set_ints(g, node, ap->name, v, 2);
    }
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED:
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL, "node '%s' (%s): attribute '%s' has no type",
                        p->name, p->np->op_type, ap->name);
    default:
        return em_onnx_err(c, EMBER_ERR_UNSUPPORTED,
                        "node '%s' (%s): attribute '%s' is of a kind ember does not support "
                        "(sparse tensor, type proto, tensor or graph list)",
                        p->name, p->np->op_type, ap->name);
    }
    return em_onnx_err(c, EMBER_ERR_INVALID_MODEL, "node '%s' (%s): attribute '%s' has no value",
                    p->name, p->np->op_type, ap->name);
}

ember_status *em_onnx_copy_attrs(onnx_ctx *c, onnx_scope *sc, const onnx_pending *p, int node)
{
    ember_status *st = NULL;
    for (size_t i = 0; i < p->np->n_attribute && st == NULL; i++) {
        const Onnx__AttributeProto *ap = p->np->attribute[i];
        if (!p->skip_attr[i] && ap->name != NULL) {
            st = attr_convert(c, sc, p, ap, node);
        }
    }
    for (int i = 0; i < p->n_extra && st == NULL; i++) {
        const onnx_extra_attr *e = &p->extra[i];
        st = e->type == EM_ATTR_INT ? em_node_set_int(sc->g, node, e->name, e->i)
                                    : em_node_set_string(sc->g, node, e->name, e->s);
    }
    return st;
}

/* ---- nodes ---- */

/* Constant nodes become initializers named after their output. */
static ember_status *constant_convert(onnx_ctx *c, onnx_scope *sc, const onnx_pending *p)
{
    const Onnx__NodeProto *np = p->np;
    em_graph *g = sc->g;
    int idx = -1;
    ember_status *st = NULL;
    if (np->n_output != 1 || np->n_attribute != 1 || np->output[0][0] == '\0') {
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL,
                        "node '%s' (Constant): needs one output and one attribute", p->name);
    }
    const Onnx__AttributeProto *ap = np->attribute[0];
    const char *an = ap->name != NULL ? ap->name : "", *out = np->output[0];
    int64_t n;
    if (strcmp(an, "value") == 0 && ap->t != NULL) {
        em_tensor t;
        em_storage *s = NULL;
        size_t off;
        st = em_onnx_tensor_convert(c, ap->t, out, &t, &s, &off);
        if (st == NULL) {
            st = em_graph_add_initializer(g, out, t.dtype, t.rank, t.dims, s, off, &idx);
            st = st != NULL ? wrap(c, st) : NULL;
        }
        em_storage_release(s);
    } else if (strcmp(an, "value_float") == 0) {
        st = wrap(c, em_graph_add_initializer_copy(g, out, EMBER_DTYPE_F32, 0, NULL, &ap->f, &idx));
    } else if (strcmp(an, "value_int") == 0) {
        st = wrap(c, em_graph_add_initializer_copy(g, out, EMBER_DTYPE_I64, 0, NULL, &ap->i, &idx));
    } else if (strcmp(an, "value_floats") == 0) {
        n = (int64_t)ap->n_floats;
        st = wrap(c,
                  em_graph_add_initializer_copy(g, out, EMBER_DTYPE_F32, 1, &n, ap->floats, &idx));
    } else if (strcmp(an, "value_ints") == 0) {
        n = (int64_t)ap->n_ints;
        st = wrap(c, em_graph_add_initializer_copy(g, out, EMBER_DTYPE_I64, 1, &n, ap->ints, &idx));
    } else if ((strcmp(an, "value_string") == 0 &&
                ap->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING) ||
               (strcmp(an, "value_strings") == 0 &&
                ap->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS)) {
        st = em_onnx_const_strings(c, g, ap, out, &idx);
    } else {
        return em_onnx_err(c, EMBER_ERR_UNSUPPORTED,
                        "node '%s' (Constant): attribute '%s' is not supported (sparse "
                        "constants are not)",
                        p->name, an);
    }
    return st != NULL ? st : em_onnx_scope_put(c, sc, idx);
}

/* Resolves the node's inputs; trailing empty names (omitted optionals) are dropped. */
static ember_status *node_inputs(onnx_ctx *c, onnx_scope *sc, onnx_pending *p)
{
    const Onnx__NodeProto *np = p->np;
    size_t n = np->n_input;
    while (n > 0 && np->input[n - 1][0] == '\0') {
        n--;
    }
    for (size_t k = 0; k < n; k++) {
        p->in[k] = -1;
        if (np->input[k][0] != '\0') {
            ember_status *st = scope_resolve(c, sc, np->input[k], &p->in[k]);
            if (st != NULL) {
                return st;
            }
            if (p->in[k] < 0) {
                return em_onnx_err(c, EMBER_ERR_INVALID_MODEL,
                                "node '%s' (%s): input %zu '%s' is not defined before the node",
                                p->name, np->op_type, k, np->input[k]);
            }
        }
    }
    p->n_in = (int)n;
    n = np->n_output;
    while (n > 0 && np->output[n - 1][0] == '\0') {
        n--;
    }
    p->n_out = (int)n;
    return NULL;
}

/* Adds the normalised node: outputs the op does not have must be unused. */
static ember_status *node_commit(onnx_ctx *c, onnx_scope *sc, onnx_pending *p)
{
    em_op id;
    int ni;
    if (!em_op_from_name(p->op, &id)) {
        return em_onnx_err(c, EMBER_ERR_UNSUPPORTED, "node '%s' (%s): needs op %s, which ember lacks",
                        p->name, p->np->op_type, p->op);
    }
    const em_op_info *info = em_op_info_of(id);
    while (p->n_out > info->max_out) {
        const char *o = p->np->output[p->n_out - 1];
        if (o[0] != '\0' && em_onnx_name_used(sc, o)) {
            return em_onnx_err(c, EMBER_ERR_UNSUPPORTED,
                            "node '%s' (%s): output %d '%s' is used, ember computes only %d "
                            "output(s) of %s",
                            p->name, p->np->op_type, p->n_out - 1, o, info->max_out, p->op);
        }
        p->n_out--;
    }
    ember_status *st = em_graph_add_node(sc->g, id, p->name, p->in, p->n_in,
                                         (const char *const *)p->np->output, p->n_out, &ni);
    if (st != NULL) {
        return wrap(c, st);
    }
    for (int o = 0; o < p->n_out; o++) {
        if (p->np->output[o][0] != '\0') {
            st = em_onnx_scope_put(c, sc, sc->g->nodes[ni].out[o]);
            if (st != NULL) {
                return st;
            }
        }
    }
    return em_onnx_copy_attrs(c, sc, p, ni);
}

ember_status *em_onnx_node_convert(onnx_ctx *c, onnx_scope *sc, const Onnx__NodeProto *np,
                                size_t index)
{
    char nbuf[32];
    if (np->op_type == NULL || np->op_type[0] == '\0') {
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL, "node %zu has no op_type", index);
    }
    onnx_pending p = {.np = np, .op = em_onnx_opset_target(np->op_type)};
    if (np->name != NULL && np->name[0] != '\0') {
        p.name = np->name;
    } else {
        snprintf(nbuf, sizeof nbuf, "#%zu", index);
        p.name = nbuf;
    }
    if (strcmp(np->op_type, "Constant") == 0) {
        return constant_convert(c, sc, &p);
    }
    const ember_allocator *al = sc->g->al;
    p.in = em_malloc(al, sizeof(int) * (np->n_input + ONNX_EXTRA_INPUTS));
    p.skip_attr = em_calloc(al, np->n_attribute + 1, sizeof(bool));
    ember_status *st = p.in == NULL || p.skip_attr == NULL ? em_status_oom() : NULL;
    if (st == NULL) {
        st = node_inputs(c, sc, &p);
    }
    if (st == NULL) {
        st = strcmp(np->op_type, "Gradient") == 0        ? em_onnx_gradient_convert(c, sc, &p)
             : strcmp(np->op_type, "FlexAttention") == 0 ? em_onnx_flex_convert(c, sc, &p)
             : em_onnx_ms_expanded(np->op_type)          ? em_onnx_ms_convert(c, sc, &p)
                                                         : em_onnx_opset_normalise(c, sc, &p);
    }
    if (st == NULL && !p.emitted) {
        st = node_commit(c, sc, &p);
    }
    em_free(al, p.in);
    em_free(al, p.skip_attr);
    return st;
}

/* ---- graphs ---- */

/* The kind, element dtype and (element) shape a TypeProto describes: a tensor, a sequence of
 * tensors, or an optional of either. */
static ember_status *type_decode(onnx_ctx *c, const Onnx__TypeProto *tp, const char *name,
                                 em_vtype *vt, ember_dtype *dt,
                                 const Onnx__TensorShapeProto **shape)
{
    *vt = EM_VT_TENSOR;
    if (tp != NULL && tp->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE &&
        tp->optional_type != NULL) {
        *vt = EM_VT_OPTIONAL;
        tp = tp->optional_type->elem_type;
    }
    if (tp != NULL && tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE &&
        tp->sequence_type != NULL) {
        *vt = *vt == EM_VT_OPTIONAL ? EM_VT_OPTIONAL_SEQUENCE : EM_VT_SEQUENCE;
        tp = tp->sequence_type->elem_type;
    }
    if (tp == NULL || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
        tp->tensor_type == NULL) {
        return em_onnx_err(c, EMBER_ERR_UNSUPPORTED,
                        "'%s': only tensors, sequences of tensors and optionals of those are "
                        "supported (not maps or sparse tensors)",
                        name);
    }
    bool known;
    *dt = em_onnx_dtype(tp->tensor_type->elem_type, &known);
    if (!known) {
        return em_onnx_err(c, EMBER_ERR_UNSUPPORTED, "'%s': element type %d is not supported",
                        name, (int)tp->tensor_type->elem_type);
    }
    *shape = tp->tensor_type->shape;
    if (*shape != NULL && (*shape)->n_dim > EM_MAX_RANK) {
        return em_onnx_err(c, EMBER_ERR_UNSUPPORTED, "'%s': rank %zu exceeds the maximum %d", name,
                        (*shape)->n_dim, EM_MAX_RANK);
    }
    return NULL;
}

static ember_status *value_info_type(onnx_ctx *c, const Onnx__ValueInfoProto *vi, const char *name,
                                     int depth, em_vtype *vt, ember_dtype *dt,
                                     const Onnx__TensorShapeProto **shape)
{
    char what[300];
    if (depth > 0 && (vi->type == NULL || vi->type->value_case == ONNX__TYPE_PROTO__VALUE__NOT_SET)) {
        *vt = EM_VT_TENSOR; /* a body input may leave its type to the enclosing node */
        *dt = EMBER_DTYPE_UNDEFINED;
        *shape = NULL;
        return NULL;
    }
    snprintf(what, sizeof what, "input '%s'", name);
    return type_decode(c, vi->type, what, vt, dt, shape);
}

static ember_status *graph_input(onnx_ctx *c, onnx_scope *sc, const Onnx__ValueInfoProto *vi)
{
    const char *name = vi->name != NULL ? vi->name : "";
    if (name[0] == '\0') {
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL, "a graph input has no name");
    }
    int idx = scope_find(sc, name);
    if (idx >= 0 && sc->g->values[idx].kind == EM_VAL_INITIALIZER) {
        return NULL; /* IR < 4 lists initializers among the inputs: they stay constants */
    }
    ember_dtype dt = EMBER_DTYPE_UNDEFINED;
    em_vtype vt = EM_VT_TENSOR;
    const Onnx__TensorShapeProto *shape = NULL;
    int64_t dims[EM_MAX_RANK];
    const char *names[EM_MAX_RANK];
    ember_status *st = value_info_type(c, vi, name, sc->depth, &vt, &dt, &shape);
    if (st != NULL) {
        return st;
    }
    int rank = shape != NULL ? (int)shape->n_dim : -1;
    for (int d = 0; d < rank; d++) {
        const Onnx__TensorShapeProto__Dimension *dim = shape->dim[d];
        bool has_v = dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        bool has_p = dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
        if (has_v && dim->dim_value < 0) {
            return em_onnx_err(c, EMBER_ERR_INVALID_MODEL, "graph input '%s': dim %d is %lld (a "
                               "declared dim is a size >= 0 or a name)", name, d,
                               (long long)dim->dim_value);
        }
        dims[d] = has_v ? dim->dim_value : -1;
        names[d] = has_p ? dim->dim_param : NULL;
    }
    st = em_graph_add_input(sc->g, name, dt, rank, dims, names, &idx);
    if (st == NULL) {
        sc->g->values[idx].vt = vt;
    }
    return st != NULL ? wrap(c, st) : em_onnx_scope_put(c, sc, idx);
}

static ember_status *graph_initializers(onnx_ctx *c, onnx_scope *sc, const Onnx__GraphProto *gp)
{
    bool hints = sc->depth == 0 && c->n_raw == gp->n_initializer;
    const uint8_t *image = c->image != NULL ? em_storage_data(c->image) : NULL;
    for (size_t i = 0; i < gp->n_initializer; i++) {
        const Onnx__TensorProto *tp = gp->initializer[i];
        const char *name = tp->name != NULL ? tp->name : "";
        if (name[0] == '\0') {
            return em_onnx_err(c, EMBER_ERR_INVALID_MODEL, "initializer %zu has no name", i);
        }
        Onnx__TensorProto in_place;
        if (c->stripped && sc->depth == 0) { /* the skeleton lacks raw_data: read it in place */
            if (!hints) {
                return em_onnx_err(c, EMBER_ERR_INVALID_MODEL,
                                "initializer '%s': its raw_data could not be located", name);
            }
            in_place = *tp;
            in_place.has_raw_data = c->raw[i].present;
            in_place.raw_data.data = c->raw[i].present ? (uint8_t *)image + c->raw[i].off : NULL;
            in_place.raw_data.len = c->raw[i].present ? c->raw[i].len : 0;
            tp = &in_place;
        }
        em_tensor t;
        em_storage *s = NULL;
        size_t off;
        int idx;
        ember_status *st = em_onnx_tensor_convert(c, tp, name, &t, &s, &off);
        if (st == NULL) {
            st = wrap(c,
                      em_graph_add_initializer(sc->g, name, t.dtype, t.rank, t.dims, s, off, &idx));
        }
        em_storage_release(s);
        if (st == NULL) {
            st = em_onnx_scope_put(c, sc, idx);
        }
        if (st != NULL) {
            return st;
        }
    }
    return NULL;
}

static ember_status *graph_outputs(onnx_ctx *c, onnx_scope *sc, const Onnx__GraphProto *gp)
{
    for (size_t i = 0; i < gp->n_output; i++) {
        const char *name = gp->output[i]->name != NULL ? gp->output[i]->name : "";
        int idx;
        ember_status *st = scope_resolve(c, sc, name, &idx);
        if (st == NULL && idx < 0) {
            st = em_onnx_err(c, EMBER_ERR_INVALID_MODEL, "graph output '%s' is never produced", name);
        }
        if (st == NULL) {
            st = wrap(c, em_graph_mark_output(sc->g, idx));
        }
        if (st != NULL) {
            return st;
        }
    }
    return NULL;
}

static ember_status *build_graph(onnx_ctx *c, const Onnx__GraphProto *gp, em_graph *g,
                                 onnx_scope *parent, int depth)
{
    onnx_scope sc;
    if (depth > EM_ONNX_MAX_DEPTH) { /* em_onnx_wire_scan already refused these */
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL, "subgraphs nested deeper than %d levels",
                        EM_ONNX_MAX_DEPTH);
    }
    if (gp->n_node > ONNX_MAX_ITEMS || gp->n_initializer > ONNX_MAX_ITEMS ||
        gp->n_input > ONNX_MAX_ITEMS || gp->n_output > ONNX_MAX_ITEMS) {
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL, "graph '%s' has too many nodes or values",
                        gp->name != NULL ? gp->name : "");
    }
    ember_status *st = scope_init(&sc, g, parent, gp);
    sc.depth = depth;
    if (st == NULL) {
        st = graph_initializers(c, &sc, gp);
    }
    for (size_t i = 0; i < gp->n_input && st == NULL; i++) {
        st = graph_input(c, &sc, gp->input[i]);
    }
    for (size_t i = 0; i < gp->n_node && st == NULL; i++) {
        st = em_onnx_node_convert(c, &sc, gp->node[i], i);
    }
    if (st == NULL) {
        st = graph_outputs(c, &sc, gp);
    }
    scope_free(&sc);
    return st;
}

/* ---- whole model ---- */

bool em_onnx_op_supported(const char *op_type)
{
    em_op id;
    return strcmp(op_type, "Constant") == 0 || strcmp(op_type, "Gradient") == 0 ||
           strcmp(op_type, "FlexAttention") == 0 || em_onnx_ms_expanded(op_type) ||
           em_op_from_name(em_onnx_opset_target(op_type), &id);
}

/* Lists every node of `gp` and its subgraphs whose op ember cannot load. */
static void list_unsupported(const Onnx__GraphProto *gp, em_strbuf *sb, int *n)
{
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *np = gp->node[i];
        const char *op = np->op_type != NULL ? np->op_type : "";
        bool dflt = is_default_domain(np->domain);
        if (!domain_op_known(np->domain, op) || !em_onnx_op_supported(op)) {
            em_strbuf_printf(sb, "%s", (*n)++ ? ", " : "");
            if (np->name != NULL && np->name[0] != '\0') {
                em_strbuf_printf(sb, "node '%s' (%s", np->name, op);
            } else {
                em_strbuf_printf(sb, "node #%zu (%s", i, op);
            }
            if (dflt) {
                em_strbuf_printf(sb, ")");
            } else {
                em_strbuf_printf(sb, ", domain '%s')", np->domain);
            }
        }
        for (size_t a = 0; a < np->n_attribute; a++) {
            const Onnx__AttributeProto *ap = np->attribute[a];
            if (ap->g != NULL) {
                list_unsupported(ap->g, sb, n);
            }
            for (size_t k = 0; k < ap->n_graphs; k++) {
                list_unsupported(ap->graphs[k], sb, n);
            }
        }
    }
}

static ember_status *check_ops(onnx_ctx *c, const Onnx__GraphProto *gp)
{
    em_strbuf sb;
    int n = 0;
    em_strbuf_init(&sb, c->al);
    list_unsupported(gp, &sb, &n);
    if (n == 0) {
        em_strbuf_free(&sb);
        return NULL;
    }
    char *text = em_strbuf_take(&sb);
    if (text == NULL) {
        return em_status_oom();
    }
    ember_status *st = em_status_new(EMBER_ERR_UNSUPPORTED, "onnx: %s: unsupported operator%s: %s",
                                     c->what, n > 1 ? "s" : "", text);
    free(text); /* em_strbuf_take hands out libc memory */
    return st;
}

/* The first node of `gp` or its subgraphs in the default domain, or NULL. */
static const Onnx__NodeProto *default_domain_node(const Onnx__GraphProto *gp)
{
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *np = gp->node[i], *sub = NULL;
        if (is_default_domain(np->domain)) {
            return np;
        }
        for (size_t a = 0; a < np->n_attribute && sub == NULL; a++) {
            const Onnx__AttributeProto *ap = np->attribute[a];
            sub = ap->g != NULL ? default_domain_node(ap->g) : NULL;
            for (size_t k = 0; k < ap->n_graphs && sub == NULL; k++) {
                sub = default_domain_node(ap->graphs[k]);
            }
        }
        if (sub != NULL) {
            return sub;
        }
    }
    return NULL;
}

/* A model that does not import the default domain must not use it. */
static ember_status *check_default_unused(onnx_ctx *c, const Onnx__GraphProto *gp)
{
    const Onnx__NodeProto *np = c->no_default ? default_domain_node(gp) : NULL;
    if (np != NULL) {
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL,
                        "node '%s' (%s) is of the default domain, which the model does not "
                        "import",
                        np->name != NULL ? np->name : "", np->op_type != NULL ? np->op_type : "");
    }
    return NULL;
}

static ember_status *read_opsets(onnx_ctx *c, const Onnx__ModelProto *mp, em_onnx_opsets *os)
{
    bool found = false, other = false; /* other: the training or ml domain is imported */
    c->opset = 1;
    if (mp->n_opset_import > 4096) {
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL, "%zu opset imports", mp->n_opset_import);
    }
    os->domains = em_calloc(c->al, mp->n_opset_import + 1, sizeof(char *));
    os->versions = em_calloc(c->al, mp->n_opset_import + 1, sizeof(int64_t));
    if (os->domains == NULL || os->versions == NULL) {
        return em_status_oom();
    }
    for (size_t i = 0; i < mp->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *op = mp->opset_import[i];
        const char *d = op->domain != NULL ? op->domain : "";
        os->domains[i] = em_strdup(c->al, d);
        if (os->domains[i] == NULL) {
            return em_status_oom();
        }
        os->versions[i] = op->version;
        os->n = i + 1;
        other = other || strcmp(d, training_domain) == 0;
        if (strcmp(d, ml_domain) == 0) {
            if (op->version < 1 || op->version > EM_ONNX_ML_OPSET_MAX) {
                return em_onnx_err(c, EMBER_ERR_UNSUPPORTED, "opset %lld of domain '%s' is not "
                                "supported (1 to %d are)", (long long)op->version, d,
                                EM_ONNX_ML_OPSET_MAX);
            }
            other = true;
        }
        if (strcmp(d, preview_domain) == 0) {
            if (op->version != 1) {
                return em_onnx_err(c, EMBER_ERR_UNSUPPORTED, "opset %lld of domain '%s' is not "
                                "supported (1 is)", (long long)op->version, d);
            }
            other = true;
        }
        if (!is_default_domain(d)) {
            continue;
        }
        if (found) {
            return em_onnx_err(c, EMBER_ERR_INVALID_MODEL, "the default domain is imported twice");
        }
        found = true;
        c->opset = op->version;
    }
    if (!found && (other || mp->n_opset_import > 0)) {
        /* Other domains only (ai.onnx.ml, training ops): valid as long as no node is of the
         * default domain (check_default_unused); nothing to rewrite. */
        c->opset = EM_ONNX_OPSET_MAX;
        c->no_default = true;
    } else if (!found && mp->ir_version >= 3) {
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL, "no opset import for the default domain");
    }
    if (c->opset < EM_ONNX_OPSET_MIN || c->opset > EM_ONNX_OPSET_MAX) {
        return em_onnx_err(c, EMBER_ERR_UNSUPPORTED,
                        "opset %lld of the default domain is not supported (%d to %d are)",
                        (long long)c->opset, EM_ONNX_OPSET_MIN, EM_ONNX_OPSET_MAX);
    }
    return NULL;
}

void em_onnx_opsets_free(const ember_allocator *al, em_onnx_opsets *os)
{
    for (size_t i = 0; os->domains != NULL && i < os->n; i++) {
        em_free(al, os->domains[i]);
    }
    em_free(al, os->domains);
    em_free(al, os->versions);
    memset(os, 0, sizeof *os);
}

/* The realpath of the folder holding `path`, into c->dir. */
static ember_status *folder_of(onnx_ctx *c, const char *path)
{
    char *real = realpath(path, NULL);
    char *slash = real != NULL ? strrchr(real, '/') : NULL;
    if (slash == NULL) {
        free(real);
        return em_onnx_err(c, EMBER_ERR_IO, "cannot resolve the model's folder");
    }
    *(slash == real ? slash + 1 : slash) = '\0';
    c->dir = em_strdup(c->al, real);
    free(real); /* realpath() allocates with libc */
    return c->dir == NULL ? em_status_oom() : NULL;
}

/* The model's description fields and metadata_props as graph metadata. */
static ember_status *read_metadata(const Onnx__ModelProto *mp, em_graph *g)
{
    ember_status *st = NULL;
    char version[24];
    snprintf(version, sizeof version, "%lld", (long long)mp->model_version);
    const struct { const char *key, *val; } fields[] = {
        {"producer_name", mp->producer_name},
        {"producer_version", mp->producer_version},
        {"domain", mp->domain},
        {"model_version", mp->has_model_version ? version : NULL},
        {"doc_string", mp->doc_string},
        {"graph_name", mp->graph->name},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (fields[i].val != NULL && fields[i].val[0] != '\0') {
            EMBER_TRY(em_graph_set_meta(g, fields[i].key, fields[i].val));
        }
    }
    for (size_t i = 0; i < mp->n_metadata_props; i++) {
        const Onnx__StringStringEntryProto *e = mp->metadata_props[i];
        if (e->key != NULL && e->value != NULL) {
            EMBER_TRY(em_graph_set_meta(g, e->key, e->value));
        }
    }
    return NULL;
fail:
    return st;
}

ember_status *em_onnx_load(em_storage *image, const char *path, em_graph *g, em_onnx_opsets *opsets)
{
    onnx_pb_alloc pa;
    Onnx__ModelProto *mp = NULL;
    uint8_t *skel = NULL;
    size_t skel_size = 0;
    onnx_ctx c = {.al = g->al, .what = path != NULL ? path : "<memory>", .image = image};
    ember_status *st = NULL;
    const uint8_t *data = em_storage_data(image);
    size_t size = em_storage_size(image);
    memset(opsets, 0, sizeof *opsets);
    em_onnx_pb_allocator(g->al, &pa);
    EMBER_TRY(em_onnx_wire_scan(&c, data, size));
    EMBER_TRY(em_onnx_wire_strip(&c, data, size, &skel, &skel_size));
    c.stripped = skel != NULL;
    mp = skel != NULL ? em_onnx__model_proto__unpack(&pa.pa, skel_size, skel)
                      : em_onnx__model_proto__unpack(&pa.pa, size, data);
    em_free(g->al, skel); /* protobuf-c copied what it keeps */
    skel = NULL;
    if (mp == NULL) {
        st = pa.failed ? em_status_oom()
                       : em_onnx_err(&c, EMBER_ERR_INVALID_MODEL,
                                  "not a valid ONNX model (protobuf parse error)");
        goto fail;
    }
    if (mp->graph == NULL) {
        st = em_onnx_err(&c, EMBER_ERR_INVALID_MODEL, "the model has no graph");
        goto fail;
    }
    if (mp->ir_version < 1 || mp->ir_version > EM_ONNX_IR_VERSION_MAX) {
        st = em_onnx_err(&c, mp->ir_version > EM_ONNX_IR_VERSION_MAX ? EMBER_ERR_UNSUPPORTED
                                                                     : EMBER_ERR_INVALID_MODEL,
                         "ir_version %lld is outside 1 to %d (%d is the newest ember knows, "
                         "ONNX 1.23's)", (long long)mp->ir_version, EM_ONNX_IR_VERSION_MAX,
                         EM_ONNX_IR_VERSION_MAX);
        goto fail;
    }
    EMBER_TRY(read_opsets(&c, mp, opsets));
    EMBER_TRY(check_default_unused(&c, mp->graph));
    EMBER_TRY(check_ops(&c, mp->graph));
    if (path != NULL) {
        EMBER_TRY(folder_of(&c, path));
    }
    if (mp->graph->n_output == 0) {
        st = em_onnx_err(&c, EMBER_ERR_INVALID_MODEL, "graph '%s' has no outputs",
                         mp->graph->name != NULL ? mp->graph->name : "");
        goto fail;
    }
    EMBER_TRY(build_graph(&c, mp->graph, g, NULL, 0));
    EMBER_TRY(read_metadata(mp, g));
    goto done;
fail:
    em_onnx_opsets_free(g->al, opsets);
done:
    em_free(g->al, skel);
    if (mp != NULL) {
        em_onnx__model_proto__free_unpacked(mp, &pa.pa);
    }
    em_onnx_ext_free(&c);
    em_free(g->al, c.raw);
    em_free(g->al, c.dir);
    return st;
}
