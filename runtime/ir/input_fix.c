/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fixed input shapes (ir/loader.h): the caller's ember_model_options_set_input_shape /
 * _set_input_shape_at / _set_dim_value, applied to a model's inputs while it loads, before any
 * shape is inferred, so that folding and the graph passes see concrete dims (as ONNX Runtime's
 * free-dimension overrides do). The TorchScript loader applies them as it declares forward()'s
 * arguments (its lowering turns x.size(d) into a constant where the dim is known); every
 * format's graph goes through em_load_fix_graph afterwards.
 */
#include "ir/loader.h"

#include "core/status.h"

#include <stdio.h>
#include <string.h>

/* "[1,3,224,224]" (-1 as ?) into buf. */
static const char *dims_text(const int64_t *dims, int rank, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (int d = 0; d < rank && n < cap; d++) {
        if (dims[d] >= 0) {
            n += (size_t)snprintf(buf + n, cap - n, d ? ",%lld" : "%lld", (long long)dims[d]);
        } else {
            n += (size_t)snprintf(buf + n, cap - n, d ? ",?" : "?");
        }
    }
    if (n < cap) {
        snprintf(buf + n, cap - n, "]");
    }
    return buf;
}

/* Fixes dim d to v, or says how that contradicts what is there. */
static ember_status *fix_dim(const char *what, const char *name, int d, int64_t v,
                             int64_t *dims, const char **names, const char *why)
{
    if (dims[d] >= 0 && dims[d] != v) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "%s: input '%s': %s gives dim %d the size "
                             "%lld, but it is %lld", what, name, why, d, (long long)v,
                             (long long)dims[d]);
    }
    dims[d] = v;
    names[d] = NULL;
    return NULL;
}

static ember_status *apply_shape(const em_shape_fix *f, const char *what, const char *name,
                                 int *rank, int64_t *dims, const char **names)
{
    char a[160], b[160];
    if (*rank >= 0 && *rank != f->rank) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "%s: input '%s': the fixed shape %s has "
                             "rank %d, but the input is %s (rank %d)", what, name,
                             dims_text(f->dims, f->rank, a, sizeof a), f->rank,
                             dims_text(dims, *rank, b, sizeof b), *rank);
    }
    if (*rank < 0) {
        *rank = f->rank;
        for (int d = 0; d < f->rank; d++) {
            dims[d] = -1;
            names[d] = NULL;
        }
    }
    for (int d = 0; d < f->rank; d++) {
        if (f->dims[d] >= 0) {
            ember_status *st = fix_dim(what, name, d, f->dims[d], dims, names, "the fixed shape");
            if (st != NULL) {
                return st;
            }
        }
    }
    return NULL;
}

ember_status *em_load_fix_input(const em_load_args *a, const char *what, size_t index,
                                const char *name, int *rank, int64_t *dims, const char **names)
{
    const char *sym[EM_MAX_RANK]; /* the dims' names before a shape fixes them */
    for (int d = 0; d < *rank; d++) {
        sym[d] = names[d];
    }
    int declared = *rank;
    for (size_t k = 0; k < a->n_shapes; k++) {
        const em_shape_fix *f = &a->shapes[k];
        bool mine = f->name != NULL ? name != NULL && strcmp(f->name, name) == 0
                                    : f->index == index;
        if (mine) {
            ember_status *st = apply_shape(f, what, name != NULL ? name : "?", rank, dims, names);
            if (st != NULL) {
                return st;
            }
        }
    }
    for (int d = 0; d < declared; d++) { /* a rank a shape gave has no names */
        for (size_t k = 0; sym[d] != NULL && k < a->n_dim_fixes; k++) {
            if (strcmp(a->dim_fixes[k].name, sym[d]) == 0) {
                char why[200];
                snprintf(why, sizeof why, "dim '%s'", sym[d]);
                ember_status *st = fix_dim(what, name != NULL ? name : "?", d,
                                           a->dim_fixes[k].value, dims, names, why);
                if (st != NULL) {
                    return st;
                }
            }
        }
    }
    return NULL;
}

/* Checks that every shape fix names an input of g. */
static ember_status *check_names(const em_load_args *a, const char *what, const em_graph *g)
{
    for (size_t k = 0; k < a->n_shapes; k++) {
        const em_shape_fix *f = &a->shapes[k];
        if (f->name == NULL) {
            if (f->index >= (size_t)g->n_inputs) {
                return em_status_new(EMBER_ERR_INVALID_ARG, "%s: a shape is fixed for input %zu, "
                                     "but the model has %d input(s)", what, f->index,
                                     g->n_inputs);
            }
            continue;
        }
        int found = 0;
        char list[256] = "";
        size_t n = 0;
        for (int i = 0; i < g->n_inputs && !found; i++) {
            const char *in = g->values[g->inputs[i]].name;
            found = strcmp(in, f->name) == 0;
            if (n < sizeof list) {
                n += (size_t)snprintf(list + n, sizeof list - n, "%s'%s'", i ? ", " : "", in);
            }
        }
        if (!found) {
            return em_status_new(EMBER_ERR_INVALID_ARG, "%s: a shape is fixed for input '%s', "
                                 "but the model has no input of that name (its inputs: %s)",
                                 what, f->name, g->n_inputs > 0 ? list : "none");
        }
    }
    return NULL;
}

ember_status *em_load_fix_graph(const em_load_args *a, const char *what, em_graph *g)
{
    if (a->n_shapes == 0 && a->n_dim_fixes == 0) {
        return NULL;
    }
    ember_status *st = check_names(a, what, g);
    for (int i = 0; i < g->n_inputs && st == NULL; i++) {
        em_value *v = &g->values[g->inputs[i]];
        int rank = v->rank;
        int64_t dims[EM_MAX_RANK];
        const char *names[EM_MAX_RANK];
        for (int d = 0; d < rank; d++) {
            dims[d] = v->dims[d].v;
            names[d] = v->dims[d].sym > 0 ? g->sym_names[v->dims[d].sym - 1] : NULL;
        }
        st = em_load_fix_input(a, what, (size_t)i, v->name, &rank, dims, names);
        if (st == NULL && rank >= 0 && v->vt != EM_VT_TENSOR) {
            /* sequences / optionals / maps: their shape is no tensor's */
            bool fixed = rank != v->rank;
            for (int d = 0; d < rank && !fixed; d++) {
                fixed = dims[d] != v->dims[d].v;
            }
            if (fixed) {
                st = em_status_new(EMBER_ERR_INVALID_ARG, "%s: input '%s' is not a tensor: its "
                                   "shape cannot be fixed", what, v->name);
            }
        }
        for (int d = 0; st == NULL && d < rank; d++) {
            em_sym_range r;
            int32_t s = d < v->rank ? v->dims[d].sym : 0;
            if (dims[d] >= 0 && !em_graph_symbol_allows(g, s, dims[d], &r)) {
                char rt[48];
                st = em_status_new(EMBER_ERR_INVALID_ARG, "%s: input '%s': dim %d ('%s') is "
                                   "fixed to %lld, outside its range %s", what, v->name, d,
                                   g->sym_names[s - 1], (long long)dims[d],
                                   em_sym_range_text(r, rt, sizeof rt));
            } else if (dims[d] >= 0 || d >= v->rank) { /* fixed, or new with a rank given */
                v->dims[d].v = dims[d];
                v->dims[d].sym = 0;
            }
        }
        if (st == NULL) {
            v->rank = rank;
        }
    }
    return st;
}
