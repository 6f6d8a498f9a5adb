/* SPDX-License-Identifier: Apache-2.0 */
/* The ONNX model writer: see onnx_write.h. Field numbers are onnx.proto's. */
#define _POSIX_C_SOURCE 200809L
#include "onnx_write.h"

#include "core/alloc.h"
#include "core/file_write.h"
#include "core/lowp.h"
#include "core/status.h"
#include "core/strtensor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* onnx.proto: AttributeProto.AttributeType and TypeProto / TensorProto fields used below. */
enum { AT_FLOAT = 1, AT_INT, AT_STRING, AT_TENSOR, AT_GRAPH, AT_FLOATS, AT_INTS, AT_STRINGS };

typedef struct wctx {
    const em_onnx_write_opts *o;
    int64_t opset;      /* the default domain's, once chosen */
    bool uses_ml, uses_training, uses_ms;
    bool ext;           /* initializers of EM_ONNX_WRITE_EXT_MIN bytes or more go to `data` */
    em_afile *data;
    const char *data_name; /* the data file's name as written in `location` */
    uint64_t data_off;
} wctx;

/* ---- ops: domains and first opsets ---- */

static const char *const ml_ops[] = {"ArrayFeatureExtractor", "Binarizer", "LabelEncoder",
                                     "TreeEnsemble"};
static const char *const training_ops[] = {"Adagrad", "Adam", "Momentum"};
/* ONNX Runtime's quantized contrib ops (com.microsoft, version 1; onnx_load.c reads them). */
static const char *const ms_ops[] = {"QLinearAdd",         "QLinearMul",
                                     "QLinearSigmoid",     "QLinearLeakyRelu",
                                     "QLinearConcat",      "QLinearAveragePool",
                                     "QLinearGlobalAveragePool", "QGemm"};
/* Ops that ember's IR has only for its own plans (runtime/ir/ops_nn.def). */
static const char *const internal_ops[] = {"FusedConv",        "FusedGemm",          "ReorderToBlocked",
                                           "ReorderFromBlocked", "BlockedPool",        "BlockedAffine",
                                           "BlockedLayerNorm", "BlockedSE"};
/* Default-domain ops that first appeared after opset 21 (onnx.defs: the lowest since_version). */
static const struct {
    const char *op;
    int64_t since;
} late_ops[] = {{"Attention", 23},           {"RMSNormalization", 23}, {"RotaryEmbedding", 23},
                {"TensorScatter", 24},       {"Swish", 24},            {"BitCast", 26},
                {"CumProd", 26},             {"LinearAttention", 27},  {"CausalConvWithState", 27},
                {"SwiGLU", 28}};

static bool in_list(const char *const *list, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(list[i], s) == 0) {
            return true;
        }
    }
    return false;
}
#define IN_LIST(l, s) in_list((l), sizeof(l) / sizeof((l)[0]), (s))

static const char *node_label(const em_node *n, int index, char *buf, size_t cap)
{
    if (n->name[0] != '\0') {
        snprintf(buf, cap, "node '%s' (%s)", n->name, em_op_name(n->op));
    } else {
        snprintf(buf, cap, "node #%d (%s)", index, em_op_name(n->op));
    }
    return buf;
}

