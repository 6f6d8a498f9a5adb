/* SPDX-License-Identifier: Apache-2.0 */
/*
 * QuantizeLinear (f32 -> u8 / s8) and DequantizeLinear (u8 / s8 -> f32), per tensor, AVX2: the
 * activations' quantize / dequantize of QDQ models that run on the fp32 fallback.
 *
 * Exactly the reference's arithmetic (quant_linear_ref.c), so the results are bitwise equal:
 *   Q:  q = x / scale in float32 (vdivps: the same IEEE quotient as the reference's float
 *       division; no reciprocal), rounded half to even (vroundps, nearest), NaN -> 0, plus
 *       the zero point, clamped to the dtype's range in float (|q| >= 2^24 only rounds values
 *       already outside it), then converted and packed with saturation.
 *   DQ: (x - zero_point) * scale in float32: x - zero_point has at most 9 significant bits and
 *       the scale 24, so the product is exact in double and the reference's one rounding to
 *       float equals vmulps's.
 *   DynamicQuantizeLinear: the range [min(0, min x), max(0, max x)] by vminps / vmaxps (their
 *       second operand wins on NaN, so NaN is ignored as the reference's comparisons ignore
 *       it; +-0 never replaces the initial +0, so the result is independent of the order),
 *       over blocks on the pool; scale and zero point in scalar float as the reference; then
 *       the Q loop above with that scale and zero point.
 * Anything else (per-axis or blocked parameters, 16-bit scales, other dtypes, `precision`,
 * int32 inputs) is declined with UNSUPPORTED and runs on the reference kernel. The scale and
 * zero point are read in run (they need not be constants). The tail (< 8 elements) goes
 * through an 8-element stack buffer, so nothing past either end is touched.
 */
#include "x86.h"

#include "core/alloc.h"
#include "core/status.h"

#include <immintrin.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define Q8_BLOCK 16384 /* elements per parallel work item */

typedef struct q8_state {
    bool out_s8; /* Q: output int8 (else uint8); DQ: input int8 */
    bool has_zp;
} q8_state;

typedef struct q8_args {
    const q8_state *s;
    const void *x;
    void *y;
    int64_t n;
    float scale;
    int32_t zp;
} q8_args;

static bool one_element(const em_tensor *t)
{
    return t->rank <= 1 && em_tensor_numel(t) == 1;
}

static bool is_q8(ember_dtype dt)
{
    return dt == EMBER_DTYPE_U8 || dt == EMBER_DTYPE_I8;
}

static ember_status *decline(const em_kinfo *ki, const char *why)
{
    return em_status_new(EMBER_ERR_UNSUPPORTED, "%s '%s': %s", em_op_name(ki->node->op),
                         ki->node->name, why);
}

/* The checks both ops share: arity, a one-element f32 scale, an optional one-element 8-bit
 * zero point of dtype q8, no blocked form, no opset-23 `precision` / `output_dtype` other than
 * what the plain form gives. */
static ember_status *q8_check(const em_kinfo *ki, ember_dtype q8, q8_state *s)
{
    if (ki->n_in < 2 || ki->n_in > 3 || ki->n_out != 1) {
        return decline(ki, "arity");
    }
    if (ki->in[1].dtype != EMBER_DTYPE_F32 || !one_element(&ki->in[1])) {
        return decline(ki, "only a per-tensor f32 scale");
    }
    s->has_zp = ki->n_in == 3 && ki->in[2].dtype != EMBER_DTYPE_UNDEFINED;
    if (s->has_zp && (ki->in[2].dtype != q8 || !one_element(&ki->in[2]))) {
        return decline(ki, "only a per-tensor zero point of the quantized dtype");
    }
    if (em_node_attr_int(ki->node, "block_size", 0) != 0 ||
        em_node_attr_int(ki->node, "precision", 0) != 0) {
        return decline(ki, "blocked or `precision` forms are left to the reference");
    }
    if (!em_tensor_same_shape(&ki->in[0], &ki->out[0])) {
        return decline(ki, "output shape differs from x");
    }
    s->out_s8 = q8 == EMBER_DTYPE_I8;
    return NULL;
}

