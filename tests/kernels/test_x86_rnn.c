/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The x86 RNN / GRU / LSTM kernels (f32, AVX2 and AVX-512) against the reference kernel:
 * hidden sizes around the vector widths (1, 7, 15, 16, 17, 37, 70), batches around the
 * micro-tile heights (1, 2, 3, 4, 7, 13), every direction, both layouts, B, initial_h,
 * initial_c, P, sequence_lens (shorter, 0, full), every activation the kernels accept with
 * alpha / beta, clip, GRU linear_before_reset, LSTM input_forget, absent outputs, and the
 * step split of batch-1 LSTMs on the pool (hidden 64 and 128). Outputs
 * start as a sentinel (every element must be written); each case runs serially and on a
 * 2-thread pool (bitwise equal). Declines: Softplus, f64, runtime (non-constant) weights.
 * em_dynamic_qmax (h fake-quantized per step) against the reference, and its declines.
 */
#include "test_x86_harness.h"

#define RNN EM_OP_RNN
#define GRU EM_OP_GRU
#define LSTM EM_OP_LSTM

typedef struct xr_case {
    const char *name;
    em_op op;
    const char *direction;
    int layout;
    int64_t s, b, i, h;
    bool has_b, has_h0, has_c0, has_p, has_lens;
    int n_acts;
    const char *acts[6];
    float clip;
    int lbr, input_forget;
    unsigned outs;
} xr_case;

/* clang-format off */
static const xr_case cases[] = {
    {"rnn_h1_b1", RNN, NULL, 0, 4, 1, 3, 1, true, false, false, false, false, 0, {NULL}, 0, 0, 0, 0x3},
    {"rnn_h17_b7_rev_relu", RNN, "reverse", 0, 6, 7, 5, 17, true, true, false, false, true, 1,
     {"Relu"}, 0, 0, 0, 0x3},
    {"rnn_bi_l1_acts_clip", RNN, "bidirectional", 1, 5, 3, 4, 16, true, true, false, false, false, 2,
     {"LeakyRelu", "ScaledTanh"}, 0.7f, 0, 0, 0x3},
    {"rnn_affine_thresh", RNN, "bidirectional", 0, 3, 2, 6, 7, false, false, false, false, true, 2,
     {"Affine", "ThresholdedRelu"}, 0, 0, 0, 0x1},
    {"gru_h15_b4", GRU, NULL, 0, 7, 4, 9, 15, true, true, false, false, false, 0, {NULL}, 0, 0, 0, 0x3},
    {"gru_lbr_bi_l1_lens", GRU, "bidirectional", 1, 6, 7, 5, 37, true, true, false, false, true, 0,
     {NULL}, 0, 1, 0, 0x3},
    {"gru_rev_hs_softsign_clip", GRU, "reverse", 0, 5, 2, 3, 16, true, false, false, false, true, 2,
     {"HardSigmoid", "Softsign"}, 0.4f, 0, 0, 0x2},
    {"gru_bi_elu_b13", GRU, "bidirectional", 0, 4, 13, 8, 17, false, true, false, false, false, 4,
     {"Sigmoid", "Tanh", "HardSigmoid", "Elu"}, 0, 0, 0, 0x3},
    {"lstm_defaults", LSTM, NULL, 0, 9, 1, 33, 70, true, false, false, false, false, 0, {NULL}, 0, 0,
     0, 0x1},
    {"lstm_bi_peep_lens_l1", LSTM, "bidirectional", 1, 6, 7, 5, 37, true, true, true, true, true, 0,
     {NULL}, 0, 0, 0, 0x7},
    {"lstm_input_forget_clip", LSTM, "forward", 0, 5, 3, 4, 16, true, true, true, true, false, 3,
     {"Sigmoid", "Elu", "Tanh"}, 0.5f, 0, 1, 0x6},
    {"lstm_rev_six_acts_b13", LSTM, "bidirectional", 0, 4, 13, 7, 15, true, true, true, false, true,
     6, {"Sigmoid", "Tanh", "Tanh", "HardSigmoid", "Relu", "Softsign"}, 0, 0, 0, 0x7},
    {"lstm_h1_i1_b2", LSTM, "reverse", 1, 3, 2, 1, 1, false, false, true, true, false, 0, {NULL}, 0, 0,
     0, 0x7},
    {"lstm_h16_b6", LSTM, NULL, 0, 8, 6, 16, 16, true, true, true, false, false, 0, {NULL}, 0, 0, 0,
     0x7},
    /* h0 / c0 given as constant zeros (as exporters write them): taken as absent */
    {"lstm_zero_state", LSTM, "bidirectional", 0, 5, 3, 4, 16, true, true, true, false, false, 0,
     {NULL}, 0, 0, 0, 0x7},
    {"gru_zero_state_lbr", GRU, NULL, 1, 5, 2, 6, 17, true, true, false, false, false, 0, {NULL}, 0,
     1, 0, 0x3},
    /* over 8 M multiply-adds: the input projection runs on the pool */
    {"lstm_bi_big_proj", LSTM, "bidirectional", 0, 64, 5, 130, 33, true, false, false, false, false,
     0, {NULL}, 0, 0, 0, 0x7},
    /* batch 1, one direction, hidden a multiple of a super-panel: on the 2-thread pool each
     * step's units are split across threads (rnn_driver.inc, rx_split_task) */
    {"lstm_split_h128", LSTM, NULL, 0, 9, 1, 20, 128, true, false, false, false, false, 0, {NULL}, 0,
     0, 0, 0x7},
    {"lstm_split_h128_rev_state_peep", LSTM, "reverse", 1, 8, 1, 5, 128, true, true, true, true, false,
     3, {"HardSigmoid", "Tanh", "Softsign"}, 0.8f, 0, 0, 0x7},
    {"lstm_split_h64_forget_odd_seq", LSTM, "forward", 0, 7, 1, 3, 64, false, true, true, false,
     false, 0, {NULL}, 0, 0, 1, 0x6},
};
/* clang-format on */

