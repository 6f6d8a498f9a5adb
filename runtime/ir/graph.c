/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Graph IR: builders, attribute access, the verifier, the text printer. Values and nodes live
 * in growable arrays; indices stay valid as the graph grows, pointers into the arrays do not.
 */
#include "ir/graph.h"

#include "core/alloc.h"
#include "core/status.h"
#include "core/strtensor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ember_status *em_graph_new(const ember_allocator *al, em_graph **out)
{
    *out = NULL;
    em_graph *g = em_calloc(al, 1, sizeof *g);
    if (g == NULL) {
        return em_status_oom();
    }
    g->al = al;
    *out = g;
    return NULL;
}

static void attr_free(const ember_allocator *al, em_attr *a)
{
    em_free(al, a->name);
    em_free(al, a->s);
    em_free(al, a->ints);
    em_free(al, a->floats);
    for (int64_t i = 0; a->strings != NULL && i < a->n; i++) {
        em_free(al, a->strings[i]);
    }
    em_free(al, a->strings);
    em_storage_release(a->storage);
    em_graph_destroy(a->g);
}

void em_value_clear(const ember_allocator *al, em_value *v)
{
    em_free(al, v->name);
    em_storage_release(v->storage);
    if (v->q != NULL) {
        em_free(al, (void *)v->q->scale);
        em_free(al, (void *)v->q->zero_point);
        em_free(al, v->q);
    }
    memset(v, 0, sizeof *v);
}

void em_node_clear(const ember_allocator *al, em_node *n)
{
    em_free(al, n->name);
    em_free(al, n->in);
    em_free(al, n->out);
    for (int k = 0; k < n->n_attrs; k++) {
        attr_free(al, &n->attrs[k]);
    }
    em_free(al, n->attrs);
    memset(n, 0, sizeof *n);
}

void em_graph_destroy(em_graph *g)
{
    if (g == NULL) {
        return;
    }
    const ember_allocator *al = g->al;
    for (int i = 0; i < g->n_values; i++) {
        em_value_clear(al, &g->values[i]);
    }
    for (int i = 0; i < g->n_nodes; i++) {
        em_node_clear(al, &g->nodes[i]);
    }
    for (int i = 0; i < g->n_syms; i++) {
        em_free(al, g->sym_names[i]);
    }
    em_free(al, g->sym_names);
    em_free(al, g->sym_ranges);
    for (int i = 0; i < g->n_meta; i++) {
        em_free(al, g->meta_keys[i]);
        em_free(al, g->meta_vals[i]);
    }
    em_free(al, g->meta_keys);
    em_free(al, g->meta_vals);
    em_free(al, g->values);
    em_free(al, g->nodes);
    em_free(al, g->inputs);
    em_free(al, g->outputs);
    em_free(al, g);
}

/* Grows an array of `elem` bytes so that it holds at least `need` entries. */
static bool grow(const ember_allocator *al, void **arr, int *cap, int need, size_t elem)
{
    if (need <= *cap) {
        return true;
    }
    int nc = *cap ? *cap * 2 : 16;
    while (nc < need) {
        nc *= 2;
    }
    size_t bytes;
    if (!em_size_mul((size_t)nc, elem, &bytes)) {
        return false;
    }
    void *p = em_realloc(al, *arr, bytes);
    if (p == NULL) {
        return false;
    }
    memset((char *)p + (size_t)*cap * elem, 0, (size_t)(nc - *cap) * elem);
    *arr = p;
    *cap = nc;
    return true;
}

