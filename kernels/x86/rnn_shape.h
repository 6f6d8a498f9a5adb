/* SPDX-License-Identifier: Apache-2.0 */
/*
 * RNN-22, GRU-22 and LSTM-22 in f32 for the x86 units (plain C, no intrinsics; each ISA unit
 * gets its own static copy): attribute parsing and the weights packed once in prepare. The
 * computation is in rnn_driver.inc. Shapes and semantics as in kernels/ref/rnn_*_ref.c.
 *
 * Accepted: every direction, both layouts, every activation except Softplus (with
 * activation_alpha / activation_beta consumed in order, as the reference does), clip,
 * linear_before_reset, input_forget, every optional input and output. W, R, B and P must be
 * constant (initializers); everything else (other dtypes, runtime weights, a malformed node)
 * is declined with EMBER_ERR_UNSUPPORTED so the planner falls back to the reference kernel,
 * which reports invalid nodes.
 *
 * Columns: each gate's H units are padded to hp (H rounded up to the vector length VL) so that
 * every gate starts on a vector; pad columns have zero weights and bias. Packed matrices
 * (B operands of rnn_driver.inc's GEMM) are [K][ncols] cut into super-panels of up to NV
 * vectors: super-panel s holds columns [s*NV*VL, s*NV*VL + w) as K rows of w floats at
 * offset s*NV*VL*K.
 */
#ifndef EMBER_KERNELS_X86_RNN_SHAPE_H
#define EMBER_KERNELS_X86_RNN_SHAPE_H

#include "core/alloc.h"
#include "plan/kernel.h"
#include "core/status.h"
#include "quantization/qmath.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef enum rx_act_kind {
    RX_RELU,
    RX_TANH,
    RX_SIGMOID,
    RX_AFFINE,
    RX_LEAKYRELU,
    RX_THRESHOLDEDRELU,
    RX_SCALEDTANH,
    RX_HARDSIGMOID,
    RX_ELU,
    RX_SOFTSIGN
} rx_act_kind;

typedef struct rx_act {
    rx_act_kind kind;
    float alpha, beta;
} rx_act;

/* Input and output slots (as in the ONNX operators). */
enum { RX_X = 0, RX_W, RX_R, RX_B, RX_LENS, RX_H0, RX_C0, RX_P };
enum { RX_Y = 0, RX_YH, RX_YC };

typedef struct rx_state {
    em_op op;
    int gates, dirs;
    bool reverse;
    int layout;
    int64_t seq, batch, input, hidden, hp, gcols; /* gcols = gates * hp */
    rx_act act[2][3];
    bool has_clip;
    float clip;
    bool lbr, input_forget;
    int dyn_qmax; /* em_dynamic_qmax: h fake-quantized before each recurrent product; 0: off */
    bool has_lens, has_h0, has_c0;
    bool has_out[3];
    /* Packed B operands: wt = W^T of every direction ([I][dirs * gcols]); rt[d][m]: R^T of
     * direction d, m = 0 the whole R (RNN, LSTM) or GRU's z and r gates, m = 1 GRU's h gate.
     * Packs that plans share (core/pack.h): they depend on the weights' dims, not on the
     * sequence or the batch. */
    const float *wt;
    const float *rt[2][2];
    em_pack *wt_pack, *rt_pack[2][2];
    int64_t rt_cols[2]; /* columns of rt[d][m] */
    float *bias;        /* [dirs][gcols]: Wb + Rb (GRU lbr: the h gate's Rb left out) */
    float *rbh;         /* [dirs][hp]: GRU lbr, the h gate's Rb */
    float *peep;        /* [dirs][3][hp]: LSTM P (i, o, f), zeros without P */
    float *zeros;       /* [gcols] */
    /* Scratch, in floats: xw [seq*batch][dirs*gcols] (input projection, rows in X's order),
     * gbuf [dirs][batch][gcols] (gate pre-activations of one step), h, c, tmp
     * [dirs][batch][hp]; h2 [hp] and two step counters (one 64-byte line each) for the
     * split recurrence. */
    size_t xw_off, g_off, h_off, c_off, tmp_off, h2_off, sync_off;
    int64_t proj_items, proj_rows; /* input projection work split */
    int slots;                     /* threads the run may use */
    /* LSTM, batch 1, one direction, on 2+ threads: each step's hidden units are split into
     * `split_parts` blocks of RX_NV vectors run on the pool (rnn_driver.inc); 0: not split. */
    int64_t split_parts;
} rx_state;

