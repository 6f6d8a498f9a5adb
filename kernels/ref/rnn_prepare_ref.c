/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Validation and attribute parsing of RNN-22, GRU-22 and LSTM-22 (the computation is in
 * rnn_cell_ref.c). Shapes, with G gates (1, 3, 4), D directions and H = hidden_size:
 *   X [S, B, I] (layout 1: [B, S, I]), W [D, G*H, I], R [D, G*H, H], B [D, 2*G*H],
 *   sequence_lens [B] int32 (int64 accepted), initial_h / initial_c [D, B, H] (layout 1:
 *   [B, D, H]), P [D, 3*H]; Y [S, D, B, H] (layout 1: [B, S, D, H]), Y_h / Y_c as initial_h.
 * Activations: `activations` holds one list of n (1, 2, 3) names per direction (n alone is
 * accepted for bidirectional and used for both), matched case-insensitively; without it the
 * ONNX defaults apply. activation_alpha / activation_beta are consumed in order by the
 * activations that take an alpha / a beta (as ONNX Runtime reads them); once a list runs out,
 * the ONNX operator's default applies. An output is absent when n_out is below its slot or
 * its dtype is UNDEFINED.
 */
#include "ref.h"

#include <stdint.h>
#include <string.h>

#include "core/alloc.h"

typedef struct act_def {
    const char *name;
    em_rnn_act_kind kind;
    bool uses_alpha, uses_beta;
    double alpha, beta; /* defaults */
} act_def;

static const act_def act_defs[] = {
    {"relu", EM_RNN_RELU, false, false, 0.0, 0.0},
    {"tanh", EM_RNN_TANH, false, false, 0.0, 0.0},
    {"sigmoid", EM_RNN_SIGMOID, false, false, 0.0, 0.0},
    {"affine", EM_RNN_AFFINE, true, true, 1.0, 0.0},
    {"leakyrelu", EM_RNN_LEAKYRELU, true, false, 0.01, 0.0},
    {"thresholdedrelu", EM_RNN_THRESHOLDEDRELU, true, false, 1.0, 0.0},
    {"scaledtanh", EM_RNN_SCALEDTANH, true, true, 1.0, 1.0},
    {"hardsigmoid", EM_RNN_HARDSIGMOID, true, true, 0.2, 0.5},
    {"elu", EM_RNN_ELU, true, false, 1.0, 0.0},
    {"softsign", EM_RNN_SOFTSIGN, false, false, 0.0, 0.0},
    {"softplus", EM_RNN_SOFTPLUS, false, false, 0.0, 0.0},
};

static bool same_name_ci(const char *a, const char *b)
{
    for (; *a != '\0' && *b != '\0'; a++, b++) {
        char ca = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        if (ca != *b) {
            return false;
        }
    }
    return *a == *b;
}

/* The attribute `name` of type `type`, NULL when absent; INVALID_MODEL for another type. */
static ember_status *list_attr(const em_kinfo *ki, const char *name, em_attr_type type,
                               const em_attr **out)
{
    const em_attr *at = em_node_attr(ki->node, name);
    *out = NULL;
    if (at != NULL && at->type != type) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "attribute '%s' has the wrong type", name);
    }
    *out = at;
    return NULL;
}

