/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/rnn_*_ref.c against vectors from other implementations, and the errors.
 *  - ONNX conformance test_lstm_with_peepholes (P, sequence_lens, initial_h/c, B).
 *  - PyTorch 1.13 (float64), inputs w[i] = (float)(0.5 * sin(0.7 * i + seed)) per tensor in
 *    ONNX layout and gate order, permuted into torch's gate order (LSTM i f g o, GRU r z n):
 *    a bidirectional LSTM (layout 0, sequence_lens [2, 3] through pack_padded_sequence, B,
 *    initial_h, initial_c), a bidirectional GRU (linear_before_reset 1, layout 1 via
 *    batch_first, B, initial_h), a bidirectional Relu RNN (sequence_lens [3, 1], B, no
 *    hidden_size attribute). seq 3, batch 2, input 3, hidden 3.
 *  - Malformed nodes: each returns INVALID_MODEL (or UNSUPPORTED for a dtype) naming the node.
 */
#define EM_RNN_TEST_HELPERS_ONLY
#include "test_ref_rnn.c"

/* n values 0.5 * sin(0.7 * i + seed) rounded to f32, as the generator made them. */
static float *sine(int64_t n, double seed)
{
    float *p = t_f32(n);
    for (int64_t i = 0; i < n; i++) {
        p[i] = (float)(0.5 * sin(0.7 * (double)i + seed));
    }
    return p;
}

/* The conformance case: Y_h of LSTM with X = 1..8 [1, 2, 4], W, R, P = 0.1, B = 0,
 * sequence_lens [1, 1], zero initial_h and initial_c. */
static void test_conformance_lstm_peepholes(void **state)
{
    (void)state;
    float x[8], w[48], r[36], b[24] = {0}, h0[6] = {0}, c0[6] = {0}, p[9], yh[6];
    int32_t lens[2] = {1, 1};
    static const double want[6] = {0.375069112, 0.375069112, 0.375069112,
                                   0.680130899, 0.680130899, 0.680130899};
    for (int i = 0; i < 48; i++) {
        w[i] = 0.1f;
        r[i % 36] = 0.1f;
        p[i % 9] = 0.1f;
        x[i % 8] = (float)(i % 8 + 1);
    }
    em_tensor in[8], out[2];
    t_tensor(&in[0], F32, 3, (int64_t[]){1, 2, 4}, x);
    t_tensor(&in[1], F32, 3, (int64_t[]){1, 12, 4}, w);
    t_tensor(&in[2], F32, 3, (int64_t[]){1, 12, 3}, r);
    t_tensor(&in[3], F32, 2, (int64_t[]){1, 24}, b);
    t_tensor(&in[4], EMBER_DTYPE_I32, 1, (int64_t[]){2}, lens);
    t_tensor(&in[5], F32, 3, (int64_t[]){1, 2, 3}, h0);
    t_tensor(&in[6], F32, 3, (int64_t[]){1, 2, 3}, c0);
    t_tensor(&in[7], F32, 2, (int64_t[]){1, 9}, p);
    memset(&out[0], 0, sizeof out[0]); /* Y absent, as the case's '' output */
    t_tensor(&out[1], F32, 3, (int64_t[]){1, 2, 3}, yh);
    t_node tn;
    t_node_init(&tn, LSTM, "lstm_with_peepholes");
    t_set_int(&tn, "hidden_size", 3);
    t_expect_ok(r_run(LSTM, &tn.n, in, 8, out, 2, NULL, 0), "lstm_with_peepholes");
    t_check_f32("lstm_with_peepholes", yh, want, 6, 1e-6, 1e-6);
}

typedef struct torch_case {
    const char *name;
    em_op op;
    int layout;
    double seed; /* seeds seed + 0.0 (W) ... + 0.5 (c0): W R B X h0 c0 */
    bool has_lens, has_c0, hidden_attr;
    int32_t lens[2];
    const char *act; /* NULL: default */
    int64_t lbr;
    const double *y, *yh, *yc;
} torch_case;

/* clang-format off */
static const double lstm_y[36] = {
    0.471356859, 0.17459452, -0.00618329996, 0.0526445037, 0.184449591, -0.0603788672,
    -0.05822534, -0.0950097633, 0.0799454167, -0.0435384511, 0.092098634, 0.0608705618,
    0.208727783, 0.16887872, 0.0707625352, 0.314632893, 0.183988867, -0.0552228731,
    -0.17189889, -0.118993649, 0.409888637, 0.143881974, -0.00204284868, 0.0122783667,
    0, 0, 0, 0.161824882, 0.155646607, 0.044623552, 0, 0, 0, 0.0596925521, 0.0377172629,
    0.201947453};
