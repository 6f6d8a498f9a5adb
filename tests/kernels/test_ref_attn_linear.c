/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/attn_linear_ref.c: LinearAttention-27 against the recurrence written here over
 * plain [B, H, T, D] arrays with one state array for all heads, time outermost (the kernel keeps
 * one head's state at a time), for every update rule, GQA / MQA, per-key and per-head decay,
 * per-head and shared beta, with and without past_state, explicit scale, f16, a present_state
 * of its own dtype, and single-step values checked by hand; CausalConvWithState-27 against a
 * convolution over an explicitly built padded sequence (past state or zeros), with and without
 * bias, silu, kernel size 1 (empty state) and inputs shorter than the state; malformed nodes.
 */
#include "test_ref_math_util.h"

#define F32 EMBER_DTYPE_F32
#define F16 EMBER_DTYPE_F16

/* ---- LinearAttention ----------------------------------------------------------------------- */

typedef struct la_case {
    const char *name;
    const char *rule; /* NULL: the default gated_delta */
    int64_t b, t, hq, hkv, dk, dv;
    bool past, decay_per_key;
    int64_t beta_last; /* Hkv or 1 */
    float scale;
    ember_dtype dt, st; /* data; state (past and present) */
} la_case;

static bool uses(const la_case *c, const char *what)
{
    const char *r = c->rule != NULL ? c->rule : "gated_delta";
    return strstr(r, what) != NULL;
}

static void la_oracle(const la_case *c, void *const *x, double *y, double *state)
{
    const int64_t hk = c->hkv, grp = c->hq / hk;
    const int64_t ns = c->b * hk * c->dk * c->dv;
    const double scale = c->scale != 0.0f ? c->scale : 1.0 / sqrt((double)c->dk);
    for (int64_t i = 0; i < ns; i++) {
        state[i] = c->past ? tm_get(c->st, x[3], i) : 0.0;
    }
    double *v = t_f64(c->dv);
    for (int64_t t = 0; t < c->t; t++) {
        for (int64_t b = 0; b < c->b; b++) {
            for (int64_t g = 0; g < hk; g++) {
                double *s = state + (b * hk + g) * c->dk * c->dv;
                const int64_t tok = b * c->t + t;
#define KEY(d) tm_get(c->dt, x[1], (tok * hk + g) * c->dk + (d))
                for (int64_t m = 0; m < c->dv; m++) {
                    v[m] = tm_get(c->dt, x[2], (tok * hk + g) * c->dv + m);
                }
                for (int64_t d = 0; uses(c, "gated") && d < c->dk; d++) {
                    int64_t di = c->decay_per_key ? (tok * hk + g) * c->dk + d : tok * hk + g;
                    for (int64_t m = 0; m < c->dv; m++) {
                        s[d * c->dv + m] *= exp(tm_get(c->dt, x[4], di));
                    }
                }
                if (uses(c, "delta")) {
                    double beta =
                        tm_get(c->dt, x[5], tok * c->beta_last + (c->beta_last > 1 ? g : 0));
                    double r[64] = {0};
                    for (int64_t m = 0; m < c->dv; m++) {
                        for (int64_t d = 0; d < c->dk; d++) {
                            r[m] += s[d * c->dv + m] * KEY(d);
                        }
                    }
                    for (int64_t m = 0; m < c->dv; m++) {
                        v[m] = beta * (v[m] - r[m]);
                    }
                }
                for (int64_t d = 0; d < c->dk; d++) {
                    for (int64_t m = 0; m < c->dv; m++) {
                        s[d * c->dv + m] += KEY(d) * v[m];
                    }
                }
#undef KEY
                for (int64_t h = g * grp; h < (g + 1) * grp; h++) {
                    for (int64_t m = 0; m < c->dv; m++) {
                        double o = 0.0;
                        for (int64_t d = 0; d < c->dk; d++) {
                            o += tm_get(c->dt, x[0], (tok * c->hq + h) * c->dk + d) *
                                 s[d * c->dv + m];
                        }
                        y[(tok * c->hq + h) * c->dv + m] = scale * o;
                    }
                }
            }
        }
    }
    test_free(v);
}

static void la_run(const la_case *c, em_threadpool *pool)
{
    int64_t dims[6][4] = {{c->b, c->t, c->hq * c->dk},
                          {c->b, c->t, c->hkv * c->dk},
                          {c->b, c->t, c->hkv * c->dv},
                          {c->b, c->hkv, c->dk, c->dv},
                          {c->b, c->t, c->decay_per_key ? c->hkv * c->dk : c->hkv},
                          {c->b, c->t, c->beta_last}};
    const int ranks[6] = {3, 3, 3, 4, 3, 3};
    const bool present[6] = {true, true, true, c->past, uses(c, "gated"), uses(c, "delta")};
    const tm_range ranges[6] = {{-1, 1}, {-0.6, 0.6}, {-1, 1}, {-0.5, 0.5}, {-0.4, 0}, {0, 1}};
    void *x[6] = {0};
    em_tensor in[6], out[2];
    for (int i = 0; i < 6; i++) {
        ember_dtype dt = i == 3 ? c->st : c->dt;
        int64_t n = t_numel(dims[i], ranks[i]);
        x[i] = tm_buf(dt, n);
        tm_fill(dt, x[i], n, 40 + (uint64_t)i + (uint64_t)n, ranges[i]);
        t_tensor(&in[i], dt, ranks[i], dims[i], x[i]);
        if (!present[i]) {
            t_absent(&in[i]);
        }
    }
    int64_t yd[3] = {c->b, c->t, c->hq * c->dv}, ny = t_numel(yd, 3), ns = t_numel(dims[3], 4);
    double *ry = t_f64(ny), *rs = t_f64(ns);
    la_oracle(c, x, ry, rs);
    for (int threaded = 0; threaded < 2; threaded++) {
        void *y = tm_buf(c->dt, ny), *s = tm_buf(c->st, ns);
        t_tensor(&out[0], c->dt, 3, yd, y);
        t_tensor(&out[1], c->st, 4, dims[3], s);
        t_node tn;
        t_node_init(&tn, EM_OP_LINEARATTENTION, c->name);
        t_set_int(&tn, "q_num_heads", c->hq);
        t_set_int(&tn, "kv_num_heads", c->hkv);
        if (c->rule != NULL) {
            t_set_string(&tn, "update_rule", c->rule);
        }
        if (c->scale != 0.0f) {
            t_set_float(&tn, "scale", c->scale);
        }
        int n_in = present[5] ? 6 : present[4] ? 5 : present[3] ? 4 : 3;
        const em_kernel *k = t_kernel(EM_OP_LINEARATTENTION, EMBER_DTYPE_UNDEFINED);
        t_expect_ok(t_run(k, &tn.n, in, n_in, out, 2, threaded ? pool : NULL), c->name);
        double tol = c->dt == F16 ? 1e-2 : 1e-5;
        for (int64_t i = 0; i < ny; i++) {
            if (!t_close(tm_get(c->dt, y, i), ry[i], tol, tol)) {
                fail_msg("case %s: output[%lld] = %.9g, expected %.9g", c->name, (long long)i,
                         tm_get(c->dt, y, i), ry[i]);
            }
        }
        for (int64_t i = 0; i < ns; i++) {
            if (!t_close(tm_get(c->st, s, i), rs[i], tol, tol)) {
                fail_msg("case %s: present_state[%lld] = %.9g, expected %.9g", c->name,
                         (long long)i, tm_get(c->st, s, i), rs[i]);
            }
        }
        test_free(y);
        test_free(s);
    }
    for (int i = 0; i < 6; i++) {
        test_free(x[i]);
    }
    test_free(ry);
    test_free(rs);
}

static void test_linear_attention(void **state)
{
    (void)state;
    static const la_case cases[] = {
        {"la_linear", "linear", 2, 3, 2, 2, 3, 5, false, false, 0, 0, F32, F32},
        {"la_linear_past", "linear", 1, 4, 3, 3, 2, 3, true, false, 0, 0, F32, F32},
        {"la_gated_key", "gated", 2, 3, 2, 2, 4, 3, true, true, 0, 0, F32, F32},
        {"la_gated_head", "gated", 1, 5, 4, 2, 3, 2, false, false, 0, 0.5f, F32, F32},
        {"la_delta", "delta", 2, 4, 2, 2, 3, 3, true, false, 2, 0, F32, F32},
        {"la_gated_delta_gqa", NULL, 2, 3, 6, 2, 3, 4, true, true, 2, 0, F32, F32},
        {"la_gated_delta_mqa", NULL, 1, 3, 3, 1, 5, 2, false, true, 1, 0, F32, F32},
        {"la_f16", NULL, 1, 3, 2, 2, 4, 4, true, true, 2, 0, F16, F16},
        {"la_state_f32", "delta", 1, 2, 2, 1, 3, 3, true, false, 1, 0.25f, F16, F32},
    };
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        la_run(&cases[i], pool);
    }
    em_threadpool_destroy(pool);
}

