/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Ops that make tensors from shapes and scalars: Shape-21 (start/end, clamped), Size-21,
 * ConstantOfShape-21 (the one-element 'value' tensor, default f32 0), Range-27 (start + i *
 * delta: integers in wrapping int64, floats computed in double and rounded once, as numpy's
 * arange that the ONNX reference uses; f16 and bf16 through 'stash_type', float32 (1, the
 * default) or double (11): the value rounded to it, then to the output dtype) and EyeLike-9
 * (ones on the diagonal j = i + k, in the 'dtype' attribute's dtype or the input's).
 */
#include "ref.h"

#include <string.h>

typedef struct gen_state {
    int64_t start; /* Shape: first dim; EyeLike: k */
    size_t esize;  /* ConstantOfShape: size of `value` */
    unsigned char value[16];
} gen_state;

/* ---- Shape / Size --------------------------------------------------------------------------- */

ember_status *em_shape_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    gen_state s;
    int64_t r = ki->in[0].rank, b, e, n;

    *state = NULL;
    *scratch_bytes = 0;
    memset(&s, 0, sizeof s);
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[0], EMBER_DTYPE_UNDEFINED, "input 0"));
    EMBER_TRY(em_ref_attr_int(ki, "start", 0, &b));
    EMBER_TRY(em_ref_attr_int(ki, "end", r, &e));
    b = b < 0 ? b + r : b;
    e = e < 0 ? e + r : e;
    b = b < 0 ? 0 : (b > r ? r : b);
    e = e < 0 ? 0 : (e > r ? r : e);
    n = e > b ? e - b : 0;
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], EMBER_DTYPE_I64, "output 0"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], &n, 1, "output 0"));
    s.start = b;
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

void em_shape__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const gen_state *s = state;
    (void)ctx;
    for (int64_t i = 0; i < out[0].dims[0]; i++) {
        ((int64_t *)out[0].data)[i] = in[0].dims[s->start + i];
    }
}

ember_status *em_size_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[0], EMBER_DTYPE_UNDEFINED, "input 0"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], EMBER_DTYPE_I64, "output 0"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], NULL, 0, "output 0"));
    return NULL;
fail:
    return st;
}

void em_size__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    (void)state;
    (void)ctx;
    *(int64_t *)out[0].data = em_tensor_numel(&in[0]);
}

/* ---- ConstantOfShape ------------------------------------------------------------------------ */

ember_status *em_constantofshape_prepare__ref(const em_kinfo *ki, void **state,
                                              size_t *scratch_bytes)
{
    ember_status *st = NULL;
    gen_state s;
    const em_tensor *sh = &ki->in[0], *y = &ki->out[0];
    const em_attr *a = ki->node != NULL ? em_node_attr(ki->node, "value") : NULL;
    ember_dtype dt = EMBER_DTYPE_F32;

    *state = NULL;
    *scratch_bytes = 0;
    memset(&s, 0, sizeof s);
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(em_ref_check_tensor(ki, sh, EMBER_DTYPE_I64, "input 0 (shape)"));
    s.esize = 4;
    if (a != NULL) {
        if (a->type != EM_ATTR_TENSOR || !em_dtype_valid(a->t.dtype) || a->t.data == NULL ||
            em_tensor_numel(&a->t) != 1 || em_dtype_size(a->t.dtype) > sizeof s.value) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "attribute 'value' must be a one-element tensor");
        }
        dt = a->t.dtype;
        s.esize = em_dtype_size(dt);
        memcpy(s.value, a->t.data, s.esize);
    }
    EMBER_TRY(em_ref_check_tensor(ki, y, dt, "output 0"));
    if (sh->rank != 1 || sh->dims[0] != y->rank) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "output rank differs from the shape's "
                            "length");
    }
    if (sh->data != NULL) {
        EMBER_TRY(em_ref_check_shape(ki, y, sh->data, (int)sh->dims[0], "output 0"));
    }
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

void em_constantofshape__ref(const void *state, const em_tensor *in, em_tensor *out,
                             const em_kctx *ctx)
{
    const gen_state *s = state;
    (void)in;
    (void)ctx;
    int64_t n = em_tensor_numel(&out[0]);
    unsigned char *dst = out[0].data;
    for (int64_t i = 0; i < n; i++) {
        em_tref_copy1(s->esize, dst + (size_t)i * s->esize, s->value);
    }
}

/* ---- Range ---------------------------------------------------------------------------------- */

