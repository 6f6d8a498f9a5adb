/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the reference kernels: error statuses that name the node and op, checks
 * of arity, dtypes and shapes, typed attribute readers that reject an attribute of the wrong
 * type instead of silently using the default, and the sliding-window geometry of Conv and the
 * pooling ops (kernel, strides, dilations, pads, auto_pad, ceil_mode) as the ONNX operator
 * spec defines it.
 */
#include "ref.h"

#include "core/alloc.h"
#include "core/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Attribute values (kernel, stride, dilation, pad) above this are rejected, which keeps every
 * window computation below far from int64_t overflow. */
#define REF_ATTR_MAX ((int64_t)1 << 31)
/* Spatial input sizes above this are rejected for the same reason. */
#define REF_DIM_MAX ((int64_t)1 << 60)

ember_status *em_ref_error(const em_kinfo *ki, ember_code code, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const em_node *n = ki->node;
    const char *name = n != NULL && n->name != NULL ? n->name : "?";
    const char *op = n != NULL ? em_op_name(n->op) : "?";
    return em_status_new(code, "node '%s' (%s): %s", name, op, msg);
}

ember_status *em_ref_check_arity(const em_kinfo *ki, int min_in, int max_in, int max_out)
{
    if (ki->n_in < min_in || ki->n_in > max_in) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%d inputs, expected %d to %d", ki->n_in,
                            min_in, max_in);
    }
    if (ki->n_out < 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "no output");
    }
    if (ki->n_out > max_out) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED,
                            "%d outputs, the reference kernel computes %d", ki->n_out, max_out);
    }
    return NULL;
}

bool em_ref_has_input(const em_kinfo *ki, int i)
{
    return i < ki->n_in && ki->in[i].dtype != EMBER_DTYPE_UNDEFINED;
}

ember_status *em_ref_check_nc_spatial(const em_kinfo *ki, const em_tensor *x,
                                      const em_tensor *w)
{
    if (x->rank < 3) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "input X has rank %d, expected at least 3 (N, C, spatial...)", x->rank);
    }
    if (w != NULL && w->rank != x->rank) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "weight rank %d, expected %d", w->rank,
                            x->rank);
    }
    return NULL;
}

ember_status *em_ref_check_tensor(const em_kinfo *ki, const em_tensor *t, ember_dtype dt,
                                  const char *what)
{
    int64_t numel;
    if (dt != EMBER_DTYPE_UNDEFINED && t->dtype != dt) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%s has dtype %s, expected %s", what,
                            em_dtype_name(t->dtype), em_dtype_name(dt));
    }
    if (!em_dtype_valid(t->dtype)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%s has no valid dtype", what);
    }
    if (!em_shape_numel_checked(t->dims, t->rank, &numel)) {
        char buf[160];
        em_dims_str(t->dims, t->rank < 0 ? 0 : t->rank, buf, sizeof buf);
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%s has an invalid shape %s (rank %d)",
                            what, buf, t->rank);
    }
    return NULL;
}

ember_status *em_ref_check_shape(const em_kinfo *ki, const em_tensor *t, const int64_t *dims,
                                 int rank, const char *what)
{
    bool same = t->rank == rank;
    for (int d = 0; same && d < rank; d++) {
        same = t->dims[d] == dims[d];
    }
    if (same) {
        return NULL;
    }
    char got[160], want[160];
    em_tensor_shape_str(t, got, sizeof got);
    em_dims_str(dims, rank, want, sizeof want);
    return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%s has shape %s, expected %s", what, got,
                        want);
}

static ember_status *attr_of_type(const em_kinfo *ki, const char *name, em_attr_type type,
                                  const char *type_name, const em_attr **out)
{
    const em_attr *a = ki->node != NULL ? em_node_attr(ki->node, name) : NULL;
    *out = NULL;
    if (a != NULL && a->type != type) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "attribute '%s' is not of type %s", name,
                            type_name);
    }
    *out = a;
    return NULL;
}

ember_status *em_ref_attr_int(const em_kinfo *ki, const char *name, int64_t dflt, int64_t *v)
{
    const em_attr *a;
    ember_status *st = attr_of_type(ki, name, EM_ATTR_INT, "int", &a);
    *v = a != NULL ? a->i : dflt;
    return st;
}

