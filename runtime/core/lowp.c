/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Low-precision formats (lowp.h). The binary float formats are described by one table row
 * each: exponent and mantissa widths, bias, which codes are special, the largest finite code.
 * Encoding rounds |x| to the format's mantissa width with rint (nearest even in the default
 * rounding mode; exact in double, since every input is a double already holding the source
 * value), subnormals included, and then handles overflow as ONNX Cast-25 does:
 *   saturate: the largest finite value of the sign of x (also for +-infinity);
 *   otherwise: e5m2 -> +-infinity; e4m3fn -> NaN of the sign of x; the fnuz types -> NaN 0x80.
 * The float4 / float6 formats have neither infinity nor NaN and always saturate (ml_dtypes, the
 * reference's conversion, does so); NaN becomes a zero whose sign bit is the inverse of the
 * NaN's, as ml_dtypes gives. The fnuz formats have no -0: negative values that round to zero
 * give +0. float8e8m0 (2^(e - 127)) follows onnx.numpy_helper.to_float8e8m0: x is rounded to
 * float32 first and its exponent field is kept, rounded up, down or to nearest per flags.
 */
#include "core/lowp.h"

#include "core/status.h"
#include "core/tensor.h"

#include <float.h>
#include <math.h>
#include <string.h>

typedef enum lp_special {
    LP_IEEE = 0, /* all-ones exponent: infinity (mantissa 0) or NaN */
    LP_FN,       /* only S.1111.111 is NaN; no infinity */
    LP_FNUZ,     /* only 0x80 is NaN; no infinity, no -0 */
    LP_FINITE    /* no special codes */
} lp_special;

typedef struct lp_fmt {
    ember_dtype dt;
    int ebits, mbits, bias;
    lp_special sp;
    uint16_t maxcode; /* magnitude bits of the largest finite value */
} lp_fmt;

/* clang-format off */
static const lp_fmt fmts[] = {
    {EMBER_DTYPE_F8E4M3FN,   4, 3, 7,  LP_FN,     0x7E}, /* 448 */
    {EMBER_DTYPE_F8E4M3FNUZ, 4, 3, 8,  LP_FNUZ,   0x7F}, /* 240 */
    {EMBER_DTYPE_F8E5M2,     5, 2, 15, LP_IEEE,   0x7B}, /* 57344 */
    {EMBER_DTYPE_F8E5M2FNUZ, 5, 2, 16, LP_FNUZ,   0x7F}, /* 57344 */
    {EMBER_DTYPE_F4E2M1,     2, 1, 1,  LP_FINITE, 0x07}, /* 6 */
    {EMBER_DTYPE_F6E2M3,     2, 3, 1,  LP_FINITE, 0x1F}, /* 7.5 */
    {EMBER_DTYPE_F6E3M2,     3, 2, 3,  LP_FINITE, 0x1F}, /* 28 */
    {EMBER_DTYPE_F16,        5, 10, 15, LP_IEEE, 0x7BFF}, /* decoding only */
    {EMBER_DTYPE_BF16,       8, 7, 127, LP_IEEE, 0x7F7F}, /* decoding only */
};
/* clang-format on */

static const lp_fmt *fmt_of(ember_dtype dt)
{
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
        if (fmts[i].dt == dt) {
            return &fmts[i];
        }
    }
    return NULL;
}

bool em_lowp_is_float(ember_dtype dt)
{
    return (fmt_of(dt) != NULL && dt != EMBER_DTYPE_F16 && dt != EMBER_DTYPE_BF16) ||
           dt == EMBER_DTYPE_F8E8M0;
}

bool em_lowp_is_float8(ember_dtype dt)
{
    return dt == EMBER_DTYPE_F8E4M3FN || dt == EMBER_DTYPE_F8E4M3FNUZ ||
           dt == EMBER_DTYPE_F8E5M2 || dt == EMBER_DTYPE_F8E5M2FNUZ;
}

bool em_lowp_is_int(ember_dtype dt)
{
    return dt == EMBER_DTYPE_U4 || dt == EMBER_DTYPE_I4 || dt == EMBER_DTYPE_U2 ||
           dt == EMBER_DTYPE_I2;
}