static bool range_float(ember_dtype dt)
{
    return dt == EMBER_DTYPE_F32 || dt == EMBER_DTYPE_F64 || dt == EMBER_DTYPE_F16 ||
           dt == EMBER_DTYPE_BF16;
}

static bool range_dtype(ember_dtype dt)
{
    return range_float(dt) || dt == EMBER_DTYPE_I16 || dt == EMBER_DTYPE_I32 ||
           dt == EMBER_DTYPE_I64;
}

ember_status *em_range_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    ember_dtype dt = ki->in[0].dtype;

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 3, 3, 1));
    if (!range_dtype(dt)) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "dtype %s", em_dtype_name(dt));
    }
    for (int i = 0; i < 3; i++) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->in[i], dt, "an input"));
        if (em_tensor_numel(&ki->in[i]) != 1 || ki->in[i].rank > 1) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "start, limit and delta must be scalars");
        }
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], dt, "output 0"));
    if (ki->out[0].rank != 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "output must be 1-D");
    }
    int64_t stash;
    EMBER_TRY(em_ref_attr_int(ki, "stash_type", EMBER_DTYPE_F32, &stash));
    if (stash != EMBER_DTYPE_F32 && stash != EMBER_DTYPE_F64) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED,
                            "stash_type %lld is not supported (1: float, 11: double)",
                            (long long)stash);
    }
    return em_ref_state_new(ki, &stash, sizeof stash, state);
fail:
    return st;
}

void em_range__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    ember_dtype dt = in[0].dtype;
    int64_t n = out[0].dims[0];
    const bool stash_f32 = *(const int64_t *)state == EMBER_DTYPE_F32;
    (void)ctx;
    if (range_float(dt)) {
        double start = em_tref_get(dt, in[0].data, 0), delta = em_tref_get(dt, in[2].data, 0);
        for (int64_t i = 0; i < n; i++) {
            double v = start + (double)i * delta;
            if (dt == EMBER_DTYPE_F16 || dt == EMBER_DTYPE_BF16) {
                float f;
                em_q_setf(EMBER_DTYPE_F32, &f, 0, v); /* overflow made explicit */
                em_q_setf(dt, out[0].data, i, stash_f32 ? (double)f : v);
            } else {
                em_tref_set(dt, out[0].data, i, v);
            }
        }
        return;
    }
    uint64_t start, delta;
    start = (uint64_t)(dt == EMBER_DTYPE_I64 ? *(const int64_t *)in[0].data
                                             : (int64_t)em_tref_get(dt, in[0].data, 0));
    delta = (uint64_t)(dt == EMBER_DTYPE_I64 ? *(const int64_t *)in[2].data
                                             : (int64_t)em_tref_get(dt, in[2].data, 0));
    for (int64_t i = 0; i < n; i++) {
        uint64_t v = start + (uint64_t)i * delta;
        switch (dt) {
        case EMBER_DTYPE_I16:
            ((uint16_t *)out[0].data)[i] = (uint16_t)v;
            break;
        case EMBER_DTYPE_I32:
            ((uint32_t *)out[0].data)[i] = (uint32_t)v;
            break;
        default:
            ((uint64_t *)out[0].data)[i] = v;
            break;
        }
    }
}

/* ---- EyeLike -------------------------------------------------------------------------------- */

ember_status *em_eyelike_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    gen_state s;
    const em_tensor *x = &ki->in[0];
    int64_t dt;

    *state = NULL;
    *scratch_bytes = 0;
    memset(&s, 0, sizeof s);
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0"));
    EMBER_TRY(em_ref_attr_int(ki, "dtype", x->dtype, &dt));
    EMBER_TRY(em_ref_attr_int(ki, "k", 0, &s.start));
    if (x->rank != 2 || !em_dtype_valid((ember_dtype)dt)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "need a 2-D input and a valid dtype");
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], (ember_dtype)dt, "output 0"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], x->dims, 2, "output 0"));
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

void em_eyelike__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const gen_state *s = state;
    int64_t rows = out[0].dims[0], cols = out[0].dims[1], k = s->start;
    (void)in;
    (void)ctx;
    memset(out[0].data, 0, em_tensor_nbytes(&out[0]));
    for (int64_t i = 0; i < rows; i++) {
        /* j = i + k in [0, cols), without overflow for any int64 k. */
        if ((k >= 0 && k < cols - i) || (k < 0 && i + k >= 0 && i + k < cols)) {
            em_tref_set(out[0].dtype, out[0].data, i * cols + i + k, 1.0);
        }
    }
}