static ember_status *parse_activations(const em_kinfo *ki, em_rnn_attrs *a)
{
    ember_status *st = NULL;
    static const char *const dflt[3][EM_RNN_MAX_ACTS] = {
        {"tanh"}, {"sigmoid", "tanh"}, {"sigmoid", "tanh", "tanh"}};
    const int n_act = a->gates == 1 ? 1 : a->gates == 3 ? 2 : 3;
    const em_attr *names, *alphas, *betas;
    int64_t ia = 0, ib = 0;
    EMBER_TRY(list_attr(ki, "activations", EM_ATTR_STRINGS, &names));
    EMBER_TRY(list_attr(ki, "activation_alpha", EM_ATTR_FLOATS, &alphas));
    EMBER_TRY(list_attr(ki, "activation_beta", EM_ATTR_FLOATS, &betas));
    if (names != NULL && names->n != n_act * a->dirs && names->n != n_act) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "attribute 'activations' has %lld names, expected %d",
                            (long long)names->n, n_act * a->dirs);
    }
    for (int i = 0; i < n_act * a->dirs; i++) {
        const char *nm = names != NULL ? names->strings[i % names->n] : dflt[n_act - 1][i % n_act];
        const act_def *def = NULL;
        for (size_t k = 0; k < sizeof act_defs / sizeof act_defs[0]; k++) {
            if (same_name_ci(nm, act_defs[k].name)) {
                def = &act_defs[k];
            }
        }
        if (def == NULL) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "unknown activation '%s'", nm);
        }
        em_rnn_act *act = &a->act[i / n_act][i % n_act];
        act->kind = def->kind;
        act->alpha = def->alpha;
        act->beta = def->beta;
        if (def->uses_alpha && alphas != NULL && ia < alphas->n) {
            act->alpha = alphas->floats[ia++];
        }
        if (def->uses_beta && betas != NULL && ib < betas->n) {
            act->beta = betas->floats[ib++];
        }
    }
    return NULL;
fail:
    return st;
}

static ember_status *parse_attrs(const em_kinfo *ki, em_rnn_attrs *a)
{
    ember_status *st = NULL;
    const char *dir;
    int64_t layout, flag;
    float clip;
    EMBER_TRY(em_ref_attr_string(ki, "direction", "forward", &dir));
    if (strcmp(dir, "forward") != 0 && strcmp(dir, "reverse") != 0 &&
        strcmp(dir, "bidirectional") != 0) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "attribute 'direction' is \"%s\", expected \"forward\", \"reverse\" "
                            "or \"bidirectional\"",
                            dir);
    }
    a->dirs = strcmp(dir, "bidirectional") == 0 ? 2 : 1;
    a->reverse = strcmp(dir, "reverse") == 0;
    EMBER_TRY(em_ref_attr_int(ki, "layout", 0, &layout));
    if (layout != 0 && layout != 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "attribute 'layout' is %lld, expected 0 "
                            "or 1",
                            (long long)layout);
    }
    a->layout = (int)layout;
    a->has_clip = em_node_attr(ki->node, "clip") != NULL;
    EMBER_TRY(em_ref_attr_float(ki, "clip", 0.0f, &clip));
    if (a->has_clip && !(clip >= 0.0f)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "attribute 'clip' is %g, expected >= 0",
                            (double)clip);
    }
    a->clip = clip;
    EMBER_TRY(em_ref_attr_int(ki, "linear_before_reset", 0, &flag));
    a->lbr = a->op == EM_OP_GRU && flag != 0;
    EMBER_TRY(em_ref_attr_int(ki, "input_forget", 0, &flag));
    a->input_forget = a->op == EM_OP_LSTM && flag != 0;
    EMBER_TRY(em_ref_attr_int(ki, "em_dynamic_qmax", 0, &flag));
    if (flag != 0 && flag != 127 && flag != 255) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "attribute 'em_dynamic_qmax' is %lld, expected 0, 127 or 255",
                            (long long)flag);
    }
    if (flag != 0 && a->op == EM_OP_GRU && !a->lbr) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED,
                            "em_dynamic_qmax needs linear_before_reset = 1 on a GRU");
    }
    a->dyn_qmax = (int)flag;
    return parse_activations(ki, a);
fail:
    return st;
}

/* Checks optional input `slot` (when given) against dtype dt and dims[0..rank). */
static ember_status *check_opt(const em_kinfo *ki, em_rnn_attrs *a, int slot, ember_dtype dt,
                               const int64_t *dims, int rank, const char *what)
{
    ember_status *st = NULL;
    a->has_in[slot] = slot < ki->n_in && em_ref_has_input(ki, slot);
    if (a->has_in[slot]) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->in[slot], dt, what));
        EMBER_TRY(em_ref_check_shape(ki, &ki->in[slot], dims, rank, what));
    }
    return NULL;