bool em_lowp_is_signed(ember_dtype dt)
{
    return dt == EMBER_DTYPE_I4 || dt == EMBER_DTYPE_I2;
}

int em_lowp_packed_bits(ember_dtype dt)
{
    switch (dt) {
    case EMBER_DTYPE_U4:
    case EMBER_DTYPE_I4:
    case EMBER_DTYPE_F4E2M1:
        return 4;
    case EMBER_DTYPE_U2:
    case EMBER_DTYPE_I2:
        return 2;
    case EMBER_DTYPE_F6E2M3:
    case EMBER_DTYPE_F6E3M2:
        return 6;
    default:
        return 0;
    }
}

int em_dtype_bits(ember_dtype dt)
{
    int b = em_lowp_packed_bits(dt);
    return b != 0 ? b : (int)em_dtype_size(dt) * 8;
}

/* ---- floats ------------------------------------------------------------------------------- */

double em_lowp_to_double(ember_dtype dt, uint32_t b)
{
    if (dt == EMBER_DTYPE_F8E8M0) {
        return (b & 0xFF) == 0xFF ? NAN : ldexp(1.0, (int)(b & 0xFF) - 127);
    }
    const lp_fmt *f = fmt_of(dt);
    if (f == NULL) {
        return 0.0;
    }
    const int nb = f->ebits + f->mbits;
    const unsigned mag = b & ((1u << nb) - 1), sign = (b >> nb) & 1u;
    const unsigned e = mag >> f->mbits, m = mag & ((1u << f->mbits) - 1);
    if ((f->sp == LP_FNUZ && sign && mag == 0) || (f->sp == LP_FN && mag == (1u << nb) - 1) ||
        (f->sp == LP_IEEE && e == (1u << f->ebits) - 1 && m != 0)) {
        return NAN;
    }
    double v = f->sp == LP_IEEE && e == (1u << f->ebits) - 1
                   ? INFINITY
                   : e == 0 ? ldexp((double)m, 1 - f->bias - f->mbits)
                            : ldexp((double)(m + (1u << f->mbits)), (int)e - f->bias - f->mbits);
    return sign ? -v : v;
}

/* The magnitude code of |x| (finite, > 0) rounded to nearest even; UINT32_MAX past the
 * format's exponent range. */
static uint32_t round_mag(const lp_fmt *f, double a)
{
    int e;
    (void)frexp(a, &e);
    int ex = e - 1; /* a = 1.f * 2^ex */
    if (ex < 1 - f->bias) {
        ex = 1 - f->bias; /* subnormal: the quantum stays 2^(1 - bias - mbits) */
    }
    if (ex > (1 << f->ebits) + f->bias) {
        return UINT32_MAX;
    }
    double q = rint(ldexp(a, f->mbits - ex)); /* an integer <= 2^(mbits + 1) */
    if (q >= ldexp(1.0, f->mbits + 1)) {
        q = ldexp(1.0, f->mbits);
        ex++;
    }
    uint32_t qi = (uint32_t)q;
    if (qi < (1u << f->mbits)) {
        return qi; /* subnormal or zero: exponent field 0 */
    }
    int64_t field = (int64_t)ex + f->bias;
    if (field >= (int64_t)1 << f->ebits) {
        return UINT32_MAX;
    }
    return (uint32_t)field << f->mbits | (qi - (1u << f->mbits));
}

static uint8_t from_double(const lp_fmt *f, double x, unsigned flags)
{
    const int nb = f->ebits + f->mbits;
    const unsigned smask = 1u << nb;
    const unsigned sign = signbit(x) ? smask : 0;
    if (isnan(x)) {
        switch (f->sp) {
        case LP_IEEE:
            return (uint8_t)(sign | ((1u << f->ebits) - 1) << f->mbits | 1u << (f->mbits - 1));
        case LP_FN:
            return (uint8_t)(sign | (smask - 1));
        case LP_FNUZ:
            return 0x80;
        default:
            return (uint8_t)(sign ^ smask);
        }
    }
    uint32_t mag = isinf(x) ? UINT32_MAX : x == 0.0 ? 0 : round_mag(f, fabs(x));
    if (mag > f->maxcode) {
        if ((flags & EM_LOWP_SATURATE) || f->sp == LP_FINITE) {
            mag = f->maxcode;
        } else if (f->sp == LP_IEEE) {
            mag = ((1u << f->ebits) - 1) << f->mbits; /* infinity */
        } else {
            return f->sp == LP_FNUZ ? 0x80 : (uint8_t)(sign | (smask - 1));
        }
    }
    if (f->sp == LP_FNUZ && mag == 0) {
        return 0;
    }
    return (uint8_t)(sign | mag);
}

