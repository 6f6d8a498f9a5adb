/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ONNX Runtime's com.microsoft elementwise quantized ops (ContribOperators.md, version 1), the
 * spec's way: each input dequantized, the float op, the result quantized (round half to even,
 * saturating; NaN gives the zero point), all in double:
 *   QLinearAdd / QLinearMul (A, A_scale, A_zp, B, B_scale, B_zp, C_scale[, C_zp]) -> C:
 *     C = q((A - A_zp) * A_scale (+ or *) (B - B_zp) * B_scale, C_scale, C_zp), numpy
 *     broadcasting of A and B;
 *   QLinearSigmoid / QLinearLeakyRelu (X, X_scale, X_zp, Y_scale[, Y_zp]) -> Y:
 *     Y = q(f((X - X_zp) * X_scale), Y_scale, Y_zp), f the logistic function or LeakyRelu with
 *     attribute alpha (float32, default 0.01);
 *   QLinearConcat (Y_scale, Y_zp, then (X, X_scale, X_zp) per input; axis) -> Y: each input
 *     requantized to Y's parameters, joined along axis.
 * x and y uint8 or int8 (one dtype per op), scales one float32 value, zero points absent (0) or
 * one value of that dtype. A zero point absent in a binary op reads 0.
 */
#include "ref.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef enum qew_kind { QEW_ADD, QEW_MUL, QEW_SIGMOID, QEW_LEAKY } qew_kind;

typedef struct em_qew_attrs {
    qew_kind kind;
    const em_qtype *t;
    double alpha;
    int rank;
    int64_t n;
    int64_t dims[EM_MAX_RANK];
    int64_t sa[EM_MAX_RANK], sb[EM_MAX_RANK]; /* element strides; 0 along broadcast axes */
    bool zp[8];                               /* which zero-point inputs are present */
} em_qew_attrs;

/* numpy broadcasting of a and b: y's dims and each operand's strides. */
static ember_status *qew_broadcast(const em_kinfo *ki, const em_tensor *a, const em_tensor *b,
                                   em_qew_attrs *q)
{
    q->rank = a->rank > b->rank ? a->rank : b->rank;
    int64_t stra = 1, strb = 1;
    for (int d = q->rank - 1; d >= 0; d--) {
        int da = d - (q->rank - a->rank), db = d - (q->rank - b->rank);
        int64_t xa = da >= 0 ? a->dims[da] : 1, xb = db >= 0 ? b->dims[db] : 1;
        if (xa != xb && xa != 1 && xb != 1) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "A and B do not broadcast: dim %d is %lld vs %lld", d,
                                (long long)xa, (long long)xb);
        }
        q->dims[d] = xa == 1 ? xb : xa;
        q->sa[d] = xa == 1 ? 0 : stra;
        q->sb[d] = xb == 1 ? 0 : strb;
        stra *= xa;
        strb *= xb;
    }
    q->n = em_ref_prod(q->dims, q->rank);
    return NULL;
}

static ember_status *qew_binary_prepare(const em_kinfo *ki, qew_kind kind, void **state,
                                        size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_qew_attrs q = {.kind = kind};
    const em_qtype *bt;
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 7, 8, 1));
    EMBER_TRY(em_q_operand_8bit(ki, 0, "input 0 (A)", &q.t));
    EMBER_TRY(em_q_operand_8bit(ki, 3, "input 3 (B)", &bt));
    if (bt != q.t || ki->out[0].dtype != q.t->dt) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "A, B and C must have one dtype");
    }
    EMBER_TRY(em_q_tensor_params(ki, 1, 2, q.t->dt, "A", &q.zp[2]));
    EMBER_TRY(em_q_tensor_params(ki, 4, 5, q.t->dt, "B", &q.zp[5]));
    EMBER_TRY(em_q_tensor_params(ki, 6, 7, q.t->dt, "C", &q.zp[7]));
    EMBER_TRY(qew_broadcast(ki, &ki->in[0], &ki->in[3], &q));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], q.dims, q.rank, "output 0 (C)"));
    return em_ref_state_new(ki, &q, sizeof q, state);
fail:
    return st;
}

ember_status *em_qlinearadd_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    return qew_binary_prepare(ki, QEW_ADD, state, scratch_bytes);
}

ember_status *em_qlinearmul_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    return qew_binary_prepare(ki, QEW_MUL, state, scratch_bytes);
}

