/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers of the quant family (also used by the signal family): numeric stores by dtype (loads
 * are the tensor family's em_tref_get), the quantized storage types (one table row each),
 * rounding (half to even via rint in the default rounding mode) with saturation, the float
 * formats through runtime/core/lowp.h, and the scale / zero-point layout of QuantizeLinear and
 * DequantizeLinear.
 */
#include "ref.h"

#include "core/lowp.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

bool em_q_is_float(ember_dtype dt)
{
    return dt == EMBER_DTYPE_F32 || dt == EMBER_DTYPE_F64 || dt == EMBER_DTYPE_F16 ||
           dt == EMBER_DTYPE_BF16;
}

/* double -> float without undefined behaviour: beyond the float range gives +-FLT_MAX, or
 * +-infinity from the midpoint between FLT_MAX and 2^128 up (round to nearest). */
static float to_f32(double v)
{
    const double mid = (double)FLT_MAX + ldexp(1.0, 103);
    if (fabs(v) > FLT_MAX && !isnan(v)) {
        float r = fabs(v) >= mid ? INFINITY : FLT_MAX;
        return v < 0 ? -r : r;
    }
    return (float)v;
}

void em_q_setf(ember_dtype dt, void *p, int64_t i, double v)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
        ((float *)p)[i] = to_f32(v);
        return;
    case EMBER_DTYPE_F64:
        ((double *)p)[i] = v;
        return;
    case EMBER_DTYPE_F16:
        ((uint16_t *)p)[i] = em_math_f16_from_double(v);
        return;
    case EMBER_DTYPE_BF16:
        ((uint16_t *)p)[i] = em_math_bf16_from_double(v);
        return;
    case EMBER_DTYPE_U8:
        ((uint8_t *)p)[i] = (uint8_t)em_math_double_to_u(v, UINT8_MAX);
        return;
    case EMBER_DTYPE_I8:
        ((int8_t *)p)[i] = (int8_t)em_math_double_to_i(v, INT8_MIN, INT8_MAX);
        return;
    case EMBER_DTYPE_U16:
        ((uint16_t *)p)[i] = (uint16_t)em_math_double_to_u(v, UINT16_MAX);
        return;
    case EMBER_DTYPE_I16:
        ((int16_t *)p)[i] = (int16_t)em_math_double_to_i(v, INT16_MIN, INT16_MAX);
        return;
    case EMBER_DTYPE_I32:
        ((int32_t *)p)[i] = (int32_t)em_math_double_to_i(v, INT32_MIN, INT32_MAX);
        return;
    case EMBER_DTYPE_U32:
        ((uint32_t *)p)[i] = (uint32_t)em_math_double_to_u(v, UINT32_MAX);
        return;
    case EMBER_DTYPE_I64:
        ((int64_t *)p)[i] = em_math_double_to_i(v, INT64_MIN, INT64_MAX);
        return;
    case EMBER_DTYPE_U64:
        ((uint64_t *)p)[i] = em_math_double_to_u(v, UINT64_MAX);
        return;
    case EMBER_DTYPE_BOOL:
        ((uint8_t *)p)[i] = v != 0.0;
        return;
    default: /* the low-precision types: Cast's rules (saturating float8), int4/int2 wrap */
        em_tref_set(dt, p, i, v);
        return;
    }
}

ember_status *em_q_attr_flag(const em_kinfo *ki, const char *name, int64_t dflt, bool *v)
{
    int64_t x;
    ember_status *st = em_ref_attr_int(ki, name, dflt, &x);
    if (st == NULL && x != 0 && x != 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "attribute '%s' = %lld must be 0 or 1",
                            name, (long long)x);
    }
    *v = x != 0;
    return st;
}

ember_status *em_q_int_input(const em_kinfo *ki, int i, const char *what, bool required,
                             bool *known, int64_t *v)
{
    const em_tensor *t = &ki->in[i];
    *known = false;
    if (!em_ref_has_input(ki, i)) {
        return required ? em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%s is missing", what) : NULL;
    }
    ember_status *st = em_ref_check_tensor(ki, t, EMBER_DTYPE_UNDEFINED, what);
    if (st == NULL && ((t->dtype != EMBER_DTYPE_I32 && t->dtype != EMBER_DTYPE_I64) ||
                       t->rank > 1 || em_ref_prod(t->dims, t->rank) != 1)) {
        st = em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%s must be one int32 or int64 value", what);
    }
    if (st == NULL) {
        *known = em_rd_scalar_int(t, v);
    }
    return st;
}

/* ---- Quantized storage types ------------------------------------------------------------- */

int64_t em_q_int(const em_qtype *t, const void *p, int64_t i)
{
    return (int64_t)em_tref_get(t->dt, p, i); /* exact: the types have at most 32 bits */
}

double em_q_real(const em_qtype *t, const void *p, int64_t i)
{
    return em_tref_get(t->dt, p, i);
}

void em_q_quantize(const em_qtype *t, void *p, int64_t i, double v, double zp, bool saturate)
{
    if (t->fp) {
        ((uint8_t *)p)[i] = em_lowp_from_double(t->dt, v + zp, saturate ? EM_LOWP_SATURATE : 0);
        return;
    }
    double q = isnan(v) ? zp : rint(v) + zp;
    em_q_setf(t->dt, p, i, q < t->lo ? t->lo : q > t->hi ? t->hi : q);
}

void em_q_requantize(const em_qtype *t, void *p, int64_t i, int64_t acc, double mult, double zp)
{
    em_q_quantize(t, p, i, (double)acc * mult, zp, true);
}