ember_status *em_graph_add_value(em_graph *g, const char *name, ember_dtype dt, int rank,
                                 const em_dim *dims, int *out_index)
{
    if (rank > EM_MAX_RANK) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "value '%s': rank %d exceeds the maximum %d",
                             name, rank, EM_MAX_RANK);
    }
    if (!grow(g->al, (void **)&g->values, &g->cap_values, g->n_values + 1, sizeof(em_value))) {
        return em_status_oom();
    }
    em_value *v = &g->values[g->n_values];
    memset(v, 0, sizeof *v);
    v->name = em_strdup(g->al, name != NULL ? name : "");
    if (v->name == NULL) {
        return em_status_oom();
    }
    v->dtype = dt;
    v->rank = rank;
    for (int i = 0; i < rank && dims != NULL; i++) {
        v->dims[i] = dims[i];
    }
    v->producer = -1;
    if (out_index != NULL) {
        *out_index = g->n_values;
    }
    g->n_values++;
    return NULL;
}

ember_status *em_graph_set_meta(em_graph *g, const char *key, const char *value)
{
    char *v = em_strdup(g->al, value);
    if (v == NULL) {
        return em_status_oom();
    }
    for (int i = 0; i < g->n_meta; i++) {
        if (strcmp(g->meta_keys[i], key) == 0) {
            em_free(g->al, g->meta_vals[i]);
            g->meta_vals[i] = v;
            return NULL;
        }
    }
    size_t n = (size_t)g->n_meta + 1;
    char **keys = em_realloc(g->al, g->meta_keys, sizeof(char *) * n);
    if (keys != NULL) {
        g->meta_keys = keys;
    }
    char **vals = keys != NULL ? em_realloc(g->al, g->meta_vals, sizeof(char *) * n) : NULL;
    if (vals != NULL) {
        g->meta_vals = vals;
    }
    char *k = vals != NULL ? em_strdup(g->al, key) : NULL;
    if (k == NULL) {
        em_free(g->al, v);
        return em_status_oom();
    }
    g->meta_keys[g->n_meta] = k;
    g->meta_vals[g->n_meta++] = v;
    return NULL;
}

int32_t em_graph_symbol(em_graph *g, const char *name)
{
    for (int i = 0; i < g->n_syms; i++) {
        if (strcmp(g->sym_names[i], name) == 0) {
            return i + 1;
        }
    }
    char **names = em_realloc(g->al, g->sym_names, sizeof(char *) * (size_t)(g->n_syms + 1));
    if (names == NULL) {
        return 0;
    }
    g->sym_names = names;
    em_sym_range *ranges = em_realloc(g->al, g->sym_ranges,
                                      sizeof(em_sym_range) * (size_t)(g->n_syms + 1));
    if (ranges == NULL) {
        return 0;
    }
    g->sym_ranges = ranges;
    ranges[g->n_syms] = (em_sym_range){0, INT64_MAX};
    names[g->n_syms] = em_strdup(g->al, name);
    if (names[g->n_syms] == NULL) {
        return 0;
    }
    return ++g->n_syms;
}

ember_status *em_graph_set_symbol_range(em_graph *g, const char *name, int64_t lo, int64_t hi)
{
    if (lo < 0 || lo > hi) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "symbolic dim '%s': range [%lld, %lld] is "
                             "empty or negative", name, (long long)lo, (long long)hi);
    }
    int32_t s = em_graph_symbol(g, name);
    if (s == 0) {
        return em_status_oom();
    }
    em_sym_range *r = &g->sym_ranges[s - 1];
    em_sym_range m = {lo > r->lo ? lo : r->lo, hi < r->hi ? hi : r->hi};
    if (m.lo > m.hi) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "symbolic dim '%s': range [%lld, %lld] "
                             "does not meet the one it had", name, (long long)lo, (long long)hi);
    }
    *r = m;
    return NULL;
}

const char *em_sym_range_text(em_sym_range r, char *buf, size_t cap)
{
    if (r.hi == INT64_MAX) {
        snprintf(buf, cap, "[%lld, inf]", (long long)r.lo);
    } else {
        snprintf(buf, cap, "[%lld, %lld]", (long long)r.lo, (long long)r.hi);
    }
    return buf;
}