/* One token, one head, Dk = Dv = 1, q = 2, k = 3, v = 4, past = 1, scale 1: linear S = 1 + 12,
 * o = 26; gated (decay ln 0.5) S = 0.5 + 12, o = 25; delta (beta 0.5) v' = 0.5 (4 - 3) = 0.5,
 * S = 1 + 1.5, o = 5; gated_delta v' = 0.5 (4 - 1.5) = 1.25, S = 0.5 + 3.75, o = 8.5. */
static void test_linear_attention_by_hand(void **state)
{
    (void)state;
    static const char *const rules[] = {"linear", "gated", "delta", "gated_delta"};
    static const double want[4] = {26, 25, 5, 8.5};
    float q = 2, k = 3, v = 4, past = 1, decay = (float)log(0.5), beta = 0.5f, y, s;
    int64_t d3[3] = {1, 1, 1}, d4[4] = {1, 1, 1, 1};
    for (int r = 0; r < 4; r++) {
        em_tensor in[6], out[2];
        t_tensor(&in[0], F32, 3, d3, &q);
        t_tensor(&in[1], F32, 3, d3, &k);
        t_tensor(&in[2], F32, 3, d3, &v);
        t_tensor(&in[3], F32, 4, d4, &past);
        t_tensor(&in[4], F32, 3, d3, &decay);
        t_tensor(&in[5], F32, 3, d3, &beta);
        if (!(r & 1)) {
            t_absent(&in[4]);
        }
        t_tensor(&out[0], F32, 3, d3, &y);
        t_tensor(&out[1], F32, 4, d4, &s);
        t_node tn;
        t_node_init(&tn, EM_OP_LINEARATTENTION, rules[r]);
        t_set_int(&tn, "q_num_heads", 1);
        t_set_int(&tn, "kv_num_heads", 1);
        t_set_string(&tn, "update_rule", rules[r]);
        const em_kernel *kern = t_kernel(EM_OP_LINEARATTENTION, EMBER_DTYPE_UNDEFINED);
        t_expect_ok(t_run(kern, &tn.n, in, r >= 2 ? 6 : 5, out, 2, NULL), rules[r]);
        if (!t_close(y, want[r], 1e-5, 1e-6) || !t_close(s, want[r] / 2, 1e-5, 1e-6)) {
            fail_msg("%s: output %g, state %g; expected %g, %g", rules[r], (double)y, (double)s,
                     want[r], want[r] / 2);
        }
    }
}