static ember_status *q8_state_new(const em_kinfo *ki, const q8_state *s, void **state)
{
    q8_state *p = em_malloc(ki->al, sizeof *p);
    if (p == NULL) {
        return em_status_oom();
    }
    *p = *s;
    *state = p;
    return NULL;
}

ember_status *em_quantizelinear_q8_prepare__avx2(const em_kinfo *ki, void **state,
                                                 size_t *scratch_bytes)
{
    ember_status *st;
    q8_state s;
    *state = NULL;
    *scratch_bytes = 0;
    ember_dtype y = ki->n_out == 1 ? ki->out[0].dtype : EMBER_DTYPE_UNDEFINED;
    if (ki->n_in < 1 || ki->in[0].dtype != EMBER_DTYPE_F32 || !is_q8(y)) {
        return decline(ki, "only f32 x and a uint8 / int8 y");
    }
    int64_t odt = em_node_attr_int(ki->node, "output_dtype", 0);
    if (odt != 0 && odt != (int64_t)y) {
        return decline(ki, "output_dtype differs from y's dtype");
    }
    if ((st = q8_check(ki, y, &s)) != NULL) {
        return st;
    }
    if (!s.has_zp && odt == 0 && y != EMBER_DTYPE_U8) {
        return decline(ki, "without a zero point or output_dtype, y is uint8");
    }
    return q8_state_new(ki, &s, state);
}

ember_status *em_dequantizelinear_q8_prepare__avx2(const em_kinfo *ki, void **state,
                                                   size_t *scratch_bytes)
{
    ember_status *st;
    q8_state s;
    *state = NULL;
    *scratch_bytes = 0;
    if (ki->n_in < 1 || !is_q8(ki->in[0].dtype) || ki->n_out != 1 ||
        ki->out[0].dtype != EMBER_DTYPE_F32) {
        return decline(ki, "only uint8 / int8 x and an f32 y");
    }
    int64_t odt = em_node_attr_int(ki->node, "output_dtype", 0);
    if (odt != 0 && odt != EMBER_DTYPE_F32) {
        return decline(ki, "output_dtype other than float");
    }
    if ((st = q8_check(ki, ki->in[0].dtype, &s)) != NULL) {
        return st;
    }
    return q8_state_new(ki, &s, state);
}

/* ---- the loops --------------------------------------------------------------------------- */

/* 8 quotients -> 8 clamped integers (as int32) of the output range. */
static inline __m256i q8_quant8(__m256 x, __m256 scale, __m256 zp, __m256 lo, __m256 hi)
{
    __m256 q = _mm256_div_ps(x, scale);
    q = _mm256_and_ps(q, _mm256_cmp_ps(q, q, _CMP_ORD_Q)); /* NaN -> 0: the zero point */
    q = _mm256_round_ps(q, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    q = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(q, zp), lo), hi);
    return _mm256_cvtps_epi32(q);
}

