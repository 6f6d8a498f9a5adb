/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The x86 Attention kernels (f32, AVX2 and AVX-512: attn_driver.inc) against the reference
 * kernel (attn_sdpa_ref.c, itself tested against a naive attention): odd sizes around the
 * micro-kernel tiles (S = 0, 1, 7, 33, 65; D = 8, 17, 64), MHA / GQA / MQA, 3-D and 4-D,
 * is_causal with Sq below and above Skv, bool and f32 masks of ranks 1-4 broadcast and with a
 * short last dim, rows that see no key, scale, softcap, past and present key / value,
 * nonpad_kv_seqlen (negative offsets) and windows; serial and on a 2-thread pool (bitwise
 * equal); qk_matmul_output in mode 3 (the probabilities). Then the declines (qk_matmul_output
 * modes 0 and 2, f16, softmax_precision, an i64 mask, malformed nodes) and the planner's
 * choice: the first candidate whose prepare accepts is the x86 kernel for a plain node (and for
 * mode 3) and the reference for a declined one.
 */
#include "test_x86_harness.h"

#define F32 EMBER_DTYPE_F32
#define BOOL EMBER_DTYPE_BOOL

typedef struct at_case {
    const char *name;
    int rank;
    int64_t b, hq, hkv, sq, skv, past, dk, dv;
    int mask_rank; /* 0: no mask */
    int64_t mask_dims[4];
    ember_dtype mask_dt;
    bool causal, nonpad, present;
    int64_t left, right;  /* -1: no window (the default) */
    float scale, softcap; /* scale 0: the default */
    bool probs;           /* qk_matmul_output, mode 3 (with present: the reference wants it) */
} at_case;