static inline ember_status *rx_decline(const em_kinfo *ki, const char *why)
{
    return em_status_new(EMBER_ERR_UNSUPPORTED, "%s '%s': %s", em_op_name(ki->node->op),
                         ki->node->name, why);
}

static inline bool rx_name_is(const char *a, const char *lower)
{
    for (; *a != '\0' && *lower != '\0'; a++, lower++) {
        char ca = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        if (ca != *lower) {
            return false;
        }
    }
    return *a == *lower;
}

/* Activations as the reference parses them (name, whether alpha / beta are used, defaults). */
static inline bool rx_parse_acts(const em_kinfo *ki, rx_state *s)
{
    static const struct {
        const char *name;
        rx_act_kind kind;
        bool ua, ub;
        float alpha, beta;
    } defs[] = {
        {"relu", RX_RELU, false, false, 0.0f, 0.0f},
        {"tanh", RX_TANH, false, false, 0.0f, 0.0f},
        {"sigmoid", RX_SIGMOID, false, false, 0.0f, 0.0f},
        {"affine", RX_AFFINE, true, true, 1.0f, 0.0f},
        {"leakyrelu", RX_LEAKYRELU, true, false, 0.01f, 0.0f},
        {"thresholdedrelu", RX_THRESHOLDEDRELU, true, false, 1.0f, 0.0f},
        {"scaledtanh", RX_SCALEDTANH, true, true, 1.0f, 1.0f},
        {"hardsigmoid", RX_HARDSIGMOID, true, true, 0.2f, 0.5f},
        {"elu", RX_ELU, true, false, 1.0f, 0.0f},
        {"softsign", RX_SOFTSIGN, false, false, 0.0f, 0.0f},
    };
    static const char *const dflt[3][3] = {
        {"tanh"}, {"sigmoid", "tanh"}, {"sigmoid", "tanh", "tanh"}};
    const int n_act = s->gates == 1 ? 1 : s->gates == 3 ? 2 : 3;
    const em_attr *names = em_node_attr(ki->node, "activations");
    const em_attr *al = em_node_attr(ki->node, "activation_alpha");
    const em_attr *be = em_node_attr(ki->node, "activation_beta");
    if ((names != NULL && (names->type != EM_ATTR_STRINGS ||
                           (names->n != n_act && names->n != n_act * s->dirs))) ||
        (al != NULL && al->type != EM_ATTR_FLOATS) || (be != NULL && be->type != EM_ATTR_FLOATS)) {
        return false;
    }
    int64_t ia = 0, ib = 0;
    for (int i = 0; i < n_act * s->dirs; i++) {
        const char *nm = names != NULL ? names->strings[i % names->n] : dflt[n_act - 1][i % n_act];
        size_t k = 0, nd = sizeof defs / sizeof defs[0];
        while (k < nd && !rx_name_is(nm, defs[k].name)) {
            k++;
        }
        if (k == nd) {
            return false; /* Softplus, or unknown: the reference decides */
        }
        rx_act *a = &s->act[i / n_act][i % n_act];
        a->kind = defs[k].kind;
        a->alpha = defs[k].ua && al != NULL && ia < al->n ? al->floats[ia++] : defs[k].alpha;
        a->beta = defs[k].ub && be != NULL && ib < be->n ? be->floats[ib++] : defs[k].beta;
    }
    return true;
}

static inline bool rx_dims_are(const em_tensor *t, const int64_t *d, int rank)
{
    if (t->dtype != EMBER_DTYPE_F32 || t->rank != rank) {
        return false;
    }
    for (int i = 0; i < rank; i++) {
        if (t->dims[i] != d[i]) {
            return false;
        }
    }
    return true;
}

