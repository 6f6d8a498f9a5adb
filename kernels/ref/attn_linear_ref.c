/* SPDX-License-Identifier: Apache-2.0 */
/*
 * LinearAttention-27 and CausalConvWithState-27.
 *
 * LinearAttention runs the recurrence token by token (onnx/reference/ops/op_linear_attention.py)
 * on a state S [Dk, Dv] per (batch, KV head), kept in double in scratch:
 *   gated / gated_delta:  S *= exp(decay_t)   (per key row d, or one decay per head)
 *   delta / gated_delta:  v_t = beta_t * (v_t - S^T k_t)
 *   always:               S += k_t (x) v_t;   o_t = scale * q_t^T S  for each query head of the
 *                         group (query head h reads KV head h / (Hq / Hkv))
 * scale 0 means 1 / sqrt(Dk). decay is [B, T, Hkv * Dk] or [B, T, Hkv]; beta [B, T, Hkv] or
 * [B, T, 1]. present_state is the final S in its output's dtype. Each (batch, KV head) is one
 * parallel item; `slots` scratch states, fixed in prepare.
 *
 * CausalConvWithState: padded = concat(past_state or zeros [B, C, k - 1], input) along the
 * length; out[b, c, l] = bias[c] + sum_t w[c, 0, t] * padded[b, c, l + t], rounded to the
 * input's dtype, then silu / swish (x * sigmoid(x)) when asked; present_state = the last k - 1
 * positions of padded.
 */
#include "ref.h"

#include "core/alloc.h"

#include <math.h>
#include <string.h>

/* ---- LinearAttention ----------------------------------------------------------------------- */

enum { LA_GATED = 1, LA_DELTA = 2 };

typedef struct em_linattn_attrs {
    ember_dtype dt, st;
    int rule; /* LA_GATED | LA_DELTA bits */
    int64_t batch, len, hq, hkv, dk, dv;
    int64_t decay_per_key; /* 1: decay has Dk entries per head; 0: one per head */
    int64_t beta_heads;    /* beta's last dim: Hkv or 1 */
    bool has_past;
    int n_out;
    double scale;
    int64_t slots;
} em_linattn_attrs;

/* decay (input 4) and beta (input 5): present exactly when the rule uses them. */
static ember_status *linattn_gates(const em_kinfo *ki, em_linattn_attrs *a)
{
    ember_status *st = NULL;
    for (int i = 4; i < 6; i++) {
        bool need = (a->rule & (i == 4 ? LA_GATED : LA_DELTA)) != 0;
        const char *what = i == 4 ? "input 4 (decay)" : "input 5 (beta)";
        if (em_ref_has_input(ki, i) != need) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "this update_rule %s %s",
                                need ? "needs" : "forbids", what);
        }
        if (!need) {
            continue;
        }
        const em_tensor *g = &ki->in[i];
        EMBER_TRY(em_ref_check_tensor(ki, g, a->dt, what));
        int64_t last = g->rank == 3 ? g->dims[2] : -1;
        bool ok = g->rank == 3 && g->dims[0] == a->batch && g->dims[1] == a->len &&
                  (i == 4 ? last == a->hkv || last == a->hkv * a->dk : last == a->hkv || last == 1);
        if (!ok) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%s must be [B, T, %s]", what,
                                i == 4 ? "Hkv * Dk or Hkv" : "Hkv or 1");
        }
        if (i == 4) {
            a->decay_per_key = last != a->hkv; /* else Hkv * Dk (the same when Dk is 1) */
        } else {
            a->beta_heads = last;
        }
    }
    return NULL;
fail:
    return st;
}