bool em_graph_symbol_allows(const em_graph *g, int32_t sym, int64_t x, em_sym_range *range)
{
    em_sym_range r = {0, INT64_MAX};
    if (sym > 0 && sym <= g->n_syms) {
        r = g->sym_ranges[sym - 1];
    }
    if (range != NULL) {
        *range = r;
    }
    return x >= r.lo && x <= r.hi;
}

static ember_status *append_index(em_graph *g, int **arr, int *n, int v)
{
    int *p = em_realloc(g->al, *arr, sizeof(int) * (size_t)(*n + 1));
    if (p == NULL) {
        return em_status_oom();
    }
    p[*n] = v;
    *arr = p;
    (*n)++;
    return NULL;
}

ember_status *em_graph_add_input(em_graph *g, const char *name, ember_dtype dt, int rank,
                                 const int64_t *dims, const char *const *dim_names,
                                 int *out_index)
{
    em_dim d[EM_MAX_RANK];
    if (rank > EM_MAX_RANK) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "input '%s': rank %d exceeds the maximum %d",
                             name, rank, EM_MAX_RANK);
    }
    for (int i = 0; i < rank; i++) {
        d[i].v = dims[i] >= 0 ? dims[i] : -1;
        d[i].sym = 0;
        if (d[i].v < 0 && dim_names != NULL && dim_names[i] != NULL && dim_names[i][0]) {
            d[i].sym = em_graph_symbol(g, dim_names[i]);
            if (d[i].sym == 0) {
                return em_status_oom();
            }
        }
    }
    int idx;
    ember_status *st = em_graph_add_value(g, name, dt, rank, d, &idx);
    if (st != NULL) {
        return st;
    }
    g->values[idx].kind = EM_VAL_INPUT;
    st = append_index(g, &g->inputs, &g->n_inputs, idx);
    if (st == NULL && out_index != NULL) {
        *out_index = idx;
    }
    return st;
}

ember_status *em_graph_add_initializer(em_graph *g, const char *name, ember_dtype dt, int rank,
                                       const int64_t *dims, em_storage *storage, size_t offset,
                                       int *out_index)
{
    em_tensor t = {0};
    size_t nbytes, end;
    em_tensor_set_shape(&t, dt, dims, rank);
    if (!em_dtype_valid(dt) || rank < 0 || rank > EM_MAX_RANK ||
        !em_tensor_nbytes_checked(&t, &nbytes)) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "initializer '%s': invalid dtype or shape", name);
    }
    if (!em_size_add(offset, nbytes, &end) || end > em_storage_size(storage)) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "initializer '%s': needs %zu bytes at offset %zu, storage has %zu",
                             name, nbytes, offset, em_storage_size(storage));
    }
    em_dim d[EM_MAX_RANK];
    for (int i = 0; i < rank; i++) {
        d[i].v = dims[i];
        d[i].sym = 0;
    }
    int idx;
    ember_status *st = em_graph_add_value(g, name, dt, rank, d, &idx);
    if (st != NULL) {
        return st;
    }
    em_value *v = &g->values[idx];
    v->kind = EM_VAL_INITIALIZER;
    v->init = t;
    v->init.data = (char *)em_storage_data(storage) + offset;
    v->storage = em_storage_retain(storage);
    if (out_index != NULL) {
        *out_index = idx;
    }
    return NULL;
}

ember_status *em_graph_add_initializer_copy(em_graph *g, const char *name, ember_dtype dt,
                                            int rank, const int64_t *dims, const void *data,
                                            int *out_index)
{
    em_tensor t = {0};
    size_t nbytes;
    em_tensor_set_shape(&t, dt, dims, rank);
    if (!em_dtype_valid(dt) || !em_tensor_nbytes_checked(&t, &nbytes)) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "initializer '%s': invalid dtype or shape", name);
    }
    em_storage *s = NULL;
    ember_status *st = dt == EMBER_DTYPE_STRING /* copies of the strings, not the pointers */
                           ? em_str_pack(g->al, data, NULL, em_tensor_numel(&t), &s)
                           : em_storage_new_owned(g->al, nbytes, &s);
    if (st != NULL) {
        return st;
    }
    if (nbytes > 0 && dt != EMBER_DTYPE_STRING) {
        memcpy(em_storage_data(s), data, nbytes);
    }
    st = em_graph_add_initializer(g, name, dt, rank, dims, s, 0, out_index);
    em_storage_release(s);
    return st;
}

