/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Half-precision models on a CPU without half arithmetic (issue #21): em_pass_half_to_f32
 * turns the f16 / bf16 regions of a graph into fp32 compute before the other passes run, so
 * that folding, Conv+BatchNorm, the fusions and the blocked layout see an ordinary fp32 graph.
 *
 *  - half initializers are widened once into new f32 storage (exact); the half bytes are
 *    released (a mapped file's pages are then given back by em_graph_drop_unused_image);
 *  - a half graph input keeps its dtype: a Cast to f32 right after it feeds its readers;
 *  - a half graph output keeps its dtype: its producer writes an f32 value, and a Cast to the
 *    half type after it writes the output (its readers inside the graph read the f32 value);
 *  - every other half intermediate becomes f32, except the outputs of the model's own Casts
 *    to f16 / bf16 (and CastLike to a half target, made a Cast): rounding to half is their
 *    meaning, so they stay, and a Cast to f32 after each feeds their readers; the model's
 *    Casts from half to f32 become Identity (no-ops now; the no-op pass drops them);
 *  - half tensor attributes (Constant, ConstantOfShape's value) are widened, and a "dtype" or
 *    "output_datatype" attribute naming a half type (EyeLike, RandomNormal, the windows) f32.
 * Only graphs with half weights (initializers or tensor attributes) are converted: a graph of
 * half inputs alone (ONNX's one-op conformance graphs, a bare Cast) keeps its half ops on
 * their half kernels, which round each op's output to half as ONNX's reference does. Graphs
 * with subgraphs, half sequences / optionals and BitCast of half values are left as they are
 * (their half ops then run on half kernels where there are some, or fail to plan, naming the
 * node).
 *
 * Accuracy: every op computes in fp32 on the half values widened (as PyTorch's CPU half ops do
 * inside one op), but intermediates are not rounded to half between ops, so an output is the
 * fp32 result on the half weights and inputs, rounded once to half at the end. It differs from
 * a run with per-op half rounding (PyTorch's CPU half, ONNX Runtime's fp16 kernels) by those
 * roundings' drift, and is never further from the exact result on the half data; where a half
 * intermediate would overflow (|x| > 65504 in f16) fp32 keeps the finite value.
 */
#include "passes/passes.h"

#include "core/alloc.h"
#include "core/lowp.h"
#include "core/status.h"

#include <stdio.h>
#include <string.h>

static bool is_half(ember_dtype dt) { return dt == EMBER_DTYPE_F16 || dt == EMBER_DTYPE_BF16; }

/* The half dtype a Cast / CastLike writes (EMBER_DTYPE_UNDEFINED when it writes another). */
static ember_dtype cast_to_half(const em_graph *g, const em_node *n)
{
    ember_dtype to = EMBER_DTYPE_UNDEFINED;
    if (n->op == EM_OP_CAST) {
        to = (ember_dtype)em_node_attr_int(n, "to", 0);
    } else if (n->op == EM_OP_CASTLIKE && n->n_in > 1 && n->in[1] >= 0) {
        to = g->values[n->in[1]].dtype;
    }
    return is_half(to) ? to : EMBER_DTYPE_UNDEFINED;
}

/* Whether the graph holds half weights (initializers, or tensor attributes such as Constant
 * values: what makes it a half-precision model), and none of what the pass leaves alone. */
static bool convertible(const em_graph *g, bool *weights)
{
    *weights = false;
    for (int v = 0; v < g->n_values; v++) {
        if (is_half(g->values[v].dtype)) {
            *weights = *weights || g->values[v].kind == EM_VAL_INITIALIZER;
            if (g->values[v].vt != EM_VT_TENSOR) {
                return false;
            }
        }
    }
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const em_node *n = &g->nodes[ni];
        for (int a = 0; a < n->n_attrs; a++) {
            if (n->attrs[a].type == EM_ATTR_GRAPH) {
                return false;
            }
            *weights = *weights ||
                       (n->attrs[a].type == EM_ATTR_TENSOR && is_half(n->attrs[a].t.dtype));
        }
        if (n->op == EM_OP_BITCAST && n->in[0] >= 0 &&
            (is_half(g->values[n->in[0]].dtype) ||
             is_half((ember_dtype)em_node_attr_int(n, "to", 0)))) {
            return false;
        }
    }
    return true;
}

/* Widens the half tensor `t` (bytes in *sto) into new f32 storage that replaces *sto. */
static ember_status *widen_tensor(const ember_allocator *al, em_tensor *t, em_storage **sto)
{
    size_t n = (size_t)em_tensor_numel(t);
    em_storage *w = NULL;
    EM_PASS_TRY(em_storage_new_owned(al, sizeof(float) * (n > 0 ? n : 1), &w));
    if (n > 0) {
        em_half_to_f32_n(t->dtype, t->data, em_storage_data(w), n);
    }
    em_tensor_set_shape(t, EMBER_DTYPE_F32, t->dims, t->rank);
    t->data = em_storage_data(w);
    em_storage_release(*sto);
    *sto = w;
    return NULL;
}

/* Readers among nodes [from, n_orig) of value `old` read `nv` instead. */
static void redirect(em_graph *g, int old, int nv, int from, int n_orig)
{
    for (int ni = from; ni < n_orig; ni++) {
        em_node *n = &g->nodes[ni];
        for (int i = 0; i < n->n_in; i++) {
            if (n->in[i] == old) {
                n->in[i] = nv;
            }
        }
    }
}

static bool has_reader(const em_graph *g, int v, int from, int n_orig)
{
    for (int ni = from; ni < n_orig; ni++) {
        for (int i = 0; i < g->nodes[ni].n_in; i++) {
            if (g->nodes[ni].in[i] == v) {
                return true;
            }
        }
    }
    return false;
}

/* Appends Cast(in, to) as a new node whose output is a new value; *out_node, *out_value. */
static ember_status *add_cast(em_graph *g, int in, ember_dtype to, const char *suffix,
                              int *out_node, int *out_value)
{
    char name[512];
    snprintf(name, sizeof name, "%s%s", g->values[in].name, suffix);
    int base = 0;
    while (em_graph_find_value(g, name) >= 0) { /* a name of the model's own */
        snprintf(name, sizeof name, "%s%s.%d", g->values[in].name, suffix, ++base);
    }
    const char *outs[1] = {name};
    EM_PASS_TRY(em_graph_add_node(g, EM_OP_CAST, name, &in, 1, outs, 1, out_node));
    EM_PASS_TRY(em_node_set_int(g, *out_node, "to", to));
    *out_value = g->nodes[*out_node].out[0];
    em_value *v = &g->values[*out_value];
    const em_value *src = &g->values[in];
    v->dtype = to;
    v->rank = src->rank;
    memcpy(v->dims, src->dims, sizeof v->dims);
    return NULL;
}

/* Puts the appended nodes [n_orig, n_nodes) in place: those with after[k] == -1 first, the
 * others right after original node after[k] (each anchor's in the order they were added);
 * sets every producer. */
static ember_status *reorder(em_graph *g, int n_orig, const int *after)
{
    int n = g->n_nodes, added = n - n_orig, pos = 0;
    em_node *nodes = em_malloc(g->al, sizeof *nodes * (size_t)n);
    int *end = em_calloc(g->al, (size_t)n_orig + 2, sizeof *end);
    int *sorted = em_malloc(g->al, sizeof *sorted * (size_t)(added > 0 ? added : 1));
    if (nodes == NULL || end == NULL || sorted == NULL) {
        em_free(g->al, nodes);
        em_free(g->al, end);
        em_free(g->al, sorted);
        return em_status_oom();
    }
    /* counting sort by anchor a (-1..n_orig-1): end[a + 1] ends up one past a's run */
    for (int k = 0; k < added; k++) {
        end[after[k] + 2]++;
    }
    for (int i = 1; i < n_orig + 2; i++) {
        end[i] += end[i - 1];
    }
    for (int k = 0; k < added; k++) {
        sorted[end[after[k] + 1]++] = n_orig + k;
    }
    int k = 0;
    for (; k < end[0]; k++) {
        nodes[pos++] = g->nodes[sorted[k]];
    }
    for (int ni = 0; ni < n_orig; ni++) {
        nodes[pos++] = g->nodes[ni];
        for (; k < end[ni + 1]; k++) {
            nodes[pos++] = g->nodes[sorted[k]];
        }
    }
    memcpy(g->nodes, nodes, sizeof *nodes * (size_t)n);
    em_free(g->al, nodes);
    em_free(g->al, end);
    em_free(g->al, sorted);
    for (int v = 0; v < g->n_values; v++) {
        g->values[v].producer = -1;
    }
    for (int ni = 0; ni < n; ni++) {
        for (int o = 0; o < g->nodes[ni].n_out; o++) {
            if (g->nodes[ni].out[o] >= 0) {
                g->values[g->nodes[ni].out[o]].producer = ni;
            }
        }
    }
    return NULL;
}

/* Records the anchor of a node just appended. */
static ember_status *note_after(em_graph *g, int **after, int *cap, int n_orig, int anchor)
{
    int k = g->n_nodes - 1 - n_orig;
    if (k >= *cap) {
        int nc = *cap > 0 ? 2 * *cap : 16;
        int *p = em_realloc(g->al, *after, sizeof *p * (size_t)nc);
        if (p == NULL) {
            return em_status_oom();
        }
        *after = p;
        *cap = nc;
    }
    (*after)[k] = anchor;
    return NULL;
}

/* Node ni's attributes: half tensors widened, half "dtype"s made f32. */
static ember_status *widen_attrs(em_graph *g, em_node *n)
{
    for (int a = 0; a < n->n_attrs; a++) {
        em_attr *at = &n->attrs[a];
        if (at->type == EM_ATTR_TENSOR && is_half(at->t.dtype)) {
            EM_PASS_TRY(widen_tensor(g->al, &at->t, &at->storage));
        } else if (at->type == EM_ATTR_INT &&
                   (strcmp(at->name, "dtype") == 0 || strcmp(at->name, "output_datatype") == 0) &&
                   is_half((ember_dtype)at->i)) {
            at->i = EMBER_DTYPE_F32;
        }
    }
    return NULL;
}

static ember_status *convert(em_graph *g, int **after, int *cap)
{
    int n_orig = g->n_nodes;
    for (int ni = 0; ni < n_orig; ni++) { /* before the targets' dtypes change */
        em_node *n = &g->nodes[ni];
        ember_dtype keep = cast_to_half(g, n);
        if (n->op == EM_OP_CASTLIKE && keep != EMBER_DTYPE_UNDEFINED) {
            n->op = EM_OP_CAST;
            n->n_in = 1;
            EM_PASS_TRY(em_node_set_int(g, ni, "to", keep));
        }
    }
    for (int i = 0; i < g->n_inputs; i++) {
        int v = g->inputs[i], node, w;
        if (is_half(g->values[v].dtype)) {
            EM_PASS_TRY(add_cast(g, v, EMBER_DTYPE_F32, ".f32", &node, &w));
            EM_PASS_TRY(note_after(g, after, cap, n_orig, -1));
            redirect(g, v, w, 0, n_orig);
        }
    }
    for (int v = 0; v < g->n_values; v++) {
        em_value *x = &g->values[v];
        if (x->kind == EM_VAL_INITIALIZER && is_half(x->dtype) && !x->is_output) {
            EM_PASS_TRY(widen_tensor(g->al, &x->init, &x->storage));
            x->dtype = EMBER_DTYPE_F32;
        }
    }
    for (int ni = 0; ni < n_orig; ni++) {
        em_node *n = &g->nodes[ni];
        ember_dtype keep = cast_to_half(g, n);
        if (keep != EMBER_DTYPE_UNDEFINED) { /* a rounding point: stays, widened after */
            int o = n->out[0], node, w;
            g->values[o].dtype = keep;
            if (has_reader(g, o, ni + 1, n_orig)) { /* not for a graph output alone */
                EM_PASS_TRY(add_cast(g, o, EMBER_DTYPE_F32, ".f32", &node, &w));
                EM_PASS_TRY(note_after(g, after, cap, n_orig, ni));
                redirect(g, o, w, ni + 1, n_orig);
            }
            continue;
        }
        EM_PASS_TRY(widen_attrs(g, n));
        n = &g->nodes[ni];
        for (int k = 0; k < n->n_out; k++) {
            int o = n->out[k], node, w;
            if (o < 0 || !is_half(g->values[o].dtype)) {
                continue;
            }
            ember_dtype half = g->values[o].dtype;
            if (!g->values[o].is_output) {
                g->values[o].dtype = EMBER_DTYPE_F32;
                continue;
            }
            /* producer -> o32 (f32) -> Cast -> o (the output, half) */
            EM_PASS_TRY(add_cast(g, o, half, ".f32", &node, &w));
            EM_PASS_TRY(note_after(g, after, cap, n_orig, ni));
            g->values[w].dtype = EMBER_DTYPE_F32;
            g->nodes[node].in[0] = w;
            g->nodes[node].out[0] = o;
            g->nodes[ni].out[k] = w;
            redirect(g, o, w, ni + 1, n_orig);
        }
        n = &g->nodes[ni];
        if (n->op == EM_OP_CAST && n->in[0] >= 0 &&
            em_node_attr_int(n, "to", 0) == EMBER_DTYPE_F32 &&
            g->values[n->in[0]].dtype == EMBER_DTYPE_F32) { /* was half -> f32: a no-op now */
            n->op = EM_OP_IDENTITY;
        }
    }
    return NULL;
}

ember_status *em_pass_half_to_f32(em_graph *g)
{
    bool weights;
    if (!convertible(g, &weights) || !weights) {
        return NULL;
    }
    int *after = NULL, cap = 0, n_orig = g->n_nodes;
    ember_status *st = convert(g, &after, &cap);
    if (st == NULL && g->n_nodes > n_orig) {
        st = reorder(g, n_orig, after);
    }
    em_free(g->al, after);
    return st;
}

/* ---- Weights held in half (em_pass_weights_to_half) ---- */

/* Initializers smaller than this stay f32 (biases, norms' scales: bytes that do not matter). */
#define HALFW_MIN_ELEMS 1024

/* Whether input `slot` of node n is a weight its x86 kernels pack in prepare and never read
 * again (kernel.h, em_kinfo_mark_packed): the B of Gemm / FusedGemm / MatMul and the W of
 * Conv / FusedConv, but not a depthwise W, which the depthwise kernel reads in place. */
static bool packed_reader(const em_graph *g, const em_node *n, int slot)
{
    if (slot != 1) {
        return false;
    }
    switch (n->op) {
    case EM_OP_GEMM:
    case EM_OP_FUSEDGEMM:
    case EM_OP_MATMUL:
        return true;
    case EM_OP_CONV:
    case EM_OP_FUSEDCONV: {
        const em_value *w = &g->values[n->in[1]];
        return !(em_node_attr_int(n, "group", 1) > 1 && w->rank >= 3 && w->dims[1].v == 1);
    }
    default:
        return false;
    }
}

/* Whether every element of x (n floats) survives the round trip through `half` bit for bit. */
static bool half_exact(ember_dtype half, const float *x, size_t n)
{
    enum { CHUNK = 256 };
    uint16_t h[CHUNK];
    float back[CHUNK];
    for (size_t i = 0; i < n; i += CHUNK) {
        size_t k = n - i < CHUNK ? n - i : CHUNK;
        em_f32_to_half_n(half, x + i, h, k);
        em_half_to_f32_n(half, h, back, k);
        if (memcmp(back, x + i, sizeof(float) * k) != 0) {
            return false;
        }
    }
    return true;
}

/* The first reader of v among nodes [0, n_orig), or -1 when some reader is not a packing
 * weight input (or v has none). */
static int only_packed_readers(const em_graph *g, int v, int n_orig)
{
    int first = -1;
    for (int ni = 0; ni < n_orig; ni++) {
        const em_node *n = &g->nodes[ni];
        for (int i = 0; i < n->n_in; i++) {
            if (n->in[i] != v) {
                continue;
            }
            if (!packed_reader(g, n, i)) {
                return -1;
            }
            first = first < 0 ? ni : first;
        }
    }
    return first;
}

/* Gives back now the pages of a mapped file that held the f32 bytes [p, p + bytes) just
 * rounded, so that the file's f32 weights and their half copies are not all resident at once
 * (the load-time peak; em_graph_drop_unused_image would give them back only after the pass).
 * Only whole pages inside the span go (em_storage_drop_pages); a page read again, by another
 * value sharing those bytes, comes back from the file. Heap storages are freed by their
 * release instead. */
static void drop_mapped(em_storage *s, const void *p, size_t bytes)
{
    if (s == NULL || em_storage_kind_of(s) != EM_STORAGE_MMAP) {
        return;
    }
    const char *lo = em_storage_data(s), *at = p;
    if (at >= lo && at < lo + em_storage_size(s)) {
        em_storage_drop_pages(s, (size_t)(at - lo), bytes);
    }
}

static ember_status *narrow(em_graph *g, ember_dtype half, bool exact_only, int **after, int *cap,
                            size_t *n_done)
{
    int n_orig = g->n_nodes, n_values = g->n_values;
    for (int v = 0; v < n_values; v++) {
        em_value *x = &g->values[v];
        size_t n = x->kind == EM_VAL_INITIALIZER ? (size_t)em_tensor_numel(&x->init) : 0;
        if (x->kind != EM_VAL_INITIALIZER || x->dtype != EMBER_DTYPE_F32 || x->is_output ||
            x->init.dtype != EMBER_DTYPE_F32 || n < HALFW_MIN_ELEMS) {
            continue;
        }
        int first = only_packed_readers(g, v, n_orig);
        if (first < 0 || (exact_only && !half_exact(half, x->init.data, n))) {
            continue;
        }
        em_storage *h = NULL;
        EM_PASS_TRY(em_storage_new_owned(g->al, sizeof(uint16_t) * n, &h));
        em_f32_to_half_n(half, x->init.data, em_storage_data(h), n);
        x = &g->values[v];
        drop_mapped(x->storage, x->init.data, sizeof(float) * n);
        em_tensor_set_shape(&x->init, half, x->init.dims, x->init.rank);
        x->init.data = em_storage_data(h);
        em_storage_release(x->storage);
        x->storage = h;
        x->dtype = half;
        int node, w;
        EM_PASS_TRY(add_cast(g, v, EMBER_DTYPE_F32, ".f32", &node, &w));
        EM_PASS_TRY(note_after(g, after, cap, n_orig, first - 1)); /* right before its reader */
        redirect(g, v, w, 0, n_orig);
        ++*n_done;
    }
    return NULL;
}

ember_status *em_pass_weights_to_half(em_graph *g, ember_dtype half, bool exact_only,
                                      size_t *n_done)
{
    *n_done = 0;
    if (!is_half(half)) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "weights to half: dtype %s is not f16 or bf16",
                             em_dtype_name(half));
    }
    int *after = NULL, cap = 0, n_orig = g->n_nodes;
    ember_status *st = narrow(g, half, exact_only, &after, &cap, n_done);
    if (st == NULL && g->n_nodes > n_orig) {
        st = reorder(g, n_orig, after);
    }
    em_free(g->al, after);
    return st;
}

ember_dtype em_pass_half_weights_dtype(const em_graph *g)
{
    for (int v = 0; v < g->n_values; v++) {
        if (g->values[v].kind == EM_VAL_INITIALIZER && is_half(g->values[v].dtype)) {
            return g->values[v].dtype;
        }
    }
    return EMBER_DTYPE_UNDEFINED;
}
