/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Dropout-13/22 on the Philox generator of random_ref.h. Inputs data, ratio (optional, one
 * float value, default 0.5), training_mode (optional, one bool, default false); outputs output
 * and the optional bool mask. Not training, or ratio 0: output = data, mask all true.
 * Training: element i is kept when its uniform u >= ratio (so ratio 0 keeps all and 1 drops
 * all), output = data * 1 / (1 - ratio) computed in double and rounded once (a dropped element
 * gives data * 0, so -0 and NaN follow numpy's mask * X * scale). A ratio read at run time
 * outside [0, 1) is clamped into [0, 1] (NaN as 0); a constant one must be in [0, 1).
 * Dropout-22 adds the float8 types for data and ratio (training stores by Cast's saturating
 * rules, runtime/core/lowp.h).
 */
#include "ref.h"

#include "core/alloc.h"
#include "core/lowp.h"

#include <math.h>
#include <string.h>

typedef struct dropout_state {
    em_rnd_seed seed; /* holds the run counter (atomic) */
    bool has_ratio, has_training, has_mask;
} dropout_state;

/* Checks optional input i: `dt_ok` dtype, one element. */
static ember_status *one_value(const em_kinfo *ki, int i, bool (*dt_ok)(ember_dtype),
                               const char *what)
{
    ember_status *st = NULL;
    const em_tensor *t = &ki->in[i];
    EMBER_TRY(em_ref_check_tensor(ki, t, EMBER_DTYPE_UNDEFINED, what));
    if (!dt_ok(t->dtype) || em_tensor_numel(t) != 1 || t->rank > 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%s must hold one %s value", what,
                            i == 1 ? "float" : "bool");
    }
    return NULL;
fail:
    return st;
}

static bool is_bool(ember_dtype dt)
{
    return dt == EMBER_DTYPE_BOOL;
}

/* The float types of Dropout-22's data and ratio: f16 f32 f64 bf16 and the four float8. */
static bool is_float_or_f8(ember_dtype dt)
{
    return em_rnd_is_float(dt) || em_lowp_is_float8(dt);
}

static ember_status *dropout_inputs(const em_kinfo *ki, dropout_state *s)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0];
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (data)"));
    if (!is_float_or_f8(x->dtype)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "input 0 (data) has dtype %s, expected f16, f32, f64, bf16 or float8",
                            em_dtype_name(x->dtype));
    }
    s->has_ratio = em_ref_has_input(ki, 1);
    s->has_training = em_ref_has_input(ki, 2);
    if (s->has_ratio) {
        const em_tensor *r = &ki->in[1];
        EMBER_TRY(one_value(ki, 1, is_float_or_f8, "input 1 (ratio)"));
        double ratio = r->data != NULL ? em_tref_get(r->dtype, r->data, 0) : 0.0;
        if (!(ratio >= 0.0 && ratio < 1.0)) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "ratio %g is outside [0, 1)", ratio);
        }
    }
    if (s->has_training) {
        EMBER_TRY(one_value(ki, 2, is_bool, "input 2 (training_mode)"));
    }
    return NULL;
fail:
    return st;
}

ember_status *em_dropout_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0];
    dropout_state *s = NULL;
    dropout_state tmp = {0};

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 3, 2));
    EMBER_TRY(dropout_inputs(ki, &tmp));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0 (output)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], x->dims, x->rank, "output 0 (output)"));
    if (ki->n_out > 1) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->out[1], EMBER_DTYPE_BOOL, "output 1 (mask)"));
        EMBER_TRY(em_ref_check_shape(ki, &ki->out[1], x->dims, x->rank, "output 1 (mask)"));
    }
    s = em_malloc(ki->al, sizeof *s);
    if (s == NULL) {
        return em_status_oom();
    }
    s->has_ratio = tmp.has_ratio;
    s->has_training = tmp.has_training;
    s->has_mask = ki->n_out > 1;
    EMBER_TRY(em_rnd_seed_init(ki, &s->seed, s));
    *state = s;
    return NULL;
fail:
    em_free(ki->al, s);
    return st;
}

typedef struct dropout_job {
    const dropout_state *s;
    uint64_t run;
    double ratio, scale;
    const em_tensor *x;
    em_tensor *y;
    uint8_t *mask;
    int64_t numel;
} dropout_job;

/* Blocks [begin, end) of a training run (two elements per block). */
static void dropout_task(void *arg, int64_t begin, int64_t end)
{
    const dropout_job *j = arg;
    ember_dtype dt = j->x->dtype;
    for (int64_t b = begin; b < end; b++) {
        double u[2];
        em_rnd_uniform2(j->s->seed.key, j->run, (uint64_t)b, u);
        for (int h = 0; h < 2 && 2 * b + h < j->numel; h++) {
            int64_t i = 2 * b + h;
            bool keep = u[h] >= j->ratio;
            em_tref_set(dt, j->y->data, i,
                        em_tref_get(dt, j->x->data, i) * (keep ? j->scale : 0.0));
            if (j->mask != NULL) {
                j->mask[i] = keep;
            }
        }
    }
}

void em_dropout__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const dropout_state *s = state;
    double ratio = s->has_ratio ? em_tref_get(in[1].dtype, in[1].data, 0) : 0.5;
    bool training = s->has_training && *(const uint8_t *)in[2].data != 0;
    int64_t numel = em_tensor_numel(&in[0]);
    ratio = ratio > 0.0 ? (ratio < 1.0 ? ratio : 1.0) : 0.0; /* NaN -> 0 */
    if (!training || ratio == 0.0) {
        size_t bytes = em_tensor_nbytes(&in[0]);
        if (out[0].data != in[0].data && bytes > 0) {
            memcpy(out[0].data, in[0].data, bytes);
        }
        if (s->has_mask && numel > 0) {
            memset(out[1].data, 1, (size_t)numel);
        }
        return;
    }
    dropout_job j = {s, em_rnd_next_run(&s->seed), ratio, 0.0, &in[0], &out[0], NULL, numel};
    j.scale = ratio < 1.0 ? 1.0 / (1.0 - ratio) : 0.0; /* ratio 1 drops all: scale unused */
    j.mask = s->has_mask ? out[1].data : NULL;
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, (numel + 1) / 2, 512, dropout_task, &j);
}