ember_status *em_graph_add_node(em_graph *g, em_op op, const char *name, const int *in,
                                int n_in, const char *const *out_names, int n_out,
                                int *out_node)
{
    const em_op_info *info = em_op_info_of(op);
    const char *nm = name != NULL ? name : "";
    if (info == NULL) {
        return em_status_new(EMBER_ERR_INTERNAL, "node '%s': unknown op id %d", nm, (int)op);
    }
    if (n_in < info->min_in || n_in > info->max_in || n_out < info->min_out ||
        n_out > info->max_out) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): has %d inputs and %d outputs, expected %d..%d "
                             "inputs and %d..%d outputs",
                             nm, info->name, n_in, n_out, info->min_in, info->max_in,
                             info->min_out, info->max_out);
    }
    for (int i = 0; i < n_in; i++) {
        if (in[i] < -1 || in[i] >= g->n_values) {
            return em_status_new(EMBER_ERR_INVALID_MODEL, "node '%s' (%s): input %d out of range",
                                 nm, info->name, i);
        }
    }
    if (!grow(g->al, (void **)&g->nodes, &g->cap_nodes, g->n_nodes + 1, sizeof(em_node))) {
        return em_status_oom();
    }
    int ni = g->n_nodes;
    em_node *n = &g->nodes[ni];
    memset(n, 0, sizeof *n);
    n->op = op;
    n->name = em_strdup(g->al, nm);
    n->in = em_malloc(g->al, sizeof(int) * (size_t)(n_in > 0 ? n_in : 1));
    n->out = em_malloc(g->al, sizeof(int) * (size_t)(n_out > 0 ? n_out : 1));
    g->n_nodes++; /* counted now so that destroy frees what was allocated */
    if (n->name == NULL || n->in == NULL || n->out == NULL) {
        return em_status_oom();
    }
    n->n_in = n_in;
    memcpy(n->in, in, sizeof(int) * (size_t)n_in);
    for (int i = 0; i < n_out; i++) {
        int vi;
        ember_status *st = em_graph_add_value(g, out_names[i], EMBER_DTYPE_UNDEFINED, -1, NULL,
                                              &vi);
        if (st != NULL) {
            return st;
        }
        g->values[vi].producer = ni;
        g->nodes[ni].out[i] = vi;
        g->nodes[ni].n_out = i + 1;
    }
    if (out_node != NULL) {
        *out_node = ni;
    }
    return NULL;
}

ember_status *em_graph_mark_output(em_graph *g, int value)
{
    if (value < 0 || value >= g->n_values) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "graph output index %d out of range",
                             value);
    }
    g->values[value].is_output = true;
    return append_index(g, &g->outputs, &g->n_outputs, value);
}