/* 32 int32 values in [lo, hi] (a..d, 8 each, in order) -> 32 bytes. */
static inline __m256i q8_pack32(__m256i a, __m256i b, __m256i c, __m256i d, bool s8)
{
    __m256i ab = _mm256_packs_epi32(a, b), cd = _mm256_packs_epi32(c, d);
    __m256i r = s8 ? _mm256_packs_epi16(ab, cd) : _mm256_packus_epi16(ab, cd);
    /* the packs interleave 128-bit lanes: dwords in order a0 b0 c0 d0 a1 b1 c1 d1 */
    return _mm256_permutevar8x32_epi32(r, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

static void quant_span(const q8_args *a, int64_t b, int64_t e)
{
    const float *x = (const float *)a->x + b;
    uint8_t *y = (uint8_t *)a->y + b;
    int64_t n = e - b, i = 0;
    bool s8 = a->s->out_s8;
    __m256 sc = _mm256_set1_ps(a->scale), zp = _mm256_set1_ps((float)a->zp);
    __m256 lo = _mm256_set1_ps(s8 ? -128.0f : 0.0f), hi = _mm256_set1_ps(s8 ? 127.0f : 255.0f);
    for (; i + 32 <= n; i += 32) {
        __m256i q0 = q8_quant8(_mm256_loadu_ps(x + i), sc, zp, lo, hi);
        __m256i q1 = q8_quant8(_mm256_loadu_ps(x + i + 8), sc, zp, lo, hi);
        __m256i q2 = q8_quant8(_mm256_loadu_ps(x + i + 16), sc, zp, lo, hi);
        __m256i q3 = q8_quant8(_mm256_loadu_ps(x + i + 24), sc, zp, lo, hi);
        _mm256_storeu_si256((__m256i *)(y + i), q8_pack32(q0, q1, q2, q3, s8));
    }
    for (; i < n; i += 8) {
        float buf[8] = {0};
        int64_t m = n - i < 8 ? n - i : 8;
        memcpy(buf, x + i, sizeof(float) * (size_t)m);
        __m256i q = q8_quant8(_mm256_loadu_ps(buf), sc, zp, lo, hi);
        __m256i p = q8_pack32(q, q, q, q, s8);
        uint8_t out[32];
        _mm256_storeu_si256((__m256i *)out, p);
        memcpy(y + i, out, (size_t)m);
    }
}

static inline __m256 q8_dequant8(__m128i bytes8, bool s8, __m256i zp, __m256 sc)
{
    __m256i v = s8 ? _mm256_cvtepi8_epi32(bytes8) : _mm256_cvtepu8_epi32(bytes8);
    return _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(v, zp)), sc);
}

static void dequant_span(const q8_args *a, int64_t b, int64_t e)
{
    const uint8_t *x = (const uint8_t *)a->x + b;
    float *y = (float *)a->y + b;
    int64_t n = e - b, i = 0;
    bool s8 = a->s->out_s8;
    __m256 sc = _mm256_set1_ps(a->scale);
    __m256i zp = _mm256_set1_epi32(a->zp);
    for (; i + 32 <= n; i += 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(x + i));
        __m128i lo = _mm256_castsi256_si128(v), hi = _mm256_extracti128_si256(v, 1);
        _mm256_storeu_ps(y + i, q8_dequant8(lo, s8, zp, sc));
        _mm256_storeu_ps(y + i + 8, q8_dequant8(_mm_srli_si128(lo, 8), s8, zp, sc));
        _mm256_storeu_ps(y + i + 16, q8_dequant8(hi, s8, zp, sc));
        _mm256_storeu_ps(y + i + 24, q8_dequant8(_mm_srli_si128(hi, 8), s8, zp, sc));
    }
    for (; i < n; i += 8) {
        uint8_t buf[16] = {0};
        float out[8];
        int64_t m = n - i < 8 ? n - i : 8;
        memcpy(buf, x + i, (size_t)m);
        _mm256_storeu_ps(out, q8_dequant8(_mm_loadu_si128((const __m128i *)buf), s8, zp, sc));
        memcpy(y + i, out, sizeof(float) * (size_t)m);
    }
}

static void quant_task(void *arg, int64_t begin, int64_t end)
{
    const q8_args *a = arg;
    int64_t e = end * Q8_BLOCK;
    quant_span(a, begin * Q8_BLOCK, e < a->n ? e : a->n);
}

static void dequant_task(void *arg, int64_t begin, int64_t end)
{
    const q8_args *a = arg;
    int64_t e = end * Q8_BLOCK;
    dequant_span(a, begin * Q8_BLOCK, e < a->n ? e : a->n);
}

static void q8_run(const q8_state *s, const em_tensor *in, em_tensor *out, const em_kctx *ctx,
                   em_task_fn task)
{
    q8_args a = {s, in[0].data, out[0].data, em_tensor_numel(&out[0]), *(const float *)in[1].data,
                 0};
    if (s->has_zp) {
        a.zp = s->out_s8 ? *(const int8_t *)in[2].data : *(const uint8_t *)in[2].data;
    }
    em_parallel_for(ctx->pool, (a.n + Q8_BLOCK - 1) / Q8_BLOCK, 1, task, &a);
}

void em_quantizelinear_q8__avx2(const void *state, const em_tensor *in, em_tensor *out,
                                const em_kctx *ctx)
{
    q8_run(state, in, out, ctx, quant_task);
}

