/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape functions of the dyn family, whose output shapes depend on input data (ONNX NonZero-13,
 * Unique-11, Compress-11). When the deciding input has a value (em_shape.value: a constant, or
 * any input while the runtime plans on values) the dims are exact; otherwise the data-decided
 * dims are unknown, never an error.
 *
 * The element rules the kernels must agree with live here and are shared with
 * kernels/ref/dyn_*_ref.c (em_dyn_nonzero, em_dyn_unique_sort): a float is nonzero when it
 * compares unequal to 0 (NaN is nonzero, -0 is zero); Unique orders values ascending with
 * -0 == +0 and every NaN equal to every other and after all numbers (numpy's np.unique), and
 * slices along an axis lexicographically in C order of the other axes.
 */
#include "shape/shape.h"

#include "ir/dyn.h"

#include "core/alloc.h"
#include "core/status.h"

#include <stdint.h>
#include <string.h>

#define KNOWN(d) ((d).v >= 0)


bool em_dyn_nonzero(ember_dtype dt, const void *data, int64_t i)
{
    size_t es = em_dtype_size(dt);
    const unsigned char *p = (const unsigned char *)data + (size_t)i * es;
    switch (dt) {
    case EMBER_DTYPE_F32: {
        float v;
        memcpy(&v, p, sizeof v);
        return v != 0.0f;
    }
    case EMBER_DTYPE_F64: {
        double v;
        memcpy(&v, p, sizeof v);
        return v != 0.0;
    }
    case EMBER_DTYPE_F16:
    case EMBER_DTYPE_BF16: {
        uint16_t v;
        memcpy(&v, p, sizeof v);
        return (v & 0x7fffu) != 0;
    }
    default:
        for (size_t b = 0; b < es; b++) {
            if (p[b] != 0) {
                return true;
            }
        }
        return false;
    }
}

/* A 16-bit float (exponent mask `em`, mantissa mask `mm`) as an order key: NaN above all,
 * -0 as +0, otherwise the usual sign-magnitude to two's-complement mapping. */
static int32_t half_key(uint16_t v, uint16_t em, uint16_t mm)
{
    if ((v & em) == em && (v & mm) != 0) {
        return INT32_MAX;
    }
    int32_t mag = v & 0x7fff;
    return (v & 0x8000u) ? -mag : mag;
}

static int cmp_double(double x, double y)
{
    bool nx = x != x, ny = y != y;
    if (nx || ny) {
        return nx - ny;
    }
    return (x > y) - (x < y);
}

#define CMP_AS(type, conv)                                                                         \
    do {                                                                                           \
        type x_, y_;                                                                               \
        memcpy(&x_, (const unsigned char *)data + (size_t)a * sizeof(type), sizeof(type));         \
        memcpy(&y_, (const unsigned char *)data + (size_t)b * sizeof(type), sizeof(type));         \
        return conv;                                                                               \
    } while (0)

/* Order of elements a and b of `data`. */
static int cmp_elem(ember_dtype dt, const void *data, int64_t a, int64_t b)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
        CMP_AS(float, cmp_double(x_, y_));
    case EMBER_DTYPE_F64:
        CMP_AS(double, cmp_double(x_, y_));
    case EMBER_DTYPE_F16:
        CMP_AS(uint16_t, (half_key(x_, 0x7c00, 0x03ff) > half_key(y_, 0x7c00, 0x03ff)) -
                             (half_key(x_, 0x7c00, 0x03ff) < half_key(y_, 0x7c00, 0x03ff)));
    case EMBER_DTYPE_BF16:
        CMP_AS(uint16_t, (half_key(x_, 0x7f80, 0x007f) > half_key(y_, 0x7f80, 0x007f)) -
                             (half_key(x_, 0x7f80, 0x007f) < half_key(y_, 0x7f80, 0x007f)));
    case EMBER_DTYPE_I8:
        CMP_AS(int8_t, (x_ > y_) - (x_ < y_));
    case EMBER_DTYPE_I16:
        CMP_AS(int16_t, (x_ > y_) - (x_ < y_));
    case EMBER_DTYPE_I32:
        CMP_AS(int32_t, (x_ > y_) - (x_ < y_));
    case EMBER_DTYPE_I64:
        CMP_AS(int64_t, (x_ > y_) - (x_ < y_));
    case EMBER_DTYPE_U16:
        CMP_AS(uint16_t, (x_ > y_) - (x_ < y_));
    case EMBER_DTYPE_U32:
        CMP_AS(uint32_t, (x_ > y_) - (x_ < y_));
    case EMBER_DTYPE_U64:
        CMP_AS(uint64_t, (x_ > y_) - (x_ < y_));
    default: /* u8, bool */
        CMP_AS(uint8_t, (x_ > y_) - (x_ < y_));
    }
}

