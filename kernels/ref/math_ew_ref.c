/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The elementwise engine of the math family (see math_ref.h): dtype domains, f16/bf16
 * conversions, loads and stores with the ONNX Cast rules, the n-ary broadcasting plan (numpy
 * multidirectional broadcasting, ONNX Broadcasting.md) and the generic prepare and run.
 *
 * Broadcasting plan: as in math_eltwise_ref.c, size-1 output axes are dropped and neighbouring axes
 * merged when every input is either fully present or fully broadcast along both, so "same
 * shape" is one axis. run walks the output in order over [begin, end) chunks, one strided row
 * at a time, and hands each row to the op function in blocks of EM_MATH_BLOCK elements.
 *
 * In place: out[0] may be in[0] exactly (ops flagged EM_OPF_EW). Then in[0] has the output's
 * shape, and each block of in[0] is loaded before the same block of the output is stored.
 *
 * Stores (em_math_store) follow ONNX Cast: to a float type, round to nearest even (overflow
 * gives infinity); a double to an integer type truncates toward zero, saturates out of range
 * and maps NaN to 0 (the spec leaves both undefined); integers to a narrower integer keep the
 * low bits (two's complement); anything to bool is "!= 0" (NaN is true). The low-precision
 * types (runtime/core/lowp.h) load as doubles (float8/4/6) or integers (int4/2) and store with
 * lowp.c's conversions: the float formats honour Cast's saturate / round_mode (s->at.mode), a
 * double to int4/int2 truncates and keeps the low bits as ONNX's reference (ml_dtypes) does,
 * with NaN and infinities giving 0.
 */
#include "ref.h"

#include "core/lowp.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Output elements per parallel chunk. */
#define MATH_GRAIN ((int64_t)1 << 15)

/* ---- dtypes ------------------------------------------------------------------------------- */

em_math_dom em_math_dom_of(ember_dtype dt)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
    case EMBER_DTYPE_F64:
    case EMBER_DTYPE_F16:
    case EMBER_DTYPE_BF16:
        return EM_MATH_F;
    case EMBER_DTYPE_I8:
    case EMBER_DTYPE_I16:
    case EMBER_DTYPE_I32:
    case EMBER_DTYPE_I64:
    case EMBER_DTYPE_I4:
    case EMBER_DTYPE_I2:
        return EM_MATH_I;
    default:
        return em_lowp_is_float(dt) ? EM_MATH_F : EM_MATH_U;
    }
}

double em_math_f16_to_double(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v;
    if (e == 0) {
        v = ldexp((double)m, -24);
    } else if (e == 31 && m != 0) { /* NaN made quiet, its payload kept (as vcvtph2ps) */
        uint64_t bits = (uint64_t)(h & 0x8000) << 48 | 0x7ff8000000000000ull | (uint64_t)m << 42;
        memcpy(&v, &bits, sizeof v);
        return v;
    } else if (e == 31) {
        v = INFINITY;
    } else {
        v = ldexp((double)(m + 1024), e - 25);
    }
    return (h & 0x8000) ? -v : v;
}

