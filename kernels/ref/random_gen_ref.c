/* SPDX-License-Identifier: Apache-2.0 */
/*
 * RandomUniform-22, RandomNormal-22, RandomUniformLike-22, RandomNormalLike-22, Bernoulli-22
 * and Multinomial-22 on the Philox generator of random_ref.h.
 *   uniform:   low + (high - low) * u, kept below high in the output's precision;
 *   normal:    mean + scale * z, z from Box-Muller on the block's two uniforms
 *              (z0 = r cos(2 pi u1), z1 = r sin(2 pi u1), r = sqrt(-2 ln(1 - u0)));
 *   Bernoulli: 1 when u < p (p outside [0, 1] clamps the rate; NaN gives 0);
 *   Multinomial: per row, softmax of the logits (in double, shifted by the row's maximum), each
 *              sample the first class whose cumulative mass exceeds u * total. A row whose
 *              mass is not finite and positive (all -inf, a NaN, or a +inf logit) samples
 *              class 0.
 * Element i draws from block i / 2 (random_ref.h), whatever the threads' split.
 */
#include "ref.h"

#include "core/alloc.h"

#include <math.h>
#include <string.h>

#define RND_PI 3.14159265358979323846

typedef enum rnd_kind { RND_UNIFORM = 0, RND_NORMAL, RND_BERNOULLI, RND_MULTINOMIAL } rnd_kind;

typedef struct rnd_state {
    em_rnd_seed seed; /* holds the run counter (atomic) */
    rnd_kind kind;
    double a, b; /* uniform: low, high; normal: mean, scale */
    ember_dtype out_dt;
    int64_t samples; /* Multinomial: samples per row */
} rnd_state;

/* Allocates the state (the atomic counter is initialized in place, never copied). */
static ember_status *rnd_state_new(const em_kinfo *ki, const rnd_state *src, void **state)
{
    ember_status *st = NULL;
    rnd_state *s = em_malloc(ki->al, sizeof *s);
    if (s == NULL) {
        return em_status_oom();
    }
    s->kind = src->kind;
    s->a = src->a;
    s->b = src->b;
    s->out_dt = src->out_dt;
    s->samples = src->samples;
    EMBER_TRY(em_rnd_seed_init(ki, &s->seed, s));
    *state = s;
    return NULL;
fail:
    em_free(ki->al, s);
    return st;
}

/* The output dtype from attribute 'dtype' (absent: `dflt`). */
static ember_status *rnd_dtype(const em_kinfo *ki, ember_dtype dflt, ember_dtype *dt)
{
    int64_t v;
    ember_status *st = em_ref_attr_int(ki, "dtype", dflt, &v);
    if (st != NULL) {
        return st;
    }
    *dt =
        v > 0 && v < 64 && em_dtype_valid((ember_dtype)v) ? (ember_dtype)v : EMBER_DTYPE_UNDEFINED;
    if (*dt == EMBER_DTYPE_UNDEFINED) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "attribute dtype %lld is not a dtype",
                            (long long)v);
    }
    return NULL;
}

/* The start of every prepare here: no state yet, `n_in` inputs (input 0 checked), one output. */
static ember_status *rnd_begin(const em_kinfo *ki, rnd_kind kind, int n_in, rnd_state *s,
                               void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    *state = NULL;
    *scratch_bytes = 0;
    memset(s, 0, sizeof *s);
    s->kind = kind;
    EMBER_TRY(em_ref_check_arity(ki, n_in, n_in, 1));
    if (n_in > 0) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->in[0], EMBER_DTYPE_UNDEFINED, "input 0"));
    }
    return NULL;
fail:
    return st;
}

/* ---- RandomUniform / RandomNormal and their *Like forms ------------------------------------ */