/* Checks every node of g (and its subgraphs) can be written and notes what it needs. */
static ember_status *survey(wctx *c, const em_graph *g, int64_t *need)
{
    char lb[320];
    for (int i = 0; i < g->n_nodes; i++) {
        const em_node *n = &g->nodes[i];
        const char *op = em_op_name(n->op);
        if (IN_LIST(internal_ops, op)) {
            return em_status_new(EMBER_ERR_UNSUPPORTED,
                                 "%s is internal to ember's plans and has no ONNX form (save "
                                 "a model loaded with EMBER_GRAPH_OPT_FOLD: `--optimize fold`)",
                                 node_label(n, i, lb, sizeof lb));
        }
        if (em_node_attr_int(n, "ember_scan8", 0) != 0) {
            return em_status_new(EMBER_ERR_UNSUPPORTED,
                                 "%s: the Scan-8 form (batch axis, sequence_lens) has no form at "
                                 "opset %d or later", node_label(n, i, lb, sizeof lb),
                                 EM_ONNX_WRITE_OPSET_MIN);
        }
        if (em_node_attr_int(n, "em_dynamic_qmax", 0) != 0) {
            return em_status_new(EMBER_ERR_UNSUPPORTED,
                                 "%s quantizes its hidden state at every step (PyTorch's "
                                 "dynamically quantized layer), which no ONNX op says",
                                 node_label(n, i, lb, sizeof lb));
        }
        c->uses_ml |= IN_LIST(ml_ops, op);
        c->uses_training |= IN_LIST(training_ops, op);
        c->uses_ms |= IN_LIST(ms_ops, op);
        for (size_t k = 0; k < sizeof late_ops / sizeof late_ops[0]; k++) {
            if (strcmp(late_ops[k].op, op) == 0 && late_ops[k].since > *need) {
                *need = late_ops[k].since;
            }
        }
        for (int a = 0; a < n->n_attrs; a++) {
            if (n->attrs[a].type == EM_ATTR_GRAPH && n->attrs[a].g != NULL) {
                ember_status *st = survey(c, n->attrs[a].g, need);
                if (st != NULL) {
                    return st;
                }
            }
        }
    }
    for (int v = 0; v < g->n_values; v++) {
        if (g->values[v].q != NULL) {
            return em_status_new(EMBER_ERR_UNSUPPORTED,
                                 "value '%s' carries quantization parameters, which ONNX keeps "
                                 "in QuantizeLinear / DequantizeLinear nodes instead",
                                 g->values[v].name);
        }
    }
    return NULL;
}

static const char *op_domain(const char *op)
{
    if (IN_LIST(ml_ops, op)) {
        return "ai.onnx.ml";
    }
    if (IN_LIST(ms_ops, op)) {
        return "com.microsoft";
    }
    return IN_LIST(training_ops, op) ? "ai.onnx.preview.training" : "";
}

/* onnx's VERSION_TABLE: the IR version that came with each default-domain opset. */
static int64_t ir_version_for(int64_t opset)
{
    static const int64_t ir[][2] = {{8, 3},   {9, 4},   {10, 5},  {11, 6},  {13, 7},
                                    {15, 8},  {19, 9},  {21, 10}, {23, 11}, {24, 12},
                                    {25, 13}, {28, 14}};
    int64_t v = 3;
    for (size_t i = 0; i < sizeof ir / sizeof ir[0]; i++) {
        if (opset >= ir[i][0]) {
            v = ir[i][1];
        }
    }
    return v;
}

/* ---- names ---- */

typedef struct names {
    char **s; /* one per value: the name to write */
    int n;
} names;

static void names_free(names *nm)
{
    for (int i = 0; i < nm->n; i++) {
        free(nm->s[i]);
    }
    free(nm->s);
    *nm = (names){0};
}

typedef struct sort_item {
    const char *name;
    int idx;
} sort_item;

static int cmp_item(const void *a, const void *b)
{
    const sort_item *x = a, *y = b;
    int r = strcmp(x->name, y->name);
    return r != 0 ? r : (x->idx > y->idx) - (x->idx < y->idx);
}

/* Unique names for n strings: each one's own, unless taken by an earlier one (or empty when
 * `fill` is set), then "<name>__<index>" (ONNX values are single-assignment; ONNX Runtime also
 * wants node names unique). */
