/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NegativeLogLikelihoodLoss-22 and SoftmaxCrossEntropyLoss-13, f32 f64 f16 bf16, computed in
 * double. The input [N, C, d1..dk] is read as [N, C, D] with D = d1*..*dk (1 when k = 0).
 * Per position (n, d) with target t = target[n, d]:
 *   w = 0 when t == ignore_index (then t may be anything, even out of [0, C)), else weight[t]
 *       (1 without weight);   l = -w * v[n, t, d],
 * where v is the input (NLL) or its log-softmax over C (SCE: x - max - log(sum exp(x - max))).
 * reduction "none" stores l per position, "sum" stores sum(l), "mean" sum(l) / sum(w) (0 / 0,
 * all positions ignored, gives NaN as the ONNX reference does). A target outside [0, C) that
 * is not ignore_index is an error when prepare sees the target (a constant); at run time it
 * yields NaN (its l and w), since run cannot fail. SCE writes log_prob when that output exists.
 */
#include "ref.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef enum loss_reduce { LOSS_NONE = 0, LOSS_SUM, LOSS_MEAN } loss_reduce;

typedef struct em_loss_attrs {
    ember_dtype dt, tdt;
    bool sce, has_w, has_ii, log_prob;
    loss_reduce red;
    int64_t ii;
    int64_t n, c, d; /* input read as [n, c, d] */
} em_loss_attrs;

static bool is_float(ember_dtype dt)
{
    return dt == EMBER_DTYPE_F32 || dt == EMBER_DTYPE_F64 || dt == EMBER_DTYPE_F16 ||
           dt == EMBER_DTYPE_BF16;
}

static ember_status *parse_attrs(const em_kinfo *ki, em_loss_attrs *a)
{
    ember_status *st = NULL;
    const char *red;
    EMBER_TRY(em_ref_attr_string(ki, "reduction", "mean", &red));
    if (strcmp(red, "none") == 0) {
        a->red = LOSS_NONE;
    } else if (strcmp(red, "sum") == 0) {
        a->red = LOSS_SUM;
    } else if (strcmp(red, "mean") == 0) {
        a->red = LOSS_MEAN;
    } else {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "attribute 'reduction' is \"%s\", expected \"none\", \"sum\" or "
                            "\"mean\"",
                            red);
    }
    a->has_ii = em_node_attr(ki->node, "ignore_index") != NULL;
    EMBER_TRY(em_ref_attr_int(ki, "ignore_index", 0, &a->ii));
    return NULL;
fail:
    return st;
}

/* Checks the input, target and weight; fills the dtypes and the [n, c, d] view. */
static ember_status *check_inputs(const em_kinfo *ki, em_loss_attrs *a)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0], *t = &ki->in[1];
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (input)"));
    if (!is_float(x->dtype)) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "input 0: dtype %s is not supported",
                            em_dtype_name(x->dtype));
    }
    if (x->rank < 2) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input 0 has rank %d, expected >= 2",
                            x->rank);
    }
    EMBER_TRY(em_ref_check_tensor(ki, t, EMBER_DTYPE_UNDEFINED, "input 1 (target)"));
    if (t->dtype != EMBER_DTYPE_I32 && t->dtype != EMBER_DTYPE_I64) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "input 1 (target) has dtype %s, expected int32 or int64",
                            em_dtype_name(t->dtype));
    }
    int64_t td[EM_MAX_RANK];
    td[0] = x->dims[0];
    memcpy(td + 1, x->dims + 2, sizeof(int64_t) * (size_t)(x->rank - 2));
    EMBER_TRY(em_ref_check_shape(ki, t, td, x->rank - 1, "input 1 (target)"));
    a->has_w = em_ref_has_input(ki, 2);
    if (a->has_w) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->in[2], x->dtype, "input 2 (weight)"));
        EMBER_TRY(em_ref_check_shape(ki, &ki->in[2], x->dims + 1, 1, "input 2 (weight)"));
    }
    a->dt = x->dtype;
    a->tdt = t->dtype;
    a->n = x->dims[0];
    a->c = x->dims[1];
    a->d = em_ref_prod(x->dims + 2, x->rank - 2);
    return NULL;
fail:
    return st;
}