static ember_status *linattn_shapes(const em_kinfo *ki, em_linattn_attrs *a)
{
    ember_status *st = NULL;
    const em_tensor *q = &ki->in[0], *k = &ki->in[1], *v = &ki->in[2];
    if (q->rank != 3 || k->rank != 3 || v->rank != 3 || q->dims[2] % a->hq != 0 ||
        k->dims[2] % a->hkv != 0 || v->dims[2] % a->hkv != 0) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "query, key and value must be [B, T, H * D] with the head counts "
                            "dividing their last dims");
    }
    a->batch = q->dims[0];
    a->len = q->dims[1];
    a->dk = q->dims[2] / a->hq;
    a->dv = v->dims[2] / a->hkv;
    if (k->dims[0] != a->batch || v->dims[0] != a->batch || k->dims[1] != a->len ||
        v->dims[1] != a->len || k->dims[2] / a->hkv != a->dk) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "query, key and value disagree on batch, length or key head size");
    }
    const int64_t sd[4] = {a->batch, a->hkv, a->dk, a->dv};
    const int64_t yd[3] = {a->batch, a->len, a->hq * a->dv};
    a->has_past = em_ref_has_input(ki, 3);
    if (a->has_past) {
        EMBER_TRY(em_attn_check_float(ki, &ki->in[3], "input 3 (past_state)"));
        EMBER_TRY(em_ref_check_shape(ki, &ki->in[3], sd, 4, "input 3 (past_state)"));
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], a->dt, "output 0 (output)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], yd, 3, "output 0 (output)"));
    if (ki->n_out > 1) {
        EMBER_TRY(em_attn_check_float(ki, &ki->out[1], "output 1 (present_state)"));
        EMBER_TRY(em_ref_check_shape(ki, &ki->out[1], sd, 4, "output 1 (present_state)"));
        a->st = ki->out[1].dtype;
    }
    return NULL;
fail:
    return st;
}

ember_status *em_linearattention_prepare__ref(const em_kinfo *ki, void **state,
                                              size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_linattn_attrs a;
    static const char *const rules[] = {"linear", "gated", "delta", "gated_delta"};
    int rule = 3;
    float scale;

    memset(&a, 0, sizeof a);
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 3, 6, 2));
    EMBER_TRY(em_attn_check_float(ki, &ki->in[0], "input 0 (query)"));
    a.dt = ki->in[0].dtype;
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[1], a.dt, "input 1 (key)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[2], a.dt, "input 2 (value)"));
    EMBER_TRY(em_ref_attr_int(ki, "q_num_heads", 0, &a.hq));
    EMBER_TRY(em_ref_attr_int(ki, "kv_num_heads", 0, &a.hkv));
    EMBER_TRY(em_ref_attr_float(ki, "scale", 0.0f, &scale));
    EMBER_TRY(em_nn_attr_enum(ki, "update_rule", rules, 4, 3, &rule));
    if (a.hq < 1 || a.hkv < 1 || a.hq % a.hkv != 0) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "q_num_heads (%lld) must be a positive multiple of kv_num_heads (%lld)",
                            (long long)a.hq, (long long)a.hkv);
    }
    a.rule = rule; /* linear 0, gated 1, delta 2, gated_delta 3: the bits */
    EMBER_TRY(linattn_shapes(ki, &a));
    EMBER_TRY(linattn_gates(ki, &a));
    a.n_out = ki->n_out;
    a.scale = scale != 0.0f ? (double)scale : 1.0 / sqrt((double)a.dk);
    a.slots = em_attn_slots(ki, a.batch * a.hkv);
    size_t per, bytes; /* a state of Dk * Dv doubles and a value row of Dv per slot */
    if (!em_size_mul((size_t)a.dk + 1, (size_t)a.dv, &per) || per > (size_t)INT64_MAX / 8 ||
        !em_size_mul(per, sizeof(double), &bytes) ||
        !em_size_mul(bytes, (size_t)a.slots, &bytes)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "scratch size overflows");
    }
    *scratch_bytes = bytes;
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct linattn_job {
    const em_linattn_attrs *a;
    const em_tensor *in;
    em_tensor *out;
    double *scratch;
} linattn_job;