/* The bits of x rounded to float32 (nearest even; past the float range, infinity from the
 * midpoint between FLT_MAX and 2^128 on, as the conversion rounds). */
static uint32_t f32_bits(double x)
{
    float f;
    if (fabs(x) > FLT_MAX && !isnan(x) && !isinf(x)) {
        f = fabs(x) >= (double)FLT_MAX + ldexp(1.0, 103) ? INFINITY : FLT_MAX;
        f = x < 0 ? -f : f;
    } else {
        f = (float)x;
    }
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* onnx.numpy_helper.to_float8e8m0 on one value, literally (sign ignored). */
static uint8_t e8m0_from_double(double x, unsigned flags)
{
    const uint32_t u = f32_bits(x);
    uint32_t e = (u >> 23) & 0xFF;
    if (e == 0xFF) {
        return 0xFF;
    }
    bool up;
    if (flags & EM_LOWP_ROUND_DOWN) {
        up = false;
    } else if (flags & EM_LOWP_ROUND_NEAREST) {
        bool g = u & 0x400000u, r = u & 0x200000u, s = (u & 0x1FFFFFu) != 0, lsb = e > 0;
        up = g && (r || s || lsb);
    } else {
        up = (u & 0x7FFFFFu) != 0;
    }
    if (up && !((flags & EM_LOWP_SATURATE) && e == 0xFE)) {
        e++;
    }
    return (uint8_t)e;
}

uint8_t em_lowp_from_double(ember_dtype dt, double x, unsigned flags)
{
    if (dt == EMBER_DTYPE_F8E8M0) {
        return e8m0_from_double(x, flags);
    }
    return em_lowp_is_float(dt) ? from_double(fmt_of(dt), x, flags) : 0;
}

/* ---- integers ----------------------------------------------------------------------------- */

int64_t em_lowp_int(ember_dtype dt, uint8_t b)
{
    switch (dt) {
    case EMBER_DTYPE_I4:
        return (int64_t)((b & 0xF) ^ 0x8) - 0x8;
    case EMBER_DTYPE_I2:
        return (int64_t)((b & 0x3) ^ 0x2) - 0x2;
    case EMBER_DTYPE_U4:
        return b & 0xF;
    default:
        return b & 0x3;
    }
}

uint8_t em_lowp_wrap(ember_dtype dt, uint64_t v)
{
    return (uint8_t)(v & (em_lowp_packed_bits(dt) == 4 ? 0xFu : 0x3u));
}

void em_lowp_int_range(ember_dtype dt, int64_t *lo, int64_t *hi)
{
    const int bits = em_lowp_packed_bits(dt);
    *lo = em_lowp_is_signed(dt) ? -((int64_t)1 << (bits - 1)) : 0;
    *hi = em_lowp_is_signed(dt) ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
}

/* ---- packing ------------------------------------------------------------------------------ */

size_t em_lowp_packed_size(ember_dtype dt, size_t n)
{
    size_t bits = (size_t)em_lowp_packed_bits(dt);
    if (bits == 0) {
        return n;
    }
    return n / 8 * bits + (n % 8 * bits + 7) / 8; /* ceil(n * bits / 8) without overflow */
}

/* The packed width of a sub-byte dtype (asserted) and its element mask. */
static unsigned sub_bits(ember_dtype dt, unsigned *mask)
{
    const unsigned bits = (unsigned)em_lowp_packed_bits(dt);
    EMBER_ASSERT(bits != 0);
    *mask = (1u << bits) - 1;
    return bits;
}

void em_lowp_unpack(ember_dtype dt, const uint8_t *src, uint8_t *dst, size_t n)
{
    unsigned mask, bits = sub_bits(dt, &mask);
    const size_t nbytes = em_lowp_packed_size(dt, n);
    for (size_t i = 0; i < n; i++) {
        size_t bit = i * bits, byte = bit / 8;
        unsigned w = src[byte];
        if (byte + 1 < nbytes) {
            w |= (unsigned)src[byte + 1] << 8; /* a 6-bit element may straddle two bytes */
        }
        dst[i] = (uint8_t)((w >> (bit % 8)) & mask);
    }
}

void em_lowp_pack(ember_dtype dt, const uint8_t *src, uint8_t *dst, size_t n)
{
    unsigned mask, bits = sub_bits(dt, &mask);
    memset(dst, 0, em_lowp_packed_size(dt, n));
    for (size_t i = 0; i < n; i++) {
        size_t bit = i * bits, byte = bit / 8;
        unsigned w = (src[i] & mask) << (bit % 8);
        dst[byte] |= (uint8_t)w;
        if (w > 0xFF) {
            dst[byte + 1] |= (uint8_t)(w >> 8);
        }
    }
}

/* ---- f16 / bf16 <-> f32 ---- */

float em_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    uint32_t bits;
    float f;
    if (exp == 0) { /* zero or subnormal: man * 2^-24 */
        f = ldexpf((float)man, -24);
        return sign != 0 ? -f : f;
    }
    if (exp == 31) { /* inf, or NaN made quiet (as vcvtph2ps) */
        bits = sign | 0x7f800000u | (man << 13) | (man != 0 ? 0x400000u : 0);
    } else {
        bits = sign | ((exp + 112u) << 23) | (man << 13);
    }
    memcpy(&f, &bits, sizeof f);
    return f;
}