static void set_attrs(t_node *tn, const xr_case *c, const char **acts)
{
    static const float alpha[] = {0.3f, 0.7f, 0.2f, 0.9f}, beta[] = {0.4f, 1.2f};
    t_node_init(tn, c->op, c->name);
    t_set_int(tn, "hidden_size", c->h);
    if (c->direction != NULL) {
        t_set_string(tn, "direction", c->direction);
    }
    t_set_int(tn, "layout", c->layout);
    if (c->n_acts > 0) {
        em_attr *a = t_attr_new(tn, "activations", EM_ATTR_STRINGS);
        a->strings = (char **)acts;
        a->n = c->n_acts;
        t_set_floats(tn, "activation_alpha", alpha, 4);
        t_set_floats(tn, "activation_beta", beta, 2);
    }
    if (c->clip > 0.0f) {
        t_set_float(tn, "clip", c->clip);
    }
    if (c->op == GRU) {
        t_set_int(tn, "linear_before_reset", c->lbr);
    }
    if (c->op == LSTM) {
        t_set_int(tn, "input_forget", c->input_forget);
    }
}

typedef struct xr_io {
    em_tensor in[8], out[3];
    int n_in, n_out;
    float *buf[8];
    int32_t lens[16];
    int64_t ny[3];
} xr_io;

static void io_init(xr_io *io, const xr_case *c, uint64_t seed)
{
    const int dirs = c->direction != NULL && strcmp(c->direction, "bidirectional") == 0 ? 2 : 1;
    const int g = c->op == LSTM ? 4 : c->op == GRU ? 3 : 1;
    const int64_t S = c->s, B = c->b, H = c->h, I = c->i, gh = g * H;
    const int64_t xd[3] = {c->layout ? B : S, c->layout ? S : B, I};
    const int64_t wd[3] = {dirs, gh, I}, rd[3] = {dirs, gh, H}, bd[2] = {dirs, 2 * gh};
    const int64_t sd[3] = {c->layout ? B : dirs, c->layout ? dirs : B, H}, pd[2] = {dirs, 3 * H};
    const int64_t yd[4] = {c->layout ? B : S, c->layout ? S : dirs, c->layout ? dirs : B, H};
    const int64_t *dims[8] = {xd, wd, rd, bd, NULL, sd, sd, pd};
    const int ranks[8] = {3, 3, 3, 2, 1, 3, 3, 2};
    const float scale[8] = {1.0f, 0.5f, 0.5f, 0.4f, 0, 0.8f, 0.8f, 0.5f};
    const bool given[8] = {true, true, true, c->has_b, c->has_lens, c->has_h0, c->has_c0, c->has_p};
    memset(io, 0, sizeof *io);
    io->n_in = 3;
    for (int i = 0; i < 8; i++) {
        if (i == 4) {
            for (int64_t b = 0; b < B; b++) {
                io->lens[b] = (int32_t)((b * 5 + 3) % (S + 1)); /* includes 0 and S */
            }
            t_tensor(&io->in[4], EMBER_DTYPE_I32, 1, &B, io->lens);
        } else {
            int64_t n = t_numel(dims[i], ranks[i]);
            io->buf[i] = t_random_f32(n, seed + (uint64_t)i, -scale[i], scale[i]);
            t_tensor(&io->in[i], EMBER_DTYPE_F32, ranks[i], dims[i], io->buf[i]);
        }
        if (given[i]) {
            io->n_in = i + 1;
        } else {
            t_absent(&io->in[i]);
        }
    }
    for (int o = 0; o < 3; o++) {
        io->ny[o] = o == 0 ? S * dirs * B * H : dirs * B * H;
        t_tensor(&io->out[o], EMBER_DTYPE_F32, o == 0 ? 4 : 3, o == 0 ? yd : sd, NULL);
        if (c->outs & (1u << o)) {
            io->n_out = o + 1;
        } else {
            memset(&io->out[o], 0, sizeof io->out[o]);
        }
    }
}

