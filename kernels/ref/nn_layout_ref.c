/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The channel-blocked layout of the graph passes (ops_nn.def): [N, C, spatial...] <->
 * [N, ceil(C/b), spatial..., b], channel c of a plane at block c / b, lane c % b; the lanes
 * past C in the last block are zero. ReorderToBlocked (attribute `block` = b) and
 * ReorderFromBlocked (attribute `channels` = C), f32, any spatial rank.
 */
#include "ref.h"

#include <string.h>

/* Blocks [u0, u1) of the n * ceil(c / b) channel blocks (image u / cb, block u % cb). */
static void block_units(const float *src, float *dst, int64_t c, int64_t plane, int64_t b,
                        int64_t u0, int64_t u1)
{
    int64_t cb = (c + b - 1) / b;
    for (int64_t u = u0; u < u1; u++) {
        int64_t i = u / cb, k = u % cb;
        float *d = dst + u * plane * b;
        int64_t lanes = c - k * b < b ? c - k * b : b;
        for (int64_t p = 0; p < plane; p++) {
            for (int64_t l = 0; l < b; l++) {
                d[p * b + l] = l < lanes ? src[(i * c + k * b + l) * plane + p] : 0.0f;
            }
        }
    }
}

static void unblock_units(const float *src, float *dst, int64_t c, int64_t plane, int64_t b,
                          int64_t u0, int64_t u1)
{
    int64_t cb = (c + b - 1) / b;
    for (int64_t u = u0; u < u1; u++) {
        int64_t i = u / cb, k = u % cb;
        for (int64_t ch = k * b; ch < c && ch < (k + 1) * b; ch++) {
            const float *s = src + u * plane * b + ch % b;
            float *d = dst + (i * c + ch) * plane;
            for (int64_t p = 0; p < plane; p++) {
                d[p] = s[p * b];
            }
        }
    }
}

void em_ref_block(const float *src, float *dst, int64_t n, int64_t c, int64_t plane, int64_t b)
{
    block_units(src, dst, c, plane, b, 0, n * ((c + b - 1) / b));
}

void em_ref_unblock(const float *src, float *dst, int64_t n, int64_t c, int64_t plane, int64_t b)
{
    unblock_units(src, dst, c, plane, b, 0, n * ((c + b - 1) / b));
}

typedef struct layout_state {
    int64_t n, c, plane, b;
} layout_state;

/* Checks plain [N, C, spatial...] against blocked [N, ceil(C/b), spatial..., b]. */
static ember_status *layout_prepare(const em_kinfo *ki, const em_tensor *plain,
                                    const em_tensor *blk, void **state)
{
    ember_status *st = NULL;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[0], EMBER_DTYPE_F32, "input 0"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], EMBER_DTYPE_F32, "output 0"));
    if (plain->rank < 3 || blk->rank != plain->rank + 1 || blk->dims[blk->rank - 1] < 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "expected [N, C, spatial...] and [N, C/b, spatial..., b]");
    }
    layout_state s = {plain->dims[0], plain->dims[1], 1, blk->dims[blk->rank - 1]};
    int64_t want[EM_MAX_RANK];
    want[0] = s.n;
    want[1] = (s.c + s.b - 1) / s.b;
    for (int d = 2; d < plain->rank; d++) {
        s.plane *= plain->dims[d];
        want[d] = plain->dims[d];
    }
    want[plain->rank] = s.b;
    EMBER_TRY(em_ref_check_shape(ki, blk, want, blk->rank, "the blocked tensor"));
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

ember_status *em_toblocked_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    *state = NULL;
    *scratch_bytes = 0;
    if (ki->out[0].rank > 0 && em_node_attr_int(ki->node, "block", 16) !=
                                   ki->out[0].dims[ki->out[0].rank - 1]) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "output's last dim is not 'block'");
    }
    return layout_prepare(ki, &ki->in[0], &ki->out[0], state);
}

ember_status *em_fromblocked_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    *state = NULL;
    *scratch_bytes = 0;
    return layout_prepare(ki, &ki->out[0], &ki->in[0], state);
}

typedef struct layout_job {
    const layout_state *s;
    const float *src;
    float *dst;
} layout_job;

static void toblocked_task(void *arg, int64_t u0, int64_t u1)
{
    const layout_job *j = arg;
    block_units(j->src, j->dst, j->s->c, j->s->plane, j->s->b, u0, u1);
}

static void fromblocked_task(void *arg, int64_t u0, int64_t u1)
{
    const layout_job *j = arg;
    unblock_units(j->src, j->dst, j->s->c, j->s->plane, j->s->b, u0, u1);
}

/* Over the pool in whole blocks of at least EM_GRAIN_ELEMS elements a chunk: the reorders
 * around shufflenet's 116-channel convs (not whole blocks, so not oneDNN's) were ~10% of its
 * time and ran on one thread. */
static void layout_run(const layout_state *s, const em_tensor *in, em_tensor *out,
                       const em_kctx *ctx, em_task_fn task)
{
    layout_job j = {s, in[0].data, out[0].data};
    int64_t units = s->n * ((s->c + s->b - 1) / s->b);
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, units, em_grain(s->plane * s->b), task, &j);
}

void em_toblocked_f32__ref(const void *state, const em_tensor *in, em_tensor *out,
                           const em_kctx *ctx)
{
    layout_run(state, in, out, ctx, toblocked_task);
}

void em_fromblocked_f32__ref(const void *state, const em_tensor *in, em_tensor *out,
                             const em_kctx *ctx)
{
    layout_run(state, in, out, ctx, fromblocked_task);
}