uint16_t em_f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000u, exp = (x >> 23) & 0xffu, man = x & 0x7fffffu;
    if (exp == 0xff) {
        /* inf, or NaN made quiet keeping the payload's top bits (as vcvtps2ph) */
        return (uint16_t)(sign | 0x7c00u | (man != 0 ? 0x200u | (man >> 13) : 0));
    }
    int32_t e = (int32_t)exp - 127 + 15;
    if (e >= 31) {
        return (uint16_t)(sign | 0x7c00u);
    }
    uint32_t h, rem, half;
    if (e <= 0) { /* subnormal half: the value in units of 2^-24 */
        if (e < -10) {
            return (uint16_t)sign;
        }
        man |= 0x800000u;
        int shift = 14 - e;
        h = man >> shift;
        rem = man & ((1u << shift) - 1);
        half = 1u << (shift - 1);
    } else {
        h = ((uint32_t)e << 10) | (man >> 13);
        rem = man & 0x1fffu;
        half = 0x1000u;
    }
    if (rem > half || (rem == half && (h & 1u))) {
        h++; /* a carry into the exponent rounds up correctly, to inf at the top */
    }
    return (uint16_t)(sign | h);
}

float em_bf16_to_f32(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    if ((bits & 0x7fffffffu) > 0x7f800000u) {
        bits |= 0x400000u; /* NaN made quiet */
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

uint16_t em_f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    if ((x & 0x7fffffffu) > 0x7f800000u) {
        return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN */
    }
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

void em_half_to_f32_n(ember_dtype half, const uint16_t *src, float *dst, size_t n)
{
    if (half == EMBER_DTYPE_BF16) {
        for (size_t i = 0; i < n; i++) {
            dst[i] = em_bf16_to_f32(src[i]);
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            dst[i] = em_f16_to_f32(src[i]);
        }
    }
}

void em_f32_to_half_n(ember_dtype half, const float *src, uint16_t *dst, size_t n)
{
    if (half == EMBER_DTYPE_BF16) {
        for (size_t i = 0; i < n; i++) {
            dst[i] = em_f32_to_bf16(src[i]);
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            dst[i] = em_f32_to_f16(src[i]);
        }
    }
}