double em_math_bf16_to_double(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    if ((u & 0x7fffffffu) > 0x7f800000u) {
        u |= 0x400000u; /* NaN made quiet (the conversion to double would anyway) */
    }
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Rounds x to a binary float with `mbits` stored mantissa bits and `ebits` exponent bits
 * (IEEE layout, subnormals, round to nearest even by rint in the default rounding mode). */
static uint16_t small_float(double x, int mbits, int ebits)
{
    const uint32_t sign = signbit(x) ? 1u << (mbits + ebits) : 0;
    const uint32_t emax = (1u << ebits) - 1; /* the all-ones exponent field: inf / NaN */
    const int bias = (1 << (ebits - 1)) - 1;
    if (isnan(x)) { /* quiet, with the top bits of the payload (as F16C's vcvtps2ph) */
        uint64_t bits;
        memcpy(&bits, &x, sizeof bits);
        uint32_t pay = (uint32_t)(bits >> (52 - mbits)) & ((1u << mbits) - 1);
        return (uint16_t)(sign | emax << mbits | pay | 1u << (mbits - 1));
    }
    double a = fabs(x);
    if (isinf(a)) {
        return (uint16_t)(sign | emax << mbits);
    }
    if (a == 0.0) {
        return (uint16_t)sign;
    }
    int e;
    (void)frexp(a, &e);
    int ex = e - 1; /* a = 1.f * 2^ex */
    if (ex < 1 - bias) {
        ex = 1 - bias; /* subnormal: the quantum stays 2^(1 - bias - mbits) */
    }
    double q = rint(ldexp(a, mbits - ex)); /* an integer <= 2^(mbits + 1) */
    if (q >= ldexp(1.0, mbits + 1)) {
        q = ldexp(1.0, mbits);
        ex++;
    }
    uint32_t qi = (uint32_t)q;
    if (qi < (1u << mbits)) {
        return (uint16_t)(sign | qi); /* subnormal (or zero), exponent field 0 */
    }
    int64_t field = (int64_t)ex + bias;
    if (field >= (int64_t)emax) {
        return (uint16_t)(sign | emax << mbits);
    }
    return (uint16_t)(sign | (uint32_t)field << mbits | (qi - (1u << mbits)));
}

uint16_t em_math_f16_from_double(double x)
{
    return small_float(x, 10, 5);
}

uint16_t em_math_bf16_from_double(double x)
{
    return small_float(x, 7, 8);
}

/* double -> float, with overflow made explicit (C leaves out-of-range conversions undefined):
 * values from the midpoint between FLT_MAX and 2^128 up round to infinity. */
static float to_f32(double v)
{
    const double mid = (double)FLT_MAX + ldexp(1.0, 103);
    if (fabs(v) > FLT_MAX) {
        if (isnan(v)) {
            return (float)v;
        }
        float big = fabs(v) >= mid ? INFINITY : FLT_MAX;
        return v < 0 ? -big : big;
    }
    return (float)v;
}

int64_t em_math_double_to_i(double v, int64_t lo, int64_t hi)
{
    if (isnan(v)) {
        return 0;
    }
    v = trunc(v);
    if (v <= (double)lo) {
        return lo;
    }
    if (v >= (double)hi) { /* (double)INT64_MAX is 2^63: anything there saturates */
        return hi;
    }
    return (int64_t)v;
}

uint64_t em_math_double_to_u(double v, uint64_t hi)
{
    if (isnan(v) || v <= 0.0) {
        return 0;
    }
    v = trunc(v);
    if (v >= (double)hi) {
        return hi;
    }
    return (uint64_t)v;
}

/* ---- loads and stores --------------------------------------------------------------------- */

#define LOAD(T, field, expr)                                                                       \
    do {                                                                                           \
        const T *p_ = (const T *)p + off;                                                          \
        for (int k = 0; k < n; k++) {                                                              \
            T v = p_[k * stride];                                                                  \
            b->field[k] = (expr);                                                                  \
        }                                                                                          \
    } while (0)

/* b[k] = p[off + k * stride] for k in [0, n), in dt's domain. */
static void load(ember_dtype dt, const void *p, int64_t off, int64_t stride, em_math_blk *b, int n)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
        LOAD(float, f, v);
        break;
    case EMBER_DTYPE_F64:
        LOAD(double, f, v);
        break;
    case EMBER_DTYPE_F16:
        LOAD(uint16_t, f, em_math_f16_to_double(v));
        break;
    case EMBER_DTYPE_BF16:
        LOAD(uint16_t, f, em_math_bf16_to_double(v));
        break;
    case EMBER_DTYPE_I8:
        LOAD(int8_t, i, v);
        break;
    case EMBER_DTYPE_I16:
        LOAD(int16_t, i, v);
        break;
    case EMBER_DTYPE_I32:
        LOAD(int32_t, i, v);
        break;
    case EMBER_DTYPE_I64:
        LOAD(int64_t, i, v);
        break;
    case EMBER_DTYPE_U8:
        LOAD(uint8_t, u, v);
        break;
    case EMBER_DTYPE_U16:
        LOAD(uint16_t, u, v);
        break;
    case EMBER_DTYPE_U32:
        LOAD(uint32_t, u, v);
        break;
    case EMBER_DTYPE_U64:
        LOAD(uint64_t, u, v);
        break;
    case EMBER_DTYPE_BOOL: /* any nonzero byte is true */
        LOAD(uint8_t, u, v != 0);
        break;
    case EMBER_DTYPE_I4:
    case EMBER_DTYPE_I2:
        LOAD(uint8_t, i, em_lowp_int(dt, v));
        break;
    case EMBER_DTYPE_U4:
    case EMBER_DTYPE_U2:
        LOAD(uint8_t, u, (uint64_t)em_lowp_int(dt, v));
        break;
    default: /* the float8 / float4 / float6 formats */
        LOAD(uint8_t, f, em_lowp_to_double(dt, v));
        break;
    }
}