/* One token t of (batch b, KV head g): the state update, then the group's outputs. */
static void linattn_step(const linattn_job *j, int64_t b, int64_t g, int64_t t, double *s,
                         double *v)
{
    const em_linattn_attrs *a = j->a;
    const int64_t tok = b * a->len + t, dk = a->dk, dv = a->dv;
    const void *key = j->in[1].data;
    const int64_t k0 = tok * a->hkv * dk + g * dk;
    for (int64_t m = 0; m < dv; m++) {
        v[m] = em_nn_get(a->dt, j->in[2].data, tok * a->hkv * dv + g * dv + m);
    }
    if (a->rule & LA_GATED) {
        for (int64_t d = 0; d < dk; d++) {
            int64_t gi = a->decay_per_key ? k0 + d : tok * a->hkv + g;
            double f = exp(em_nn_get(a->dt, j->in[4].data, gi));
            for (int64_t m = 0; m < dv; m++) {
                s[d * dv + m] *= f;
            }
        }
    }
    if (a->rule & LA_DELTA) {
        double beta =
            em_nn_get(a->dt, j->in[5].data, tok * a->beta_heads + (a->beta_heads == 1 ? 0 : g));
        for (int64_t m = 0; m < dv; m++) {
            double r = 0.0;
            for (int64_t d = 0; d < dk; d++) {
                r += s[d * dv + m] * em_nn_get(a->dt, key, k0 + d);
            }
            v[m] = beta * (v[m] - r);
        }
    }
    for (int64_t d = 0; d < dk; d++) {
        double kd = em_nn_get(a->dt, key, k0 + d);
        for (int64_t m = 0; m < dv; m++) {
            s[d * dv + m] += kd * v[m];
        }
    }
    const int64_t group = a->hq / a->hkv;
    for (int64_t h = g * group; h < (g + 1) * group; h++) {
        const int64_t q0 = tok * a->hq * dk + h * dk;
        for (int64_t m = 0; m < dv; m++) {
            double o = 0.0;
            for (int64_t d = 0; d < dk; d++) {
                o += em_nn_get(a->dt, j->in[0].data, q0 + d) * s[d * dv + m];
            }
            em_nn_set(a->dt, j->out[0].data, tok * a->hq * dv + h * dv + m, a->scale * o);
        }
    }
}

static void linattn_task(void *arg, int64_t begin, int64_t end)
{
    const linattn_job *j = arg;
    const em_linattn_attrs *a = j->a;
    const int64_t n = a->dk * a->dv;
    for (int64_t slot = begin; slot < end; slot++) {
        int64_t i0, i1;
        em_attn_slot_range(a->batch * a->hkv, a->slots, slot, &i0, &i1);
        double *s = j->scratch + slot * (n + a->dv), *v = s + n;
        for (int64_t item = i0; item < i1; item++) { /* item = b * Hkv + g */
            for (int64_t e = 0; e < n; e++) {
                s[e] = a->has_past ? em_nn_get(j->in[3].dtype, j->in[3].data, item * n + e) : 0.0;
            }
            for (int64_t t = 0; t < a->len; t++) {
                linattn_step(j, item / a->hkv, item % a->hkv, t, s, v);
            }
            for (int64_t e = 0; a->n_out > 1 && e < n; e++) {
                em_nn_set(a->st, j->out[1].data, item * n + e, s[e]);
            }
        }
    }
}

void em_linearattention__ref(const void *state, const em_tensor *in, em_tensor *out,
                             const em_kctx *ctx)
{
    const em_linattn_attrs *a = state;
    linattn_job j = {a, in, out, ctx != NULL ? ctx->scratch : NULL};
    if (a->batch * a->hkv > 0) {
        em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->slots, 1, linattn_task, &j);
    }
}

/* ---- CausalConvWithState ------------------------------------------------------------------- */

typedef struct em_cconv_attrs {
    ember_dtype dt;
    int64_t batch, ch, len, k;
    bool has_bias, has_past, silu;
    int n_out;
} em_cconv_attrs;