int em_graph_find_value(const em_graph *g, const char *name)
{
    for (int i = g->n_values - 1; i >= 0; i--) {
        if (strcmp(g->values[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

ember_status *em_node_add_attr(em_graph *g, int node, const char *name, em_attr_type type,
                               em_attr **out)
{
    em_node *n = &g->nodes[node];
    em_attr *a = em_realloc(g->al, n->attrs, sizeof(em_attr) * (size_t)(n->n_attrs + 1));
    if (a == NULL) {
        return em_status_oom();
    }
    n->attrs = a;
    a = &n->attrs[n->n_attrs];
    memset(a, 0, sizeof *a);
    a->name = em_strdup(g->al, name);
    if (a->name == NULL) {
        return em_status_oom();
    }
    a->type = type;
    n->n_attrs++;
    *out = a;
    return NULL;
}

ember_status *em_node_set_int(em_graph *g, int node, const char *name, int64_t v)
{
    em_attr *a = NULL;
    ember_status *st = em_node_add_attr(g, node, name, EM_ATTR_INT, &a);
    if (st == NULL) {
        a->i = v;
    }
    return st;
}

ember_status *em_node_set_float(em_graph *g, int node, const char *name, float v)
{
    em_attr *a = NULL;
    ember_status *st = em_node_add_attr(g, node, name, EM_ATTR_FLOAT, &a);
    if (st == NULL) {
        a->f = v;
    }
    return st;
}

ember_status *em_node_set_string(em_graph *g, int node, const char *name, const char *v)
{
    em_attr *a = NULL;
    ember_status *st = em_node_add_attr(g, node, name, EM_ATTR_STRING, &a);
    if (st == NULL) {
        a->s = em_strdup(g->al, v);
        if (a->s == NULL) {
            return em_status_oom();
        }
    }
    return st;
}

ember_status *em_node_set_ints(em_graph *g, int node, const char *name, const int64_t *v,
                               int64_t n)
{
    em_attr *a = NULL;
    ember_status *st = em_node_add_attr(g, node, name, EM_ATTR_INTS, &a);
    if (st != NULL) {
        return st;
    }
    a->ints = em_malloc(g->al, sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    if (a->ints == NULL) {
        return em_status_oom();
    }
    if (n > 0) {
        memcpy(a->ints, v, sizeof(int64_t) * (size_t)n);
    }
    a->n = n;
    return NULL;
}

ember_status *em_node_set_floats(em_graph *g, int node, const char *name, const float *v,
                                 int64_t n)
{
    em_attr *a = NULL;
    ember_status *st = em_node_add_attr(g, node, name, EM_ATTR_FLOATS, &a);
    if (st != NULL) {
        return st;
    }
    a->floats = em_malloc(g->al, sizeof(float) * (size_t)(n > 0 ? n : 1));
    if (a->floats == NULL) {
        return em_status_oom();
    }
    if (n > 0) {
        memcpy(a->floats, v, sizeof(float) * (size_t)n);
    }
    a->n = n;
    return NULL;
}

const em_attr *em_node_attr(const em_node *n, const char *name)
{
    for (int i = 0; i < n->n_attrs; i++) {
        if (strcmp(n->attrs[i].name, name) == 0) {
            return &n->attrs[i];
        }
    }
    return NULL;
}

int64_t em_node_attr_int(const em_node *n, const char *name, int64_t dflt)
{
    const em_attr *a = em_node_attr(n, name);
    return a != NULL && a->type == EM_ATTR_INT ? a->i : dflt;
}

float em_node_attr_float(const em_node *n, const char *name, float dflt)
{
    const em_attr *a = em_node_attr(n, name);
    return a != NULL && a->type == EM_ATTR_FLOAT ? a->f : dflt;
}

const char *em_node_attr_string(const em_node *n, const char *name, const char *dflt)
{
    const em_attr *a = em_node_attr(n, name);
    return a != NULL && a->type == EM_ATTR_STRING && a->s != NULL ? a->s : dflt;
}

int64_t em_node_attr_ints(const em_node *n, const char *name, const int64_t **v)
{
    const em_attr *a = em_node_attr(n, name);
    if (a == NULL || a->type != EM_ATTR_INTS) {
        *v = NULL;
        return -1;
    }
    *v = a->ints;
    return a->n;
}

static ember_status *verify_node(const em_graph *g, int ni, unsigned char *defined)
{
    const em_node *n = &g->nodes[ni];
    const em_op_info *info = em_op_info_of(n->op);
    if (info == NULL) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "node %d '%s': unknown op", ni, n->name);
    }
    if (n->n_in < info->min_in || n->n_in > info->max_in || n->n_out < info->min_out ||
        n->n_out > info->max_out) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): %d inputs / %d outputs, expected %d..%d / %d..%d",
                             n->name, info->name, n->n_in, n->n_out, info->min_in,
                             info->max_in, info->min_out, info->max_out);
    }
    for (int i = 0; i < n->n_in; i++) {
        int v = n->in[i];
        if (v == -1) {
            if (i < info->min_in) {
                return em_status_new(EMBER_ERR_INVALID_MODEL,
                                     "node '%s' (%s): required input %d is missing", n->name,
                                     info->name, i);
            }
            continue;
        }
        if (v < 0 || v >= g->n_values) {
            return em_status_new(EMBER_ERR_INVALID_MODEL, "node '%s' (%s): input %d out of range",
                                 n->name, info->name, i);
        }
        if (!defined[v]) {
            return em_status_new(EMBER_ERR_INVALID_MODEL,
                                 "node '%s' (%s): input %d '%s' is used before it is produced",
                                 n->name, info->name, i, g->values[v].name);
        }
    }
    for (int i = 0; i < n->n_out; i++) {
        int v = n->out[i];
        if (v < 0 || v >= g->n_values || g->values[v].producer != ni) {
            return em_status_new(EMBER_ERR_INVALID_MODEL,
                                 "node '%s' (%s): output %d is not owned by the node", n->name,
                                 info->name, i);
        }
        if (defined[v]) {
            return em_status_new(EMBER_ERR_INVALID_MODEL,
                                 "node '%s' (%s): output '%s' is produced twice", n->name,
                                 info->name, g->values[v].name);
        }
        defined[v] = 1;
    }
    return NULL;
}

ember_status *em_graph_verify(const em_graph *g)
{
    ember_status *st = NULL;
    unsigned char *defined = em_calloc(g->al, (size_t)g->n_values + 1, 1);
    if (defined == NULL) {
        return em_status_oom();
    }
    for (int i = 0; i < g->n_values; i++) {
        const em_value *v = &g->values[i];
        if (v->kind != EM_VAL_INTERMEDIATE) {
            defined[i] = 1;
        }
        if (v->rank > EM_MAX_RANK) {
            st = em_status_new(EMBER_ERR_INVALID_MODEL, "value '%s': rank %d too large", v->name,
                               v->rank);
            goto done;
        }
        if (v->kind == EM_VAL_INITIALIZER && (v->storage == NULL || v->init.data == NULL)) {
            if (em_tensor_nbytes(&v->init) != 0) {
                st = em_status_new(EMBER_ERR_INVALID_MODEL, "initializer '%s' has no data",
                                   v->name);
                goto done;
            }
        }
    }
    for (int ni = 0; ni < g->n_nodes; ni++) {
        st = verify_node(g, ni, defined);
        if (st != NULL) {
            goto done;
        }
    }
    for (int i = 0; i < g->n_outputs; i++) {
        int v = g->outputs[i];
        if (v < 0 || v >= g->n_values) {
            st = em_status_new(EMBER_ERR_INVALID_MODEL, "graph output %d is out of range", i);
            goto done;
        }
        if (!defined[v]) {
            st = em_status_new(EMBER_ERR_INVALID_MODEL, "graph output %d '%s' is never produced",
                               i, g->values[v].name);
            goto done;
        }
    }
    for (int i = 0; i < g->n_inputs; i++) {
        int v = g->inputs[i];
        if (v < 0 || v >= g->n_values || g->values[v].kind != EM_VAL_INPUT) {
            st = em_status_new(EMBER_ERR_INVALID_MODEL, "graph input %d is not an input value",
                               i);
            goto done;
        }
    }
done:
    em_free(g->al, defined);
    return st;
}

static void print_value_type(em_strbuf *sb, const em_graph *g, const em_value *v)
{
    em_strbuf_printf(sb, "%s", em_dtype_name(v->dtype));
    if (v->rank < 0) {
        em_strbuf_printf(sb, "[?]");
        return;
    }
    em_strbuf_printf(sb, "[");
    for (int d = 0; d < v->rank; d++) {
        const char *sep = d ? "," : "";
        if (v->dims[d].sym > 0 && v->dims[d].sym <= g->n_syms) {
            em_strbuf_printf(sb, "%s%s", sep, g->sym_names[v->dims[d].sym - 1]);
        } else if (v->dims[d].v >= 0) {
            em_strbuf_printf(sb, "%s%lld", sep, (long long)v->dims[d].v);
        } else {
            em_strbuf_printf(sb, "%s?", sep);
        }
    }
    em_strbuf_printf(sb, "]");
}

static void print_attr(em_strbuf *sb, const em_attr *a)
{
    em_strbuf_printf(sb, "%s=", a->name);
    switch (a->type) {
    case EM_ATTR_INT: em_strbuf_printf(sb, "%lld", (long long)a->i); break;
    case EM_ATTR_FLOAT: em_strbuf_printf(sb, "%g", (double)a->f); break;
    case EM_ATTR_STRING: em_strbuf_printf(sb, "\"%s\"", a->s ? a->s : ""); break;
    case EM_ATTR_INTS:
        em_strbuf_printf(sb, "[");
        for (int64_t i = 0; i < a->n && i < 16; i++) {
            em_strbuf_printf(sb, i ? ",%lld" : "%lld", (long long)a->ints[i]);
        }
        em_strbuf_printf(sb, a->n > 16 ? ",...]" : "]");
        break;
    case EM_ATTR_FLOATS:
        em_strbuf_printf(sb, "[");
        for (int64_t i = 0; i < a->n && i < 16; i++) {
            em_strbuf_printf(sb, i ? ",%g" : "%g", (double)a->floats[i]);
        }
        em_strbuf_printf(sb, a->n > 16 ? ",...]" : "]");
        break;
    case EM_ATTR_STRINGS: em_strbuf_printf(sb, "<%lld strings>", (long long)a->n); break;
    case EM_ATTR_TENSOR: em_strbuf_printf(sb, "<tensor>"); break;
    case EM_ATTR_GRAPH: em_strbuf_printf(sb, "<graph>"); break;
    }
}

ember_status *em_graph_to_text(const em_graph *g, char **text)
{
    em_strbuf sb;
    em_strbuf_init(&sb, g->al);
    *text = NULL;
    em_strbuf_printf(&sb, "graph(");
    for (int i = 0; i < g->n_inputs; i++) {
        const em_value *v = &g->values[g->inputs[i]];
        em_strbuf_printf(&sb, "%s%%%s: ", i ? ", " : "", v->name);
        print_value_type(&sb, g, v);
    }
    em_strbuf_printf(&sb, ")\n");
    for (int i = 0; i < g->n_values; i++) {
        const em_value *v = &g->values[i];
        if (v->kind == EM_VAL_INITIALIZER) {
            em_strbuf_printf(&sb, "  const %%%s: ", v->name);
            print_value_type(&sb, g, v);
            em_strbuf_printf(&sb, "\n");
        }
    }
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const em_node *n = &g->nodes[ni];
        em_strbuf_printf(&sb, "  ");
        for (int o = 0; o < n->n_out; o++) {
            const em_value *v = &g->values[n->out[o]];
            em_strbuf_printf(&sb, "%s%%%s: ", o ? ", " : "", v->name);
            print_value_type(&sb, g, v);
        }
        em_strbuf_printf(&sb, " = %s(", em_op_name(n->op));
        for (int k = 0; k < n->n_in; k++) {
            if (n->in[k] < 0) {
                em_strbuf_printf(&sb, "%s_", k ? ", " : "");
            } else {
                em_strbuf_printf(&sb, "%s%%%s", k ? ", " : "", g->values[n->in[k]].name);
            }
        }
        em_strbuf_printf(&sb, ")");
        if (n->n_attrs > 0) {
            em_strbuf_printf(&sb, " {");
            for (int k = 0; k < n->n_attrs; k++) {
                em_strbuf_printf(&sb, k ? ", " : "");
                print_attr(&sb, &n->attrs[k]);
            }
            em_strbuf_printf(&sb, "}");
        }
        em_strbuf_printf(&sb, n->name[0] ? "  # %s\n" : "\n", n->name);
    }
    em_strbuf_printf(&sb, "  return ");
    for (int i = 0; i < g->n_outputs; i++) {
        em_strbuf_printf(&sb, "%s%%%s", i ? ", " : "", g->values[g->outputs[i]].name);
    }
    em_strbuf_printf(&sb, "\n");
    *text = em_strbuf_take(&sb);
    return *text == NULL ? em_status_oom() : NULL;
}

