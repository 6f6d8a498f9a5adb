/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lowering of TorchScript operators (ts_ops.h): the recurrent layers aten::lstm / gru /
 * rnn_tanh / rnn_relu and their cells, onto ember's ONNX LSTM / GRU / RNN ops.
 *
 * torch hands a layer its parameters as one flat list, per layer and direction
 * (w_ih [G*H, I], w_hh [G*H, H], b_ih [G*H], b_hh [G*H]), with the gates in its own order:
 * LSTM i f g o, GRU r z n. ONNX wants W [D, G*H, I], R [D, G*H, H], B [D, 2*G*H] with LSTM's
 * gates i o f c and GRU's z r h. The parameters are the module's weights, initializers whose
 * bytes are known at load time, so W, R and B are packed here as new constants (the gate
 * blocks moved, bytes copied whatever the dtype). torch's GRU applies the reset gate after the
 * recurrent product: ONNX's linear_before_reset=1. A layer stack is one node per layer; a
 * node's Y [S, D, B, H] becomes the next layer's input [S, B, D*H], the last one the output.
 * h_n / c_n are the layers' Y_h / Y_c concatenated ([layers*D, B, H], torch's layout even
 * when batch_first, which only transposes the input and output). A cell is a one-step node.
 * Arguments arrive in schema order; rnn_tanh/rnn_relu and the cells may have no schema in
 * ts_schemas.inc, and then come as the code gives them (the same positions).
 */
#include "ts_ops.h"

#include "core/alloc.h"
#include "core/status.h"

#include <string.h>

/* A recurrent op: its ONNX node, gate count, gate order (ONNX gate j is torch gate
 * perm[j]) and activation (RNN only; NULL for ONNX's defaults). */
typedef struct rnn_kind {
    em_op op;
    int gates;
    int perm[4];
    const char *act;
} rnn_kind;

static const rnn_kind k_lstm = {EM_OP_LSTM, 4, {0, 3, 1, 2}, NULL};
static const rnn_kind k_gru = {EM_OP_GRU, 3, {1, 0, 2, 0}, NULL};
static const rnn_kind k_tanh = {EM_OP_RNN, 1, {0, 0, 0, 0}, NULL};
static const rnn_kind k_relu = {EM_OP_RNN, 1, {0, 0, 0, 0}, "Relu"};

static const rnn_kind *kind_of(const char *op)
{
    return strstr(op, "lstm") != NULL  ? &k_lstm
           : strstr(op, "gru") != NULL ? &k_gru
           : strstr(op, "relu") != NULL ? &k_relu
                                        : &k_tanh;
}

/* ---- graph helpers ---- */

/* Transpose of x by perm. */
static ember_status *transpose(ts_lower *L, const ts_call *c, int x, const int64_t *perm, int n,
                               int *out)
{
    int node = -1;
    TS_TRY(em_ts_emit(L, c, EM_OP_TRANSPOSE, &x, 1, out, 1, &node));
    TS_TRY(em_node_set_ints(L->g, node, "perm", perm, n));
    return em_ts_infer(L, c, node);
}

/* Unsqueeze or Squeeze (op) of x at constant axes. */
static ember_status *axes_op(ts_lower *L, const ts_call *c, em_op op, int x, const int64_t *axes,
                             int n, int *out)
{
    int in[2] = {x, -1};
    TS_TRY(em_ts_const_i64s(L, axes, n, &in[1]));
    return em_ts_emit(L, c, op, in, 2, out, 1, NULL);
}

/* x[lo:hi] along axis 0. */
static ember_status *slice0(ts_lower *L, const ts_call *c, int x, int64_t lo, int64_t hi,
                            int *out)
{
    int in[4] = {x, -1, -1, -1};
    int64_t zero = 0;
    TS_TRY(em_ts_const_i64s(L, &lo, 1, &in[1]));
    TS_TRY(em_ts_const_i64s(L, &hi, 1, &in[2]));
    TS_TRY(em_ts_const_i64s(L, &zero, 1, &in[3]));
    return em_ts_emit(L, c, EM_OP_SLICE, in, 4, out, 1, NULL);
}