ember_status *em_q_operand_8bit(const em_kinfo *ki, int i, const char *what, const em_qtype **t)
{
    const em_tensor *x = &ki->in[i];
    ember_status *st = em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, what);
    if (st != NULL) {
        return st;
    }
    if (x->dtype != EMBER_DTYPE_U8 && x->dtype != EMBER_DTYPE_I8) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "%s dtype %s is not supported (uint8, int8)",
                            what, em_dtype_name(x->dtype));
    }
    *t = em_q_type(x->dtype);
    return NULL;
}

bool em_q_param_dtype_ok(ember_dtype dt, ember_dtype want)
{
    if (want != EMBER_DTYPE_UNDEFINED) {
        return dt == want;
    }
    return dt == EMBER_DTYPE_F32 || dt == EMBER_DTYPE_F16 || dt == EMBER_DTYPE_BF16;
}

/* ---- Scale / zero-point layout ----------------------------------------------------------- */

static bool single(const em_tensor *t)
{
    return t->rank <= 1 && em_ref_prod(t->dims, t->rank) == 1;
}

/* The zero point has the scale's shape (any two one-element tensors of rank <= 1 agree). */
static ember_status *check_zp_shape(const em_kinfo *ki, const em_tensor *s, const em_tensor *zp)
{
    if (zp == NULL || (single(s) && single(zp))) {
        return NULL;
    }
    bool same = zp->rank == s->rank;
    for (int d = 0; same && d < s->rank; d++) {
        same = zp->dims[d] == s->dims[d];
    }
    if (!same) {
        char a[64], b[64];
        em_dims_str(s->dims, s->rank, a, sizeof a);
        em_dims_str(zp->dims, zp->rank, b, sizeof b);
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "the zero point's shape %s differs from the scale's %s", b, a);
    }
    return NULL;
}

/* Blocked: the scale has x's dims except dims[ax] = ceil(x.dims[ax] / block). */
static ember_status *check_blocked(const em_kinfo *ki, const em_tensor *x, const em_tensor *s,
                                   int ax, int64_t block)
{
    if (s->rank != x->rank) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "a blocked scale has rank %d, expected x's rank %d", s->rank, x->rank);
    }
    for (int d = 0; d < x->rank; d++) {
        int64_t want = d == ax ? (x->dims[d] + block - 1) / block : x->dims[d];
        if (s->dims[d] != want) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "blocked scale dim %d is %lld, expected %lld (block_size %lld)", d,
                                (long long)s->dims[d], (long long)want, (long long)block);
        }
    }
    return NULL;
}

ember_status *em_qmap_parse(const em_kinfo *ki, const em_tensor *x, const em_tensor *scale,
                            const em_tensor *zp, int64_t axis, int64_t block, em_qmap *m)
{
    ember_status *st = NULL;
    int ax;
    memset(m, 0, sizeof *m);
    m->inner = m->dim = m->block = 1;
    if (block < 0) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "block_size %lld is negative",
                            (long long)block);
    }
    EMBER_TRY(check_zp_shape(ki, scale, zp));
    if (single(scale)) {
        return NULL; /* per tensor: every index 0 */
    }
    if (axis < -(int64_t)x->rank || axis >= x->rank) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "axis %lld is out of range for rank %d",
                            (long long)axis, x->rank);
    }
    ax = (int)(axis < 0 ? axis + x->rank : axis);
    m->inner = em_ref_prod(x->dims + ax + 1, x->rank - ax - 1);
    m->dim = x->dims[ax];
    if (m->inner == 0 || m->dim == 0) {
        m->inner = m->dim = 1; /* x is empty: no index is ever asked for */
    }
    if (block == 0) {
        if (scale->rank != 1 || scale->dims[0] != x->dims[ax]) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "a per-axis scale must be 1-D of x.dims[%d] = %lld elements", ax,
                                (long long)x->dims[ax]);
        }
        m->s_axis = 1;
        return NULL;
    }
    EMBER_TRY(check_blocked(ki, x, scale, ax, block));
    m->block = block;
    m->s_inner = 1;
    m->s_axis = m->inner;
    m->s_outer = scale->dims[ax] * m->inner;
    return NULL;
fail:
    return st;
}

ember_status *em_q_tensor_params(const em_kinfo *ki, int si, int zi, ember_dtype dt,
                                 const char *what, bool *has_zp)
{
    if (!em_ref_has_input(ki, si)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%s's scale (input %d) is missing", what,
                            si);
    }
    const em_tensor *s = &ki->in[si];
    ember_status *st = em_ref_check_tensor(ki, s, EMBER_DTYPE_UNDEFINED, what);
    if (st != NULL) {
        return st;
    }
    if (s->dtype != EMBER_DTYPE_F32 || s->rank > 1 || em_ref_prod(s->dims, s->rank) != 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "%s's scale (input %d) must be one float32 value", what, si);
    }
    if (s->data != NULL) {
        float v = *(const float *)s->data;
        if (!(v > 0.0f) || isinf(v)) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "%s's scale (input %d) is %g: a scale must be positive and finite",
                                what, si, (double)v);
        }
    }
    *has_zp = zi >= 0 && em_ref_has_input(ki, zi);
    if (!*has_zp) {
        return NULL;
    }
    const em_tensor *z = &ki->in[zi];
    if ((st = em_ref_check_tensor(ki, z, EMBER_DTYPE_UNDEFINED, what)) != NULL) {
        return st;
    }
    if (z->dtype != dt || z->rank > 1 || em_ref_prod(z->dims, z->rank) != 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "%s's zero point (input %d) must be one %s value", what, zi,
                            em_dtype_name(dt));
    }
    return NULL;
}

double em_q_param_at(const em_tensor *in, int i, bool present, int64_t k, double dflt)
{
    return present ? em_tref_get(in[i].dtype, in[i].data, k) : dflt;
}
