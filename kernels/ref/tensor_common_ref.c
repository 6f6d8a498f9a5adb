/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the tensor family's reference kernels: typed element access through double, index and
 * integer-list readers, axis normalization, and the strided element copy that Transpose,
 * Slice, Expand and DepthToSpace/SpaceToDepth reduce to.
 */
#include "ref.h"

#include "core/lowp.h"

#include <math.h>
#include <string.h>

double em_tref_get(ember_dtype dt, const void *p, int64_t i)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
        return ((const float *)p)[i];
    case EMBER_DTYPE_F64:
        return ((const double *)p)[i];
    case EMBER_DTYPE_F16:
        return em_tref_f16_to_f32(((const uint16_t *)p)[i]);
    case EMBER_DTYPE_BF16:
        return em_tref_bf16_to_f32(((const uint16_t *)p)[i]);
    case EMBER_DTYPE_U8:
        return ((const uint8_t *)p)[i];
    case EMBER_DTYPE_I8:
        return ((const int8_t *)p)[i];
    case EMBER_DTYPE_U16:
        return ((const uint16_t *)p)[i];
    case EMBER_DTYPE_I16:
        return ((const int16_t *)p)[i];
    case EMBER_DTYPE_I32:
        return ((const int32_t *)p)[i];
    case EMBER_DTYPE_I64:
        return (double)((const int64_t *)p)[i];
    case EMBER_DTYPE_U32:
        return ((const uint32_t *)p)[i];
    case EMBER_DTYPE_U64:
        return (double)((const uint64_t *)p)[i];
    case EMBER_DTYPE_BOOL:
        return ((const uint8_t *)p)[i] != 0;
    default: /* the low-precision types: one byte per element */
        if (em_lowp_is_int(dt)) {
            return (double)em_lowp_int(dt, ((const uint8_t *)p)[i]);
        }
        return em_lowp_to_double(dt, ((const uint8_t *)p)[i]);
    }
}

/* v truncated toward zero as two's complement bits: NaN -> 0, beyond int64 saturated. */
static uint64_t to_bits(double v)
{
    if (v != v) {
        return 0;
    }
    if (v >= 9223372036854775807.0) {
        return (uint64_t)INT64_MAX;
    }
    if (v <= -9223372036854775808.0) {
        return (uint64_t)INT64_MIN;
    }
    return (uint64_t)(int64_t)v;
}

void em_tref_set(ember_dtype dt, void *p, int64_t i, double v)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
        ((float *)p)[i] = (float)v;
        break;
    case EMBER_DTYPE_F64:
        ((double *)p)[i] = v;
        break;
    case EMBER_DTYPE_F16:
        ((uint16_t *)p)[i] = em_tref_f32_to_f16((float)v);
        break;
    case EMBER_DTYPE_BF16:
        ((uint16_t *)p)[i] = em_tref_f32_to_bf16((float)v);
        break;
    case EMBER_DTYPE_U8:
    case EMBER_DTYPE_I8:
        ((uint8_t *)p)[i] = (uint8_t)to_bits(v);
        break;
    case EMBER_DTYPE_U16:
    case EMBER_DTYPE_I16:
        ((uint16_t *)p)[i] = (uint16_t)to_bits(v);
        break;
    case EMBER_DTYPE_U32:
    case EMBER_DTYPE_I32:
        ((uint32_t *)p)[i] = (uint32_t)to_bits(v);
        break;
    case EMBER_DTYPE_I64:
        ((uint64_t *)p)[i] = to_bits(v);
        break;
    case EMBER_DTYPE_U64:
        ((uint64_t *)p)[i] = v >= 18446744073709551615.0 ? UINT64_MAX
                             : v >= 0                    ? (uint64_t)v
                                                         : to_bits(v);
        break;
    case EMBER_DTYPE_BOOL:
        ((uint8_t *)p)[i] = v != 0;
        break;
    default: /* the low-precision types: Cast's rules with saturate = 1 */
        if (em_lowp_is_int(dt)) {
            ((uint8_t *)p)[i] = em_lowp_wrap(dt, isfinite(v) ? to_bits(v) : 0);
        } else if (em_lowp_is_float(dt)) {
            ((uint8_t *)p)[i] = em_lowp_from_double(dt, v, EM_LOWP_SATURATE);
        }
        break;
    }
}

int64_t em_tref_index(const em_tensor *t, int64_t i)
{
    if (t->dtype == EMBER_DTYPE_I64) {
        return ((const int64_t *)t->data)[i];
    }
    if (t->dtype == EMBER_DTYPE_I32) {
        return ((const int32_t *)t->data)[i];
    }
    return 0;
}

bool em_tref_ints(const em_tensor *t, int64_t *v, int max, int *count)
{
    if ((t->dtype != EMBER_DTYPE_I32 && t->dtype != EMBER_DTYPE_I64) || t->rank > 1 ||
        t->data == NULL) {
        return false;
    }
    int64_t c = t->rank == 0 ? 1 : t->dims[0];
    if (c > max) {
        return false;
    }
    for (int64_t i = 0; i < c; i++) {
        v[i] = em_tref_index(t, i);
    }
    *count = (int)c;
    return true;
}

ember_status *em_tref_axis(const em_kinfo *ki, int64_t axis, int rank, int *out)
{
    if (axis < -rank || axis >= rank) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "axis %lld is out of range for rank %d",
                            (long long)axis, rank);
    }
    *out = (int)(axis < 0 ? axis + rank : axis);
    return NULL;
}

void em_tref_strides(const int64_t *dims, int rank, int64_t *strides)
{
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        strides[d] = s;
        s *= dims[d];
    }
}

void em_tref_strided_copy(size_t esize, int rank, const int64_t *dims, const void *in, int64_t base,
                          const int64_t *strides, void *out)
{
    const unsigned char *src = in;
    unsigned char *dst = out;
    int64_t n = em_ref_prod(dims, rank), c[EM_MAX_RANK] = {0}, off = base;
    if (n == 0) {
        return;
    }
    /* Axes that continue the next one's run in the source (stride = its dim x its stride)
     * merge into it, so that a slice of whole planes is one memcpy rather than one a row
     * (shufflenet's channel halves: 1624 copies of 112 bytes). */
    int64_t md[EM_MAX_RANK], ms[EM_MAX_RANK];
    int mr = 0;
    for (int k = 0; k < rank; k++) {
        if (mr > 0 && ms[mr - 1] == dims[k] * strides[k]) {
            md[mr - 1] *= dims[k];
            ms[mr - 1] = strides[k];
        } else {
            md[mr] = dims[k];
            ms[mr++] = strides[k];
        }
    }
    rank = mr;
    dims = md;
    strides = ms;
    /* Rows along the last axis (one memcpy when contiguous); an odometer over the others
     * moves the row's start offset. */
    int64_t row = rank > 0 ? dims[rank - 1] : 1, rs = rank > 0 ? strides[rank - 1] : 0;
    size_t row_bytes = (size_t)row * esize;
    for (int64_t r = 0; r < n / row; r++) {
        unsigned char *d = dst + (size_t)r * row_bytes;
        if (rs == 1) {
            memcpy(d, src + (size_t)off * esize, row_bytes);
        } else {
            for (int64_t j = 0; j < row; j++) {
                em_tref_copy1(esize, d + (size_t)j * esize, src + (size_t)(off + j * rs) * esize);
            }
        }
        for (int k = rank - 2; k >= 0; k--) {
            off += strides[k];
            if (++c[k] < dims[k]) {
                break;
            }
            off -= strides[k] * dims[k];
            c[k] = 0;
        }
    }
}