static const double lstm_yh[12] = {
    0.208727783, 0.16887872, 0.0707625352, 0.161824882, 0.155646607, 0.044623552,
    -0.05822534, -0.0950097633, 0.0799454167, -0.0435384511, 0.092098634, 0.0608705618};
static const double lstm_yc[12] = {
    0.531628661, 0.462563719, 0.170242344, 0.405051656, 0.435075977, 0.102073902,
    -0.0788164257, -0.173071666, 0.179399456, -0.0742505283, 0.140314287, 0.119756788};
static const double gru_y[36] = {
    0.459188141, 0.10366409, 0.106387422, -0.436491203, -0.229746169, 0.144181616,
    0.114585405, 0.148801467, 0.201818753, -0.523239402, -0.208991741, 0.0754351649,
    -0.0249697895, 0.0101728247, 0.314695566, -0.350027822, -0.353072447, -0.115618576,
    -0.236902505, -0.089958682, 0.296318408, 0.0367456871, -0.0201939372, 0.253184583,
    -0.428130312, 0.00201448447, 0.342124489, 0.0364877028, 0.192054407, 0.300721156,
    -0.455654284, -0.08210275, 0.417146679, 0.335627676, 0.154736234, 0.264560821};
static const double gru_yh[12] = {
    -0.0249697895, 0.0101728247, 0.314695566, -0.436491203, -0.229746169, 0.144181616,
    -0.455654284, -0.08210275, 0.417146679, 0.0367456871, -0.0201939372, 0.253184583};
static const double rnn_y[36] = {
    0.0999577121, 0, 0, 0, 0.0966426105, 0, 0.739138251, 0, 0.6269917, 0.229686779,
    0.948084962, 0, 0, 0, 0, 0, 0, 0, 0.714865639, 0, 0.982277886, 0, 0, 0, 0, 0.092949839,
    0, 0, 0, 0, 0.228163853, 0.944457017, 0, 0, 0, 0};
static const double rnn_yh[12] = {
    0, 0.092949839, 0, 0, 0.0966426105, 0, 0.739138251, 0, 0.6269917, 0.229686779,
    0.948084962, 0};

static const torch_case torch_cases[] = {
    {"torch_lstm_bi_lens", LSTM, 0, 0.1, true, true, true, {2, 3}, NULL, 0,
     lstm_y, lstm_yh, lstm_yc},
    {"torch_gru_bi_lbr_layout1", GRU, 1, 1.1, false, false, true, {0}, NULL, 1,
     gru_y, gru_yh, NULL},
    {"torch_rnn_bi_relu_lens", RNN, 0, 2.1, true, false, false, {3, 1}, "Relu", 0,
     rnn_y, rnn_yh, NULL},
};
/* clang-format on */