/* One value of domain `dom` (block b, index k) as double, int64 (low bits) or bool. */
static double val_f(em_math_dom dom, const em_math_blk *b, int k)
{
    return dom == EM_MATH_F ? b->f[k] : dom == EM_MATH_I ? (double)b->i[k] : (double)b->u[k];
}

static uint64_t val_bits(em_math_dom dom, const em_math_blk *b, int k)
{
    return dom == EM_MATH_I ? (uint64_t)b->i[k] : b->u[k];
}

static bool val_bool(em_math_dom dom, const em_math_blk *b, int k)
{
    return dom == EM_MATH_F ? b->f[k] != 0.0 : b->u[k] != 0; /* NaN != 0 */
}

/* An integer of dtype dt from domain `dom`: doubles by the Cast rule, integers wrap. */
static uint64_t int_val(ember_dtype dt, em_math_dom dom, const em_math_blk *b, int k)
{
    if (dom != EM_MATH_F) {
        return val_bits(dom, b, k);
    }
    double v = b->f[k];
    switch (dt) {
    case EMBER_DTYPE_I8:
        return (uint64_t)em_math_double_to_i(v, INT8_MIN, INT8_MAX);
    case EMBER_DTYPE_I16:
        return (uint64_t)em_math_double_to_i(v, INT16_MIN, INT16_MAX);
    case EMBER_DTYPE_I32:
        return (uint64_t)em_math_double_to_i(v, INT32_MIN, INT32_MAX);
    case EMBER_DTYPE_I64:
        return (uint64_t)em_math_double_to_i(v, INT64_MIN, INT64_MAX);
    case EMBER_DTYPE_U8:
        return em_math_double_to_u(v, UINT8_MAX);
    case EMBER_DTYPE_U16:
        return em_math_double_to_u(v, UINT16_MAX);
    case EMBER_DTYPE_U32:
        return em_math_double_to_u(v, UINT32_MAX);
    default:
        return em_math_double_to_u(v, UINT64_MAX);
    }
}

/* A float of an integer domain value, converted once (no double rounding for f32). */
static float int_to_f32(em_math_dom dom, const em_math_blk *b, int k)
{
    return dom == EM_MATH_I ? (float)b->i[k] : (float)b->u[k];
}

/* An int4 / int2 element from domain `dom`: doubles truncate (non-finite -> 0), bits wrap. */
static uint8_t lowp_int_val(ember_dtype dt, em_math_dom dom, const em_math_blk *b, int k)
{
    if (dom != EM_MATH_F) {
        return em_lowp_wrap(dt, val_bits(dom, b, k));
    }
    double v = b->f[k];
    return em_lowp_wrap(dt, isfinite(v) ? (uint64_t)em_math_double_to_i(v, INT64_MIN, INT64_MAX)
                                        : 0);
}

/* p[off + k] = b[k] converted from domain `dom` to dt, k in [0, n); `lowp` holds the em_lowp
 * conversion flags of the float8 / float4 / float6 formats. */