static ember_status *concat0(ts_lower *L, const ts_call *c, const int *v, int n, int *out)
{
    if (n == 1) {
        *out = v[0];
        return NULL;
    }
    int node = -1;
    TS_TRY(em_ts_emit(L, c, EM_OP_CONCAT, v, n, out, 1, &node));
    TS_TRY(em_node_set_int(L->g, node, "axis", 0));
    return em_ts_infer(L, c, node);
}

/* ---- weights ---- */

/* The initializer behind parameter `a`, checked against dtype dt (UNDEFINED: any) and dims
 * (-1: any). */
static ember_status *param(ts_lower *L, const ts_call *c, const ts_av *a, ember_dtype dt,
                           int rank, const int64_t *dims, const em_value **out)
{
    if (a->k != TA_TENSOR) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: a weight is %s, expected a "
                      "tensor", c->op, em_ts_kind_name(a->k));
    }
    const em_value *v = &a->u.t.g->values[a->u.t.v];
    if (v->kind != EM_VAL_INITIALIZER || v->init.data == NULL) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: weight '%s' is computed by the "
                      "model; ember packs recurrent weights at load time and needs them to be "
                      "the module's parameters", c->op, v->name);
    }
    bool ok = v->rank == rank && (dt == EMBER_DTYPE_UNDEFINED || v->dtype == dt);
    for (int d = 0; ok && d < rank; d++) {
        ok = dims[d] < 0 || v->dims[d].v == dims[d];
    }
    if (!ok) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: weight '%s' has the wrong dtype "
                      "or shape for this layer", c->op, v->name);
    }
    *out = v;
    return NULL;
}

/* Copies the G gate blocks of `src` (torch's order) into `dst` (ONNX's order); a block is
 * `block` bytes. A NULL src gives zeros (a cell's missing bias). */
static void pack_gates(unsigned char *dst, const em_value *src, const rnn_kind *k, size_t block)
{
    for (int j = 0; j < k->gates; j++) {
        if (src == NULL) {
            memset(dst + (size_t)j * block, 0, block);
        } else {
            memcpy(dst + (size_t)j * block,
                   (const unsigned char *)src->init.data + (size_t)k->perm[j] * block, block);
        }
    }
}

/* The parameters of one layer, per direction d: p[d * stride + {0: w_ih, 1: w_hh, 2: b_ih,
 * 3: b_hh}] (biases NULL or TA_NONE when absent). */
typedef struct rnn_params {
    ts_av *const *p;
    int stride, dirs;
    bool bias;
    int dyn_qmax; /* dynamically quantized cells: 127 or 255 (reduce_range or not); else 0 */
} rnn_params;

static const ts_av *bias_of(const rnn_params *rp, int d, int i)
{
    const ts_av *b = rp->bias ? rp->p[d * rp->stride + i] : NULL;
    return b != NULL && b->k != TA_NONE ? b : NULL;
}