static ember_status *qew_unary_prepare(const em_kinfo *ki, qew_kind kind, void **state,
                                       size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_qew_attrs q = {.kind = kind};
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 4, 5, 1));
    EMBER_TRY(em_q_operand_8bit(ki, 0, "input 0 (X)", &q.t));
    if (ki->out[0].dtype != q.t->dt) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "X and Y must have one dtype");
    }
    EMBER_TRY(em_q_tensor_params(ki, 1, 2, q.t->dt, "X", &q.zp[2]));
    EMBER_TRY(em_q_tensor_params(ki, 3, 4, q.t->dt, "Y", &q.zp[4]));
    float alpha = 0.01f;
    if (kind == QEW_LEAKY) {
        EMBER_TRY(em_ref_attr_float(ki, "alpha", 0.01f, &alpha));
    }
    q.alpha = alpha;
    q.rank = ki->in[0].rank;
    memcpy(q.dims, ki->in[0].dims, sizeof(int64_t) * (size_t)q.rank);
    q.n = em_ref_prod(q.dims, q.rank);
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], q.dims, q.rank, "output 0 (Y)"));
    return em_ref_state_new(ki, &q, sizeof q, state);
fail:
    return st;
}

ember_status *em_qlinearsigmoid_prepare__ref(const em_kinfo *ki, void **state,
                                             size_t *scratch_bytes)
{
    return qew_unary_prepare(ki, QEW_SIGMOID, state, scratch_bytes);
}

ember_status *em_qlinearleakyrelu_prepare__ref(const em_kinfo *ki, void **state,
                                               size_t *scratch_bytes)
{
    return qew_unary_prepare(ki, QEW_LEAKY, state, scratch_bytes);
}

typedef struct qew_job {
    const em_qew_attrs *q;
    const em_tensor *in;
    em_tensor *out;
} qew_job;

static double qew_unary_f(const em_qew_attrs *q, double v)
{
    if (q->kind == QEW_SIGMOID) {
        return 1.0 / (1.0 + exp(-v));
    }
    return v < 0.0 ? v * q->alpha : v;
}

static void qew_task(void *arg, int64_t begin, int64_t end)
{
    const qew_job *j = arg;
    const em_qew_attrs *q = j->q;
    const em_tensor *in = j->in;
    void *y = j->out[0].data;
    const bool binary = q->kind == QEW_ADD || q->kind == QEW_MUL;
    const int ys = binary ? 6 : 3, yz = binary ? 7 : 4;
    const double as = em_q_param_at(in, 1, true, 0, 1.0), az = em_q_param_at(in, 2, q->zp[2], 0, 0);
    const double s_y = em_q_param_at(in, ys, true, 0, 1.0);
    const double z_y = em_q_param_at(in, yz, q->zp[yz], 0, 0.0);
    if (!binary) {
        for (int64_t i = begin; i < end; i++) {
            double v = qew_unary_f(q, ((double)em_q_int(q->t, in[0].data, i) - az) * as);
            em_q_quantize(q->t, y, i, v / s_y, z_y, true);
        }
        return;
    }
    const double bs = em_q_param_at(in, 4, true, 0, 1.0), bz = em_q_param_at(in, 5, q->zp[5], 0, 0);
    int64_t c[EM_MAX_RANK], rem = begin, ao = 0, bo = 0;
    for (int d = q->rank - 1; d >= 0; d--) {
        c[d] = rem % q->dims[d];
        rem /= q->dims[d];
        ao += c[d] * q->sa[d];
        bo += c[d] * q->sb[d];
    }
    for (int64_t i = begin; i < end; i++) {
        double a = ((double)em_q_int(q->t, in[0].data, ao) - az) * as;
        double b = ((double)em_q_int(q->t, in[3].data, bo) - bz) * bs;
        em_q_quantize(q->t, y, i, (q->kind == QEW_ADD ? a + b : a * b) / s_y, z_y, true);
        for (int d = q->rank - 1; d >= 0; d--) { /* odometer over y's coordinates */
            ao += q->sa[d];
            bo += q->sb[d];
            if (++c[d] < q->dims[d]) {
                break;
            }
            ao -= c[d] * q->sa[d];
            bo -= c[d] * q->sb[d];
            c[d] = 0;
        }
    }
}

static void qew_run(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_qew_attrs *q = state;
    qew_job j = {q, in, out};
    if (q->n > 0) {
        em_parallel_for(ctx != NULL ? ctx->pool : NULL, q->n, 4096, qew_task, &j);
    }
}

void em_qlinearadd__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    qew_run(state, in, out, ctx);
}

void em_qlinearmul__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    qew_run(state, in, out, ctx);
}

void em_qlinearsigmoid__ref(const void *state, const em_tensor *in, em_tensor *out,
                            const em_kctx *ctx)
{
    qew_run(state, in, out, ctx);
}