/* A constant f32 tensor whose values are all +0 or -0. */
static inline bool rx_all_zero(const em_tensor *t)
{
    const float *p = t->data;
    if (p == NULL) {
        return false;
    }
    for (int64_t i = 0, n = em_tensor_numel(t); i < n; i++) {
        if (p[i] != 0.0f) {
            return false;
        }
    }
    return true;
}

static inline bool rx_given(const em_kinfo *ki, int slot)
{
    return slot < ki->n_in && ki->in[slot].dtype != EMBER_DTYPE_UNDEFINED;
}

/* Attributes, shapes and dtypes; false: decline. */
static inline bool rx_parse(const em_kinfo *ki, rx_state *s)
{
    const em_node *n = ki->node;
    const em_tensor *x = &ki->in[RX_X], *r = &ki->in[RX_R];
    s->op = n->op;
    s->gates = s->op == EM_OP_LSTM ? 4 : s->op == EM_OP_GRU ? 3 : 1;
    if (ki->n_in < 3 || ki->n_out < 1 || ki->n_out > (s->op == EM_OP_LSTM ? 3 : 2) ||
        x->dtype != EMBER_DTYPE_F32 || x->rank != 3 || r->dtype != EMBER_DTYPE_F32 ||
        r->rank != 3) {
        return false;
    }
    const char *dir = em_node_attr_string(n, "direction", "forward");
    if (strcmp(dir, "forward") != 0 && strcmp(dir, "reverse") != 0 &&
        strcmp(dir, "bidirectional") != 0) {
        return false;
    }
    s->dirs = strcmp(dir, "bidirectional") == 0 ? 2 : 1;
    s->reverse = strcmp(dir, "reverse") == 0;
    int64_t layout = em_node_attr_int(n, "layout", 0);
    if (layout != 0 && layout != 1) {
        return false;
    }
    s->layout = (int)layout;
    s->has_clip = em_node_attr(n, "clip") != NULL;
    s->clip = em_node_attr_float(n, "clip", 0.0f);
    s->lbr = s->op == EM_OP_GRU && em_node_attr_int(n, "linear_before_reset", 0) != 0;
    s->input_forget = s->op == EM_OP_LSTM && em_node_attr_int(n, "input_forget", 0) != 0;
    int64_t qmax = em_node_attr_int(n, "em_dynamic_qmax", 0);
    if ((qmax != 0 && qmax != 127 && qmax != 255) || (qmax != 0 && s->op == EM_OP_GRU && !s->lbr)) {
        return false;
    }
    s->dyn_qmax = (int)qmax;
    if ((s->has_clip && !(s->clip >= 0.0f)) || !rx_parse_acts(ki, s)) {
        return false;
    }
    s->seq = x->dims[s->layout == 0 ? 0 : 1];
    s->batch = x->dims[s->layout == 0 ? 1 : 0];
    s->input = x->dims[2];
    s->hidden = r->dims[2];
    if (em_node_attr_int(n, "hidden_size", s->hidden) != s->hidden || s->hidden <= 0 ||
        s->input <= 0 || s->seq < 0 || s->batch < 0) {
        return false;
    }
    const int64_t gh = s->gates * s->hidden, d = s->dirs;
    int64_t sd[3] = {s->layout == 0 ? d : s->batch, s->layout == 0 ? s->batch : d, s->hidden};
    if (!rx_dims_are(&ki->in[RX_W], (int64_t[]){d, gh, s->input}, 3) ||
        !rx_dims_are(r, (int64_t[]){d, gh, s->hidden}, 3) || ki->in[RX_W].data == NULL ||
        r->data == NULL) {
        return false;
    }
    if (rx_given(ki, RX_B) &&
        (!rx_dims_are(&ki->in[RX_B], (int64_t[]){d, 2 * gh}, 2) || ki->in[RX_B].data == NULL)) {
        return false;
    }
    s->has_lens = rx_given(ki, RX_LENS);
    if (s->has_lens) {
        const em_tensor *l = &ki->in[RX_LENS];
        if ((l->dtype != EMBER_DTYPE_I32 && l->dtype != EMBER_DTYPE_I64) || l->rank != 1 ||
            l->dims[0] != s->batch) {
            return false;
        }
    }
    s->has_h0 = rx_given(ki, RX_H0);
    s->has_c0 = s->op == EM_OP_LSTM && rx_given(ki, RX_C0);
    if ((s->has_h0 && !rx_dims_are(&ki->in[RX_H0], sd, 3)) ||
        (s->has_c0 && !rx_dims_are(&ki->in[RX_C0], sd, 3))) {
        return false;
    }
    /* A constant all-zero initial state (what exporters write for "none") is no state. */
    s->has_h0 = s->has_h0 && !rx_all_zero(&ki->in[RX_H0]);
    s->has_c0 = s->has_c0 && !rx_all_zero(&ki->in[RX_C0]);
    if (s->op == EM_OP_LSTM && rx_given(ki, RX_P) &&
        (!rx_dims_are(&ki->in[RX_P], (int64_t[]){d, 3 * s->hidden}, 2) ||
         ki->in[RX_P].data == NULL)) {
        return false;
    }
    if (s->op != EM_OP_LSTM && (rx_given(ki, RX_C0) || rx_given(ki, RX_P))) {
        return false;
    }
    int64_t yd[4] = {s->layout == 0 ? s->seq : s->batch, s->layout == 0 ? d : s->seq,
                     s->layout == 0 ? s->batch : d, s->hidden};
    for (int o = 0; o < ki->n_out; o++) {
        s->has_out[o] = ki->out[o].dtype != EMBER_DTYPE_UNDEFINED;
        if (s->has_out[o] && !rx_dims_are(&ki->out[o], o == 0 ? yd : sd, o == 0 ? 4 : 3)) {
            return false;
        }
    }
    return true;
}