static void store(ember_dtype dt, em_math_dom dom, unsigned lowp, void *p, int64_t off,
                  const em_math_blk *b, int n)
{
    if (em_lowp_is_float(dt) || em_lowp_is_int(dt)) {
        for (int k = 0; k < n; k++) {
            ((uint8_t *)p)[off + k] = em_lowp_is_int(dt) ? lowp_int_val(dt, dom, b, k)
                                                         : em_lowp_from_double(dt, val_f(dom, b, k),
                                                                               lowp);
        }
        return;
    }
    for (int k = 0; k < n; k++) {
        int64_t o = off + k;
        switch (dt) {
        case EMBER_DTYPE_F32:
            ((float *)p)[o] = dom == EM_MATH_F ? to_f32(b->f[k]) : int_to_f32(dom, b, k);
            break;
        case EMBER_DTYPE_F64:
            ((double *)p)[o] = val_f(dom, b, k);
            break;
        case EMBER_DTYPE_F16:
            ((uint16_t *)p)[o] = em_math_f16_from_double(val_f(dom, b, k));
            break;
        case EMBER_DTYPE_BF16:
            ((uint16_t *)p)[o] = em_math_bf16_from_double(val_f(dom, b, k));
            break;
        case EMBER_DTYPE_I8:
        case EMBER_DTYPE_U8:
            ((uint8_t *)p)[o] = (uint8_t)int_val(dt, dom, b, k);
            break;
        case EMBER_DTYPE_I16:
        case EMBER_DTYPE_U16:
            ((uint16_t *)p)[o] = (uint16_t)int_val(dt, dom, b, k);
            break;
        case EMBER_DTYPE_I32:
        case EMBER_DTYPE_U32:
            ((uint32_t *)p)[o] = (uint32_t)int_val(dt, dom, b, k);
            break;
        case EMBER_DTYPE_I64:
        case EMBER_DTYPE_U64:
            ((uint64_t *)p)[o] = int_val(dt, dom, b, k);
            break;
        default:
            ((uint8_t *)p)[o] = val_bool(dom, b, k) ? 1 : 0;
            break;
        }
    }
}

/* ---- broadcasting plan -------------------------------------------------------------------- */

/* Whether input i takes part in the output shape. */
static bool shapes_output(const em_math_state *s, int i)
{
    em_math_bc bc = s->def->bc;
    return s->present[i] && !((bc == EM_MATH_BC_SCALARS || bc == EM_MATH_BC_FIRST) && i > 0);
}

/* The output shape from the inputs (numpy rules), and every input's dims right-aligned to it
 * (al[i], 1 where an input has fewer axes; all 1 for inputs that do not shape the output). */
static ember_status *plan_shape(const em_kinfo *ki, const em_math_state *s, int64_t *y_dims,
                                int *y_rank, int64_t al[][EM_MAX_RANK])
{
    int r = 0;
    for (int i = 0; i < s->n_in; i++) {
        if (shapes_output(s, i) && ki->in[i].rank > r) {
            r = ki->in[i].rank;
        }
    }
    for (int d = 0; d < r; d++) {
        y_dims[d] = 1;
    }
    for (int i = 0; i < s->n_in; i++) {
        const em_tensor *t = &ki->in[i];
        for (int d = 0; d < r; d++) {
            int id = d - (r - t->rank);
            al[i][d] = shapes_output(s, i) && id >= 0 ? t->dims[id] : 1;
            if (al[i][d] == y_dims[d] || al[i][d] == 1) {
                continue;
            }
            if (y_dims[d] != 1) {
                char buf[160];
                em_tensor_shape_str(t, buf, sizeof buf);
                return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                    "input %d of shape %s does not broadcast (axis %d: %lld vs "
                                    "%lld)",
                                    i, buf, d, (long long)al[i][d], (long long)y_dims[d]);
            }
            y_dims[d] = al[i][d];
        }
    }
    *y_rank = r;
    return NULL;
}

/* Drops size-1 output axes, merges runs of axes with one broadcast pattern, sets strides. */
static void plan_merge(em_math_state *s, const int64_t *y_dims, int y_rank,
                       int64_t al[][EM_MAX_RANK])
{
    uint32_t pat[EM_MAX_RANK]; /* bit i: input i is broadcast along the merged axis */
    int r = 0;
    for (int d = 0; d < y_rank; d++) {
        if (y_dims[d] == 1) {
            continue;
        }
        uint32_t p = 0;
        for (int i = 0; i < s->n_in; i++) {
            p |= (al[i][d] == 1 ? 1u : 0u) << i;
        }
        if (r > 0 && pat[r - 1] == p) {
            s->dims[r - 1] *= y_dims[d];
            continue;
        }
        s->dims[r] = y_dims[d];
        pat[r++] = p;
    }
    if (r == 0) {
        s->dims[0] = 1;
        pat[0] = ~0u;
        r = 1;
    }
    s->rank = r;
    for (int i = 0; i < s->n_in; i++) {
        int64_t st = 1;
        for (int d = r - 1; d >= 0; d--) {
            bool bc = (pat[d] >> i) & 1u;
            s->strides[i][d] = bc ? 0 : st;
            st *= bc ? 1 : s->dims[d];
        }
    }
}