void em_dequantizelinear_q8__avx2(const void *state, const em_tensor *in, em_tensor *out,
                                  const em_kctx *ctx)
{
    q8_run(state, in, out, ctx, dequant_task);
}

/* ---- DynamicQuantizeLinear --------------------------------------------------------------- */

ember_status *em_dynquant_q8_prepare__avx2(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    *state = NULL;
    *scratch_bytes = 0;
    if (ki->n_in != 1 || ki->n_out != 3 || ki->in[0].dtype != EMBER_DTYPE_F32 ||
        ki->out[0].dtype != EMBER_DTYPE_U8 || ki->out[1].dtype != EMBER_DTYPE_F32 ||
        ki->out[2].dtype != EMBER_DTYPE_U8 || !one_element(&ki->out[1]) ||
        !one_element(&ki->out[2])) {
        return decline(ki, "the AVX2 kernel takes f32 x and the u8 / f32 / u8 outputs");
    }
    /* two floats (the block's min and max) per Q8_BLOCK elements */
    int64_t blocks = (em_tensor_numel(&ki->in[0]) + Q8_BLOCK - 1) / Q8_BLOCK;
    *scratch_bytes = (size_t)(blocks > 0 ? blocks : 1) * 2 * sizeof(float);
    const q8_state s = {false, true};
    return q8_state_new(ki, &s, state);
}

typedef struct dq_range_args {
    const float *x;
    int64_t n;
    float *range; /* per block: min, max */
} dq_range_args;

static void range_task(void *arg, int64_t begin, int64_t end)
{
    const dq_range_args *a = arg;
    for (int64_t blk = begin; blk < end; blk++) {
        int64_t b = blk * Q8_BLOCK, e = b + Q8_BLOCK < a->n ? b + Q8_BLOCK : a->n, i = b;
        __m256 lo = _mm256_setzero_ps(), hi = _mm256_setzero_ps();
        for (; i + 8 <= e; i += 8) {
            __m256 v = _mm256_loadu_ps(a->x + i);
            lo = _mm256_min_ps(v, lo); /* NaN in v: lo kept */
            hi = _mm256_max_ps(v, hi);
        }
        float l[8], h[8];
        _mm256_storeu_ps(l, lo);
        _mm256_storeu_ps(h, hi);
        float mn = 0.0f, mx = 0.0f;
        for (int k = 0; k < 8; k++) {
            mn = l[k] < mn ? l[k] : mn;
            mx = h[k] > mx ? h[k] : mx;
        }
        for (; i < e; i++) {
            mn = a->x[i] < mn ? a->x[i] : mn;
            mx = a->x[i] > mx ? a->x[i] : mx;
        }
        a->range[2 * blk] = mn;
        a->range[2 * blk + 1] = mx;
    }
}

void em_dynquant_q8__avx2(const void *state, const em_tensor *in, em_tensor *out,
                          const em_kctx *ctx)
{
    const int64_t n = em_tensor_numel(&in[0]), blocks = (n + Q8_BLOCK - 1) / Q8_BLOCK;
    dq_range_args r = {in[0].data, n, ctx->scratch};
    em_parallel_for(ctx->pool, blocks, 1, range_task, &r);
    float lo = 0.0f, hi = 0.0f;
    for (int64_t b = 0; b < blocks; b++) {
        lo = r.range[2 * b] < lo ? r.range[2 * b] : lo;
        hi = r.range[2 * b + 1] > hi ? r.range[2 * b + 1] : hi;
    }
    /* the reference's arithmetic (quant_linear_ref.c, em_dynquant__ref) */
    const float scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
    float zp = 0.0f - lo / scale;
    zp = zp < 0.0f ? 0.0f : zp > 255.0f ? 255.0f : zp;
    zp = (float)rint(zp);
    q8_args a = {state, in[0].data, out[0].data, n, scale, (int32_t)zp};
    em_parallel_for(ctx->pool, blocks, 1, quant_task, &a);
    *(float *)out[1].data = scale;
    *(uint8_t *)out[2].data = (uint8_t)zp;
}

void em_q8_release__avx2(const ember_allocator *al, void *state)
{
    em_free(al, state);
}