/* W, R and B (or -1 without biases) of a layer as constants; *hidden gets H. */
static ember_status *pack_layer(ts_lower *L, const ts_call *c, const rnn_kind *k,
                                const rnn_params *rp, int wrb[3], int64_t *hidden)
{
    const em_value *w0 = NULL;
    int64_t any2[2] = {-1, -1};
    TS_TRY(param(L, c, rp->p[0], EMBER_DTYPE_UNDEFINED, 2, any2, &w0));
    int64_t gh = w0->dims[0].v, in = w0->dims[1].v, h = gh / k->gates, D = rp->dirs;
    ember_dtype dt = w0->dtype;
    size_t es = em_dtype_size(dt);
    if (gh <= 0 || gh % k->gates != 0 || in < 0) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: w_ih has %lld rows, not a "
                      "multiple of %d gates", c->op, (long long)gh, k->gates);
    }
    bool bias = false;
    for (int d = 0; d < D; d++) {
        bias = bias || bias_of(rp, d, 2) != NULL || bias_of(rp, d, 3) != NULL;
    }
    size_t wsz = (size_t)(gh * in) * es, rsz = (size_t)(gh * h) * es, bsz = (size_t)gh * es;
    unsigned char *buf = em_malloc(L->al, (size_t)D * (wsz + rsz + 2 * bsz) + 1);
    if (buf == NULL) {
        return em_status_oom();
    }
    unsigned char *W = buf, *R = W + D * wsz, *B = R + D * rsz;
    ember_status *st = NULL;
    for (int d = 0; d < D && st == NULL; d++) {
        const em_value *wi = NULL, *wh = NULL, *bi = NULL, *bh = NULL;
        const ts_av *abi = bias_of(rp, d, 2), *abh = bias_of(rp, d, 3);
        st = param(L, c, rp->p[d * rp->stride], dt, 2, (int64_t[]){gh, in}, &wi);
        if (st == NULL) {
            st = param(L, c, rp->p[d * rp->stride + 1], dt, 2, (int64_t[]){gh, h}, &wh);
        }
        if (st == NULL && abi != NULL) {
            st = param(L, c, abi, dt, 1, &gh, &bi);
        }
        if (st == NULL && abh != NULL) {
            st = param(L, c, abh, dt, 1, &gh, &bh);
        }
        if (st == NULL) {
            pack_gates(W + d * wsz, wi, k, (size_t)(h * in) * es);
            pack_gates(R + d * rsz, wh, k, (size_t)(h * h) * es);
            pack_gates(B + 2 * d * bsz, bi, k, (size_t)h * es);
            pack_gates(B + (2 * d + 1) * bsz, bh, k, (size_t)h * es);
        }
    }
    wrb[2] = -1;
    if (st == NULL) {
        st = em_ts_const(L, dt, 3, (int64_t[]){D, gh, in}, W, &wrb[0]);
    }
    if (st == NULL) {
        st = em_ts_const(L, dt, 3, (int64_t[]){D, gh, h}, R, &wrb[1]);
    }
    if (st == NULL && bias) {
        st = em_ts_const(L, dt, 2, (int64_t[]){D, 2 * gh}, B, &wrb[2]);
    }
    em_free(L->al, buf);
    *hidden = h;
    return st;
}

/* ---- nodes ---- */

/* Sets the RNN op's activation list (one name per direction). */
static ember_status *set_activations(ts_lower *L, int node, const char *act, int dirs)
{
    em_attr *at = NULL;
    TS_TRY(em_node_add_attr(L->g, node, "activations", EM_ATTR_STRINGS, &at));
    at->strings = em_malloc(L->g->al, (size_t)dirs * sizeof(char *));
    if (at->strings == NULL) {
        return em_status_oom();
    }
    for (int d = 0; d < dirs; d++) {
        at->strings[d] = em_strdup(L->g->al, act);
        if (at->strings[d] == NULL) {
            return em_status_oom();
        }
        at->n = d + 1;
    }
    return NULL;
}

/* One LSTM / GRU / RNN node on x [S, B, I] from states h0, c0 ([D, B, H]; c0 -1 unless LSTM):
 * out[] gets Y [S, D, B, H], Y_h (and LSTM's Y_c). */
static ember_status *rnn_node(ts_lower *L, const ts_call *c, const rnn_kind *k,
                              const rnn_params *rp, int x, int h0, int c0, int *out)
{
    int wrb[3] = {-1, -1, -1}, node = -1;
    int64_t hidden = 0;
    TS_TRY(pack_layer(L, c, k, rp, wrb, &hidden));
    if (rp->dyn_qmax != 0) { /* torch quantizes the layer's whole input once per call */
        TS_TRY(em_ts_dynamic_fake_quant(L, c, x, rp->dyn_qmax, &x));
    }
    int in[7] = {x, wrb[0], wrb[1], wrb[2], -1, h0, c0};
    int n_out = k->op == EM_OP_LSTM ? 3 : 2;
    TS_TRY(em_ts_emit(L, c, k->op, in, k->op == EM_OP_LSTM ? 7 : 6, out, n_out, &node));
    TS_TRY(em_node_set_int(L->g, node, "hidden_size", hidden));
    if (rp->dyn_qmax != 0) { /* and h before every step's recurrent Linear */
        TS_TRY(em_node_set_int(L->g, node, "em_dynamic_qmax", rp->dyn_qmax));
    }
    TS_TRY(em_node_set_string(L->g, node, "direction", rp->dirs == 2 ? "bidirectional"
                                                                        : "forward"));
    if (k->op == EM_OP_GRU) {
        TS_TRY(em_node_set_int(L->g, node, "linear_before_reset", 1));
    }
    if (k->act != NULL) {
        TS_TRY(set_activations(L, node, k->act, rp->dirs));
    }
    return em_ts_infer(L, c, node);
}