static ember_status *check_outputs(const em_kinfo *ki, em_loss_attrs *a)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[0];
    const em_tensor *t = &ki->in[1];
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0 (loss)"));
    if (a->red == LOSS_NONE) {
        EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], t->dims, t->rank, "output 0 (loss)"));
    } else {
        EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], NULL, 0, "output 0 (loss)"));
    }
    a->log_prob = a->sce && ki->n_out > 1 && ki->out[1].dtype != EMBER_DTYPE_UNDEFINED;
    if (a->log_prob) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->out[1], x->dtype, "output 1 (log_prob)"));
        EMBER_TRY(em_ref_check_shape(ki, &ki->out[1], x->dims, x->rank, "output 1 (log_prob)"));
    }
    return NULL;
fail:
    return st;
}

/* With a constant target, every target that is not ignore_index must be a class index. */
static ember_status *check_target_values(const em_kinfo *ki, const em_loss_attrs *a)
{
    const em_tensor *t = &ki->in[1];
    if (t->data == NULL) {
        return NULL;
    }
    for (int64_t i = 0; i < a->n * a->d; i++) {
        int64_t v = em_tref_index(t, i);
        if ((!a->has_ii || v != a->ii) && (v < 0 || v >= a->c)) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "input 1 (target) holds %lld at %lld, outside [0, %lld) and not "
                                "ignore_index",
                                (long long)v, (long long)i, (long long)a->c);
        }
    }
    return NULL;
}

ember_status *em_loss_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_loss_attrs a;

    *state = NULL;
    *scratch_bytes = 0;
    memset(&a, 0, sizeof a);
    a.sce = ki->node->op == EM_OP_SCELOSS;
    EMBER_TRY(em_ref_check_arity(ki, 2, 3, a.sce ? 2 : 1));
    EMBER_TRY(parse_attrs(ki, &a));
    EMBER_TRY(check_inputs(ki, &a));
    EMBER_TRY(check_outputs(ki, &a));
    EMBER_TRY(check_target_values(ki, &a));
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

/* log(sum_c exp(x[n, c, d])) over the classes of position (n, d), shifted by the max. */
static double log_sum_exp(const em_loss_attrs *a, const void *x, int64_t base)
{
    double mx = -INFINITY, s = 0.0;
    for (int64_t c = 0; c < a->c; c++) {
        double v = em_tref_get(a->dt, x, base + c * a->d);
        mx = v > mx ? v : mx;
    }
    if (isinf(mx)) {
        return mx; /* all -inf (or some +inf): log-softmax is NaN or -inf either way */
    }
    for (int64_t c = 0; c < a->c; c++) {
        s += exp(em_tref_get(a->dt, x, base + c * a->d) - mx);
    }
    return mx + log(s);
}

void em_loss__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_loss_attrs *a = state;
    const void *x = in[0].data;
    double sum_l = 0.0, sum_w = 0.0;
    (void)ctx;
    for (int64_t n = 0; n < a->n; n++) {
        for (int64_t d = 0; d < a->d; d++) {
            int64_t base = n * a->c * a->d + d, pos = n * a->d + d;
            double lse = a->sce ? log_sum_exp(a, x, base) : 0.0;
            if (a->log_prob) {
                for (int64_t c = 0; c < a->c; c++) {
                    int64_t i = base + c * a->d;
                    em_tref_set(a->dt, out[1].data, i, em_tref_get(a->dt, x, i) - lse);
                }
            }
            int64_t t = em_tref_index(&in[1], pos);
            double w = 0.0, l = 0.0;
            if (a->has_ii && t == a->ii) {
                /* ignored: contributes 0 to both sums */
            } else if (t < 0 || t >= a->c) {
                w = l = NAN;
            } else {
                w = a->has_w ? em_tref_get(a->dt, in[2].data, t) : 1.0;
                l = -w * (em_tref_get(a->dt, x, base + t * a->d) - lse);
            }
            if (a->red == LOSS_NONE) {
                em_tref_set(a->dt, out[0].data, pos, l);
            }
            sum_l += l;
            sum_w += w;
        }
    }
    if (a->red != LOSS_NONE) {
        em_tref_set(a->dt, out[0].data, 0, a->red == LOSS_SUM ? sum_l : sum_l / sum_w);
    }
}