static ember_status *names_unique(const char *const *src, int n, bool fill, const char *dflt,
                                  names *nm)
{
    *nm = (names){0};
    nm->s = calloc(n > 0 ? (size_t)n : 1, sizeof *nm->s);
    sort_item *it = malloc((n > 0 ? (size_t)n : 1) * sizeof *it);
    if (nm->s == NULL || it == NULL) {
        free(it);
        free(nm->s);
        nm->s = NULL;
        return em_status_oom();
    }
    nm->n = n;
    for (int i = 0; i < n; i++) {
        it[i] = (sort_item){src[i] != NULL ? src[i] : "", i};
    }
    qsort(it, (size_t)n, sizeof *it, cmp_item);
    for (int k = 0; k < n; k++) {
        const char *name = it[k].name;
        bool clash = (fill && name[0] == '\0') ||
                     (name[0] != '\0' && k > 0 && strcmp(it[k - 1].name, name) == 0);
        size_t len = strlen(name) + (clash ? 40 : 1);
        char *s = malloc(len);
        if (s == NULL) {
            free(it);
            names_free(nm);
            return em_status_oom();
        }
        if (clash) {
            snprintf(s, len, "%s__%d", name[0] ? name : dflt, it[k].idx);
        } else {
            memcpy(s, name, len);
        }
        nm->s[it[k].idx] = s;
    }
    free(it);
    return NULL;
}

static ember_status *names_make(const em_graph *g, bool nodes, names *nm)
{
    int n = nodes ? g->n_nodes : g->n_values;
    const char **src = malloc((n > 0 ? (size_t)n : 1) * sizeof *src);
    if (src == NULL) {
        return em_status_oom();
    }
    for (int i = 0; i < n; i++) {
        src[i] = nodes ? g->nodes[i].name : g->values[i].name;
    }
    ember_status *st = names_unique(src, n, !nodes, "ember_value", nm);
    free(src);
    return st;
}

/* ---- messages ---- */

static ember_status *pb_oom(const em_pbuf *b, ember_status *st)
{
    if (st == NULL && b->failed) {
        return em_status_oom();
    }
    return st;
}

/* TensorProto of `t` (name may be NULL), inline or, when the context says so, external. */
static ember_status *write_tensor(wctx *c, em_pbuf *b, const em_tensor *t, const char *name,
                                  bool may_be_external)
{
    if (t->dtype == EMBER_DTYPE_STRING) {
        for (int i = 0; i < t->rank; i++) {
            em_pb_varint(b, 1, (uint64_t)t->dims[i]);
        }
        em_pb_varint(b, 2, (uint64_t)t->dtype);
        int64_t n = em_tensor_numel(t);
        for (int64_t i = 0; i < n; i++) {
            em_pb_string(b, 6, em_str_at(t, i));
        }
    } else {
        size_t nbytes = 0;
        if (em_dtype_size(t->dtype) == 0 || !em_tensor_nbytes_checked(t, &nbytes)) {
            return em_status_new(EMBER_ERR_UNSUPPORTED, "tensor '%s': cannot write a %s tensor",
                                 name ? name : "?", em_dtype_name(t->dtype));
        }
        if (may_be_external && c->ext && nbytes >= EM_ONNX_WRITE_EXT_MIN &&
            em_lowp_packed_bits(t->dtype) == 0) {
            static const uint8_t zeros[4096];
            uint64_t pad = (4096 - c->data_off % 4096) % 4096;
            em_afile_write(c->data, zeros, (size_t)pad);
            em_afile_write(c->data, t->data, nbytes);
            for (int i = 0; i < t->rank; i++) {
                em_pb_varint(b, 1, (uint64_t)t->dims[i]);
            }
            em_pb_varint(b, 2, (uint64_t)t->dtype);
            char num[32];
            const char *kv[3][2] = {{"location", c->data_name}, {"offset", NULL}, {"length", NULL}};
            for (int k = 0; k < 3; k++) {
                em_pbuf e = {0};
                em_pb_string(&e, 1, kv[k][0]);
                if (k == 0) {
                    em_pb_string(&e, 2, kv[k][1]);
                } else {
                    snprintf(num, sizeof num, "%llu",
                             (unsigned long long)(k == 1 ? c->data_off + pad : nbytes));
                    em_pb_string(&e, 2, num);
                }
                em_pb_message(b, 13, &e);
                em_pbuf_free(&e);
            }
            em_pb_varint(b, 14, 1); /* data_location: EXTERNAL */
            c->data_off += pad + nbytes;
        } else {
            ember_status *st = em_pb_tensor(b, t);
            if (st != NULL) {
                return name != NULL ? em_status_wrap(st, "tensor '%s'", name) : st;
            }
        }
    }
    if (name != NULL) {
        em_pb_string(b, 8, name);
    }
    return pb_oom(b, NULL);
}