#undef CMP_AS

typedef struct unique_view {
    ember_dtype dt;
    const void *data;
    int64_t outer, n, inner;
} unique_view;

/* Lexicographic order of slices a and b: element (o, j) of slice i is (o * n + i) * inner + j. */
static int cmp_slice(const unique_view *v, int64_t a, int64_t b)
{
    for (int64_t o = 0; o < v->outer; o++) {
        int64_t ba = (o * v->n + a) * v->inner, bb = (o * v->n + b) * v->inner;
        for (int64_t j = 0; j < v->inner; j++) {
            int c = cmp_elem(v->dt, v->data, ba + j, bb + j);
            if (c != 0) {
                return c;
            }
        }
    }
    return 0;
}

/* Bottom-up stable merge sort of perm[0..n) with tmp[0..n) as the second buffer. */
static void merge_sort(const unique_view *v, int64_t *perm, int64_t *tmp)
{
    int64_t *src = perm, *dst = tmp;
    for (int64_t w = 1; w < v->n; w *= 2) {
        for (int64_t lo = 0; lo < v->n; lo += 2 * w) {
            int64_t mid = lo + w < v->n ? lo + w : v->n;
            int64_t hi = lo + 2 * w < v->n ? lo + 2 * w : v->n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                dst[k++] = cmp_slice(v, src[j], src[i]) < 0 ? src[j++] : src[i++];
            }
            while (i < mid) {
                dst[k++] = src[i++];
            }
            while (j < hi) {
                dst[k++] = src[j++];
            }
        }
        int64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != perm) {
        memcpy(perm, src, sizeof(int64_t) * (size_t)v->n);
    }
}

int64_t em_dyn_unique_sort(ember_dtype dt, const void *data, int64_t outer, int64_t n,
                           int64_t inner, int64_t *perm, int64_t *tmp, int64_t *group)
{
    unique_view v = {dt, data, outer, n, inner};
    for (int64_t i = 0; i < n; i++) {
        perm[i] = i;
    }
    merge_sort(&v, perm, tmp);
    int64_t u = 0;
    for (int64_t k = 0; k < n; k++) {
        if (k > 0 && cmp_slice(&v, perm[k - 1], perm[k]) != 0) {
            u++;
        }
        if (group != NULL) {
            group[k] = u;
        }
    }
    return n > 0 ? u + 1 : 0;
}

ember_status *em_shape_nonzero(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0];
    out->dtype = EMBER_DTYPE_I64;
    out->rank = 2;
    /* A 0-D input counts as a 1-D tensor of one element (numpy's nonzero). */
    out->dims[0] = x->rank >= 0 ? em_dim_known(x->rank > 0 ? x->rank : 1) : em_dim_unknown();
    out->dims[1] = em_dim_unknown();
    const em_tensor *v = x->value;
    if (v != NULL) {
        if (v->data == NULL && em_tensor_numel(v) > 0) {
            return em_shape_bad(n, "input 0 has a value without data");
        }
        int64_t count = 0, numel = em_tensor_numel(v);
        for (int64_t i = 0; i < numel; i++) {
            count += em_dyn_nonzero(v->dtype, v->data, i);
        }
        out->dims[1] = em_dim_known(count);
    }
    return NULL;
}

static int64_t prod(const int64_t *dims, int rank)
{
    int64_t p = 1;
    for (int d = 0; d < rank; d++) {
        p *= dims[d];
    }
    return p;
}

/* The optional int attribute 'axis' normalised into [0, rank) (-1 when absent or the rank is
 * unknown). */
static ember_status *node_axis(const em_node *n, const em_attr *aa, int rank, int *axis)
{
    *axis = -1;
    if (aa != NULL && aa->type != EM_ATTR_INT) {
        return em_shape_bad(n, "attribute 'axis' must be an int");
    }
    if (aa == NULL || rank < 0) {
        return NULL;
    }
    if (aa->i < -(int64_t)rank || aa->i >= rank) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): axis %lld is out of range for rank %d", n->name,
                             em_op_name(n->op), (long long)aa->i, rank);
    }
    *axis = (int)(aa->i < 0 ? aa->i + rank : aa->i);
    return NULL;
}