static ember_status *ret_tuple(ts_lower *L, const int *v, int n, ts_av **out)
{
    *out = em_ts_seq(L, TA_TUPLE, (size_t)n);
    if (*out == NULL) {
        return em_status_oom();
    }
    for (int i = 0; i < n; i++) {
        TS_TRY(em_ts_ret_tensor(L, v[i], &(*out)->u.seq.items[i]));
    }
    return NULL;
}

/* A tensor argument of rank `rank`. */
static ember_status *tensor_rank(ts_lower *L, const ts_call *c, const ts_av *a, int rank,
                                 const char *what, int *v)
{
    int r = 0;
    TS_TRY(em_ts_as_tensor(L, c, a, EMBER_DTYPE_UNDEFINED, v));
    TS_TRY(em_ts_rank(L, c, *v, &r));
    if (r != rank) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: %s has rank %d, expected %d",
                      c->op, what, r, rank);
    }
    return NULL;
}

/* The input (argument 0) and the initial state (argument 1: [h, c] for an LSTM, else h), all
 * of rank `rank`; *c0 is left alone unless LSTM. */
static ember_status *input_and_state(ts_lower *L, const ts_call *c, bool lstm, int rank, int *x,
                                     int *h0, int *c0)
{
    const ts_av *hx = c->a[1];
    TS_TRY(tensor_rank(L, c, c->a[0], rank, "the input", x));
    if (!lstm) {
        return tensor_rank(L, c, hx, rank, "hx", h0);
    }
    if ((hx->k != TA_LIST && hx->k != TA_TUPLE) || hx->u.seq.n != 2) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: hx must be [h, c]", c->op);
    }
    TS_TRY(tensor_rank(L, c, hx->u.seq.items[0], rank, "h", h0));
    return tensor_rank(L, c, hx->u.seq.items[1], rank, "c", c0);
}

/* ---- layers ---- */

/* Whether the call is the packed-sequence overload (data, batch_sizes, hx, params, ...): by
 * its overload name, or without a schema by where the parameter list sits. */
static bool packed_call(const ts_call *c, bool lstm)
{
    if (c->overload[0] != '\0') {
        return strcmp(c->overload, "data") == 0;
    }
    size_t i = lstm ? 1 : 2;
    return c->n > i && c->a[i]->k == TA_TENSOR;
}

/* lstm(input, hx[2], params, has_biases, num_layers, dropout, train, bidirectional,
 *      batch_first); gru / rnn_tanh / rnn_relu(input, hx, params, ...the same). dyn_qmax:
 *      rnn_params's. */