/* TypeProto of value v. */
static void write_type(em_pbuf *b, const em_graph *g, const em_value *v)
{
    em_pbuf tensor = {0};
    em_pb_varint(&tensor, 1, (uint64_t)v->dtype);
    if (v->rank >= 0) {
        em_pbuf shape = {0};
        for (int d = 0; d < v->rank; d++) {
            em_pbuf dim = {0};
            if (v->dims[d].v >= 0) {
                em_pb_varint(&dim, 1, (uint64_t)v->dims[d].v);
            } else if (v->dims[d].sym > 0 && v->dims[d].sym <= g->n_syms) {
                em_pb_string(&dim, 2, g->sym_names[v->dims[d].sym - 1]);
            }
            em_pb_message(&shape, 1, &dim);
            em_pbuf_free(&dim);
        }
        em_pb_message(&tensor, 2, &shape);
        em_pbuf_free(&shape);
    }
    em_pbuf tp = {0};
    em_pb_message(&tp, 1, &tensor); /* tensor_type */
    em_pbuf_free(&tensor);
    if (v->vt == EM_VT_TENSOR) {
        em_pb_message(b, 2, &tp);
    } else {
        /* sequence_type (4) / optional_type (9) wrap the element's TypeProto in elem_type (1) */
        em_pbuf inner = {0};
        if (v->vt == EM_VT_OPTIONAL_SEQUENCE) {
            em_pbuf seq = {0}, seqt = {0};
            em_pb_message(&seq, 1, &tp);
            em_pb_message(&seqt, 4, &seq);
            em_pb_message(&inner, 1, &seqt);
            em_pbuf_free(&seq);
            em_pbuf_free(&seqt);
        } else {
            em_pb_message(&inner, 1, &tp);
        }
        em_pbuf outer = {0};
        em_pb_message(&outer, v->vt == EM_VT_SEQUENCE ? 4 : 9, &inner);
        em_pb_message(b, 2, &outer);
        em_pbuf_free(&inner);
        em_pbuf_free(&outer);
    }
    em_pbuf_free(&tp);
}

static void write_value_info(em_pbuf *b, uint32_t field, const em_graph *g, const names *nm,
                             int v)
{
    em_pbuf vi = {0};
    em_pb_string(&vi, 1, nm->s[v]);
    write_type(&vi, g, &g->values[v]);
    em_pb_message(b, field, &vi);
    em_pbuf_free(&vi);
}

static ember_status *write_graph(wctx *c, em_pbuf *b, const em_graph *g, const char *name,
                                 int n_formal);

/* How many of a subgraph's inputs are its formal parameters: the loader appends the values it
 * captures from enclosing graphs after them (onnx_load.c, scope_resolve). */
static int formal_inputs(const em_node *n, const em_graph *body)
{
    int k = n->op == EM_OP_IF ? 0 : n->n_in;
    return k < body->n_inputs ? k : body->n_inputs;
}