ember_status *em_ref_attr_float(const em_kinfo *ki, const char *name, float dflt, float *v)
{
    const em_attr *a;
    ember_status *st = attr_of_type(ki, name, EM_ATTR_FLOAT, "float", &a);
    *v = a != NULL ? a->f : dflt;
    return st;
}

ember_status *em_ref_attr_string(const em_kinfo *ki, const char *name, const char *dflt,
                                 const char **v)
{
    const em_attr *a;
    ember_status *st = attr_of_type(ki, name, EM_ATTR_STRING, "string", &a);
    *v = a != NULL && a->s != NULL ? a->s : dflt;
    return st;
}

ember_status *em_ref_attr_ints(const em_kinfo *ki, const char *name, int n, int64_t dflt,
                               int64_t *v, bool *present)
{
    const em_attr *a;
    ember_status *st = attr_of_type(ki, name, EM_ATTR_INTS, "ints", &a);
    if (present != NULL) {
        *present = a != NULL;
    }
    if (st != NULL) {
        return st;
    }
    if (a != NULL && a->n != n) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "attribute '%s' has %lld values, expected %d", name, (long long)a->n,
                            n);
    }
    for (int i = 0; i < n; i++) {
        v[i] = a != NULL ? a->ints[i] : dflt;
    }
    return NULL;
}

ember_status *em_ref_state_new(const em_kinfo *ki, const void *src, size_t size, void **state)
{
    void *p = em_malloc(ki->al, size);
    if (p == NULL) {
        return em_status_oom();
    }
    memcpy(p, src, size);
    *state = p;
    return NULL;
}

/* ---- window geometry ---------------------------------------------------------------------- */

typedef enum auto_pad { PAD_NOTSET, PAD_SAME_UPPER, PAD_SAME_LOWER, PAD_VALID } auto_pad;

static ember_status *parse_auto_pad(const em_kinfo *ki, auto_pad *ap)
{
    static const struct {
        const char *name;
        auto_pad v;
    } names[] = {{"NOTSET", PAD_NOTSET},
                 {"SAME_UPPER", PAD_SAME_UPPER},
                 {"SAME_LOWER", PAD_SAME_LOWER},
                 {"VALID", PAD_VALID}};
    const char *s;
    ember_status *st = em_ref_attr_string(ki, "auto_pad", "NOTSET", &s);
    if (st != NULL) {
        return st;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(s, names[i].name) == 0) {
            *ap = names[i].v;
            return NULL;
        }
    }
    return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "unknown auto_pad '%s'", s);
}

/* Reads one ints attribute of n values in [lo, REF_ATTR_MAX]. */
static ember_status *window_ints(const em_kinfo *ki, const char *name, int n, int64_t dflt,
                                 int64_t lo, int64_t *v, bool *present)
{
    ember_status *st = em_ref_attr_ints(ki, name, n, dflt, v, present);
    for (int i = 0; st == NULL && i < n; i++) {
        if (v[i] < lo || v[i] > REF_ATTR_MAX) {
            st =
                em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                             "attribute '%s'[%d] = %lld is out of range", name, i, (long long)v[i]);
        }
    }
    return st;
}

static ember_status *window_kernel(const em_kinfo *ki, const int64_t *kernel, em_ref_window *w)
{
    int64_t attr[EM_MAX_RANK];
    bool present;
    ember_status *st = window_ints(ki, "kernel_shape", w->n_sp, 1, 1, attr, &present);
    if (st != NULL) {
        return st;
    }
    if (kernel == NULL && !present) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "attribute 'kernel_shape' is missing");
    }
    for (int d = 0; d < w->n_sp; d++) {
        if (kernel != NULL && present && attr[d] != kernel[d]) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "kernel_shape[%d] = %lld but the weights have %lld", d,
                                (long long)attr[d], (long long)kernel[d]);
        }
        if (kernel != NULL && (kernel[d] < 1 || kernel[d] > REF_ATTR_MAX)) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "kernel size %lld on spatial axis %d is out of range",
                                (long long)kernel[d], d);
        }
        w->kernel[d] = kernel != NULL ? kernel[d] : attr[d];
    }
    return NULL;
}