static ember_status *random_params(const em_kinfo *ki, rnd_state *s)
{
    ember_status *st = NULL;
    float a, b;
    bool normal = ki->node->op == EM_OP_RANDOMNORMAL || ki->node->op == EM_OP_RANDOMNORMALLIKE;
    s->kind = normal ? RND_NORMAL : RND_UNIFORM;
    EMBER_TRY(em_ref_attr_float(ki, normal ? "mean" : "low", 0.0f, &a));
    EMBER_TRY(em_ref_attr_float(ki, normal ? "scale" : "high", 1.0f, &b));
    if (!isfinite(a) || !isfinite(b) || (!normal && a > b)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            normal ? "mean %g and scale %g must be finite"
                                   : "low %g and high %g must be finite with low <= high",
                            (double)a, (double)b);
    }
    s->a = a;
    s->b = b;
    return NULL;
fail:
    return st;
}

ember_status *em_random_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    rnd_state s;
    const em_tensor *y = &ki->out[0];
    bool like = ki->node->op == EM_OP_RANDOMUNIFORMLIKE || ki->node->op == EM_OP_RANDOMNORMALLIKE;

    EMBER_TRY(rnd_begin(ki, RND_UNIFORM, like ? 1 : 0, &s, state, scratch_bytes));
    EMBER_TRY(rnd_dtype(ki, like ? ki->in[0].dtype : EMBER_DTYPE_F32, &s.out_dt));
    if (!em_rnd_is_float(s.out_dt)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "output dtype %s is not f16, f32, f64 or bf16%s",
                            em_dtype_name(s.out_dt), like ? " (set attribute 'dtype')" : "");
    }
    EMBER_TRY(em_ref_check_tensor(ki, y, s.out_dt, "output 0"));
    if (like) {
        EMBER_TRY(em_ref_check_shape(ki, y, ki->in[0].dims, ki->in[0].rank, "output 0"));
    } else {
        int64_t dims[EM_MAX_RANK];
        const em_attr *a = em_node_attr(ki->node, "shape");
        if (a == NULL || a->type != EM_ATTR_INTS || a->n > EM_MAX_RANK) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "attribute 'shape' (ints, at most %d) is required", EM_MAX_RANK);
        }
        memcpy(dims, a->ints, sizeof(int64_t) * (size_t)a->n);
        EMBER_TRY(em_ref_check_shape(ki, y, dims, (int)a->n, "output 0"));
    }
    EMBER_TRY(random_params(ki, &s));
    return rnd_state_new(ki, &s, state);
fail:
    return st;
}

typedef struct rnd_job {
    const rnd_state *s;
    uint64_t run;
    const em_tensor *x;
    em_tensor *y;
    int64_t numel;
} rnd_job;

/* Blocks [begin, end) of a RandomUniform/Normal output (two elements per block). */
static void random_task(void *arg, int64_t begin, int64_t end)
{
    const rnd_job *j = arg;
    const rnd_state *s = j->s;
    for (int64_t b = begin; b < end; b++) {
        double u[2], v[2];
        em_rnd_uniform2(s->seed.key, j->run, (uint64_t)b, u);
        if (s->kind == RND_NORMAL) {
            double r = sqrt(-2.0 * log(1.0 - u[0])), t = 2.0 * RND_PI * u[1];
            v[0] = s->a + s->b * (r * cos(t));
            v[1] = s->a + s->b * (r * sin(t));
        }
        for (int h = 0; h < 2 && 2 * b + h < j->numel; h++) {
            if (s->kind == RND_NORMAL) {
                em_tref_set(s->out_dt, j->y->data, 2 * b + h, v[h]);
            } else {
                em_rnd_store_below(s->out_dt, j->y->data, 2 * b + h, s->a + (s->b - s->a) * u[h],
                                   s->a, s->b);
            }
        }
    }
}

void em_random__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const rnd_state *s = state;
    rnd_job j = {s, em_rnd_next_run(&s->seed), NULL, &out[0], em_tensor_numel(&out[0])};
    (void)in;
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, (j.numel + 1) / 2, 512, random_task, &j);
}

/* ---- Bernoulli ------------------------------------------------------------------------------ */

ember_status *em_bernoulli_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    rnd_state s;
    const em_tensor *x = &ki->in[0];

    EMBER_TRY(rnd_begin(ki, RND_BERNOULLI, 1, &s, state, scratch_bytes));
    if (!em_rnd_is_float(x->dtype)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "input 0 has dtype %s, expected f16, f32, f64 or bf16",
                            em_dtype_name(x->dtype));
    }
    EMBER_TRY(rnd_dtype(ki, x->dtype, &s.out_dt));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], s.out_dt, "output 0"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], x->dims, x->rank, "output 0"));
    return rnd_state_new(ki, &s, state);
