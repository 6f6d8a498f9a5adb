/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers of the reduce family: element loads and stores by dtype (the kernels switch on dtype
 * per element, trading speed for one code path per op), axis normalisation and scalar
 * integer inputs (CumSum's axis, TopK's k). Float-to-integer stores saturate so that no
 * conversion is undefined behaviour.
 */
#include "ref.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

bool em_rd_is_float(ember_dtype dt)
{
    return dt == EMBER_DTYPE_F32 || dt == EMBER_DTYPE_F64 || dt == EMBER_DTYPE_F16 ||
           dt == EMBER_DTYPE_BF16;
}

bool em_rd_is_int(ember_dtype dt)
{
    return dt == EMBER_DTYPE_I8 || dt == EMBER_DTYPE_U8 || dt == EMBER_DTYPE_I32 ||
           dt == EMBER_DTYPE_I64;
}

double em_rd_load_f(const void *p, ember_dtype dt, int64_t i)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
        return ((const float *)p)[i];
    case EMBER_DTYPE_F64:
        return ((const double *)p)[i];
    case EMBER_DTYPE_F16:
    case EMBER_DTYPE_BF16:
        return em_tref_get(dt, p, i);
    default:
        return (double)em_rd_load_i(p, dt, i);
    }
}

int64_t em_rd_load_i(const void *p, ember_dtype dt, int64_t i)
{
    switch (dt) {
    case EMBER_DTYPE_I8:
        return ((const int8_t *)p)[i];
    case EMBER_DTYPE_U8:
        return ((const uint8_t *)p)[i];
    case EMBER_DTYPE_BOOL:
        return ((const uint8_t *)p)[i] != 0;
    case EMBER_DTYPE_I32:
        return ((const int32_t *)p)[i];
    case EMBER_DTYPE_I64:
        return ((const int64_t *)p)[i];
    case EMBER_DTYPE_U64:
        return (int64_t)((const uint64_t *)p)[i];
    default:
        return 0;
    }
}

/* Truncates v toward zero and clamps it to [lo, hi]; NaN gives 0. */
static int64_t sat(double v, double lo, double hi)
{
    if (isnan(v)) {
        return 0;
    }
    v = trunc(v);
    if (v <= lo) {
        return (int64_t)lo;
    }
    if (v >= hi) {
        /* 2^63 - 1 is not a double: return the limit itself for i64. */
        return hi >= 9.2e18 ? INT64_MAX : (int64_t)hi;
    }
    return (int64_t)v;
}

void em_rd_store_f(void *p, ember_dtype dt, int64_t i, double v)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
        ((float *)p)[i] = (float)v;
        return;
    case EMBER_DTYPE_F64:
        ((double *)p)[i] = v;
        return;
    case EMBER_DTYPE_F16:
    case EMBER_DTYPE_BF16:
        em_q_setf(dt, p, i, v); /* rounded once from double */
        return;
    case EMBER_DTYPE_I8:
        ((int8_t *)p)[i] = (int8_t)sat(v, INT8_MIN, INT8_MAX);
        return;
    case EMBER_DTYPE_U8:
        ((uint8_t *)p)[i] = (uint8_t)sat(v, 0, UINT8_MAX);
        return;
    case EMBER_DTYPE_BOOL:
        ((uint8_t *)p)[i] = v != 0.0;
        return;
    case EMBER_DTYPE_I32:
        ((int32_t *)p)[i] = (int32_t)sat(v, INT32_MIN, INT32_MAX);
        return;
    case EMBER_DTYPE_I64:
        ((int64_t *)p)[i] = sat(v, -9223372036854775808.0, 9223372036854775807.0);
        return;
    default:
        return;
    }
}

void em_rd_store_i(void *p, ember_dtype dt, int64_t i, int64_t v)
{
    /* Narrowing goes through the unsigned type: modular, never implementation-defined. */
    uint64_t u = (uint64_t)v;
    switch (dt) {
    case EMBER_DTYPE_F32:
        ((float *)p)[i] = (float)v;
        return;
    case EMBER_DTYPE_F64:
        ((double *)p)[i] = (double)v;
        return;
    case EMBER_DTYPE_I8: {
        uint8_t b = (uint8_t)u;
        ((int8_t *)p)[i] = b < 128 ? (int8_t)b : (int8_t)(-(int)(256 - b));
        return;
    }
    case EMBER_DTYPE_U8:
        ((uint8_t *)p)[i] = (uint8_t)u;
        return;
    case EMBER_DTYPE_BOOL:
        ((uint8_t *)p)[i] = v != 0;
        return;
    case EMBER_DTYPE_I32: {
        uint32_t w = (uint32_t)u;
        ((int32_t *)p)[i] = w <= INT32_MAX ? (int32_t)w : (int32_t)(w - 2147483648u) + INT32_MIN;
        return;
    }
    case EMBER_DTYPE_I64:
        ((int64_t *)p)[i] = v;
        return;
    default:
        return;
    }
}

bool em_rd_axis(int64_t a, int rank, int *out)
{
    if (a < -(int64_t)rank || a >= rank) {
        return false;
    }
    *out = (int)(a < 0 ? a + rank : a);
    return true;
}

bool em_rd_scalar_int(const em_tensor *t, int64_t *v)
{
    if (t->data == NULL || t->rank > 1 || (t->rank == 1 && t->dims[0] != 1)) {
        return false;
    }
    if (t->dtype == EMBER_DTYPE_I64) {
        *v = *(const int64_t *)t->data;
        return true;
    }
    if (t->dtype == EMBER_DTYPE_I32) {
        *v = *(const int32_t *)t->data;
        return true;
    }
    return false;
}

void em_rd_walk_init(em_rd_walk *w, const int64_t *dims, int rank, unsigned mask)
{
    int64_t stride = 1, strides[EM_MAX_RANK];
    memset(w, 0, sizeof *w);
    for (int d = rank - 1; d >= 0; d--) {
        strides[d] = stride;
        stride *= dims[d];
    }
    w->n_groups = 1;
    w->n_red = 1;
    for (int d = 0; d < rank; d++) {
        if (mask & (1u << d)) {
            w->red_dim[w->n_red_axes] = dims[d];
            w->red_stride[w->n_red_axes++] = strides[d];
            w->n_red *= dims[d];
        } else {
            w->kept_dim[w->n_kept] = dims[d];
            w->kept_stride[w->n_kept++] = strides[d];
            w->n_groups *= dims[d];
        }
    }
}

int64_t em_rd_walk_base(const em_rd_walk *w, int64_t g)
{
    int64_t base = 0;
    for (int d = w->n_kept - 1; d >= 0; d--) {
        base += (g % w->kept_dim[d]) * w->kept_stride[d];
        g /= w->kept_dim[d];
    }
    return base;
}

int64_t em_rd_walk_offset(const em_rd_walk *w, int64_t base, int64_t r)
{
    for (int d = w->n_red_axes - 1; d >= 0; d--) {
        base += (r % w->red_dim[d]) * w->red_stride[d];
        r /= w->red_dim[d];
    }
    return base;
}