static void test_torch_vectors(void **state)
{
    (void)state;
    const int64_t S = 3, B = 2, I = 3, H = 3, D = 2;
    for (size_t ci = 0; ci < sizeof torch_cases / sizeof torch_cases[0]; ci++) {
        const torch_case *c = &torch_cases[ci];
        const int64_t gh = (c->op == LSTM ? 4 : c->op == GRU ? 3 : 1) * H;
        const int64_t xd[3] = {c->layout ? B : S, c->layout ? S : B, I};
        const int64_t sd[3] = {c->layout ? B : D, c->layout ? D : B, H};
        const int64_t yd[4] = {c->layout ? B : S, c->layout ? S : D, c->layout ? D : B, H};
        float *w = sine(D * gh * I, c->seed), *r = sine(D * gh * H, c->seed + 0.1);
        float *b = sine(D * 2 * gh, c->seed + 0.2), *x = sine(S * B * I, c->seed + 0.3);
        float *h0 = sine(D * B * H, c->seed + 0.4), *c0 = sine(D * B * H, c->seed + 0.5);
        float *y = t_f32(S * D * B * H), *yh = t_f32(D * B * H), *yc = t_f32(D * B * H);
        int32_t lens[2] = {c->lens[0], c->lens[1]};
        em_tensor in[7], out[3];
        t_tensor(&in[0], F32, 3, xd, x);
        t_tensor(&in[1], F32, 3, (int64_t[]){D, gh, I}, w);
        t_tensor(&in[2], F32, 3, (int64_t[]){D, gh, H}, r);
        t_tensor(&in[3], F32, 2, (int64_t[]){D, 2 * gh}, b);
        t_tensor(&in[4], EMBER_DTYPE_I32, 1, &B, lens);
        t_tensor(&in[5], F32, 3, sd, h0);
        t_tensor(&in[6], F32, 3, sd, c0);
        if (!c->has_lens) {
            t_absent(&in[4]);
        }
        if (c->op == RNN) {
            t_absent(&in[5]); /* the RNN case runs without initial_h */
        }
        t_tensor(&out[0], F32, 4, yd, y);
        t_tensor(&out[1], F32, 3, sd, yh);
        t_tensor(&out[2], F32, 3, sd, yc);
        t_node tn;
        t_node_init(&tn, c->op, c->name);
        t_set_string(&tn, "direction", "bidirectional");
        t_set_int(&tn, "layout", c->layout);
        if (c->hidden_attr) {
            t_set_int(&tn, "hidden_size", H);
        }
        if (c->op == GRU) {
            t_set_int(&tn, "linear_before_reset", c->lbr);
        }
        const char *acts[2] = {c->act, c->act};
        if (c->act != NULL) {
            em_attr *a = t_attr_new(&tn, "activations", EM_ATTR_STRINGS);
            a->strings = (char **)acts;
            a->n = 2;
        }
        t_expect_ok(r_run(c->op, &tn.n, in, c->has_c0 ? 7 : 6, out, c->yc != NULL ? 3 : 2, NULL, 0),
                    c->name);
        t_check_f32(c->name, y, c->y, S * D * B * H, 2e-6, 1e-5);
        t_check_f32(c->name, yh, c->yh, D * B * H, 2e-6, 1e-5);
        if (c->yc != NULL) {
            t_check_f32(c->name, yc, c->yc, D * B * H, 2e-6, 1e-5);
        }
        test_free(w), test_free(r), test_free(b), test_free(x), test_free(h0), test_free(c0);
        test_free(y), test_free(yh), test_free(yc);
    }
}

/* ---- malformed nodes --------------------------------------------------------------------- */

typedef enum bad_kind {
    BAD_X_RANK,
    BAD_W_ROWS,
    BAD_HIDDEN_ATTR,
    BAD_DIRECTION,
    BAD_W_DIRS,
    BAD_ACT_COUNT,
    BAD_ACT_NAME,
    BAD_ACT_TYPE,
    BAD_LAYOUT,
    BAD_B_SIZE,
    BAD_H0_LAYOUT,
    BAD_P_SIZE,
    BAD_LENS_DTYPE,
    BAD_LENS_VALUE,
    BAD_X_DTYPE,
    BAD_W_DTYPE,
    BAD_Y_SHAPE,
    BAD_CLIP,
    BAD_TOO_MANY_OUTPUTS
} bad_kind;

static const struct {
    const char *name;
    bad_kind kind;
    em_op op;
    ember_code code;
} bad_cases[] = {
    {"x_rank", BAD_X_RANK, LSTM, EMBER_ERR_INVALID_MODEL},
    {"w_rows", BAD_W_ROWS, GRU, EMBER_ERR_INVALID_MODEL},
    {"hidden_attr", BAD_HIDDEN_ATTR, RNN, EMBER_ERR_INVALID_MODEL},
    {"direction", BAD_DIRECTION, LSTM, EMBER_ERR_INVALID_MODEL},
    {"w_dirs", BAD_W_DIRS, GRU, EMBER_ERR_INVALID_MODEL},
    {"act_count", BAD_ACT_COUNT, LSTM, EMBER_ERR_INVALID_MODEL},
    {"act_name", BAD_ACT_NAME, RNN, EMBER_ERR_INVALID_MODEL},
    {"act_type", BAD_ACT_TYPE, GRU, EMBER_ERR_INVALID_MODEL},
    {"layout", BAD_LAYOUT, LSTM, EMBER_ERR_INVALID_MODEL},
    {"b_size", BAD_B_SIZE, LSTM, EMBER_ERR_INVALID_MODEL},
    {"h0_layout", BAD_H0_LAYOUT, GRU, EMBER_ERR_INVALID_MODEL},
    {"p_size", BAD_P_SIZE, LSTM, EMBER_ERR_INVALID_MODEL},
    {"lens_dtype", BAD_LENS_DTYPE, RNN, EMBER_ERR_INVALID_MODEL},
    {"lens_value", BAD_LENS_VALUE, LSTM, EMBER_ERR_INVALID_MODEL},
    {"x_dtype", BAD_X_DTYPE, RNN, EMBER_ERR_UNSUPPORTED},
    {"w_dtype", BAD_W_DTYPE, LSTM, EMBER_ERR_INVALID_MODEL},
    {"y_shape", BAD_Y_SHAPE, GRU, EMBER_ERR_INVALID_MODEL},
    {"clip", BAD_CLIP, RNN, EMBER_ERR_INVALID_MODEL},
    {"too_many_outputs", BAD_TOO_MANY_OUTPUTS, GRU, EMBER_ERR_UNSUPPORTED},
};