static ember_status *lower_rnn_q(ts_lower *L, const ts_call *c, int dyn_qmax, ts_av **out)
{
    const rnn_kind *k = kind_of(c->op);
    bool lstm = k->op == EM_OP_LSTM, has_bias = false, train = false, bidir = false, bf = false;
    int64_t layers = 0;
    double dropout = 0;
    if (packed_call(c, lstm)) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s on a PackedSequence "
                      "(pack_padded_sequence) is not supported: pass the padded tensor",
                      c->op);
    }
    if (c->n < 9) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: %zu arguments, expected 9",
                      c->op, c->n);
    }
    TS_TRY(em_ts_arg_bool(L, c, 3, &has_bias));
    TS_TRY(em_ts_arg_int(L, c, 4, &layers));
    TS_TRY(em_ts_arg_float(L, c, 5, &dropout));
    TS_TRY(em_ts_arg_bool(L, c, 6, &train));
    TS_TRY(em_ts_arg_bool(L, c, 7, &bidir));
    TS_TRY(em_ts_arg_bool(L, c, 8, &bf));
    const ts_av *pl = c->a[2];
    int dirs = bidir ? 2 : 1, stride = has_bias ? 4 : 2;
    if (train && dropout > 0 && layers > 1) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s in training mode with dropout: "
                      "save the model after model.eval()", c->op);
    }
    if ((pl->k != TA_LIST && pl->k != TA_TUPLE) || layers < 1 || layers > 1024) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: expected a list of parameters "
                      "and 1..1024 layers", c->op);
    }
    size_t n_p = pl->u.seq.n, per = (size_t)(layers * dirs);
    if (lstm && n_p == per * (size_t)(stride + 1)) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s with proj_size (projected hidden "
                      "state) is not supported", c->op);
    }
    if (n_p != per * (size_t)stride) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: %zu parameters for %lld layers, "
                      "expected %zu", c->op, n_p, (long long)layers, per * (size_t)stride);
    }
    int x = -1, h0 = -1, c0 = -1;
    TS_TRY(input_and_state(L, c, lstm, 3, &x, &h0, &c0));
    int *hs = em_ts_arena_alloc(&L->arena, 2 * (size_t)layers * sizeof(int)), *cs = NULL;
    if (hs == NULL) {
        return em_status_oom();
    }
    cs = hs + layers;
    if (bf) { /* [B, S, I] -> [S, B, I] */
        TS_TRY(transpose(L, c, x, (int64_t[]){1, 0, 2}, 3, &x));
    }
    for (int64_t l = 0; l < layers; l++) {
        rnn_params rp = {pl->u.seq.items + l * dirs * stride, stride, dirs, has_bias, dyn_qmax};
        int hl = h0, cl = c0, o[3] = {-1, -1, -1};
        if (layers > 1) {
            TS_TRY(slice0(L, c, h0, l * dirs, (l + 1) * dirs, &hl));
            if (lstm) {
                TS_TRY(slice0(L, c, c0, l * dirs, (l + 1) * dirs, &cl));
            }
        }
        TS_TRY(rnn_node(L, c, k, &rp, x, hl, cl, o));
        hs[l] = o[1];
        cs[l] = o[2];
        if (dirs == 1) { /* Y [S, 1, B, H] -> [S, B, H] */
            TS_TRY(axes_op(L, c, EM_OP_SQUEEZE, o[0], (int64_t[]){1}, 1, &x));
        } else { /* [S, 2, B, H] -> [S, B, 2, H] -> [S, B, 2H] (forward then backward) */
            int t = -1, shape = -1;
            TS_TRY(transpose(L, c, o[0], (int64_t[]){0, 2, 1, 3}, 4, &t));
            TS_TRY(em_ts_const_i64s(L, (int64_t[]){0, 0, -1}, 3, &shape));
            int in[2] = {t, shape};
            TS_TRY(em_ts_emit(L, c, EM_OP_RESHAPE, in, 2, &x, 1, NULL));
        }
    }
    if (bf) {
        TS_TRY(transpose(L, c, x, (int64_t[]){1, 0, 2}, 3, &x));
    }
    int res[3] = {x, -1, -1};
    TS_TRY(concat0(L, c, hs, (int)layers, &res[1]));
    if (lstm) {
        TS_TRY(concat0(L, c, cs, (int)layers, &res[2]));
    }
    return ret_tuple(L, res, lstm ? 3 : 2, out);
}

static ember_status *lower_rnn(ts_lower *L, const ts_call *c, ts_av **out)
{
    return lower_rnn_q(L, c, 0, out);
}

/* ---- cells ---- */

/* lstm_cell(input, hx[2], w_ih, w_hh, b_ih=None, b_hh=None) -> (h, c); gru_cell /
 * rnn_tanh_cell / rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> h: a one-step
 * node on [1, B, I]. */