static void test_linear_attention_errors(void **state)
{
    (void)state;
    float buf[256] = {0};
    int64_t d[3] = {1, 2, 8}, bd[3] = {1, 2, 3};
    static const struct {
        const char *name, *rule;
        int64_t hq, hkv;
        int n_in;
    } bad[] = {
        {"la_heads", "linear", 3, 2, 3},      {"la_hidden", "linear", 3, 3, 3},
        {"la_needs_decay", "gated", 2, 2, 3}, {"la_forbids_beta", "linear", 2, 2, 6},
        {"la_beta_shape", "delta", 2, 2, 6},  {"la_rule", "quadratic", 2, 2, 3},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        em_tensor in[6], out[2];
        for (int j = 0; j < 3; j++) {
            t_tensor(&in[j], F32, 3, d, buf);
        }
        t_absent(&in[3]);
        t_absent(&in[4]);
        t_tensor(&in[5], F32, 3, bd, buf); /* last dim 3: neither Hkv (2) nor 1 */
        int64_t yd[3] = {1, 2, 8}, sd[4] = {1, bad[i].hkv, 4, 4};
        t_tensor(&out[0], F32, 3, yd, buf);
        t_tensor(&out[1], F32, 4, sd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_LINEARATTENTION, bad[i].name);
        t_set_int(&tn, "q_num_heads", bad[i].hq);
        t_set_int(&tn, "kv_num_heads", bad[i].hkv);
        t_set_string(&tn, "update_rule", bad[i].rule);
        const em_kernel *k = t_kernel(EM_OP_LINEARATTENTION, EMBER_DTYPE_UNDEFINED);
        t_expect_error(t_run(k, &tn.n, in, bad[i].n_in, out, 2, NULL), EMBER_ERR_INVALID_MODEL,
                       bad[i].name, bad[i].name);
    }
}