static void io_free(xr_io *io)
{
    for (int i = 0; i < 8; i++) {
        test_free(io->buf[i]);
    }
}

/* Runs kernel k into fresh outputs (sentinel-filled), returned in got[3]. */
static void run_into(const em_kernel *k, const t_node *tn, xr_io *io, em_threadpool *pool,
                     float **got)
{
    for (int o = 0; o < 3; o++) {
        got[o] = t_f32(io->ny[o]);
        for (int64_t i = 0; i < io->ny[o]; i++) {
            got[o][i] = 123.0f;
        }
        io->out[o].data = got[o];
    }
    unsigned consts = (1u << 1) | (1u << 2) | (1u << 3) | (1u << 7);
    if (strstr(tn->n.name, "zero_state") != NULL) { /* constant zero initial states */
        consts |= (1u << 5) | (1u << 6);
        memset(io->buf[5], 0, sizeof(float) * (size_t)t_numel(io->in[5].dims, 3));
        memset(io->buf[6], 0, sizeof(float) * (size_t)t_numel(io->in[6].dims, 3));
        io->buf[5][0] = -0.0f;
    }
    t_expect_ok(kt_run(k, &tn->n, io->in, io->n_in, io->out, io->n_out, consts, pool), tn->n.name);
}

static void run_suite(void **state)
{
    const char *suffix = *state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    int ran = 0;
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const xr_case *c = &cases[ci];
        const em_kernel *ks[KT_MAX_KERNELS];
        size_t nk = kt_find(c->op, suffix, ks, KT_MAX_KERNELS);
        if (nk == 0 || !kt_isa_ok(ks[0])) {
            continue;
        }
        const char *acts[6];
        memcpy(acts, c->acts, sizeof acts);
        t_node tn;
        set_attrs(&tn, c, acts);
        xr_io io;
        io_init(&io, c, 500 + ci);
        float *ref[3], *got[3], *par[3];
        run_into(t_kernel(c->op, EMBER_DTYPE_UNDEFINED), &tn, &io, NULL, ref);
        run_into(ks[0], &tn, &io, NULL, got);
        run_into(ks[0], &tn, &io, pool, par);
        for (int o = 0; o < 3; o++) {
            if (c->outs & (1u << o)) {
                kt_check(c->name, ks[0]->name, 500 + ci, got[o], ref[o], io.ny[o], 3e-5, 1e-4);
                kt_check_same(c->name, ks[0]->name, "2-thread result", got[o], par[o], io.ny[o]);
            }
            test_free(ref[o]);
            test_free(got[o]);
            test_free(par[o]);
        }
        io_free(&io);
        ran++;
    }
    em_threadpool_destroy(pool);
    if (ran == 0) {
        skip();
    }
}

/* Softplus, f64 and weights that are not constant go to the reference. */
static void test_declines(void **state)
{
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(LSTM, *state, ks, KT_MAX_KERNELS);
    if (nk == 0 || !kt_isa_ok(ks[0])) {
        skip();
    }
    const xr_case *c = &cases[13];
    const char *acts[6] = {"Sigmoid", "Softplus", "Tanh"};
    xr_io io;
    float *got[3];
    t_node tn;
    io_init(&io, c, 9);
    for (int o = 0; o < 3; o++) {
        io.out[o].data = NULL;
    }
    xr_case sp = *c;
    sp.n_acts = 3;
    set_attrs(&tn, &sp, acts);
    t_expect_error(kt_run(ks[0], &tn.n, io.in, io.n_in, io.out, io.n_out, 0xffu, NULL),
                   EMBER_ERR_UNSUPPORTED, c->name, "f32");
    set_attrs(&tn, c, acts);
    t_expect_error(kt_run(ks[0], &tn.n, io.in, io.n_in, io.out, io.n_out, 0x1u, NULL),
                   EMBER_ERR_UNSUPPORTED, c->name, "constant");
    io.in[0].dtype = EMBER_DTYPE_F64;
    t_expect_error(kt_run(ks[0], &tn.n, io.in, io.n_in, io.out, io.n_out, 0xffu, NULL),
                   EMBER_ERR_UNSUPPORTED, c->name, "f32");
    io.in[0].dtype = EMBER_DTYPE_F32;
    run_into(ks[0], &tn, &io, NULL, got); /* and the same node is accepted as is */
    for (int o = 0; o < 3; o++) {
        test_free(got[o]);
    }
    io_free(&io);
}