ember_status *em_causalconv_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_cconv_attrs a;
    const em_tensor *x = &ki->in[0], *w = &ki->in[1];
    static const char *const acts[] = {"none", "silu", "swish"};
    int act = 0;

    memset(&a, 0, sizeof a);
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 2, 4, 2));
    EMBER_TRY(em_attn_check_float(ki, x, "input 0 (input)"));
    EMBER_TRY(em_ref_check_tensor(ki, w, x->dtype, "input 1 (weight)"));
    EMBER_TRY(em_nn_attr_enum(ki, "activation", acts, 3, 0, &act));
    if (x->rank != 3 || w->rank != 3 || w->dims[0] != x->dims[1] || w->dims[1] != 1 ||
        w->dims[2] < 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "input must be [B, C, L] and weight [C, 1, k] with k >= 1");
    }
    a.dt = x->dtype;
    a.batch = x->dims[0];
    a.ch = x->dims[1];
    a.len = x->dims[2];
    a.k = w->dims[2];
    a.silu = act != 0;
    a.n_out = ki->n_out;
    const int64_t sd[3] = {a.batch, a.ch, a.k - 1}, bd[1] = {a.ch};
    a.has_bias = em_ref_has_input(ki, 2);
    a.has_past = em_ref_has_input(ki, 3);
    if (a.has_bias) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->in[2], a.dt, "input 2 (bias)"));
        EMBER_TRY(em_ref_check_shape(ki, &ki->in[2], bd, 1, "input 2 (bias)"));
    }
    if (a.has_past) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->in[3], a.dt, "input 3 (past_state)"));
        EMBER_TRY(em_ref_check_shape(ki, &ki->in[3], sd, 3, "input 3 (past_state)"));
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], a.dt, "output 0 (output)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], x->dims, 3, "output 0 (output)"));
    if (ki->n_out > 1) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->out[1], a.dt, "output 1 (present_state)"));
        EMBER_TRY(em_ref_check_shape(ki, &ki->out[1], sd, 3, "output 1 (present_state)"));
    }
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct cconv_job {
    const em_cconv_attrs *a;
    const em_tensor *in;
    em_tensor *out;
} cconv_job;

/* Position p of the padded sequence of channel row bc (b * C + c). */
static double cconv_padded(const cconv_job *j, int64_t bc, int64_t p)
{
    const em_cconv_attrs *a = j->a;
    if (p >= a->k - 1) {
        return em_nn_get(a->dt, j->in[0].data, bc * a->len + p - (a->k - 1));
    }
    return a->has_past ? em_nn_get(a->dt, j->in[3].data, bc * (a->k - 1) + p) : 0.0;
}

static void cconv_task(void *arg, int64_t begin, int64_t end)
{
    const cconv_job *j = arg;
    const em_cconv_attrs *a = j->a;
    for (int64_t bc = begin; bc < end; bc++) {
        const int64_t c = bc % a->ch;
        double bias = a->has_bias ? em_nn_get(a->dt, j->in[2].data, c) : 0.0;
        for (int64_t l = 0; l < a->len; l++) {
            double acc = bias;
            for (int64_t t = 0; t < a->k; t++) {
                acc += em_nn_get(a->dt, j->in[1].data, c * a->k + t) * cconv_padded(j, bc, l + t);
            }
            if (a->silu) {
                acc = em_math_round(a->dt, acc);
                acc = acc / (1.0 + exp(-acc));
            }
            em_nn_set(a->dt, j->out[0].data, bc * a->len + l, acc);
        }
        for (int64_t t = 0; a->n_out > 1 && t < a->k - 1; t++) {
            em_nn_set(a->dt, j->out[1].data, bc * (a->k - 1) + t, cconv_padded(j, bc, a->len + t));
        }
    }
}

void em_causalconv__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_cconv_attrs *a = state;
    cconv_job j = {a, in, out};
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->batch * a->ch, 1, cconv_task, &j);
}