/* ---- CausalConvWithState ------------------------------------------------------------------- */

typedef struct cc_case {
    const char *name;
    int64_t b, c, len, k;
    bool bias, past;
    const char *act;
    ember_dtype dt;
} cc_case;

static void cc_run(const cc_case *c)
{
    const int64_t plen = c->len + c->k - 1, nx = c->b * c->c * c->len,
                  ns = c->b * c->c * (c->k - 1);
    int64_t xd[3] = {c->b, c->c, c->len}, wd[3] = {c->c, 1, c->k}, sd[3] = {c->b, c->c, c->k - 1};
    void *x = tm_buf(c->dt, nx), *w = tm_buf(c->dt, c->c * c->k), *bias = tm_buf(c->dt, c->c);
    void *past = tm_buf(c->dt, ns), *y = tm_buf(c->dt, nx), *state = tm_buf(c->dt, ns);
    tm_fill(c->dt, x, nx, 51, (tm_range){-2, 2});
    tm_fill(c->dt, w, c->c * c->k, 52, (tm_range){-1, 1});
    tm_fill(c->dt, bias, c->c, 53, (tm_range){-1, 1});
    tm_fill(c->dt, past, ns, 54, (tm_range){-3, 3});
    double *padded = t_f64(c->b * c->c * plen), *ry = t_f64(nx);
    for (int64_t bc = 0; bc < c->b * c->c; bc++) {
        for (int64_t p = 0; p < plen; p++) {
            padded[bc * plen + p] = p >= c->k - 1 ? tm_get(c->dt, x, bc * c->len + p - (c->k - 1))
                                    : c->past     ? tm_get(c->dt, past, bc * (c->k - 1) + p)
                                                  : 0.0;
        }
        for (int64_t l = 0; l < c->len; l++) {
            double acc = c->bias ? tm_get(c->dt, bias, bc % c->c) : 0.0;
            for (int64_t t = 0; t < c->k; t++) {
                acc += tm_get(c->dt, w, bc % c->c * c->k + t) * padded[bc * plen + l + t];
            }
            ry[bc * c->len + l] = c->act != NULL ? acc / (1.0 + exp(-acc)) : acc;
        }
    }
    em_tensor in[4], out[2];
    t_tensor(&in[0], c->dt, 3, xd, x);
    t_tensor(&in[1], c->dt, 3, wd, w);
    t_tensor(&in[2], c->dt, 1, &c->c, bias);
    t_tensor(&in[3], c->dt, 3, sd, past);
    if (!c->bias) {
        t_absent(&in[2]);
    }
    t_tensor(&out[0], c->dt, 3, xd, y);
    t_tensor(&out[1], c->dt, 3, sd, state);
    t_node tn;
    t_node_init(&tn, EM_OP_CAUSALCONVWITHSTATE, c->name);
    if (c->act != NULL) {
        t_set_string(&tn, "activation", c->act);
    }
    const em_kernel *k = t_kernel(EM_OP_CAUSALCONVWITHSTATE, EMBER_DTYPE_UNDEFINED);
    t_expect_ok(t_run(k, &tn.n, in, c->past ? 4 : c->bias ? 3 : 2, out, 2, NULL), c->name);
    double tol = c->dt == F16 ? 5e-3 : 1e-6;
    for (int64_t i = 0; i < nx; i++) {
        if (!t_close(tm_get(c->dt, y, i), ry[i], tol, tol)) {
            fail_msg("case %s: output[%lld] = %.9g, expected %.9g", c->name, (long long)i,
                     tm_get(c->dt, y, i), ry[i]);
        }
    }
    for (int64_t i = 0; i < ns; i++) { /* the last k - 1 padded positions, exactly */
        double want = padded[i / (c->k - 1) * plen + c->len + i % (c->k - 1)];
        if (tm_get(c->dt, state, i) != want) {
            fail_msg("case %s: present_state[%lld] = %.9g, expected %.9g", c->name, (long long)i,
                     tm_get(c->dt, state, i), want);
        }
    }
    void *bufs[] = {x, w, bias, past, y, state, padded, ry};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
        test_free(bufs[i]);
    }
}