/* Output size and pads of spatial axis d, given its explicit pads (NOTSET) or auto_pad. */
static ember_status *window_axis(const em_kinfo *ki, auto_pad ap, bool ceil_mode, int d,
                                 em_ref_window *w)
{
    int64_t in = w->in[d], s = w->stride[d];
    int64_t extent = (w->kernel[d] - 1) * w->dilation[d] + 1;
    if (ap == PAD_SAME_UPPER || ap == PAD_SAME_LOWER) {
        /* Output ceil(in / stride); the total padding that needs is split evenly, the odd
         * element going to the end (UPPER) or the beginning (LOWER). */
        int64_t out = (in + s - 1) / s;
        int64_t total = (out > 0 ? (out - 1) * s : 0) + extent - in;
        total = total > 0 ? total : 0;
        w->out[d] = out;
        w->pad_begin[d] = ap == PAD_SAME_UPPER ? total / 2 : total - total / 2;
        w->pad_end[d] = total - w->pad_begin[d];
        return NULL;
    }
    if (ap == PAD_VALID) {
        /* ceil((in - extent + 1) / s) in the spec equals the floor form: no ceil_mode. */
        w->pad_begin[d] = 0;
        w->pad_end[d] = 0;
        ceil_mode = false;
    }
    int64_t padded = in + w->pad_begin[d] + w->pad_end[d];
    if (padded < extent) {
        return em_ref_error(
            ki, EMBER_ERR_INVALID_MODEL,
            "window extent %lld exceeds the padded input size %lld on spatial axis %d",
            (long long)extent, (long long)padded, d);
    }
    int64_t out = (padded - extent) / s + 1;
    if (ceil_mode) {
        out = (padded - extent + s - 1) / s + 1;
        /* A window must start inside the input or the begin padding (ONNX, PyTorch). */
        if ((out - 1) * s >= in + w->pad_begin[d]) {
            out--;
        }
    }
    w->out[d] = out;
    return NULL;
}

ember_status *em_ref_window_parse(const em_kinfo *ki, int n_sp, const int64_t *in_sp,
                                  const int64_t *kernel, bool ceil_mode, em_ref_window *w)
{
    int64_t pads[2 * EM_MAX_RANK];
    bool pads_present;
    auto_pad ap = PAD_NOTSET;
    ember_status *st = NULL;

    memset(w, 0, sizeof *w);
    if (n_sp < 1 || n_sp > EM_MAX_RANK - 2) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%d spatial axes, expected 1 to %d", n_sp,
                            EM_MAX_RANK - 2);
    }
    w->n_sp = n_sp;
    for (int d = 0; d < n_sp; d++) {
        if (in_sp[d] > REF_DIM_MAX) {
            return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "spatial size %lld is too large",
                                (long long)in_sp[d]);
        }
        w->in[d] = in_sp[d];
    }
    EMBER_TRY(window_kernel(ki, kernel, w));
    EMBER_TRY(window_ints(ki, "strides", n_sp, 1, 1, w->stride, NULL));
    EMBER_TRY(window_ints(ki, "dilations", n_sp, 1, 1, w->dilation, NULL));
    EMBER_TRY(window_ints(ki, "pads", 2 * n_sp, 0, 0, pads, &pads_present));
    EMBER_TRY(parse_auto_pad(ki, &ap));
    for (int d = 0; d < n_sp; d++) {
        w->pad_begin[d] = pads[d];
        w->pad_end[d] = pads[n_sp + d];
        /* The spec forbids pads together with auto_pad; all-zero pads are harmless and some
         * exporters write them, so only nonzero pads are an error. */
        if (ap != PAD_NOTSET && (pads[d] != 0 || pads[n_sp + d] != 0)) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "nonzero 'pads' together with auto_pad");
        }
    }
    for (int d = 0; d < n_sp; d++) {
        EMBER_TRY(window_axis(ki, ap, ceil_mode, d, w));
    }
    return NULL;
fail:
    return st;
}