int64_t em_graph_param_count(const em_graph *g)
{
    int64_t n = 0;
    for (int i = 0; i < g->n_values; i++) {
        if (g->values[i].kind == EM_VAL_INITIALIZER) {
            n += em_tensor_numel(&g->values[i].init);
        }
    }
    return n;
}

/* ---- pages of the model image nothing points into ---- */

typedef struct byte_span {
    size_t lo, hi;
} byte_span;

typedef struct span_list {
    const ember_allocator *al;
    const uint8_t *base;
    size_t size;
    byte_span *v;
    size_t n, cap;
    bool oom;
} span_list;

static void span_add(span_list *l, const em_storage *s, const em_tensor *t, em_storage *image)
{
    const uint8_t *d = t->data;
    if (s != image || d == NULL || d < l->base || d > l->base + l->size || l->oom) {
        return;
    }
    if (l->n == l->cap) {
        size_t nc = l->cap ? 2 * l->cap : 64;
        byte_span *v = em_realloc(l->al, l->v, sizeof *v * nc);
        if (v == NULL) {
            l->oom = true;
            return;
        }
        l->v = v;
        l->cap = nc;
    }
    size_t lo = (size_t)(d - l->base), nb = em_tensor_nbytes(t);
    l->v[l->n++] = (byte_span){lo, nb < l->size - lo ? lo + nb : l->size};
}