#define NOWIN .left = -1, .right = -1
/* clang-format off */
static const at_case cases[] = {
    {"s1_d8", 4, 1, 1, 1, 1, 1, 0, 8, 8, 0, {0}, 0, false, false, false, NOWIN},
    {"s7_d17_h3", 4, 2, 3, 3, 7, 7, 0, 17, 17, 0, {0}, 0, false, false, false, NOWIN},
    {"sq33_skv65_d64", 4, 1, 3, 3, 33, 65, 0, 64, 64, 0, {0}, 0, false, false, false, NOWIN},
    {"sq65_skv33_dv17", 4, 1, 1, 1, 65, 33, 0, 64, 17, 0, {0}, 0, false, false, false, NOWIN},
    {"gqa_4over2", 4, 2, 4, 2, 7, 33, 0, 17, 8, 0, {0}, 0, false, false, false, NOWIN},
    {"mqa_65", 4, 1, 3, 1, 65, 65, 0, 64, 64, 0, {0}, 0, false, false, false, NOWIN},
    {"no_keys", 4, 1, 3, 3, 7, 0, 0, 8, 8, 0, {0}, 0, false, false, false, NOWIN},
    {"3d_h3", 3, 2, 3, 3, 33, 7, 0, 8, 17, 0, {0}, 0, false, false, false, NOWIN},
    {"3d_gqa_causal", 3, 1, 4, 2, 65, 65, 0, 64, 64, 0, {0}, 0, true, false, false, NOWIN},
    {"causal_sq7_skv33", 4, 2, 3, 3, 7, 33, 0, 17, 17, 0, {0}, 0, true, false, false, NOWIN},
    {"causal_sq33_skv7", 4, 1, 3, 3, 33, 7, 0, 17, 8, 0, {0}, 0, true, false, false, NOWIN},
    {"bool_full", 4, 2, 3, 3, 7, 33, 0, 8, 8, 4, {2, 3, 7, 33}, BOOL, false, false, false, NOWIN},
    {"bool_sq_skv", 4, 2, 3, 3, 33, 65, 0, 17, 17, 2, {33, 65}, BOOL, false, false, false, NOWIN},
    {"bool_keypad", 4, 2, 4, 2, 7, 33, 0, 64, 64, 4, {2, 1, 1, 33}, BOOL, true, false, false,
     NOWIN},
    {"bool_short_3d", 3, 1, 3, 3, 33, 33, 0, 8, 8, 3, {3, 1, 20}, BOOL, false, false, false, NOWIN},
    {"f32_short", 4, 1, 3, 3, 7, 65, 0, 17, 17, 4, {1, 3, 1, 60}, F32, false, false, false, NOWIN},
    {"f32_rank1", 4, 2, 1, 1, 33, 33, 0, 8, 17, 1, {33}, F32, false, false, false, NOWIN},
    {"f32_rank3_causal", 4, 1, 3, 3, 65, 65, 0, 64, 64, 3, {3, 65, 65}, F32, true, false, false,
     NOWIN},
    {"scale", 4, 1, 3, 3, 33, 33, 0, 17, 17, 0, {0}, 0, false, false, false, NOWIN, 0.3f, 0.0f},
    {"softcap", 4, 2, 1, 1, 7, 65, 0, 64, 8, 0, {0}, 0, false, false, false, NOWIN, 0.0f, 1.5f},
    {"softcap_scale_mask", 3, 1, 4, 2, 33, 33, 0, 17, 17, 2, {33, 33}, F32, true, false, false,
     NOWIN, 2.0f, 3.0f},
    {"past_present", 4, 2, 3, 3, 7, 7, 5, 17, 8, 0, {0}, 0, true, false, true, NOWIN},
    {"past_decode_gqa", 4, 1, 4, 2, 1, 1, 33, 64, 64, 0, {0}, 0, false, false, false, NOWIN},
    {"past_mask_3d", 3, 1, 3, 3, 7, 7, 65, 8, 8, 2, {7, 72}, BOOL, true, false, true, NOWIN},
    {"nonpad_causal", 4, 2, 3, 3, 7, 33, 0, 17, 17, 0, {0}, 0, true, true, false, NOWIN},
    {"nonpad_plain", 4, 2, 4, 2, 7, 33, 0, 17, 17, 0, {0}, 0, false, true, false, NOWIN},
    {"nonpad_3d", 3, 2, 4, 2, 33, 33, 0, 8, 8, 0, {0}, 0, true, true, false, NOWIN},
    {"windows", 4, 1, 3, 3, 33, 65, 0, 17, 17, 0, {0}, 0, false, false, false, .left = 3,
     .right = 2},
    {"window_left_causal", 4, 1, 3, 3, 65, 65, 0, 64, 64, 2, {65, 65}, F32, true, false, false,
     .left = 20, .right = -1},
    {"probs", 4, 2, 3, 3, 33, 65, 0, 17, 17, 0, {0}, 0, false, false, true, NOWIN, .probs = true},
    {"probs_3d_mask_causal", 3, 1, 4, 2, 33, 20, 0, 8, 8, 4, {1, 1, 33, 20}, BOOL, true, false,
     true, NOWIN, .probs = true},
    {"probs_nonpad_causal", 4, 2, 3, 3, 33, 7, 0, 8, 8, 0, {0}, 0, true, true, true, NOWIN,
     .probs = true},
    {"probs_past_softcap", 4, 1, 3, 3, 7, 7, 33, 64, 64, 2, {7, 40}, F32, false, false, true,
     NOWIN, 0.0f, 2.0f, .probs = true},
};
/* clang-format on */

/* Inputs of one case; unused ones stay NULL. */
typedef struct at_data {
    float *q, *k, *v, *pk, *pv, *maskf;
    uint8_t *maskb;
    int64_t nonpad[4];
} at_data;

static void make_inputs(const at_case *c, uint64_t seed, at_data *d)
{
    const int64_t nq = c->b * c->hq * c->sq * c->dk, nk = c->b * c->hkv * c->skv * c->dk;
    const int64_t nv = c->b * c->hkv * c->skv * c->dv;
    memset(d, 0, sizeof *d);
    d->q = t_random_f32(nq, seed, -1.0f, 1.0f);
    d->k = t_random_f32(nk, seed + 1, -1.0f, 1.0f);
    d->v = t_random_f32(nv, seed + 2, -1.0f, 1.0f);
    if (c->past > 0) {
        d->pk = t_random_f32(c->b * c->hkv * c->past * c->dk, seed + 3, -1.0f, 1.0f);
        d->pv = t_random_f32(c->b * c->hkv * c->past * c->dv, seed + 4, -1.0f, 1.0f);
    }
    if (c->mask_rank > 0) {
        int64_t n = t_numel(c->mask_dims, c->mask_rank), len = c->mask_dims[c->mask_rank - 1];
        float *r = t_random_f32(n, seed + 5, 0.0f, 1.0f);
        if (c->mask_dt == BOOL) {
            d->maskb = test_calloc((size_t)n, 1);
            for (int64_t i = 0; i < n; i++) {
                d->maskb[i] = r[i] < 0.75f ? (uint8_t)(1 + i % 3) : 0; /* any nonzero is true */
            }
            for (int64_t i = 0; n >= 3 * len && i < len; i++) {
                d->maskb[2 * len + i] = 0; /* a row that sees no key */
            }
        } else {
            d->maskf = t_f32(n);
            for (int64_t i = 0; i < n; i++) {
                d->maskf[i] = r[i] < 0.1f ? -INFINITY : 4.0f * r[i] - 3.0f;
            }
            for (int64_t i = 0; n >= 2 * len && i < len; i++) {
                d->maskf[len + i] = -INFINITY; /* a row that sees no key */
            }
        }
        test_free(r);
    }
    for (int64_t i = 0; i < c->b; i++) {
        d->nonpad[i] = c->skv - 4 * i; /* below Sq in some cases: negative causal offsets */
    }
}