static ember_status *lower_cell(ts_lower *L, const ts_call *c, ts_av **out)
{
    const rnn_kind *k = kind_of(c->op);
    bool lstm = k->op == EM_OP_LSTM;
    if (c->n < 4) {
        return em_ts_err(L, EMBER_ERR_INVALID_MODEL, c->pos, "%s: %zu arguments, expected 4 to 6",
                      c->op, c->n);
    }
    ts_av *p[4] = {c->a[2], c->a[3], c->n > 4 ? c->a[4] : NULL, c->n > 5 ? c->a[5] : NULL};
    rnn_params rp = {p, 4, 1, true, 0};
    int x = -1, h = -1, cc = -1, o[3] = {-1, -1, -1};
    const int64_t zero = 0;
    TS_TRY(input_and_state(L, c, lstm, 2, &x, &h, &cc));
    if (lstm) {
        TS_TRY(axes_op(L, c, EM_OP_UNSQUEEZE, cc, &zero, 1, &cc));
    }
    TS_TRY(axes_op(L, c, EM_OP_UNSQUEEZE, x, &zero, 1, &x));
    TS_TRY(axes_op(L, c, EM_OP_UNSQUEEZE, h, &zero, 1, &h));
    TS_TRY(rnn_node(L, c, k, &rp, x, h, cc, o));
    int res[2] = {-1, -1};
    TS_TRY(axes_op(L, c, EM_OP_SQUEEZE, o[1], &zero, 1, &res[0]));
    if (!lstm) {
        return em_ts_ret_tensor(L, res[0], out);
    }
    TS_TRY(axes_op(L, c, EM_OP_SQUEEZE, o[2], &zero, 1, &res[1]));
    return ret_tuple(L, res, 2, out);
}

/* ---- dynamically quantized layers ---- */

/* The number at element i of a constant of count n (1: every i) as a double. */
static bool qconst_at(const ts_av *t, int v, int64_t n, int64_t i, double *out)
{
    const em_value *val = &t->u.t.q->g->values[v];
    int64_t cnt = val->rank == 0 ? 1 : val->dims[0].v;
    if (val->kind != EM_VAL_INITIALIZER || val->init.data == NULL || val->rank > 1 ||
        (cnt != 1 && cnt != n)) {
        return false;
    }
    size_t es = em_dtype_size(val->dtype);
    return em_ts_number_at(val->dtype, (const unsigned char *)val->init.data +
                                           (cnt == 1 ? 0 : (size_t)i) * es, out);
}

/* A packed int8 weight [G*H, K] (per tensor or per output channel) dequantized at load time
 * into a new f32 constant of the root graph, as the fp32 layer's packing (param) wants it. */
static ember_status *dequantized_weight(ts_lower *L, const ts_call *c, const ts_av *w,
                                        ts_av **out)
{
    const em_value *v = w->k == TA_TENSOR ? &w->u.t.g->values[w->u.t.v] : NULL;
    const ts_qinfo *q = w->k == TA_TENSOR ? w->u.t.q : NULL;
    if (v == NULL || q == NULL || v->kind != EM_VAL_INITIALIZER || v->init.data == NULL ||
        v->rank != 2 || (v->dtype != EMBER_DTYPE_I8 && v->dtype != EMBER_DTYPE_U8) ||
        q->axis > 0) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: a cell's weight is not a constant "
                         "8-bit [gates*hidden, in] tensor quantized per tensor or per row",
                         c->op);
    }
    int64_t rows = v->dims[0].v, cols = v->dims[1].v, dims[2] = {rows, cols};
    float *f = em_ts_arena_alloc(&L->arena, sizeof *f * (size_t)(rows * cols + 1));
    if (f == NULL) {
        return em_status_oom();
    }
    for (int64_t r = 0; r < rows; r++) {
        double s = 0, z = 0;
        if (!qconst_at(w, q->scale, rows, r, &s) || !qconst_at(w, q->zero_point, rows, r, &z)) {
            return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: a cell's weight scales are "
                             "not constants", c->op);
        }
        for (int64_t k = 0; k < cols; k++) {
            double x = 0;
            em_ts_number_at(v->dtype, (const unsigned char *)v->init.data +
                                          (size_t)(r * cols + k) * em_dtype_size(v->dtype), &x);
            f[r * cols + k] = (float)((x - z) * (float)s);
        }
    }
    em_graph *g = L->g;
    int fv = -1;
    L->g = L->root;
    ember_status *st = em_ts_const(L, EMBER_DTYPE_F32, 2, dims, f, &fv);
    if (st == NULL) {
        st = em_ts_ret_tensor(L, fv, out);
    }
    L->g = g;
    return st;
}