/* A valid node (forward, layout 0, S 5, B 2, I 4, H 3, every input given) with one defect. */
static void test_errors(void **state)
{
    (void)state;
    static double buf[512];
    static int32_t lens[2] = {5, 7};
    static const char *const two_acts[2] = {"Sigmoid", "Tanh"}, *const swish[1] = {"Swish"};
    for (size_t ci = 0; ci < sizeof bad_cases / sizeof bad_cases[0]; ci++) {
        const bad_kind k = bad_cases[ci].kind;
        const em_op op = bad_cases[ci].op;
        const int64_t gh = (op == LSTM ? 4 : op == GRU ? 3 : 1) * 3, d = k == BAD_W_DIRS ? 2 : 1;
        ember_dtype dt = k == BAD_X_DTYPE ? EMBER_DTYPE_I32 : F32;
        em_tensor in[8], out[4];
        t_tensor(&in[0], dt, k == BAD_X_RANK ? 2 : 3, (int64_t[]){5, 2, 4}, buf);
        t_tensor(&in[1], k == BAD_W_DTYPE ? F64 : dt, 3,
                 (int64_t[]){d, k == BAD_W_ROWS ? gh + 1 : gh, 4}, buf);
        t_tensor(&in[2], dt, 3, (int64_t[]){1, gh, 3}, buf);
        t_tensor(&in[3], dt, 2, (int64_t[]){1, k == BAD_B_SIZE ? gh : 2 * gh}, buf);
        t_tensor(&in[4], k == BAD_LENS_DTYPE ? F32 : EMBER_DTYPE_I32, 1, (int64_t[]){2}, lens);
        t_tensor(&in[5], dt, 3, k == BAD_H0_LAYOUT ? (int64_t[]){2, 1, 3} : (int64_t[]){1, 2, 3},
                 buf);
        t_tensor(&in[6], dt, 3, (int64_t[]){1, 2, 3}, buf);
        t_tensor(&in[7], dt, 2, (int64_t[]){1, k == BAD_P_SIZE ? 12 : 9}, buf);
        t_tensor(&out[0], dt, 4, (int64_t[]){5, 1, 2, k == BAD_Y_SHAPE ? 4 : 3}, buf);
        t_tensor(&out[1], dt, 3, (int64_t[]){1, 2, 3}, buf);
        t_tensor(&out[2], dt, 3, (int64_t[]){1, 2, 3}, buf);
        out[3] = out[2];
        t_node tn;
        t_node_init(&tn, op, bad_cases[ci].name);
        t_set_int(&tn, "hidden_size", k == BAD_HIDDEN_ATTR ? 4 : 3);
        if (k == BAD_DIRECTION) {
            t_set_string(&tn, "direction", "sideways");
        }
        if (k == BAD_W_DIRS) {
            t_set_string(&tn, "direction", "reverse");
        }
        if (k == BAD_ACT_COUNT || k == BAD_ACT_NAME) {
            em_attr *a = t_attr_new(&tn, "activations", EM_ATTR_STRINGS);
            a->strings = (char **)(k == BAD_ACT_NAME ? swish : two_acts);
            a->n = k == BAD_ACT_NAME ? 1 : 2;
        }
        if (k == BAD_ACT_TYPE) {
            t_set_int(&tn, "activations", 1);
        }
        if (k == BAD_LAYOUT) {
            t_set_int(&tn, "layout", 2);
        }
        if (k == BAD_CLIP) {
            t_set_float(&tn, "clip", -1.0f);
        }
        int n_in = op == LSTM ? 8 : 6, n_out = op == LSTM ? 3 : 2;
        n_out += k == BAD_TOO_MANY_OUTPUTS;
        ember_status *st =
            r_run(op, &tn.n, in, n_in, out, n_out, NULL, k == BAD_LENS_VALUE ? 0x10u : 0u);
        t_expect_error(st, bad_cases[ci].code, bad_cases[ci].name, bad_cases[ci].name);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conformance_lstm_peepholes),
        cmocka_unit_test(test_torch_vectors),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