static void free_inputs(at_data *d)
{
    float *fs[6] = {d->q, d->k, d->v, d->pk, d->pv, d->maskf};
    for (int i = 0; i < 6; i++) {
        if (fs[i] != NULL) {
            test_free(fs[i]);
        }
    }
    if (d->maskb != NULL) {
        test_free(d->maskb);
    }
}

/* Dims of a [B, H, S, D] tensor in the case's rank. */
static int bhsd(const at_case *c, int64_t h, int64_t s, int64_t dd, int64_t *dims)
{
    if (c->rank == 4) {
        dims[0] = c->b, dims[1] = h, dims[2] = s, dims[3] = dd;
        return 4;
    }
    dims[0] = c->b, dims[1] = s, dims[2] = h * dd;
    return 3;
}

/* The node and its tensors; returns n_in. out gets Y (and the present outputs). */
static int build(const at_case *c, at_data *d, t_node *tn, em_tensor *in, em_tensor *out,
                 int64_t dims[8][4], float **y)
{
    const int64_t total = c->past + c->skv;
    t_node_init(tn, EM_OP_ATTENTION, c->name);
    if (c->rank == 3) {
        t_set_int(tn, "q_num_heads", c->hq);
        t_set_int(tn, "kv_num_heads", c->hkv);
    }
    if (c->causal) {
        t_set_int(tn, "is_causal", 1);
    }
    if (c->scale != 0.0f) {
        t_set_float(tn, "scale", c->scale);
    }
    if (c->softcap != 0.0f) {
        t_set_float(tn, "softcap", c->softcap);
    }
    if (c->probs) {
        t_set_int(tn, "qk_matmul_output_mode", 3);
    }
    if (c->left >= 0) {
        t_set_int(tn, "left_window_size", c->left);
    }
    if (c->right >= 0) {
        t_set_int(tn, "right_window_size", c->right);
    }
    t_tensor(&in[0], F32, bhsd(c, c->hq, c->sq, c->dk, dims[0]), dims[0], d->q);
    t_tensor(&in[1], F32, bhsd(c, c->hkv, c->skv, c->dk, dims[1]), dims[1], d->k);
    t_tensor(&in[2], F32, bhsd(c, c->hkv, c->skv, c->dv, dims[2]), dims[2], d->v);
    int n_in = 3;
    for (int i = 3; i < 7; i++) {
        t_absent(&in[i]);
    }
    if (c->mask_rank > 0) {
        t_tensor(&in[3], c->mask_dt, c->mask_rank, c->mask_dims,
                 c->mask_dt == BOOL ? (void *)d->maskb : (void *)d->maskf);
        n_in = 4;
    }
    if (c->past > 0) {
        const int64_t pk[4] = {c->b, c->hkv, c->past, c->dk},
                      pv[4] = {c->b, c->hkv, c->past, c->dv};
        memcpy(dims[4], pk, sizeof pk);
        memcpy(dims[5], pv, sizeof pv);
        t_tensor(&in[4], F32, 4, dims[4], d->pk);
        t_tensor(&in[5], F32, 4, dims[5], d->pv);
        n_in = 6;
    }
    if (c->nonpad) {
        dims[6][0] = c->b;
        t_tensor(&in[6], EMBER_DTYPE_I64, 1, dims[6], d->nonpad);
        n_in = 7;
    }
    t_tensor(&out[0], F32, bhsd(c, c->hq, c->sq, c->dv, dims[7]), dims[7], y[0]);
    if (c->present) {
        const int64_t pk[4] = {c->b, c->hkv, total, c->dk}, pv[4] = {c->b, c->hkv, total, c->dv};
        t_tensor(&out[1], F32, 4, pk, y[1]);
        t_tensor(&out[2], F32, 4, pv, y[2]);
    }
    if (c->probs) {
        const int64_t pd[4] = {c->b, c->hq, c->sq, total};
        t_tensor(&out[3], F32, 4, pd, y[3]);
    }
    return n_in;
}