/*
 * Packs columns of a transposed weight: the source is [rows][k] (W or R of every direction
 * stacked), destination column j = (dd * ng + gg) * hp + u (dd < nd directions from d0, gg <
 * ng gates from g0, u < hp) takes source row ((d0 + dd) * gates + g0 + gg) * hidden + u, or
 * zeros for u >= hidden. Layout of the destination as described at the top.
 */
static inline void rx_pack(const rx_state *s, const float *src, int64_t k, int d0, int nd, int g0,
                           int ng, int vl, int nv, float *dst)
{
    const int64_t ncols = (int64_t)nd * ng * s->hp, sp = (int64_t)vl * nv;
    for (int64_t c0 = 0; c0 < ncols; c0 += sp) {
        int64_t w = ncols - c0 < sp ? ncols - c0 : sp;
        float *blk = dst + c0 * k;
        for (int64_t j = 0; j < w; j++) {
            int64_t col = c0 + j, u = col % s->hp, q = col / s->hp;
            int64_t dd = q / ng, gg = q % ng;
            const float *row = u < s->hidden
                                   ? src + (((d0 + dd) * s->gates + g0 + gg) * s->hidden + u) * k
                                   : NULL;
            for (int64_t kk = 0; kk < k; kk++) {
                blk[kk * w + j] = row != NULL ? row[kk] : 0.0f;
            }
        }
    }
}

static inline void rx_free(const ember_allocator *al, void *state)
{
    rx_state *s = state;
    if (s == NULL) {
        return;
    }
    em_pack_release(s->wt_pack);
    for (int d = 0; d < 2; d++) {
        em_pack_release(s->rt_pack[d][0]);
        em_pack_release(s->rt_pack[d][1]);
    }
    em_aligned_free(al, s->bias);
    em_aligned_free(al, s->rbh);
    em_aligned_free(al, s->peep);
    em_aligned_free(al, s->zeros);
    em_free(al, s);
}

static inline float *rx_alloc(const em_kinfo *ki, int64_t n, bool *ok)
{
    size_t bytes;
    float *p = NULL;
    if (*ok && em_size_mul((size_t)(n > 0 ? n : 1), sizeof(float), &bytes)) {
        p = em_aligned_alloc(ki->al, bytes);
    }
    if (p != NULL) {
        memset(p, 0, bytes);
    }
    *ok = p != NULL;
    return p;
}