fail:
    return st;
}

static void bernoulli_task(void *arg, int64_t begin, int64_t end)
{
    const rnd_job *j = arg;
    const rnd_state *s = j->s;
    for (int64_t b = begin; b < end; b++) {
        double u[2];
        em_rnd_uniform2(s->seed.key, j->run, (uint64_t)b, u);
        for (int h = 0; h < 2 && 2 * b + h < j->numel; h++) {
            int64_t i = 2 * b + h;
            double p = em_tref_get(j->x->dtype, j->x->data, i);
            em_tref_set(s->out_dt, j->y->data, i, u[h] < p ? 1.0 : 0.0);
        }
    }
}

void em_bernoulli__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const rnd_state *s = state;
    rnd_job j = {s, em_rnd_next_run(&s->seed), &in[0], &out[0], em_tensor_numel(&out[0])};
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, (j.numel + 1) / 2, 512, bernoulli_task, &j);
}

/* ---- Multinomial ---------------------------------------------------------------------------- */

ember_status *em_multinomial_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    rnd_state s;
    const em_tensor *x = &ki->in[0];

    EMBER_TRY(rnd_begin(ki, RND_MULTINOMIAL, 1, &s, state, scratch_bytes));
    if (!em_rnd_is_float(x->dtype) || x->dtype == EMBER_DTYPE_BF16 || x->rank != 2) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "input 0 must be f16, f32 or f64 [batch_size, class_size]");
    }
    EMBER_TRY(em_ref_attr_int(ki, "sample_size", 1, &s.samples));
    if (s.samples < 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "sample_size %lld is less than 1",
                            (long long)s.samples);
    }
    EMBER_TRY(rnd_dtype(ki, EMBER_DTYPE_I32, &s.out_dt));
    if (s.out_dt != EMBER_DTYPE_I32 && s.out_dt != EMBER_DTYPE_I64) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "output dtype %s is not int32 or int64",
                            em_dtype_name(s.out_dt));
    }
    int64_t dims[2] = {x->dims[0], s.samples};
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], s.out_dt, "output 0"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], dims, 2, "output 0"));
    return rnd_state_new(ki, &s, state);
fail:
    return st;
}

/* Rows [begin, end). */
static void multinomial_task(void *arg, int64_t begin, int64_t end)
{
    const rnd_job *j = arg;
    const rnd_state *s = j->s;
    const int64_t classes = j->x->dims[1];
    for (int64_t r = begin; r < end; r++) {
        int64_t base = r * classes;
        double mx = -INFINITY, total = 0.0;
        for (int64_t c = 0; c < classes; c++) {
            double v = em_tref_get(j->x->dtype, j->x->data, base + c);
            mx = v > mx ? v : mx;
        }
        for (int64_t c = 0; c < classes && isfinite(mx); c++) {
            total += exp(em_tref_get(j->x->dtype, j->x->data, base + c) - mx);
        }
        for (int64_t k = 0; k < s->samples; k++) {
            int64_t i = r * s->samples + k, pick = 0;
            if (total > 0.0 && isfinite(total)) {
                double target = em_rnd_uniform_at(s->seed.key, j->run, i) * total, acc = 0.0;
                for (int64_t c = 0; c < classes; c++) {
                    double p = exp(em_tref_get(j->x->dtype, j->x->data, base + c) - mx);
                    if (p > 0.0) {
                        pick = c; /* rounding may leave target >= acc: the last live class */
                    }
                    acc += p;
                    if (target < acc) {
                        break;
                    }
                }
            }
            em_tref_set(s->out_dt, j->y->data, i, (double)pick);
        }
    }
}

void em_multinomial__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const rnd_state *s = state;
    rnd_job j = {s, em_rnd_next_run(&s->seed), &in[0], &out[0], em_tensor_numel(&out[0])};
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, in[0].dims[0], 1, multinomial_task, &j);
}
