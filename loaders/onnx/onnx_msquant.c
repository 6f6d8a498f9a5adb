/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ONNX Runtime's com.microsoft quantization ops (ContribOperators.md, version 1) that are
 * expanded at load into default-domain nodes ember runs (the int8 rewrite, passes_qdq.c, and
 * the MatMulInteger kernels then take them like any exporter's form):
 *
 *   DynamicQuantizeMatMul(A, B, b_scale, b_zero_point?, bias?)      A float, B 8-bit
 *     q, s, z = DynamicQuantizeLinear(A)
 *     Y       = Cast(MatMulInteger(q, B, z, b_zero_point), float) * (s * b_scale) [+ bias]
 *   MatMulIntegerToFloat(A, B, a_scale, b_scale, a_zero_point?, b_zero_point?, bias?)
 *     Y       = Cast(MatMulInteger(A, B, a_zero_point, b_zero_point), float)
 *               * (a_scale * b_scale) [+ bias]
 *
 * which is ONNX Runtime's arithmetic (the exact int32 product, then one float multiply by the
 * float product of the scales, then the bias): tests/data/qdq/ms_*.onnx hold cases whose
 * outputs tools/gen_msquant_fixtures.py computes in numpy and checks against ONNX Runtime where
 * its kernels are exact. b_scale / b_zero_point are scalars or per-column [N]; a_scale must be
 * a scalar (checked where its shape is known). com.microsoft QuantizeLinear and
 * DequantizeLinear are the default domain's ops (same inputs, `axis` attribute) and need no
 * expansion: onnx_load.c maps them by name.
 */
#include "onnx_internal.h"

#include "core/status.h"

#include <stdbool.h>
#include <string.h>

typedef struct msq {
    onnx_ctx *c;
    onnx_scope *sc;
    const onnx_pending *p;
} msq;

static int input(const msq *m, int i) { return i < m->p->n_in ? m->p->in[i] : -1; }

static ember_dtype dtype_of(const msq *m, int v)
{
    return v >= 0 ? m->sc->g->values[v].dtype : EMBER_DTYPE_UNDEFINED;
}

/* INVALID_MODEL naming the node when input `i` (a known dtype) is not one of a / b. */
static ember_status *want_dtype(const msq *m, int i, const char *what, ember_dtype a, ember_dtype b)
{
    ember_dtype dt = dtype_of(m, input(m, i));
    if (dt == EMBER_DTYPE_UNDEFINED || dt == a || dt == b) {
        return NULL;
    }
    return em_onnx_err(m->c, EMBER_ERR_INVALID_MODEL, "node '%s' (%s): input %d (%s) is %s",
                       m->p->name, m->p->np->op_type, i, what, em_dtype_name(dt));
}

static ember_status *want_8bit(const msq *m, int i, const char *what)
{
    return want_dtype(m, i, what, EMBER_DTYPE_I8, EMBER_DTYPE_U8);
}

static ember_status *want_f32(const msq *m, int i, const char *what)
{
    return want_dtype(m, i, what, EMBER_DTYPE_F32, EMBER_DTYPE_F32);
}

/* A zero point must have the dtype of the tensor it belongs to. */
static ember_status *want_same(const msq *m, int zp, int of, const char *what)
{
    ember_dtype a = dtype_of(m, input(m, zp)), b = dtype_of(m, input(m, of));
    if (a == EMBER_DTYPE_UNDEFINED || b == EMBER_DTYPE_UNDEFINED || a == b) {
        return NULL;
    }
    return em_onnx_err(m->c, EMBER_ERR_INVALID_MODEL,
                       "node '%s' (%s): %s is %s, its tensor %s", m->p->name,
                       m->p->np->op_type, what, em_dtype_name(a), em_dtype_name(b));
}

/* UNSUPPORTED naming the node when input `i` is known to hold more than one
 * element (unknown ranks and dims pass: the kernels' broadcast checks decide at run time). */
static ember_status *want_scalar(const msq *m, int i, const char *what)
{
    int v = input(m, i);
    const em_value *val = v >= 0 ? &m->sc->g->values[v] : NULL;
    if (val == NULL || val->rank < 0) {
        return NULL;
    }
    for (int d = 0; d < val->rank; d++) {
        if (val->dims[d].v > 1) {
            return em_onnx_err(m->c, EMBER_ERR_UNSUPPORTED,
                               "node '%s' (%s): %s must be a scalar (per-tensor)", m->p->name,
                               m->p->np->op_type, what);
        }
    }
    return NULL;
}

static ember_status *add(const msq *m, const char *op, const int *in, int n, bool y, int *node,
                         int *out)
{
    return em_onnx_add_node(m->c, m->sc, op, m->p->name, in, n, y ? m->p->np->output[0] : NULL,
                            node, out);
}

