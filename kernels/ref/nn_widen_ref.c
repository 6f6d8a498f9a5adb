/* SPDX-License-Identifier: Apache-2.0 */
/*
 * 16-bit float kernels by widening: every f16 / bf16 tensor of the node is converted to f32 in
 * scratch (exactly: each such value is a float), the op's f32 reference kernel runs on those
 * copies, and its f32 outputs are rounded back to the 16-bit dtype (nearest even). The f32
 * kernel accumulates in double and rounds once to f32, so results differ from a direct
 * computation by at most that extra rounding. In prepare the widened inputs carry no data, so
 * this suits only kernels whose prepare reads no input values (Conv: opset 22 adds bf16, f16
 * is as old as the op; MatMul, whose f16 and bf16 cases come from expanded Attention).
 *
 * Scratch: the f32 kernel's own scratch first, then one EM_ALIGN-aligned f32 buffer per
 * widened input and output, in order.
 */
#include "ref.h"

#include "core/alloc.h"

#include <string.h>

enum { WIDEN_MAX_IO = 8 };

typedef struct widen_state {
    ember_dtype dt; /* the 16-bit dtype */
    void *inner;    /* the f32 kernel's state (freed with em_free) */
    em_krun_fn run;
    size_t inner_scratch;
    int n_in, n_out;
    size_t off_in[WIDEN_MAX_IO], off_out[WIDEN_MAX_IO]; /* SIZE_MAX: not widened */
} widen_state;

static size_t round_up(size_t n)
{
    return (n + EM_ALIGN - 1) / EM_ALIGN * EM_ALIGN;
}

/* An f32 tensor beside the 16-bit ones would pass the f32 kernel's dtype checks unnoticed. */
static ember_status *no_f32(const em_kinfo *ki, const em_tensor *t, int n, const char *what)
{
    for (int i = 0; i < n; i++) {
        if (t[i].dtype == EMBER_DTYPE_F32) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%s %d has dtype f32, expected %s",
                                what, i, em_dtype_name(ki->in[0].dtype));
        }
    }
    return NULL;
}

/* Copies `n` tensors into `dst`, widening those of dtype `dt`: their f32 bytes get scratch
 * offsets from *pos on (off[i]; SIZE_MAX for the others). */
static void widen_list(const em_tensor *src, em_tensor *dst, int n, ember_dtype dt, size_t *off,
                       size_t *pos)
{
    for (int i = 0; i < n; i++) {
        dst[i] = src[i];
        off[i] = SIZE_MAX;
        if (src[i].dtype == dt) {
            dst[i].dtype = EMBER_DTYPE_F32;
            dst[i].data = NULL;
            off[i] = *pos;
            *pos += round_up((size_t)em_ref_prod(src[i].dims, src[i].rank) * sizeof(float));
        }
    }
}

static ember_status *widen_prepare(const em_kinfo *ki, void **state, size_t *scratch_bytes,
                                   em_kprepare_fn prepare, em_krun_fn run)
{
    ember_status *st = NULL;
    widen_state s = {0};
    em_tensor in[WIDEN_MAX_IO], out[WIDEN_MAX_IO];

    *state = NULL;
    *scratch_bytes = 0;
    s.dt = ki->n_in > 0 ? ki->in[0].dtype : EMBER_DTYPE_UNDEFINED;
    if ((s.dt != EMBER_DTYPE_F16 && s.dt != EMBER_DTYPE_BF16) || ki->n_in > WIDEN_MAX_IO ||
        ki->n_out > WIDEN_MAX_IO) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "not an f16 / bf16 node of <= %d tensors",
                            WIDEN_MAX_IO);
    }
    EMBER_TRY(no_f32(ki, ki->in, ki->n_in, "input"));
    EMBER_TRY(no_f32(ki, ki->out, ki->n_out, "output"));
    em_kinfo wk = *ki;
    size_t pos = 0;
    widen_list(ki->in, in, ki->n_in, s.dt, s.off_in, &pos);
    widen_list(ki->out, out, ki->n_out, s.dt, s.off_out, &pos);
    wk.in = in;
    wk.out = out;
    EMBER_TRY(prepare(&wk, &s.inner, &s.inner_scratch));
    s.inner_scratch = round_up(s.inner_scratch);
    for (int i = 0; i < WIDEN_MAX_IO; i++) {
        s.off_in[i] = i < ki->n_in && s.off_in[i] != SIZE_MAX ? s.off_in[i] + s.inner_scratch
                                                              : SIZE_MAX;
        s.off_out[i] = i < ki->n_out && s.off_out[i] != SIZE_MAX
                           ? s.off_out[i] + s.inner_scratch
                           : SIZE_MAX;
    }
    s.run = run;
    s.n_in = ki->n_in;
    s.n_out = ki->n_out;
    *scratch_bytes = s.inner_scratch + pos;
    st = em_ref_state_new(ki, &s, sizeof s, state);
    if (st == NULL) {
        return NULL;
    }
fail:
    em_free(ki->al, s.inner);
    return st;
}

void em_widen_release__ref(const ember_allocator *al, void *state)
{
    widen_state *s = state;
    if (s != NULL) {
        em_free(al, s->inner);
    }
    em_free(al, s);
}

void em_widen__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const widen_state *s = state;
    em_tensor win[WIDEN_MAX_IO], wout[WIDEN_MAX_IO];
    char *scr = ctx->scratch;
    for (int i = 0; i < s->n_in; i++) {
        win[i] = in[i];
        if (s->off_in[i] != SIZE_MAX) {
            /* no scratch (NULL) only when every widened tensor is empty */
            float *f = scr != NULL ? (float *)(void *)(scr + s->off_in[i]) : NULL;
            int64_t n = em_ref_prod(in[i].dims, in[i].rank);
            for (int64_t k = 0; k < n; k++) {
                f[k] = (float)em_tref_get(s->dt, in[i].data, k);
            }
            win[i].dtype = EMBER_DTYPE_F32;
            win[i].data = f;
        }
    }
    for (int o = 0; o < s->n_out; o++) {
        wout[o] = out[o];
        if (s->off_out[o] != SIZE_MAX) {
            wout[o].dtype = EMBER_DTYPE_F32;
            wout[o].data = scr != NULL ? scr + s->off_out[o] : NULL;
        }
    }
    em_kctx ic = {ctx->pool, s->inner_scratch > 0 ? scr : NULL};
    s->run(s->inner, win, wout, &ic);
    for (int o = 0; o < s->n_out; o++) {
        if (s->off_out[o] != SIZE_MAX) {
            const float *f = wout[o].data;
            int64_t n = em_ref_prod(out[o].dims, out[o].rank);
            for (int64_t k = 0; k < n; k++) {
                em_q_setf(s->dt, out[o].data, k, f[k]);
            }
        }
    }
}

ember_status *em_conv_widen_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    return widen_prepare(ki, state, scratch_bytes, em_conv_prepare__ref, em_conv_f32__ref);
}

ember_status *em_matmul_widen_prepare__ref(const em_kinfo *ki, void **state,
                                           size_t *scratch_bytes)
{
    return widen_prepare(ki, state, scratch_bytes, em_matmul_prepare__ref, em_matmul__ref);
}