static const em_kernel *find(const char *suffix)
{
    const em_kernel *ks[KT_MAX_KERNELS];
    size_t nk = kt_find(EM_OP_ATTENTION, suffix, ks, KT_MAX_KERNELS);
    if (nk == 0 || !kt_isa_ok(ks[0])) {
        skip();
    }
    return ks[0];
}

static void run_case(const em_kernel *k, const at_case *c, uint64_t seed, em_threadpool *pool)
{
    const int64_t total = c->past + c->skv;
    const int64_t ny = c->b * c->hq * c->sq * c->dv;
    const int64_t np[4] = {ny, c->b * c->hkv * total * c->dk, c->b * c->hkv * total * c->dv,
                           c->b * c->hq * c->sq * total};
    const int n_out = c->probs ? 4 : c->present ? 3 : 1;
    float *ref[4], *got[4], *par[4];
    for (int o = 0; o < 4; o++) {
        ref[o] = t_f32(np[o]);
        got[o] = t_f32(np[o]);
        par[o] = t_f32(np[o]);
        kt_fill_nan(got[o], np[o]);
        kt_fill_nan(par[o], np[o]);
    }
    at_data d;
    make_inputs(c, seed, &d);
    t_node tn;
    em_tensor in[7], out[4];
    int64_t dims[8][4];
    int n_in = build(c, &d, &tn, in, out, dims, ref);
    const em_kernel *rk = t_kernel(EM_OP_ATTENTION, EMBER_DTYPE_UNDEFINED);
    t_expect_ok(kt_run(rk, &tn.n, in, n_in, out, n_out, 0, NULL), c->name);
    for (int o = 0; o < n_out; o++) {
        out[o].data = got[o];
    }
    t_expect_ok(kt_run(k, &tn.n, in, n_in, out, n_out, 0, NULL), c->name);
    /* f32 sums of Dk products and of T probabilities times V against the reference's double
     * sums (with its own f32 roundings of scaled q, k and of the probabilities) */
    kt_check(c->name, k->name, seed, got[0], ref[0], ny, 5e-6, 5e-5);
    for (int o = 1; o < n_out && o < 3; o++) {
        kt_check(c->name, k->name, seed, got[o], ref[o], np[o], 0.0, 0.0);
    }
    if (n_out > 3) { /* probabilities: the reference rounds each to f32 */
        kt_check(c->name, k->name, seed, got[3], ref[3], np[3], 1e-6, 1e-5);
    }
    for (int o = 0; o < n_out; o++) {
        out[o].data = par[o];
    }
    t_expect_ok(kt_run(k, &tn.n, in, n_in, out, n_out, 0, pool), c->name);
    for (int o = 0; o < n_out; o++) {
        kt_check_same(c->name, k->name, "2-thread result", got[o], par[o], np[o]);
    }
    free_inputs(&d);
    for (int o = 0; o < 4; o++) {
        test_free(ref[o]);
        test_free(got[o]);
        test_free(par[o]);
    }
}

static void test_cases(void **state)
{
    const em_kernel *k = find(*state);
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_case(k, &cases[i], 1000 + 10 * i, pool);
    }
    em_threadpool_destroy(pool);
}