/* em_dynamic_qmax (PyTorch's dynamically quantized LSTM / GRU: h fake-quantized over the
 * batch before each recurrent product): against the reference where the x86 kernel takes it
 * (the batch within one micro-tile, no sequence_lens), a decline naming the attribute where it
 * does not; the result must also differ from the unquantized run (the quantization happened). */
typedef struct xr_dyn {
    xr_case c;
    int qmax;
} xr_dyn;

/* clang-format off */
static const xr_dyn dyn_cases[] = {
    {{"lstm_dyn_b1_h128", LSTM, NULL, 0, 9, 1, 20, 128, true, false, false, false, false, 0, {NULL},
      0, 0, 0, 0x7}, 127},
    {{"lstm_dyn_bi_b2_l1", LSTM, "bidirectional", 1, 5, 2, 7, 37, true, true, true, false, false, 0,
      {NULL}, 0, 0, 0, 0x7}, 255},
    {{"gru_dyn_lbr_b3", GRU, NULL, 0, 7, 3, 4, 16, true, true, false, false, false, 0, {NULL}, 0, 1,
      0, 0x3}, 127},
    {{"lstm_dyn_rev_b5", LSTM, "reverse", 0, 4, 5, 6, 17, true, true, true, false, false, 0, {NULL}, 0,
      0, 0, 0x7}, 127},
    {{"rnn_dyn_b7", RNN, NULL, 0, 4, 7, 3, 8, true, true, false, false, false, 0, {NULL}, 0, 0, 0,
      0x3}, 255},
};
/* clang-format on */

static void test_dynamic_qmax(void **state)
{
    const char *suffix = *state;
    int ran = 0;
    for (size_t ci = 0; ci < sizeof dyn_cases / sizeof dyn_cases[0]; ci++) {
        const xr_case *c = &dyn_cases[ci].c;
        const em_kernel *ks[KT_MAX_KERNELS];
        if (kt_find(c->op, suffix, ks, KT_MAX_KERNELS) == 0 || !kt_isa_ok(ks[0])) {
            continue;
        }
        const char *acts[6] = {NULL};
        t_node tn, plain;
        set_attrs(&plain, c, acts);
        set_attrs(&tn, c, acts);
        t_set_int(&tn, "em_dynamic_qmax", dyn_cases[ci].qmax);
        xr_io io;
        io_init(&io, c, 700 + ci);
        float *ref[3], *got[3], *unq[3] = {NULL, NULL, NULL};
        run_into(t_kernel(c->op, EMBER_DTYPE_UNDEFINED), &tn, &io, NULL, ref);
        run_into(t_kernel(c->op, EMBER_DTYPE_UNDEFINED), &plain, &io, NULL, unq);
        for (int o = 0; o < 3; o++) {
            got[o] = t_f32(io.ny[o]);
            io.out[o].data = got[o];
        }
        ember_status *st = kt_run(ks[0], &tn.n, io.in, io.n_in, io.out, io.n_out, 0x8eu, NULL);
        if (st != NULL) { /* more rows than the kernel's micro-tile: the reference runs it */
            if (strstr(ember_status_message(st), "em_dynamic_qmax") == NULL) {
                fail_msg("%s: %s", c->name, ember_status_message(st));
            }
            ember_status_destroy(st);
            for (int o = 0; o < 3; o++) {
                test_free(ref[o]);
                test_free(unq[o]);
                test_free(got[o]);
            }
            io_free(&io);
            continue;
        }
        for (int o = 0; o < 3; o++) {
            if (c->outs & (1u << o)) {
                kt_check(c->name, ks[0]->name, 700 + ci, got[o], ref[o], io.ny[o], 3e-5, 1e-4);
                double d = 0.0;
                for (int64_t i = 0; i < io.ny[o]; i++) {
                    double e = fabs((double)ref[o][i] - (double)unq[o][i]);
                    d = e > d ? e : d;
                }
                if (!(d > 1e-4)) {
                    fail_msg("%s output %d: the quantized run equals the plain one (%g)", c->name,
                             o, d);
                }
            }
            test_free(ref[o]);
            test_free(got[o]);
            test_free(unq[o]);
        }
        io_free(&io);
        ran++;
    }
    if (ran == 0) {
        skip();
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KT_TEST(run_suite, "__avx2"),
        KT_TEST(run_suite, "__avx512"),
        KT_TEST(test_declines, "__avx2"),
        KT_TEST(test_declines, "__avx512"),
        KT_TEST(test_dynamic_qmax, "__avx2"),
        KT_TEST(test_dynamic_qmax, "__avx512"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