/* Everything rx_pack's output depends on besides the source's bytes. */
typedef struct rx_pack_key {
    int64_t k, d0, nd, g0, ng, vl, nv, hp, gates, hidden;
} rx_pack_key;

typedef struct rx_pack_job {
    const rx_state *s;
    const float *src;
    const rx_pack_key *key;
} rx_pack_job;

static inline ember_status *rx_pack_fill(void *ctx, void *dst)
{
    const rx_pack_job *j = ctx;
    const rx_pack_key *k = j->key;
    rx_pack(j->s, j->src, k->k, (int)k->d0, (int)k->nd, (int)k->g0, (int)k->ng, (int)k->vl,
            (int)k->nv, dst);
    return NULL;
}

/* rx_pack's output for these arguments (src is input `in`), from the pack cache: *pk holds
 * it. */
static inline ember_status *rx_packed(const em_kinfo *ki, int in, const rx_state *s,
                                      const float *src, int64_t k, int d0, int nd, int g0, int ng,
                                      int vl, int nv, em_pack **pk)
{
    rx_pack_key key = {k, d0, nd, g0, ng, vl, nv, s->hp, s->gates, s->hidden};
    size_t bytes;
    if (!em_size_mul((size_t)(k > 0 ? k : 1) * sizeof(float), (size_t)(nd * ng * s->hp),
                     &bytes)) {
        return rx_decline(ki, "the packed weights' size overflows");
    }
    em_pack_key pkey = {"x86 rnn W^T / R^T", src, &key, sizeof key, NULL};
    rx_pack_job job = {s, src, &key};
    return em_pack_get(em_kinfo_packs(ki, in), ki->al, &pkey, bytes, rx_pack_fill, &job, pk);
}