fail:
    return st;
}

/* Dims of a state tensor (initial_h/c, Y_h/c) for the layout. */
static void state_dims(const em_rnn_attrs *a, int64_t *d)
{
    d[0] = a->layout == 0 ? a->dirs : a->batch;
    d[1] = a->layout == 0 ? a->batch : a->dirs;
    d[2] = a->hidden;
}

static ember_status *check_inputs(const em_kinfo *ki, em_rnn_attrs *a)
{
    ember_status *st = NULL;
    const em_tensor *x = &ki->in[EM_RNN_X], *r = &ki->in[EM_RNN_R];
    int64_t hs, d[3];
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (X)"));
    a->dt = x->dtype;
    if (a->dt != EMBER_DTYPE_F32 && a->dt != EMBER_DTYPE_F64 && a->dt != EMBER_DTYPE_F16 &&
        a->dt != EMBER_DTYPE_BF16) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "input 0 (X): dtype %s is not supported",
                            em_dtype_name(a->dt));
    }
    EMBER_TRY(em_ref_check_tensor(ki, r, a->dt, "input 2 (R)"));
    if (x->rank != 3 || r->rank != 3) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "X and R have ranks %d and %d, expected "
                            "3",
                            x->rank, r->rank);
    }
    a->seq = x->dims[a->layout == 0 ? 0 : 1];
    a->batch = x->dims[a->layout == 0 ? 1 : 0];
    a->input = x->dims[2];
    a->hidden = r->dims[2];
    EMBER_TRY(em_ref_attr_int(ki, "hidden_size", a->hidden, &hs));
    if (hs != a->hidden) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "attribute 'hidden_size' is %lld but R's last dim is %lld",
                            (long long)hs, (long long)a->hidden);
    }
    int64_t gh = a->gates * a->hidden;
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[EM_RNN_W], a->dt, "input 1 (W)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->in[EM_RNN_W], (int64_t[]){a->dirs, gh, a->input}, 3,
                                 "input 1 (W)"));
    EMBER_TRY(em_ref_check_shape(ki, r, (int64_t[]){a->dirs, gh, a->hidden}, 3, "input 2 (R)"));
    EMBER_TRY(check_opt(ki, a, EM_RNN_B, a->dt, (int64_t[]){a->dirs, 2 * gh}, 2, "input 3 (B)"));
    a->has_in[EM_RNN_LENS] = ki->n_in > EM_RNN_LENS && em_ref_has_input(ki, EM_RNN_LENS);
    if (a->has_in[EM_RNN_LENS]) {
        const em_tensor *l = &ki->in[EM_RNN_LENS];
        if (l->dtype != EMBER_DTYPE_I32 && l->dtype != EMBER_DTYPE_I64) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "input 4 (sequence_lens) has dtype %s, expected int32",
                                em_dtype_name(l->dtype));
        }
        EMBER_TRY(check_opt(ki, a, EM_RNN_LENS, l->dtype, &a->batch, 1, "input 4 (sequence_lens)"));
        if (a->dyn_qmax != 0) {
            return em_ref_error(ki, EMBER_ERR_UNSUPPORTED,
                                "em_dynamic_qmax takes no sequence_lens (every row runs every "
                                "step)");
        }
    }
    if (a->dyn_qmax != 0 && a->dt != EMBER_DTYPE_F32) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "em_dynamic_qmax on %s data (float only)",
                            em_dtype_name(a->dt));
    }
    state_dims(a, d);
    EMBER_TRY(check_opt(ki, a, EM_RNN_H0, a->dt, d, 3, "input 5 (initial_h)"));
    if (a->op == EM_OP_LSTM) {
        EMBER_TRY(check_opt(ki, a, EM_RNN_C0, a->dt, d, 3, "input 6 (initial_c)"));
        EMBER_TRY(check_opt(ki, a, EM_RNN_P, a->dt, (int64_t[]){a->dirs, 3 * a->hidden}, 2,
                            "input 7 (P)"));
    }
    return NULL;
