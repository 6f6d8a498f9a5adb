/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Adaptive average pooling over spatial sizes known only at run time (ts_ops.h).
 *
 * PyTorch's adaptive_avg_pool averages, for output index i of a size-S axis pooled to o, the
 * input range [floor(i*S/o), ceil((i+1)*S/o)). ONNX has no such op, and AveragePool needs
 * its kernel at load time, so for a symbolic S the pooling is written as a product with an
 * averaging matrix built in the graph from S: M[i, j] = 1/(end_i - start_i) when
 * start_i <= j < end_i, else 0. Then a 1-D pool is X @ M^T and a 2-D pool M_h @ X @ M_w^T
 * (VGG's and AlexNet's pool to 7x7 / 6x6 in front of their classifiers).
 */
#include "ts_ops.h"

#include "core/status.h"

/* Emits a two-input node of `op` and returns its output. */
static ember_status *bin(ts_lower *L, const ts_call *c, em_op op, int a, int b, int *out)
{
    int in[2] = {a, b};
    return em_ts_emit(L, c, op, in, 2, out, 1, NULL);
}

static ember_status *cast(ts_lower *L, const ts_call *c, int v, ember_dtype dt, int *out)
{
    int node = -1;
    TS_TRY(em_ts_emit(L, c, EM_OP_CAST, &v, 1, out, 1, &node));
    TS_TRY(em_node_set_int(L->g, node, "to", dt));
    return em_ts_infer(L, c, node);
}

/* The [o, S] averaging matrix of axis `axis` of x, in dtype dt. */
static ember_status *avg_matrix(ts_lower *L, const ts_call *c, int x, int axis, int64_t o,
                                ember_dtype dt, int *out)
{
    int64_t idx[2][64];
    if (o > 64) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: output size %lld over an axis whose "
                      "size is not known at load time (at most 64)", c->op, (long long)o);
    }
    for (int64_t i = 0; i < o; i++) {
        idx[0][i] = i;     /* start_i = i*S / o (floor: all non-negative) */
        idx[1][i] = i + 1; /* end_i = ((i+1)*S + o-1) / o (ceil) */
    }
    int s = -1, i0 = -1, i1 = -1, oc = -1, om1 = -1, zero = -1, one = -1;
    TS_TRY(em_ts_dim_value(L, c, x, axis, &s));
    TS_TRY(em_ts_const(L, EMBER_DTYPE_I64, 2, (int64_t[]){o, 1}, idx[0], &i0));
    TS_TRY(em_ts_const(L, EMBER_DTYPE_I64, 2, (int64_t[]){o, 1}, idx[1], &i1));
    TS_TRY(em_ts_const_scalar(L, EMBER_DTYPE_I64, (double)o, &oc));
    TS_TRY(em_ts_const_scalar(L, EMBER_DTYPE_I64, (double)(o - 1), &om1));
    TS_TRY(em_ts_const_scalar(L, EMBER_DTYPE_I64, 0, &zero));
    TS_TRY(em_ts_const_scalar(L, EMBER_DTYPE_I64, 1, &one));
    int a = -1, start = -1, b = -1, b2 = -1, end = -1, j = -1;
    TS_TRY(bin(L, c, EM_OP_MUL, i0, s, &a));
    TS_TRY(bin(L, c, EM_OP_DIV, a, oc, &start));
    TS_TRY(bin(L, c, EM_OP_MUL, i1, s, &b));
    TS_TRY(bin(L, c, EM_OP_ADD, b, om1, &b2));
    TS_TRY(bin(L, c, EM_OP_DIV, b2, oc, &end));
    int rin[3] = {zero, s, one};
    TS_TRY(em_ts_emit(L, c, EM_OP_RANGE, rin, 3, &j, 1, NULL)); /* [S] */
    int ge = -1, lt = -1, mask = -1, maskf = -1, cnt = -1, cntf = -1;
    TS_TRY(bin(L, c, EM_OP_GREATEROREQUAL, j, start, &ge)); /* [o, S] */
    TS_TRY(bin(L, c, EM_OP_LESS, j, end, &lt));
    TS_TRY(bin(L, c, EM_OP_AND, ge, lt, &mask));
    TS_TRY(cast(L, c, mask, dt, &maskf));
    TS_TRY(bin(L, c, EM_OP_SUB, end, start, &cnt)); /* [o, 1] */
    TS_TRY(cast(L, c, cnt, dt, &cntf));
    return bin(L, c, EM_OP_DIV, maskf, cntf, out);
}

ember_status *em_ts_adaptive_avg_pool_dynamic(ts_lower *L, const ts_call *c, int x, int rank,
                                           const int64_t *os, ts_av **out)
{
    ember_dtype dt = em_ts_val(L, x)->dtype;
    if (rank != 3 && rank != 4) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s over a rank-%d input whose spatial "
                      "sizes are not known at load time (1-D and 2-D pools are supported)",
                      c->op, rank);
    }
    int mw = -1, mwt = -1, node = -1, y = -1;
    TS_TRY(avg_matrix(L, c, x, rank - 1, os[rank - 3], dt, &mw));
    TS_TRY(em_ts_emit(L, c, EM_OP_TRANSPOSE, &mw, 1, &mwt, 1, &node));
    TS_TRY(em_node_set_ints(L->g, node, "perm", (int64_t[]){1, 0}, 2));
    TS_TRY(em_ts_infer(L, c, node));
    TS_TRY(bin(L, c, EM_OP_MATMUL, x, mwt, &y)); /* [..., S_h, o_w] */
    if (rank == 4) {
        int mh = -1, z = -1;
        TS_TRY(avg_matrix(L, c, x, 2, os[0], dt, &mh));
        TS_TRY(bin(L, c, EM_OP_MATMUL, mh, y, &z)); /* [o_h, S_h] @ [N, C, S_h, o_w] */
        y = z;
    }
    return em_ts_ret_tensor(L, y, out);
}