static void test_causal_conv(void **state)
{
    (void)state;
    static const cc_case cases[] = {
        {"cc_basic", 2, 3, 7, 4, false, false, NULL, F32},
        {"cc_bias_past", 2, 3, 5, 3, true, true, NULL, F32},
        {"cc_decode", 3, 2, 1, 4, true, true, "silu", F32},
        {"cc_k1", 2, 4, 6, 1, true, false, NULL, F32},
        {"cc_short", 1, 3, 2, 5, false, true, "swish", F32},
        {"cc_short_no_past", 2, 2, 2, 5, false, false, NULL, F32},
        {"cc_f16_silu", 2, 3, 6, 3, true, true, "silu", F16},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cc_run(&cases[i]);
    }
}

static void test_causal_conv_errors(void **state)
{
    (void)state;
    float buf[128] = {0};
    int64_t xd[3] = {1, 3, 4}, wd_bad[3] = {2, 1, 3}, wd[3] = {3, 1, 3}, sd_bad[3] = {1, 3, 3};
    static const char *const names[] = {"cc_weight", "cc_past_shape", "cc_activation"};
    for (int i = 0; i < 3; i++) {
        em_tensor in[4], out[1];
        t_tensor(&in[0], F32, 3, xd, buf);
        t_tensor(&in[1], F32, 3, i == 0 ? wd_bad : wd, buf);
        t_absent(&in[2]);
        t_tensor(&in[3], F32, 3, sd_bad, buf); /* k - 1 = 2, not 3 */
        t_tensor(&out[0], F32, 3, xd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_CAUSALCONVWITHSTATE, names[i]);
        if (i == 2) {
            t_set_string(&tn, "activation", "gelu");
        }
        const em_kernel *k = t_kernel(EM_OP_CAUSALCONVWITHSTATE, EMBER_DTYPE_UNDEFINED);
        t_expect_error(t_run(k, &tn.n, in, i == 1 ? 4 : 2, out, 1, NULL), EMBER_ERR_INVALID_MODEL,
                       names[i], names[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linear_attention),
        cmocka_unit_test(test_linear_attention_by_hand),
        cmocka_unit_test(test_linear_attention_errors),
        cmocka_unit_test(test_causal_conv),
        cmocka_unit_test(test_causal_conv_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