/* Packs the weights and biases and lays out the scratch. */
static inline ember_status *rx_build(const em_kinfo *ki, rx_state *s, int vl, int nv, int mr,
                                     size_t *scratch_bytes)
{
    const int64_t hs = s->hidden, hp = s->hp, gc = s->gcols, D = s->dirs, G = s->gates;
    const float *w = ki->in[RX_W].data, *r = ki->in[RX_R].data;
    const float *b = rx_given(ki, RX_B) ? ki->in[RX_B].data : NULL;
    const float *p = s->op == EM_OP_LSTM && rx_given(ki, RX_P) ? ki->in[RX_P].data : NULL;
    ember_status *err = rx_packed(ki, RX_W, s, w, s->input, 0, (int)D, 0, (int)G, vl, nv,
                                  &s->wt_pack);
    s->wt = em_pack_data(s->wt_pack);
    for (int d = 0; d < D && err == NULL; d++) {
        int g1 = s->op == EM_OP_GRU ? 2 : (int)G;
        s->rt_cols[0] = g1 * hp;
        s->rt_cols[1] = s->op == EM_OP_GRU ? hp : 0;
        err = rx_packed(ki, RX_R, s, r, hs, d, 1, 0, g1, vl, nv, &s->rt_pack[d][0]);
        s->rt[d][0] = em_pack_data(s->rt_pack[d][0]);
        if (err == NULL && s->op == EM_OP_GRU) {
            err = rx_packed(ki, RX_R, s, r, hs, d, 1, 2, 1, vl, nv, &s->rt_pack[d][1]);
            s->rt[d][1] = em_pack_data(s->rt_pack[d][1]);
        }
    }
    if (err != NULL) {
        return err;
    }
    bool ok = true;
    s->bias = rx_alloc(ki, D * gc, &ok);
    s->rbh = rx_alloc(ki, D * hp, &ok);
    s->peep = rx_alloc(ki, D * 3 * hp, &ok);
    s->zeros = rx_alloc(ki, gc, &ok);
    if (!ok) {
        return em_status_oom();
    }
    for (int64_t d = 0; d < D && b != NULL; d++) {
        for (int64_t g = 0; g < G; g++) {
            for (int64_t u = 0; u < hs; u++) {
                float wb = b[d * 2 * G * hs + g * hs + u], rb = b[(d * 2 + 1) * G * hs + g * hs + u];
                bool keep = !(s->lbr && g == 2);
                s->bias[d * gc + g * hp + u] = keep ? wb + rb : wb;
                if (!keep) {
                    s->rbh[d * hp + u] = rb;
                }
            }
        }
    }
    for (int64_t d = 0; d < D && p != NULL; d++) {
        for (int64_t q = 0; q < 3; q++) {
            memcpy(s->peep + (d * 3 + q) * hp, p + (d * 3 + q) * hs, sizeof(float) * (size_t)hs);
        }
    }
    /* Scratch layout (every piece a multiple of 16 floats, so all stay 64-byte aligned). */
    size_t m = (size_t)(s->seq * s->batch), xw, gb, st, total;
    if (!em_size_mul(m, (size_t)(D * gc), &xw) || !em_size_mul((size_t)(D * s->batch), (size_t)gc,
                                                               &gb) ||
        !em_size_mul((size_t)(D * s->batch), (size_t)hp, &st)) {
        return rx_decline(ki, "the scratch size overflows");
    }
    xw = em_align_up(xw, 16);
    gb = em_align_up(gb, 16);
    st = em_align_up(st, 16);
    s->xw_off = 0;
    s->g_off = xw;
    s->h_off = xw + gb;
    s->c_off = s->h_off + st;
    s->tmp_off = s->c_off + st;
    s->h2_off = s->tmp_off + st;
    s->sync_off = s->h2_off + em_align_up((size_t)hp, 16);
    total = s->sync_off + 32 + 16;
    if (!em_size_mul(total, sizeof(float), scratch_bytes)) {
        return rx_decline(ki, "the scratch size overflows");
    }
    /* Input projection items: blocks of rows x super-panels. */
    int64_t nsp = (D * gc + (int64_t)vl * nv - 1) / ((int64_t)vl * nv);
    s->proj_rows = 4 * (int64_t)mr;
    s->proj_items = ((int64_t)m + s->proj_rows - 1) / s->proj_rows * nsp;
    double macs = (double)m * (double)(D * gc) * (double)s->input;
    /* Waking the pool costs more than a small product saves (the bench LSTM's 2 M MACs ran
     * slower on 2 threads than on 1). */
    s->slots = macs < 8.0 * 1024.0 * 1024.0 || ki->n_threads < 2 ? 1 : ki->n_threads;
    const int64_t spw = (int64_t)vl * nv;
    s->split_parts = s->op == EM_OP_LSTM && D == 1 && s->batch == 1 && !s->has_lens &&
                             s->dyn_qmax == 0 &&
                             ki->n_threads >= 2 && hp % spw == 0 && hp / spw >= 2
                         ? hp / spw
                         : 0;
    return NULL;
}

/* The whole prepare: parse, then pack for vector length vl, nv vectors per super-panel and
 * mr rows per micro-tile. */
static inline ember_status *rx_prepare(const em_kinfo *ki, int vl, int nv, int mr, void **state,
                                       size_t *scratch_bytes)
{
    *state = NULL;
    *scratch_bytes = 0;
    rx_state *s = em_calloc(ki->al, 1, sizeof *s);
    if (s == NULL) {
        return em_status_oom();
    }
    if (!rx_parse(ki, s)) {
        em_free(ki->al, s);
        return rx_decline(ki, "only f32 with constant W, R, B, P and no Softplus; the reference "
                              "kernel handles (and checks) the rest");
    }
    if (s->dyn_qmax != 0 && (s->has_lens || s->batch > mr)) {
        em_free(ki->al, s);
        return rx_decline(ki, "em_dynamic_qmax couples the batch rows of a step: more rows than "
                              "one micro-tile, or sequence_lens, run on the reference kernel");
    }
    s->hp = (s->hidden + vl - 1) / vl * vl;
    s->gcols = s->gates * s->hp;
    ember_status *st = rx_build(ki, s, vl, nv, mr, scratch_bytes);
    if (st != NULL) {
        rx_free(ki->al, s);
        *scratch_bytes = 0;
        return st;
    }
    *state = s;
    return NULL;
}

#endif /* EMBER_KERNELS_X86_RNN_SHAPE_H */