fail:
    return st;
}

static ember_status *check_outputs(const em_kinfo *ki, em_rnn_attrs *a)
{
    ember_status *st = NULL;
    static const char *const what[3] = {"output 0 (Y)", "output 1 (Y_h)", "output 2 (Y_c)"};
    int64_t yd[4], sd[3];
    yd[0] = a->layout == 0 ? a->seq : a->batch;
    yd[1] = a->layout == 0 ? a->dirs : a->seq;
    yd[2] = a->layout == 0 ? a->batch : a->dirs;
    yd[3] = a->hidden;
    state_dims(a, sd);
    for (int o = 0; o < ki->n_out; o++) {
        const em_tensor *t = &ki->out[o];
        a->has_out[o] = t->dtype != EMBER_DTYPE_UNDEFINED;
        if (a->has_out[o]) {
            EMBER_TRY(em_ref_check_tensor(ki, t, a->dt, what[o]));
            EMBER_TRY(em_ref_check_shape(ki, t, o == 0 ? yd : sd, o == 0 ? 4 : 3, what[o]));
        }
    }
    return NULL;
fail:
    return st;
}

/* A constant sequence_lens must lie in [0, seq] (at run time values are clamped to it). */
static ember_status *check_lens_values(const em_kinfo *ki, const em_rnn_attrs *a)
{
    const em_tensor *l = &ki->in[EM_RNN_LENS];
    if (!a->has_in[EM_RNN_LENS] || l->data == NULL) {
        return NULL;
    }
    for (int64_t b = 0; b < a->batch; b++) {
        int64_t v = em_tref_index(l, b);
        if (v < 0 || v > a->seq) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "input 4 (sequence_lens)[%lld] = %lld is outside [0, %lld]",
                                (long long)b, (long long)v, (long long)a->seq);
        }
    }
    return NULL;
}

/* Lays out the scratch (doubles, one spare so that it is never empty) and returns its size in
 * bytes; false on overflow. */
static bool scratch_layout(em_rnn_attrs *a, size_t *bytes)
{
    size_t s = (size_t)a->seq, b = (size_t)a->batch, h = (size_t)a->hidden, gh, row, xw, hr, st;
    size_t total;
    if (!em_size_mul(h, (size_t)a->gates, &gh) || !em_size_mul(b, gh, &hr) ||
        !em_size_mul(s, hr, &xw) || !em_size_mul(b, h, &row) || !em_size_mul(row, 4, &st) ||
        !em_size_add(xw, hr, &total) || !em_size_add(total, st + 1, &total) ||
        !em_size_mul(total, sizeof(double), bytes)) {
        return false;
    }
    a->xw_off = 0;
    a->hr_off = xw;
    a->h_off = xw + hr;
    a->c_off = a->h_off + row;
    a->tmp_off = a->c_off + row;
    a->hq_off = a->tmp_off + row;
    return true;
}

ember_status *em_rnn_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_rnn_attrs a;

    *state = NULL;
    *scratch_bytes = 0;
    memset(&a, 0, sizeof a);
    a.op = ki->node->op;
    a.gates = a.op == EM_OP_LSTM ? 4 : a.op == EM_OP_GRU ? 3 : 1;
    EMBER_TRY(em_ref_check_arity(ki, 3, a.op == EM_OP_LSTM ? 8 : 6, a.op == EM_OP_LSTM ? 3 : 2));
    EMBER_TRY(parse_attrs(ki, &a));
    EMBER_TRY(check_inputs(ki, &a));
    EMBER_TRY(check_outputs(ki, &a));
    EMBER_TRY(check_lens_values(ki, &a));
    if (!scratch_layout(&a, scratch_bytes)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "the scratch size overflows");
    }
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    *scratch_bytes = 0;
    return st;
}