/* ---- prepare ------------------------------------------------------------------------------ */

static const em_math_opdef *find_def(em_op op)
{
    const em_math_opdef *d = em_math_unary_def(op);
    d = d != NULL ? d : em_math_binary_def(op);
    d = d != NULL ? d : em_math_bits_def(op);
    return d != NULL ? d : em_math_act_def(op);
}

static ember_status *dtype_refused(const em_kinfo *ki, int i, ember_dtype dt)
{
    return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "input %d has dtype %s, not handled here", i,
                        em_dtype_name(dt));
}

/* Checks each input's dtype against the op's rule; sets present / in_dt / in_dom. */
static ember_status *check_inputs(const em_kinfo *ki, em_math_state *s)
{
    const em_math_opdef *d = s->def;
    ember_status *st = NULL;
    for (int i = 0; i < s->n_in; i++) {
        char what[32];
        snprintf(what, sizeof what, "input %d", i);
        s->present[i] = em_ref_has_input(ki, i);
        if (!s->present[i]) {
            if (i == 0 || d->bc != EM_MATH_BC_SCALARS) {
                return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input %d is missing", i);
            }
            continue;
        }
        EMBER_TRY(em_ref_check_tensor(ki, &ki->in[i], EMBER_DTYPE_UNDEFINED, what));
        ember_dtype dt = ki->in[i].dtype;
        s->in_dt[i] = dt;
        s->in_dom[i] = em_math_dom_of(dt);
        uint32_t mask = d->dtypes;
        if (d->in == EM_MATH_IN_WHERE && i == 0) {
            mask = EM_MATH_BIT(BOOL);
        } else if (d->in == EM_MATH_IN_FREE && i == 1) {
            mask = d->dtypes1;
        }
        if (!((mask >> dt) & 1u)) {
            return dtype_refused(ki, i, dt);
        }
        ember_dtype want = d->in == EM_MATH_IN_WHERE            ? (i == 0 ? dt : ki->in[1].dtype)
                           : d->in == EM_MATH_IN_FREE && i == 1 ? dt
                                                                : ki->in[0].dtype;
        if (dt != want) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input %d has dtype %s, expected %s",
                                i, em_dtype_name(dt), em_dtype_name(want));
        }
        if (d->bc == EM_MATH_BC_SCALARS && i > 0 &&
            em_ref_prod(ki->in[i].dims, ki->in[i].rank) != 1) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input %d must hold one element", i);
        }
    }
    return NULL;
fail:
    return st;
}

static ember_status *check_output(const em_kinfo *ki, em_math_state *s)
{
    ember_status *st = NULL;
    int64_t y_dims[EM_MAX_RANK], al[EM_MATH_MAX_IN][EM_MAX_RANK];
    int y_rank = 0;
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], s->y_dt, "output 0"));
    EMBER_TRY(plan_shape(ki, s, y_dims, &y_rank, al));
    if (s->def->bc == EM_MATH_BC_UNI &&
        (y_rank != ki->in[0].rank ||
         memcmp(y_dims, ki->in[0].dims, sizeof(int64_t) * (size_t)y_rank) != 0)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "input 1 does not broadcast to the shape of input 0");
    }
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], y_dims, y_rank, "output 0"));
    s->numel = em_ref_prod(y_dims, y_rank);
    plan_merge(s, y_dims, y_rank, al);
    return NULL;
fail:
    return st;
}