static ember_status *write_attr(wctx *c, em_pbuf *b, const em_node *n, const em_attr *a)
{
    em_pbuf ap = {0};
    ember_status *st = NULL;
    em_pb_string(&ap, 1, a->name);
    switch (a->type) {
    case EM_ATTR_INT:
        em_pb_varint(&ap, 3, (uint64_t)a->i);
        em_pb_varint(&ap, 20, AT_INT);
        break;
    case EM_ATTR_FLOAT:
        em_pb_float(&ap, 2, a->f);
        em_pb_varint(&ap, 20, AT_FLOAT);
        break;
    case EM_ATTR_STRING:
        em_pb_string(&ap, 4, a->s);
        em_pb_varint(&ap, 20, AT_STRING);
        break;
    case EM_ATTR_INTS:
        for (int64_t k = 0; k < a->n; k++) {
            em_pb_varint(&ap, 8, (uint64_t)a->ints[k]);
        }
        em_pb_varint(&ap, 20, AT_INTS);
        break;
    case EM_ATTR_FLOATS:
        for (int64_t k = 0; k < a->n; k++) {
            em_pb_float(&ap, 7, a->floats[k]);
        }
        em_pb_varint(&ap, 20, AT_FLOATS);
        break;
    case EM_ATTR_STRINGS:
        for (int64_t k = 0; k < a->n; k++) {
            em_pb_string(&ap, 9, a->strings[k]);
        }
        em_pb_varint(&ap, 20, AT_STRINGS);
        break;
    case EM_ATTR_TENSOR: {
        em_pbuf t = {0};
        st = write_tensor(c, &t, &a->t, NULL, false);
        em_pb_message(&ap, 5, &t);
        em_pbuf_free(&t);
        em_pb_varint(&ap, 20, AT_TENSOR);
        break;
    }
    case EM_ATTR_GRAPH: {
        em_pbuf gp = {0};
        if (a->g == NULL) {
            st = em_status_new(EMBER_ERR_INVALID_ARG, "attribute '%s' has no graph", a->name);
        } else {
            st = write_graph(c, &gp, a->g, a->name, formal_inputs(n, a->g));
        }
        em_pb_message(&ap, 6, &gp);
        em_pbuf_free(&gp);
        em_pb_varint(&ap, 20, AT_GRAPH);
        break;
    }
    default:
        st = em_status_new(EMBER_ERR_INTERNAL, "attribute '%s': unknown type %d", a->name,
                           (int)a->type);
    }
    if (st == NULL) {
        em_pb_message(b, 5, &ap);
    }
    em_pbuf_free(&ap);
    return st;
}

static ember_status *write_node(wctx *c, em_pbuf *b, const em_graph *g, const names *nm,
                               const names *nn, int i)
{
    const em_node *n = &g->nodes[i];
    em_pbuf np = {0};
    ember_status *st = NULL;
    /* Trailing absent optional inputs are dropped; inner ones are written as "". */
    int n_in = n->n_in;
    while (n_in > 0 && n->in[n_in - 1] < 0) {
        n_in--;
    }
    for (int k = 0; k < n_in; k++) {
        em_pb_string(&np, 1, n->in[k] >= 0 ? nm->s[n->in[k]] : "");
    }
    for (int k = 0; k < n->n_out; k++) {
        em_pb_string(&np, 2, n->out[k] >= 0 ? nm->s[n->out[k]] : "");
    }
    if (nn->s[i][0] != '\0') {
        em_pb_string(&np, 3, nn->s[i]);
    }
    const char *op = em_op_name(n->op);
    em_pb_string(&np, 4, op);
    for (int a = 0; a < n->n_attrs && st == NULL; a++) {
        st = write_attr(c, &np, n, &n->attrs[a]);
    }
    const char *dom = op_domain(op);
    if (dom[0] != '\0') {
        em_pb_string(&np, 7, dom);
    }
    if (st == NULL) {
        em_pb_message(b, 1, &np);
    } else {
        char lb[320];
        st = em_status_wrap(st, "%s", node_label(n, i, lb, sizeof lb));
    }
    em_pbuf_free(&np);
    return st;
}

/* Marks the values of `outer` that the subgraphs of g's nodes (at any depth) capture by name:
 * their inputs past the formal ones. */
static void mark_captured(const em_graph *outer, const em_graph *g, bool *used)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const em_node *n = &g->nodes[i];
        for (int a = 0; a < n->n_attrs; a++) {
            const em_graph *body = n->attrs[a].type == EM_ATTR_GRAPH ? n->attrs[a].g : NULL;
            if (body == NULL) {
                continue;
            }
            for (int k = formal_inputs(n, body); k < body->n_inputs; k++) {
                int v = em_graph_find_value(outer, body->values[body->inputs[k]].name);
                if (v >= 0) {
                    used[v] = true;
                }
            }
            mark_captured(outer, body, used);
        }
    }
}

