/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Gradient op of ai.onnx.preview.training (version 1): attributes xs, zs (names of the
 * values y is a function of) and y; inputs the values of xs then zs at which the gradient is
 * taken; output k is dy/d xs[k]. It is expanded where it stands in the file by autodiff
 * (runtime/autograd/autograd.h) into ordinary nodes, so y must be computed by earlier nodes (ONNX does
 * not require that; the expansion says so when it is not). When the inputs are the tensors xs
 * and zs name, the forward is reused; otherwise the forward from xs / zs to y is first cloned
 * at the given values (em_autograd_rebind) and differentiated against those inputs (so an
 * input that also feeds that forward by another path gets that path's gradient too). Each
 * output is an Identity of its gradient under the output's name; an empty output name skips
 * it. Names in xs / zs / y resolve in the graph being built, not in enclosing graphs.
 */
#include "onnx_internal.h"

#include "core/alloc.h"
#include "autograd/autograd.h"
#include "core/status.h"

#include <string.h>

/* The value named `name` in the graph being built, or an error naming the attribute. */
static ember_status *named(onnx_ctx *c, onnx_scope *sc, const onnx_pending *p, const char *attr,
                           const char *name, int *idx)
{
    *idx = em_graph_find_value(sc->g, name);
    if (*idx < 0) {
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL,
                        "node '%s' (Gradient): %s names '%s', which no earlier node or input "
                        "defines (the expansion needs it before the Gradient node)",
                        p->name, attr, name);
    }
    return NULL;
}

static ember_status *read_names(onnx_ctx *c, onnx_scope *sc, const onnx_pending *p,
                                const Onnx__AttributeProto *ap, const char *attr, int *out)
{
    for (size_t i = 0; ap != NULL && i < ap->n_strings; i++) {
        char name[512];
        size_t len = ap->strings[i].len < sizeof name - 1 ? ap->strings[i].len : sizeof name - 1;
        memcpy(name, ap->strings[i].data, len);
        name[len] = '\0';
        ember_status *st = named(c, sc, p, attr, name, &out[i]);
        if (st != NULL) {
            return st;
        }
    }
    return NULL;
}

/* Checks the attributes against the inputs and outputs; sets the counts. */
static ember_status *check(onnx_ctx *c, const onnx_pending *p, const Onnx__AttributeProto *xs,
                           const Onnx__AttributeProto *zs, const Onnx__AttributeProto *y,
                           size_t *n_xs, size_t *n_zs)
{
    *n_xs = xs != NULL ? xs->n_strings : 0;
    *n_zs = zs != NULL ? zs->n_strings : 0;
    if (*n_xs == 0 || y == NULL || !y->has_s || y->s.len == 0 || y->s.len > 511) {
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL,
                        "node '%s' (Gradient): needs the attributes xs (names) and y (a name)",
                        p->name);
    }
    if ((size_t)p->n_in != *n_xs + *n_zs) {
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL,
                        "node '%s' (Gradient): has %d inputs, xs and zs name %zu values",
                        p->name, p->n_in, *n_xs + *n_zs);
    }
    for (int i = 0; i < p->n_in; i++) {
        if (p->in[i] < 0) {
            return em_onnx_err(c, EMBER_ERR_INVALID_MODEL, "node '%s' (Gradient): input %d is empty",
                            p->name, i);
        }
    }
    if (p->np->n_output > *n_xs) {
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL,
                        "node '%s' (Gradient): has %zu outputs, xs names %zu values", p->name,
                        p->np->n_output, *n_xs);
    }
    return NULL;
}

/* Registers the values autodiff added (from index `first`) under their names. */
static ember_status *register_new(onnx_ctx *c, onnx_scope *sc, int first)
{
    for (int v = first; v < sc->g->n_values; v++) {
        ember_status *st = em_onnx_scope_put(c, sc, v);
        if (st != NULL) {
            return st;
        }
    }
    return NULL;
}

ember_status *em_onnx_gradient_convert(onnx_ctx *c, onnx_scope *sc, onnx_pending *p)
{
    const Onnx__NodeProto *np = p->np;
    const Onnx__AttributeProto *xs = em_onnx_node_attr(np, "xs", NULL);
    const Onnx__AttributeProto *zs = em_onnx_node_attr(np, "zs", NULL);
    const Onnx__AttributeProto *ya = em_onnx_node_attr(np, "y", NULL);
    int *vals = NULL, y = -1, first = sc->g->n_values;
    size_t n_xs, n_zs;
    ember_status *st = NULL;
    char yname[512];
    p->emitted = true;
    EMBER_TRY(check(c, p, xs, zs, ya, &n_xs, &n_zs));
    /* vals: the named xs and zs, then the gradients */
    vals = em_malloc(sc->g->al, sizeof(int) * (n_xs * 2 + n_zs));
    if (vals == NULL) {
        return em_status_oom();
    }
    EMBER_TRY(read_names(c, sc, p, xs, "xs", vals));
    EMBER_TRY(read_names(c, sc, p, zs, "zs", vals + n_xs));
    memcpy(yname, ya->s.data, ya->s.len);
    yname[ya->s.len] = '\0';
    EMBER_TRY(named(c, sc, p, "y", yname, &y));
    bool same = memcmp(vals, p->in, sizeof(int) * (n_xs + n_zs)) == 0;
    if (!same) {
        EMBER_TRY(em_autograd_rebind(sc->g, p->n_in, vals, p->in, y, p->name, &y));
    }
    em_autograd_spec spec = {y, -1, (int)n_xs, same ? vals : p->in, p->name};
    int *dxs = vals + n_xs + n_zs;
    EMBER_TRY(em_autograd(sc->g, &spec, dxs));
    EMBER_TRY(register_new(c, sc, first));
    for (size_t k = 0; k < np->n_output; k++) {
        int node, v;
        if (np->output[k][0] != '\0') {
            EMBER_TRY(em_onnx_add_node(c, sc, "Identity", p->name, &dxs[k], 1, np->output[k], &node,
                                    &v));
        }
    }
fail:
    em_free(sc->g->al, vals);
    if (st != NULL && strncmp(ember_status_message(st), "onnx:", 5) != 0) {
        st = em_status_wrap(st, "onnx: %s", c->what);
    }
    return st;
}