/* Y = Cast(acc, float) * (sa * sb) [+ bias], written to the node's output. */
static ember_status *to_float(const msq *m, int acc, int sa, int sb, int bias)
{
    int node, f, s, y;
    ember_status *st = NULL;
    EMBER_TRY(add(m, "Cast", &acc, 1, false, &node, &f));
    EMBER_TRY(em_node_set_int(m->sc->g, node, "to", EMBER_DTYPE_F32));
    EMBER_TRY(add(m, "Mul", (const int[]){sa, sb}, 2, false, &node, &s));
    EMBER_TRY(add(m, "Mul", (const int[]){f, s}, 2, bias < 0, &node, &y));
    if (bias >= 0) {
        EMBER_TRY(add(m, "Add", (const int[]){y, bias}, 2, true, &node, &y));
    }
fail:
    return st;
}

static ember_status *dynamic_quantize_matmul(const msq *m)
{
    ember_status *st = NULL;
    int node, q[3], acc;
    if (m->p->n_in < 3 || input(m, 0) < 0 || input(m, 1) < 0 || input(m, 2) < 0) {
        return em_onnx_err(m->c, EMBER_ERR_INVALID_MODEL,
                           "node '%s' (DynamicQuantizeMatMul): needs inputs A, B and b_scale",
                           m->p->name);
    }
    EMBER_TRY(want_f32(m, 0, "A"));
    EMBER_TRY(want_8bit(m, 1, "B"));
    EMBER_TRY(want_f32(m, 2, "b_scale"));
    EMBER_TRY(want_same(m, 3, 1, "b_zero_point"));
    EMBER_TRY(want_f32(m, 4, "bias"));
    EMBER_TRY(em_onnx_add_node_n(m->c, m->sc, "DynamicQuantizeLinear", m->p->name,
                                 (const int[]){input(m, 0)}, 1, 3, NULL, &node, q));
    EMBER_TRY(add(m, "MatMulInteger", (const int[]){q[0], input(m, 1), q[2], input(m, 3)},
                  input(m, 3) >= 0 ? 4 : 3, false, &node, &acc));
    EMBER_TRY(to_float(m, acc, q[1], input(m, 2), input(m, 4)));
fail:
    return st;
}

static ember_status *matmul_integer_to_float(const msq *m)
{
    ember_status *st = NULL;
    int node, acc;
    if (m->p->n_in < 4 || input(m, 0) < 0 || input(m, 1) < 0 || input(m, 2) < 0 ||
        input(m, 3) < 0) {
        return em_onnx_err(m->c, EMBER_ERR_INVALID_MODEL,
                           "node '%s' (MatMulIntegerToFloat): needs inputs A, B, a_scale and "
                           "b_scale",
                           m->p->name);
    }
    EMBER_TRY(want_8bit(m, 0, "A"));
    EMBER_TRY(want_8bit(m, 1, "B"));
    EMBER_TRY(want_f32(m, 2, "a_scale"));
    EMBER_TRY(want_f32(m, 3, "b_scale"));
    EMBER_TRY(want_same(m, 4, 0, "a_zero_point"));
    EMBER_TRY(want_same(m, 5, 1, "b_zero_point"));
    EMBER_TRY(want_f32(m, 6, "bias"));
    EMBER_TRY(want_scalar(m, 2, "a_scale"));
    int n = input(m, 5) >= 0 ? 4 : input(m, 4) >= 0 ? 3 : 2;
    EMBER_TRY(add(m, "MatMulInteger",
                  (const int[]){input(m, 0), input(m, 1), input(m, 4), input(m, 5)}, n, false,
                  &node, &acc));
    EMBER_TRY(to_float(m, acc, input(m, 2), input(m, 3), input(m, 6)));
fail:
    return st;
}

bool em_onnx_ms_expanded(const char *op)
{
    return strcmp(op, "DynamicQuantizeMatMul") == 0 || strcmp(op, "MatMulIntegerToFloat") == 0;
}

ember_status *em_onnx_ms_convert(onnx_ctx *c, onnx_scope *sc, onnx_pending *p)
{
    msq m = {.c = c, .sc = sc, .p = p};
    p->emitted = true;
    if (p->n_out < 1 || p->np->n_output != 1) {
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL, "node '%s' (%s): needs one output Y",
                           p->name, p->np->op_type);
    }
    return strcmp(p->np->op_type, "DynamicQuantizeMatMul") == 0 ? dynamic_quantize_matmul(&m)
                                                                 : matmul_integer_to_float(&m);
}