/* GraphProto of g; `n_formal` of its inputs are written as inputs (-1: all). */
static ember_status *write_graph(wctx *c, em_pbuf *b, const em_graph *g, const char *name,
                                 int n_formal)
{
    names nm = {0}, nn = {0};
    ember_status *st = names_make(g, false, &nm);
    if (st == NULL) {
        st = names_make(g, true, &nn);
    }
    bool *used = st == NULL ? calloc(g->n_values > 0 ? (size_t)g->n_values : 1, 1) : NULL;
    if (used == NULL) {
        names_free(&nm);
        names_free(&nn);
        return st != NULL ? st : em_status_oom();
    }
    for (int i = 0; i < g->n_nodes; i++) {
        for (int k = 0; k < g->nodes[i].n_in; k++) {
            if (g->nodes[i].in[k] >= 0) {
                used[g->nodes[i].in[k]] = true;
            }
        }
    }
    for (int k = 0; k < g->n_outputs; k++) {
        used[g->outputs[k]] = true;
    }
    mark_captured(g, g, used);
    for (int i = 0; i < g->n_nodes && st == NULL; i++) {
        st = write_node(c, b, g, &nm, &nn, i);
    }
    em_pb_string(b, 2, name);
    for (int v = 0; v < g->n_values && st == NULL; v++) {
        const em_value *val = &g->values[v];
        if (val->kind != EM_VAL_INITIALIZER || !used[v]) {
            continue;
        }
        em_pbuf t = {0};
        st = write_tensor(c, &t, &val->init, nm.s[v], true);
        em_pb_message(b, 5, &t);
        em_pbuf_free(&t);
    }
    int n_in = n_formal < 0 || n_formal > g->n_inputs ? g->n_inputs : n_formal;
    for (int k = 0; k < n_in && st == NULL; k++) {
        write_value_info(b, 11, g, &nm, g->inputs[k]);
    }
    for (int k = 0; k < g->n_outputs && st == NULL; k++) {
        write_value_info(b, 12, g, &nm, g->outputs[k]);
    }
    free(used);
    names_free(&nm);
    names_free(&nn);
    return pb_oom(b, st);
}

static const char *meta_get(const em_graph *g, const char *key)
{
    for (int i = 0; i < g->n_meta; i++) {
        if (strcmp(g->meta_keys[i], key) == 0) {
            return g->meta_vals[i];
        }
    }
    return NULL;
}

static void write_opset(em_pbuf *b, const char *domain, int64_t version)
{
    em_pbuf os = {0};
    em_pb_string(&os, 1, domain);
    em_pb_varint(&os, 2, (uint64_t)version);
    em_pb_message(b, 8, &os);
    em_pbuf_free(&os);
}

static ember_status *write_model(wctx *c, const em_graph *g, em_pbuf *b)
{
    int64_t need = EM_ONNX_WRITE_OPSET_MIN;
    ember_status *st = survey(c, g, &need);
    if (st != NULL) {
        return st;
    }
    const em_onnx_write_opts *o = c->o;
    if (o->source_opset > need) {
        need = o->source_opset;
    }
    if (o->opset > 0 && o->opset < need) {
        return em_status_new(EMBER_ERR_UNSUPPORTED,
                             "cannot write opset %lld: the graph needs opset %lld or later",
                             (long long)o->opset, (long long)need);
    }
    c->opset = o->opset > 0 ? o->opset : need;
    em_pb_varint(b, 1, (uint64_t)ir_version_for(c->opset));
    em_pb_string(b, 2, "ember");
    em_pb_string(b, 3, ember_version_string());
    const char *domain = meta_get(g, "domain"), *doc = meta_get(g, "doc_string");
    const char *mv = meta_get(g, "model_version");
    if (domain != NULL) {
        em_pb_string(b, 4, domain);
    }
    if (mv != NULL) {
        em_pb_varint(b, 5, (uint64_t)strtoll(mv, NULL, 10));
    }
    if (doc != NULL) {
        em_pb_string(b, 6, doc);
    }
    em_pbuf gp = {0};
    const char *gname = meta_get(g, "graph_name");
    st = write_graph(c, &gp, g, gname != NULL ? gname : "ember", -1);
    em_pb_message(b, 7, &gp);
    em_pbuf_free(&gp);
    if (st != NULL) {
        return st;
    }
    write_opset(b, "", c->opset);
    if (c->uses_ml) {
        write_opset(b, "ai.onnx.ml", 5);
    }
    if (c->uses_training) {
        write_opset(b, "ai.onnx.preview.training", 1);
    }
    if (c->uses_ms) {
        write_opset(b, "com.microsoft", 1);
    }
    static const char *const own[] = {"producer_name", "producer_version", "domain",
                                      "model_version", "doc_string",      "graph_name"};
    for (int i = 0; i < g->n_meta; i++) {
        if (IN_LIST(own, g->meta_keys[i])) {
            continue;
        }
        em_pbuf e = {0};
        em_pb_string(&e, 1, g->meta_keys[i]);
        em_pb_string(&e, 2, g->meta_vals[i]);
        em_pb_message(b, 14, &e);
        em_pbuf_free(&e);
    }
    return pb_oom(b, NULL);
}