ember_status *em_math_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_math_state s;
    memset(&s, 0, sizeof s);
    *state = NULL;
    *scratch_bytes = 0;
    s.def = ki->node != NULL ? find_def(ki->node->op) : NULL;
    if (s.def == NULL) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "not a math op");
    }
    const em_op_info *info = em_op_info_of(ki->node->op);
    int max_in = info->max_in < EM_MATH_MAX_IN ? info->max_in : EM_MATH_MAX_IN;
    if (ki->n_in > EM_MATH_MAX_IN && ki->n_in <= info->max_in) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "%d inputs, at most %d handled", ki->n_in,
                            EM_MATH_MAX_IN);
    }
    EMBER_TRY(em_ref_check_arity(ki, info->min_in, max_in, 1));
    s.n_in = ki->n_in;
    EMBER_TRY(check_inputs(ki, &s));
    switch (s.def->out) {
    case EM_MATH_OUT_SAME:
        s.y_dt = ki->in[0].dtype;
        break;
    case EM_MATH_OUT_BOOL:
        s.y_dt = EMBER_DTYPE_BOOL;
        break;
    case EM_MATH_OUT_IN1:
        s.y_dt = ki->in[1].dtype;
        break;
    default:
        s.y_dt = EMBER_DTYPE_UNDEFINED; /* EM_MATH_OUT_ATTR: the parser sets it */
        break;
    }
    s.y_dom = em_math_dom_of(s.y_dt);
    if (s.def->parse != NULL) {
        EMBER_TRY(s.def->parse(ki, &s));
    }
    EMBER_TRY(check_output(ki, &s));
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

/* ---- run ---------------------------------------------------------------------------------- */

typedef struct math_job {
    const em_math_state *s;
    const em_tensor *in;
    em_tensor *out;
} math_job;

/* Output elements [i, i + n) of one row; off[j] and the inner strides locate the inputs. */
static void math_row(const math_job *j, int64_t i, const int64_t *off, int64_t n)
{
    const em_math_state *s = j->s;
    const int last = s->rank - 1;
    em_math_blk xb[EM_MATH_MAX_IN], yb;
    const em_math_blk *xp[EM_MATH_MAX_IN] = {NULL}; /* NULL: absent (or past n_in) */
    for (int64_t done = 0; done < n; done += EM_MATH_BLOCK) {
        int cnt = (int)(n - done < EM_MATH_BLOCK ? n - done : EM_MATH_BLOCK);
        for (int k = 0; k < s->n_in; k++) {
            xp[k] = NULL;
            if (s->present[k] && !(s->def->bc == EM_MATH_BC_FIRST && k > 0)) {
                int64_t sk = s->strides[k][last];
                load(s->in_dt[k], j->in[k].data, off[k] + done * sk, sk, &xb[k], cnt);
                xp[k] = &xb[k];
            }
        }
        s->def->fn(s, xp, &yb, cnt);
        store(s->y_dt, s->y_dom, (unsigned)s->at.mode, j->out[0].data, i + done, &yb, cnt);
    }
}

static void math_task(void *arg, int64_t begin, int64_t end)
{
    const math_job *j = arg;
    const em_math_state *s = j->s;
    const int last = s->rank - 1;
    int64_t c[EM_MAX_RANK], off[EM_MATH_MAX_IN];
    int64_t rest = begin;
    for (int d = last; d >= 0; d--) {
        c[d] = rest % s->dims[d];
        rest /= s->dims[d];
    }
    int64_t i = begin;
    while (i < end) {
        for (int k = 0; k < s->n_in; k++) {
            off[k] = 0;
            for (int d = 0; d <= last; d++) {
                off[k] += c[d] * s->strides[k][d];
            }
        }
        int64_t n = s->dims[last] - c[last];
        if (n > end - i) {
            n = end - i;
        }
        math_row(j, i, off, n);
        i += n;
        c[last] += n - 1; /* the last element done; em_ref_coord_next carries from there */
        em_ref_coord_next(c, s->dims, s->rank);
    }
}

void em_math__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_math_state *s = state;
    math_job j = {s, in, out};
    if (s->numel > 0) {
        em_parallel_for(ctx != NULL ? ctx->pool : NULL, s->numel, MATH_GRAIN, math_task, &j);
    }
}