/* quantized_lstm(input, hx, CellParamsBase[] params, has_biases, num_layers, dropout, train,
 * bidirectional, batch_first, *, dtype, use_dynamic) and quantized_gru (the same without the
 * keywords), with "quantized_dynamic" cells (ts_value.c: ((w_ih, b_ih), (w_hh, b_hh),
 * reduce_range)): the int8 weights dequantized at load, the layer run by the fp32 LSTM / GRU
 * with torch's quantization of each Linear's input: the layer's input once per call (a fake
 * quantization in the graph) and h at every step (the kernels' em_dynamic_qmax), to 0..127
 * with reduce_range, else 0..255. */
static ember_status *lower_quantized_rnn(ts_lower *L, const ts_call *c, ts_av **out)
{
    if (c->n < 9 || (c->a[2]->k != TA_LIST && c->a[2]->k != TA_TUPLE) || packed_call(c, false)) {
        return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: expected the padded-input form "
                         "with a list of cell params", c->op);
    }
    const ts_av *cells = c->a[2];
    size_t n = cells->u.seq.n;
    ts_av *flat = em_ts_seq(L, TA_LIST, 4 * n);
    ts_av **args = em_ts_arena_alloc(&L->arena, sizeof *args * 9);
    if (flat == NULL || args == NULL) {
        return em_status_oom();
    }
    bool bias = true;
    int qmax = 0;
    for (size_t i = 0; i < n; i++) {
        const ts_av *cell = cells->u.seq.items[i];
        if (cell->k != TA_TUPLE || cell->u.seq.n != 3 || cell->u.seq.items[2]->k != TA_INT) {
            return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: cell params %zu are not "
                             "quantized_dynamic ones", c->op, i);
        }
        int q = cell->u.seq.items[2]->u.i != 0 ? 127 : 255;
        if (qmax != 0 && q != qmax) {
            return em_ts_err(L, EMBER_ERR_UNSUPPORTED, c->pos, "%s: cells with and without "
                             "reduce_range", c->op);
        }
        qmax = q;
        for (int j = 0; j < 2; j++) {
            ts_av *const *pk = cell->u.seq.items[j]->u.seq.items;
            TS_TRY(dequantized_weight(L, c, pk[0], &flat->u.seq.items[4 * i + (size_t)j]));
            flat->u.seq.items[4 * i + 2 + (size_t)j] = pk[1];
            bias = bias && pk[1]->k == TA_TENSOR;
        }
    }
    memcpy(args, c->a, sizeof *args * 9);
    args[2] = flat;
    if ((args[3] = em_ts_bool(L, bias)) == NULL) {
        return em_status_oom();
    }
    if (!bias) { /* the fp32 layer takes (w_ih, w_hh) pairs without biases */
        for (size_t i = 0; i < n; i++) {
            flat->u.seq.items[2 * i] = flat->u.seq.items[4 * i];
            flat->u.seq.items[2 * i + 1] = flat->u.seq.items[4 * i + 1];
        }
        flat->u.seq.n = 2 * n;
    }
    ts_call fc = *c;
    fc.a = args;
    fc.n = 9;
    fc.op = kind_of(c->op)->op == EM_OP_LSTM ? "aten::lstm" : "aten::gru";
    return lower_rnn_q(L, &fc, qmax, out);
}

static const ts_op_entry rnn_ops[] = {
    {"aten::quantized_lstm", lower_quantized_rnn},
    {"aten::quantized_gru", lower_quantized_rnn},
    {"aten::lstm", lower_rnn},
    {"aten::gru", lower_rnn},
    {"aten::rnn_tanh", lower_rnn},
    {"aten::rnn_relu", lower_rnn},
    {"aten::lstm_cell", lower_cell},
    {"aten::gru_cell", lower_cell},
    {"aten::rnn_tanh_cell", lower_cell},
    {"aten::rnn_relu_cell", lower_cell},
};

const ts_op_table em_ts_rnn_table = {rnn_ops, sizeof rnn_ops / sizeof rnn_ops[0]};