static const em_onnx_write_opts *opts_or_default(const em_onnx_write_opts *o,
                                                 em_onnx_write_opts *dflt)
{
    *dflt = (em_onnx_write_opts){0};
    return o != NULL ? o : dflt;
}

ember_status *em_onnx_write_buf(const em_graph *g, const em_onnx_write_opts *o, em_pbuf *out)
{
    em_onnx_write_opts d;
    wctx c = {.o = opts_or_default(o, &d)};
    *out = (em_pbuf){0};
    if (g == NULL) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "onnx_write: no graph");
    }
    ember_status *st = write_model(&c, g, out);
    if (st == NULL && out->n > ((size_t)2 << 30) - 1) {
        st = em_status_new(EMBER_ERR_UNSUPPORTED,
                           "the model is %zu bytes, over ONNX's 2 GiB limit for one file (write "
                           "it to a file: its weights then go to external data)", out->n);
    }
    return st;
}

static uint64_t init_bytes(const em_graph *g)
{
    uint64_t n = 0;
    for (int v = 0; v < g->n_values; v++) {
        if (g->values[v].kind == EM_VAL_INITIALIZER) {
            n += em_tensor_nbytes(&g->values[v].init);
        }
    }
    return n;
}

ember_status *em_onnx_write_file(const em_graph *g, const char *path, const em_onnx_write_opts *o)
{
    em_onnx_write_opts d;
    wctx c = {.o = opts_or_default(o, &d)};
    if (g == NULL || path == NULL) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "onnx_write: no %s", g ? "path" : "graph");
    }
    c.ext = c.o->external == EM_ONNX_EXT_ALWAYS ||
            (c.o->external == EM_ONNX_EXT_AUTO && init_bytes(g) > EM_ONNX_WRITE_INLINE_MAX);
    em_afile data = {0};
    char *data_path = NULL;
    ember_status *st = NULL;
    if (c.ext) {
        size_t n = strlen(path);
        data_path = malloc(n + 6);
        if (data_path == NULL) {
            return em_status_oom();
        }
        snprintf(data_path, n + 6, "%s.data", path);
        const char *slash = strrchr(data_path, '/');
        c.data_name = slash != NULL ? slash + 1 : data_path;
        st = em_afile_open(data_path, &data);
        c.data = &data;
    }
    em_pbuf b = {0};
    if (st == NULL) {
        st = write_model(&c, g, &b);
    }
    if (st == NULL && b.n > ((size_t)2 << 30) - 1) {
        st = em_status_new(EMBER_ERR_UNSUPPORTED,
                           "%s: the model is %zu bytes, over ONNX's 2 GiB limit for one file",
                           path, b.n);
    }
    bool data_written = false;
    if (st == NULL && c.ext) {
        st = em_afile_commit(&data);
        data_written = st == NULL;
    }
    if (st == NULL) {
        st = em_write_file_atomic(path, b.p, b.n);
    } else {
        em_afile_abort(&data);
    }
    if (st != NULL && data_written) {
        remove(data_path); /* the model failed: no weights file without its model */
    }
    em_pbuf_free(&b);
    free(data_path);
    return st;
}