static void spans_of(const em_graph *g, span_list *l, em_storage *image)
{
    for (int v = 0; v < g->n_values; v++) {
        span_add(l, g->values[v].storage, &g->values[v].init, image);
    }
    for (int ni = 0; ni < g->n_nodes; ni++) {
        for (int a = 0; a < g->nodes[ni].n_attrs; a++) {
            const em_attr *at = &g->nodes[ni].attrs[a];
            if (at->type == EM_ATTR_TENSOR) {
                span_add(l, at->storage, &at->t, image);
            } else if (at->type == EM_ATTR_GRAPH && at->g != NULL) {
                spans_of(at->g, l, image);
            }
        }
    }
}

static int span_cmp(const void *a, const void *b)
{
    const byte_span *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

ember_status *em_graph_drop_unused_image(const em_graph *g, em_storage *image)
{
    if (image == NULL || em_storage_kind_of(image) != EM_STORAGE_MMAP) {
        return NULL;
    }
    span_list l = {g->al, em_storage_data(image), em_storage_size(image), NULL, 0, 0, false};
    spans_of(g, &l, image);
    if (l.oom) {
        em_free(g->al, l.v);
        return em_status_oom();
    }
    if (l.n > 1) {
        qsort(l.v, l.n, sizeof *l.v, span_cmp);
    }
    size_t at = 0; /* everything below `at` is either in use or dropped */
    for (size_t i = 0; i < l.n; i++) {
        if (l.v[i].lo > at) {
            em_storage_drop_pages(image, at, l.v[i].lo - at);
        }
        at = l.v[i].hi > at ? l.v[i].hi : at;
    }
    if (l.size > at) {
        em_storage_drop_pages(image, at, l.size - at);
    }
    em_free(g->al, l.v);
    return NULL;
}