/* The planner's choice among the registered f32 candidates: the first that accepts. */
static const em_kernel *planner_pick(const t_node *tn, em_tensor *in, int n_in, em_tensor *out,
                                     int n_out)
{
    const em_kernel *cands[32];
    size_t n = em_registry_find(EM_OP_ATTENTION, F32, EM_DEV_CPU, kt_features(), cands, 32);
    for (size_t i = 0; i < n; i++) {
        ember_status *st = kt_run(cands[i], &tn->n, in, n_in, out, n_out, 0, NULL);
        if (st == NULL) {
            return cands[i];
        }
        bool declined = ember_status_code(st) == EMBER_ERR_UNSUPPORTED;
        if (!declined) {
            print_error("%s: %s\n", cands[i]->name, ember_status_message(st));
        }
        ember_status_destroy(st);
        assert_true(declined);
    }
    return NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

static void test_declines(void **state)
{
    const em_kernel *k = find(*state);
    float q[2 * 3 * 4] = {0}, y[2 * 3 * 4], pk[2 * 3 * 4], pv[2 * 3 * 4], qk[2 * 3 * 3];
    uint16_t h[2 * 3 * 4] = {0};
    int64_t mi[3] = {0};
    int64_t d4[4] = {1, 2, 3, 4}, dqk[4] = {1, 2, 3, 3}, dm[1] = {3}, d2[2] = {3, 4};
    em_tensor in[4], out[4];
    t_node tn;
    for (int i = 0; i < 3; i++) {
        t_tensor(&in[i], F32, 4, d4, q);
    }
    t_tensor(&out[0], F32, 4, d4, y);
    t_tensor(&out[1], F32, 4, d4, pk); /* present_key / present_value: the reference wants them */
    t_tensor(&out[2], F32, 4, d4, pv); /* when qk_matmul_output is asked for */
    t_tensor(&out[3], F32, 4, dqk, qk);

    t_node_init(&tn, EM_OP_ATTENTION, "qk_out"); /* qk_matmul_output_mode 0: raw scores */
    t_expect_error(kt_run(k, &tn.n, in, 3, out, 4, 0, NULL), EMBER_ERR_UNSUPPORTED, "qk_out",
                   "qk_matmul_output");
    const em_kernel *pick = planner_pick(&tn, in, 3, out, 4);
    assert_non_null(pick);
    assert_true(ends_with(pick->name, "__ref"));
    pick = planner_pick(&tn, in, 3, out, 1); /* the same node without the extra output */
    assert_non_null(pick);
    assert_false(ends_with(pick->name, "__ref"));

    t_node_init(&tn, EM_OP_ATTENTION, "qk_mode2");
    t_set_int(&tn, "qk_matmul_output_mode", 2);
    t_expect_error(kt_run(k, &tn.n, in, 3, out, 4, 0, NULL), EMBER_ERR_UNSUPPORTED, "qk_mode2",
                   "qk_matmul_output mode 2");
    t_node_init(&tn, EM_OP_ATTENTION, "qk_mode3");
    t_set_int(&tn, "qk_matmul_output_mode", 3);
    assert_false(ends_with(planner_pick(&tn, in, 3, out, 4)->name, "__ref"));

    t_node_init(&tn, EM_OP_ATTENTION, "sp");
    t_set_int(&tn, "softmax_precision", EMBER_DTYPE_F64);
    t_expect_error(kt_run(k, &tn.n, in, 3, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "sp",
                   "softmax_precision");
    assert_true(ends_with(planner_pick(&tn, in, 3, out, 1)->name, "__ref"));

    t_node_init(&tn, EM_OP_ATTENTION, "mask_i64");
    t_tensor(&in[3], EMBER_DTYPE_I64, 1, dm, mi);
    t_expect_error(kt_run(k, &tn.n, in, 4, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "mask_i64",
                   "i64 mask");

    t_node_init(&tn, EM_OP_ATTENTION, "f16");
    t_tensor(&in[0], EMBER_DTYPE_F16, 4, d4, h);
    t_expect_error(kt_run(k, &tn.n, in, 3, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "f16", "f16");

    t_node_init(&tn, EM_OP_ATTENTION, "rank2");
    t_tensor(&in[0], F32, 2, d2, q);
    t_expect_error(kt_run(k, &tn.n, in, 3, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "rank2",
                   "rank 2");
    /* malformed: the reference, chosen next, reports it */
    const em_kernel *cands[32];
    size_t n = em_registry_find(EM_OP_ATTENTION, F32, EM_DEV_CPU, kt_features(), cands, 32);
    assert_true(n >= 2 && ends_with(cands[n - 1]->name, "__ref"));
    t_expect_error(kt_run(cands[n - 1], &tn.n, in, 3, out, 1, 0, NULL), EMBER_ERR_INVALID_MODEL,
                   "rank2", "rank 2 (ref)");

    t_node_init(&tn, EM_OP_ATTENTION, "heads");
    t_tensor(&in[0], F32, 4, d4, q);
    t_tensor(&in[1], F32, 4, (int64_t[]){1, 3, 3, 4}, q); /* 2 query heads over 3 KV heads */
    t_tensor(&in[2], F32, 4, (int64_t[]){1, 3, 3, 4}, q);
    t_expect_error(kt_run(k, &tn.n, in, 3, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "heads",
                   "heads");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KT_TEST(test_cases, "__avx2"),
        KT_TEST(test_cases, "__avx512"),
        KT_TEST(test_declines, "__avx2"),
        KT_TEST(test_declines, "__avx512"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