/* The number of distinct slices of the value of X (see em_dyn_unique_sort). */
static ember_status *unique_count(const em_node *n, const em_tensor *v, int axis, int64_t *u)
{
    int64_t outer = 1, len = em_tensor_numel(v), inner = 1;
    if (axis >= 0) {
        outer = prod(v->dims, axis);
        len = v->dims[axis];
        inner = prod(v->dims + axis + 1, v->rank - axis - 1);
    }
    if (len == 0) {
        *u = 0;
        return NULL;
    }
    int64_t *perm = em_malloc(NULL, sizeof(int64_t) * 2 * (size_t)len);
    if (perm == NULL) {
        return em_status_wrap(em_status_oom(), "node '%s' (Unique)", n->name);
    }
    *u = em_dyn_unique_sort(v->dtype, v->data, outer, len, inner, perm, perm + len, NULL);
    em_free(NULL, perm);
    return NULL;
}

ember_status *em_shape_unique(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0];
    const em_attr *aa = em_node_attr(n, "axis");
    int axis;
    ember_status *st = node_axis(n, aa, x->rank, &axis);
    if (st != NULL) {
        return st;
    }
    em_dim ud = em_dim_unknown(), nd = em_dim_unknown();
    if (x->value != NULL && (aa == NULL || axis >= 0)) {
        int64_t u = 0;
        st = unique_count(n, x->value, axis, &u);
        if (st != NULL) {
            return st;
        }
        ud = em_dim_known(u);
    }
    /* inverse_indices has one entry per slice (per element without an axis). */
    if (axis >= 0) {
        nd = x->dims[axis];
    } else if (x->rank == 1) {
        nd = x->dims[0];
    } else if (x->rank >= 0) {
        int64_t numel = 1;
        for (int d = 0; d < x->rank && numel >= 0; d++) {
            numel = KNOWN(x->dims[d]) ? numel * x->dims[d].v : -1;
        }
        nd = numel >= 0 ? em_dim_known(numel) : em_dim_unknown();
    }
    out[0].dtype = x->dtype;
    out[0].rank = aa == NULL ? 1 : x->rank;
    for (int d = 0; d < out[0].rank; d++) {
        out[0].dims[d] = aa == NULL || d == axis ? ud : x->dims[d];
    }
    for (int o = 1; o < n->n_out; o++) {
        out[o].dtype = EMBER_DTYPE_I64;
        out[o].rank = 1;
        out[o].dims[0] = o == 2 ? nd : ud;
    }
    return NULL;
}

ember_status *em_shape_compress(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0], *c = &in[1];
    const em_attr *aa = em_node_attr(n, "axis");
    if (c->dtype != EMBER_DTYPE_BOOL || (c->rank >= 0 && c->rank != 1)) {
        return em_shape_bad(n, "input 1 (condition) must be a 1-D bool tensor");
    }
    int axis;
    ember_status *st = node_axis(n, aa, x->rank, &axis);
    if (st != NULL) {
        return st;
    }
    out->dtype = x->dtype;
    out->rank = aa == NULL ? 1 : x->rank;
    out->dims[0] = em_dim_unknown();
    if (x->rank < 0) {
        return NULL;
    }
    for (int d = 0; d < out->rank; d++) {
        out->dims[d] = x->dims[d];
    }
    out->dims[axis >= 0 ? axis : 0] = em_dim_unknown();
    if (c->value == NULL) {
        return NULL;
    }
    /* Slices (elements) past the condition's end are dropped; a true entry past the data's end
     * is an error, as in numpy.compress. */
    int64_t len = axis >= 0 ? x->dims[axis].v : 1, count = 0;
    for (int d = 0; axis < 0 && d < x->rank; d++) {
        len = KNOWN(x->dims[d]) && len >= 0 ? len * x->dims[d].v : -1;
    }
    const uint8_t *cv = c->value->data;
    for (int64_t i = 0; i < c->value->dims[0]; i++) {
        if (cv[i] && len >= 0 && i >= len) {
            return em_status_new(EMBER_ERR_INVALID_MODEL,
                                 "node '%s' (Compress): condition[%lld] is true but the data "
                                 "has %lld slices",
                                 n->name, (long long)i, (long long)len);
        }
        count += cv[i] != 0;
    }
    out->dims[axis >= 0 ? axis : 0] = em_dim_known(count);
    return NULL;
}