void em_qlinearleakyrelu__ref(const void *state, const em_tensor *in, em_tensor *out,
                              const em_kctx *ctx)
{
    qew_run(state, in, out, ctx);
}

/* ---- QLinearConcat ------------------------------------------------------------------------ */

typedef struct em_qconcat_attrs {
    const em_qtype *t;
    int n_x;              /* inputs joined */
    int64_t outer, inner; /* products of the dims before / after axis */
    int64_t y_axis;       /* y's dim along axis */
    bool y_zp;
    bool x_zp[EM_QCONCAT_MAX];
} em_qconcat_attrs;

ember_status *em_qlinearconcat_prepare__ref(const em_kinfo *ki, void **state,
                                            size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_qconcat_attrs q = {0};
    int64_t axis;
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 5, 2 + 3 * EM_QCONCAT_MAX, 1));
    if ((ki->n_in - 2) % 3 != 0) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "inputs must be Y_scale, Y_zero_point and triples (X, scale, zero "
                            "point)");
    }
    q.n_x = (ki->n_in - 2) / 3;
    EMBER_TRY(em_q_operand_8bit(ki, 2, "input 2", &q.t));
    EMBER_TRY(em_q_tensor_params(ki, 0, 1, q.t->dt, "Y", &q.y_zp));
    const em_tensor *x0 = &ki->in[2];
    EMBER_TRY(em_ref_attr_int(ki, "axis", 0, &axis));
    if (axis < -(int64_t)x0->rank || axis >= x0->rank) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "axis %lld is out of range for rank %d",
                            (long long)axis, x0->rank);
    }
    int ax = (int)(axis < 0 ? axis + x0->rank : axis);
    int64_t y_dims[EM_MAX_RANK];
    memcpy(y_dims, x0->dims, sizeof(int64_t) * (size_t)x0->rank);
    y_dims[ax] = 0;
    for (int k = 0; k < q.n_x; k++) {
        const em_qtype *t;
        char what[32];
        snprintf(what, sizeof what, "input %d", 2 + 3 * k);
        EMBER_TRY(em_q_operand_8bit(ki, 2 + 3 * k, what, &t));
        const em_tensor *x = &ki->in[2 + 3 * k];
        bool same = t == q.t && x->rank == x0->rank;
        for (int d = 0; same && d < x->rank; d++) {
            same = d == ax || x->dims[d] == x0->dims[d];
        }
        if (!same) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "%s differs from input 2 in dtype, rank or a dim other than axis",
                                what);
        }
        EMBER_TRY(em_q_tensor_params(ki, 3 + 3 * k, 4 + 3 * k, q.t->dt, what, &q.x_zp[k]));
        y_dims[ax] += x->dims[ax];
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], q.t->dt, "output 0 (Y)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], y_dims, x0->rank, "output 0 (Y)"));
    q.outer = em_ref_prod(x0->dims, ax);
    q.inner = em_ref_prod(x0->dims + ax + 1, x0->rank - ax - 1);
    q.y_axis = y_dims[ax];
    return em_ref_state_new(ki, &q, sizeof q, state);
fail:
    return st;
}

void em_qlinearconcat__ref(const void *state, const em_tensor *in, em_tensor *out,
                           const em_kctx *ctx)
{
    (void)ctx;
    const em_qconcat_attrs *q = state;
    const double ys = em_q_param_at(in, 0, true, 0, 1.0), yz = em_q_param_at(in, 1, q->y_zp, 0, 0);
    int64_t at = 0; /* the input's first row along axis within y */
    for (int k = 0; k < q->n_x; k++) {
        const em_tensor *x = &in[2 + 3 * k];
        const double xs = em_q_param_at(in, 3 + 3 * k, true, 0, 1.0);
        const double xz = em_q_param_at(in, 4 + 3 * k, q->x_zp[k], 0, 0.0);
        const int64_t ax = q->outer > 0 && q->inner > 0 ? em_ref_prod(x->dims, x->rank) /
                                                              (q->outer * q->inner)
                                                        : 0;
        const int64_t block = ax * q->inner;
        for (int64_t o = 0; o < q->outer; o++) {
            int64_t y0 = (o * q->y_axis + at) * q->inner;
            for (int64_t i = 0; i < block; i++) {
                double v = ((double)em_q_int(q->t, x->data, o * block + i) - xz) * xs;
                em_q_quantize(q->t, out[0].data, y0 + i, v / ys, yz, true);
            }
        }
        at += ax;
    }
}
