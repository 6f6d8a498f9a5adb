/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FlexAttention of ai.onnx.preview, expanded at load (loaders/onnx/onnx_flex.c), run through
 * ember.h on models built in memory (onnx_flex_build.h). Expected outputs come from the naive
 * attention in double below, where score_mod / prob_mod are C functions of the element and its
 * query / key positions. Covered: default and given scales (a negative one too), GQA, odd
 * sizes and differing head sizes, f32 / f16 / f64 inputs and softmax_precision, symbolic and
 * undeclared shapes (GQA and the rank check at run time), inputs computed by earlier nodes,
 * modifiers with initializers and Constant nodes whose names clash with the main graph's,
 * modifiers reading the enclosing graph or returning its value, an If inside score_mod reading
 * the modifier's values, an identity modifier, and FlexAttention inside If and Loop bodies
 * (types known only at run time). Models use test_allocator(), so leaks fail the test.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/rng.h"
#include "onnx_flex_build.h"

/* ---- the reference ---- */

typedef double (*mod_fn)(const void *ctx, int l, int s, double x);

/* Initialised positionally in the tests: {B, Hq, Hkv, L, S, E, Ev, scale, score_mod, prob_mod,
 * ctx}; scale 0 stands for the default 1 / sqrt(E). */
typedef struct att {
    int B, Hq, Hkv, L, S, E, Ev;
    double scale;
    mod_fn score_mod, prob_mod;
    const void *ctx;
} att;

/* Y[b, h, l, :] = softmax_s(mod(scale * Q[b, h, l, :] . K[b, h / g, s, :])) V[b, h / g, s, :]
 * with g = Hq / Hkv. */
static void ref_attention(const att *a, const double *q, const double *k, const double *v,
                          double *y)
{
    double scale = a->scale != 0 ? a->scale : 1.0 / sqrt((double)a->E), p[64];
    int g = a->Hq / a->Hkv;
    assert_true(a->S <= 64);
    for (int bh = 0; bh < a->B * a->Hq; bh++) {
        int kv = (bh / a->Hq) * a->Hkv + (bh % a->Hq) / g;
        for (int l = 0; l < a->L; l++) {
            const double *ql = q + ((size_t)bh * a->L + l) * a->E;
            double mx = -INFINITY, sum = 0;
            for (int s = 0; s < a->S; s++) {
                const double *ks = k + ((size_t)kv * a->S + s) * a->E;
                double d = 0;
                for (int e = 0; e < a->E; e++) {
                    d += ql[e] * ks[e];
                }
                p[s] = a->score_mod != NULL ? a->score_mod(a->ctx, l, s, d * scale) : d * scale;
                mx = p[s] > mx ? p[s] : mx;
            }
            for (int s = 0; s < a->S; s++) {
                p[s] = exp(p[s] - mx);
                sum += p[s];
            }
            for (int s = 0; s < a->S; s++) {
                p[s] /= sum;
                p[s] = a->prob_mod != NULL ? a->prob_mod(a->ctx, l, s, p[s]) : p[s];
            }
            for (int j = 0; j < a->Ev; j++) {
                double acc = 0;
                for (int s = 0; s < a->S; s++) {
                    acc += p[s] * v[((size_t)kv * a->S + s) * a->Ev + j];
                }
                y[((size_t)bh * a->L + l) * a->Ev + j] = acc;
            }
        }
    }
}

/* A random tensor of `elem` and its values as stored. */
static ember_tensor *rand_tensor(test_rng *r, int elem, const int64_t *dims, int rank, double *vals)
{
    ember_tensor *t = NULL;
    OK(ember_tensor_create((ember_dtype)elem, dims, rank, &t));
    uint8_t *d = ember_tensor_data(t);
    for (int64_t i = 0; i < ember_tensor_elem_count(t); i++) {
        vals[i] = put_elem(elem, d + (size_t)i * elem_size(elem), test_rng_float(r, -1, 1));
    }
    return t;
}

/* Runs `m` (inputs Q, K, V, then `extra`) on random data of `elem` shaped by `a` and compares
 * its output (a leading 1 allowed) with the reference within tol (1 + |want|). Returns false
 * when ember lacks a kernel for the run (the caller skips). */
static bool run_att(ember_model *m, int elem, const att *a, ember_tensor *const *extra, int n_extra,
                    double tol)
{
    test_rng r = {42};
    int64_t dq[4] = {a->B, a->Hq, a->L, a->E}, dk[4] = {a->B, a->Hkv, a->S, a->E};
    int64_t dv[4] = {a->B, a->Hkv, a->S, a->Ev};
    size_t nq = (size_t)(a->B * a->Hq * a->L * a->E), nk = (size_t)(a->B * a->Hkv * a->S * a->E);
    size_t nv = (size_t)(a->B * a->Hkv * a->S * a->Ev), ny = (size_t)(a->B * a->Hq * a->L * a->Ev);
    double *q = malloc(nq * 8), *k = malloc(nk * 8), *v = malloc(nv * 8), *y = malloc(ny * 8);
    ember_tensor *in[8] = {rand_tensor(&r, elem, dq, 4, q), rand_tensor(&r, elem, dk, 4, k),
                           rand_tensor(&r, elem, dv, 4, v)};
    ember_tensor *out[1] = {NULL};
    ember_session *s = NULL;
    for (int i = 0; i < n_extra; i++) {
        in[3 + i] = extra[i];
    }
    ref_attention(a, q, k, v, y);
    ember_status *st = ember_session_create(m, NULL, &s);
    if (st == NULL) {
        st = ember_session_run(s, in, (size_t)(3 + n_extra), out, 1);
    }
    bool ran = st == NULL;
    if (st != NULL && strstr(ember_status_message(st), "no CPU kernel") == NULL) {
        fail_msg("run: %s", ember_status_message(st));
    }
    ember_status_destroy(st);
    if (ran) {
        assert_int_equal(ember_tensor_dtype(out[0]), elem);
        assert_int_equal(ember_tensor_elem_count(out[0]), (int64_t)ny);
        const int64_t *od = ember_tensor_dims(out[0]);
        int lead = ember_tensor_rank(out[0]) - 4;
        assert_true(lead == 0 || (lead == 1 && od[0] == 1));
        assert_int_equal(od[lead + 1], a->Hq);
        assert_int_equal(od[lead + 3], a->Ev);
        const uint8_t *d = ember_tensor_data(out[0]);
        for (size_t i = 0; i < ny; i++) {
            double got, want = y[i];
            if (elem == 10) {
                got = from_f16(*(const uint16_t *)(const void *)(d + i * 2));
            } else if (elem == 1) {
                got = ((const float *)(const void *)d)[i];
            } else {
                got = ((const double *)(const void *)d)[i];
            }
            if (!(fabs(got - want) <= tol * (1 + fabs(want)))) {
                fail_msg("element %zu is %.9g, expected %.9g", i, got, want);
            }
        }
    }
    ember_tensor_destroy(out[0]);
    for (int i = 0; i < 3; i++) {
        ember_tensor_destroy(in[i]);
    }
    ember_session_destroy(s);
    free(q);
    free(k);
    free(v);
    free(y);
    return ran;
}

/* Loads the graph and runs it (elem, tol: as run_att) against the reference; false when ember
 * lacks a kernel. */
static bool load_run(tb *b, Onnx__GraphProto *g, int elem, const att *a, ember_tensor *const *extra,
                     int n_extra, double tol)
{
    ember_model *m = NULL;
    OK(tb_load(b, g, 1, NULL, &m));
    bool ran = run_att(m, elem, a, extra, n_extra, tol);
    ember_model_destroy(m);
    return ran;
}

static void check_f32(tb *b, Onnx__GraphProto *g, const att *a, ember_tensor *const *extra,
                      int n_extra)
{
    assert_true(load_run(b, g, 1, a, extra, n_extra, 1e-5));
}

/* ---- runs ---- */

/* Inputs as tb_vis says, node "fa" (FlexAttention on Q, K, V) with both modifiers, output Y. */
static Onnx__GraphProto *mods_graph(tb *b, Onnx__GraphProto *sm, Onnx__GraphProto *pm,
                                    const char *inputs)
{
    Onnx__NodeProto *fa = tb_flex(b, "Q,K,V", "Y");
    tb_attr_g(b, fa, "score_mod", sm);
    tb_attr_g(b, fa, "prob_mod", pm);
    return tb_graph(b, LIST(fa), tb_vis(b, inputs), tb_vis(b, "Y:1"), NONE);
}

static void test_basic(void **state)
{
    (void)state;
    tb b = {.n = 0};
    /* odd sizes, V's head size differs from Q's and K's */
    att a = {2, 3, 3, 5, 7, 6, 4, 0, NULL, NULL, NULL};
    check_f32(&b, flex_graph(&b, 1, "2,3,5,6", "2,3,7,6", "2,3,7,4", tb_flex(&b, "Q,K,V", "Y")), &a,
              NULL, 0);
    /* GQA: 6 query heads on 2 K / V heads, a given scale */
    att g = {1, 6, 2, 3, 5, 4, 3, 0.3, NULL, NULL, NULL};
    Onnx__NodeProto *fa = tb_flex(&b, "Q,K,V", "Y");
    tb_attr_f(&b, fa, "scale", 0.3f);
    check_f32(&b, flex_graph(&b, 1, "1,6,3,4", "1,2,5,4", "1,2,5,3", fa), &g, NULL, 0);
    /* a negative scale is applied as it is (ONNX's body would take its square root) */
    att n = {1, 2, 1, 4, 3, 5, 2, -0.75, NULL, NULL, NULL};
    fa = tb_flex(&b, "Q,K,V", "Y");
    tb_attr_f(&b, fa, "scale", -0.75f);
    check_f32(&b, flex_graph(&b, 1, "1,2,4,5", "1,1,3,5", "1,1,3,2", fa), &n, NULL, 0);
    tb_free(&b);
}

/* Shapes known only at run time: symbolic dims (GQA decided at run time when the head counts
 * are different symbols), undeclared shapes (checked rank 4 at run time), and inputs computed
 * by earlier nodes. */
static void test_shapes(void **state)
{
    (void)state;
    tb b = {.n = 0};
    ember_model *m = NULL;
    att a = {2, 4, 2, 3, 5, 6, 2, 0, NULL, NULL, NULL};
    check_f32(&b,
              flex_graph(&b, 1, "N,Hq,L,6", "N,Hkv,S,6", "N,Hkv,S,2", tb_flex(&b, "Q,K,V", "Y")),
              &a, NULL, 0);
    att same = {2, 3, 3, 3, 2, 4, 5, 0, NULL, NULL, NULL};
    check_f32(&b, flex_graph(&b, 1, "N,H,L,E", "N,H,S,E", "N,H,S,D", tb_flex(&b, "Q,K,V", "Y")),
              &same, NULL, 0);
    check_f32(&b, flex_graph(&b, 1, NULL, NULL, NULL, tb_flex(&b, "Q,K,V", "Y")), &a, NULL, 0);
    /* Q, K, V from nodes: their types and shapes are inferred at load */
    Onnx__GraphProto *g =
        tb_graph(&b,
                 LIST(tb_node(&b, "Identity", "Q", "q1"), tb_node(&b, "Neg", "K", "k1"),
                      tb_node(&b, "Neg", "k1", "k2"), tb_node(&b, "Identity", "V", "v1"),
                      tb_flex(&b, "q1,k2,v1", "Y")),
                 tb_vis(&b, "Q:1:2,4,3,6 K:1:2,2,5,6 V:1:2,2,5,2"), tb_vis(&b, "Y:1"), NONE);
    check_f32(&b, g, &a, NULL, 0);
    /* undeclared ranks: a rank-3 Q is refused at run time */
    OK(tb_load(&b, flex_graph(&b, 1, NULL, NULL, NULL, tb_flex(&b, "Q,K,V", "Y")), 1, NULL, &m));
    int64_t d3[3] = {2, 3, 6}, d4[4] = {2, 3, 5, 6};
    ember_tensor *in[3] = {NULL}, *out[1] = {NULL};
    ember_session *s = NULL;
    OK(ember_tensor_create(EMBER_DTYPE_F32, d3, 3, &in[0]));
    OK(ember_tensor_create(EMBER_DTYPE_F32, d4, 4, &in[1]));
    OK(ember_tensor_create(EMBER_DTYPE_F32, d4, 4, &in[2]));
    OK(ember_session_create(m, NULL, &s));
    ember_status *st = ember_session_run(s, in, 3, out, 1);
    assert_non_null(st);
    assert_non_null(strstr(ember_status_message(st), "fa"));
    ember_status_destroy(st);
    ember_session_destroy(s);
    for (int i = 0; i < 3; i++) {
        ember_tensor_destroy(in[i]);
    }
    ember_model_destroy(m);
    tb_free(&b);
}

static double mod_clash(const void *ctx, int l, int s, double x)
{
    (void)ctx, (void)l, (void)s;
    return (x + 0.25) * 2.0;
}

static double mod_weight(const void *ctx, int l, int s, double x)
{
    (void)l;
    return x * ((const double *)ctx)[s];
}

static double mod_causal_bias(const void *ctx, int l, int s, double x)
{
    bool flag = *(const bool *)ctx;
    return flag ? (s > l ? -INFINITY : x + 0.75) : x;
}

/* score_mod with an initializer named K and a Constant named Q, its result named Y (all names
 * of the main graph); prob_mod weighting by the main graph's input W. */
static void test_modifiers(void **state)
{
    (void)state;
    tb b = {.n = 0};
    Onnx__NodeProto *c = tb_node(&b, "Constant", "", "Q");
    tb_attr(&b, c, "value", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR)->t =
        tb_scalar(&b, "two", 1, 2.0);
    Onnx__GraphProto *sm = tb_graph(
        &b, LIST(c, tb_node(&b, "Add", "x,K", "sum"), tb_node(&b, "Mul", "sum,Q", "Y")),
        tb_vis(&b, "x:1:B,H,L,S"), tb_vis(&b, "Y:1:B,H,L,S"), LIST(tb_scalar(&b, "K", 1, 0.25)));
    Onnx__GraphProto *pm = tb_graph(&b, LIST(tb_node(&b, "Mul", "p,W", "pw")), tb_vis(&b, "p"),
                                    tb_vis(&b, "pw"), NONE);
    Onnx__GraphProto *g = mods_graph(&b, sm, pm, "Q:1:1,2,3,4 K:1:1,2,5,4 V:1:1,2,5,3 W:1:5");
    double w[5] = {0.5, 1.5, -1.0, 2.0, 0.25};
    int64_t n5 = 5;
    ember_tensor *wt = NULL;
    OK(ember_tensor_create(EMBER_DTYPE_F32, &n5, 1, &wt));
    for (int i = 0; i < 5; i++) {
        ((float *)ember_tensor_data(wt))[i] = (float)w[i];
    }
    att a = {1, 2, 2, 3, 5, 4, 3, 0, mod_clash, mod_weight, w};
    check_f32(&b, g, &a, &wt, 1);
    ember_tensor_destroy(wt);
    tb_free(&b);
}

/* score_mod holding an If on the main graph's input `flag`: its then-branch reads the
 * modifier's input and a value the modifier computes, and masks with Trilu; its else-branch
 * returns the modifier's input. Then an identity prob_mod. */
static void test_nested(void **state)
{
    (void)state;
    tb b = {.n = 0};
    Onnx__NodeProto *tri = tb_node(&b, "Trilu", "ones", "tri");
    tb_attr_i(&b, tri, "upper", 0);
    Onnx__GraphProto *then_g = tb_graph(&b,
                                        LIST(tri, tb_node(&b, "Cast", "tri", "keep"),
                                             tb_node(&b, "Add", "scores,bias", "biased"),
                                             tb_node(&b, "Where", "keep,biased,ninf", "masked")),
                                        NONE, tb_vis(&b, "masked"), NONE);
    tb_attr_i(&b, then_g->node[1], "to", 9);
    Onnx__GraphProto *else_g = tb_graph(&b, NONE, NONE, tb_vis(&b, "scores"), NONE);
    Onnx__NodeProto *iff = tb_node(&b, "If", "flag", "out");
    tb_attr_g(&b, iff, "then_branch", then_g);
    tb_attr_g(&b, iff, "else_branch", else_g);
    double ones[20];
    for (int i = 0; i < 20; i++) {
        ones[i] = 1;
    }
    Onnx__GraphProto *sm =
        tb_graph(&b, LIST(tb_node(&b, "Identity", "b0", "bias"), iff), tb_vis(&b, "scores:1"),
                 tb_vis(&b, "out:1"),
                 LIST(tb_scalar(&b, "b0", 1, 0.75), tb_scalar(&b, "ninf", 1, -INFINITY),
                      tb_tensor(&b, "ones", 1, "4,5", ones)));
    Onnx__GraphProto *pm =
        tb_graph(&b, NONE, tb_vis(&b, "p:1:B,H,L,S"), tb_vis(&b, "p:1:B,H,L,S"), NONE);
    Onnx__GraphProto *g = mods_graph(&b, sm, pm, "Q:1:2,1,4,3 K:1:2,1,5,3 V:1:2,1,5,2 flag:9:");
    ember_model *m = NULL;
    OK(tb_load(&b, g, 1, NULL, &m));
    for (int f = 0; f < 2; f++) {
        bool flag = f == 1;
        ember_tensor *ft = NULL;
        OK(ember_tensor_create(EMBER_DTYPE_BOOL, NULL, 0, &ft));
        *(uint8_t *)ember_tensor_data(ft) = flag;
        att a = {2, 1, 1, 4, 5, 3, 2, 0, mod_causal_bias, NULL, &flag};
        assert_true(run_att(m, 1, &a, &ft, 1, 1e-5));
        ember_tensor_destroy(ft);
    }
    ember_model_destroy(m);
    tb_free(&b);
}

static double mod_replace(const void *ctx, int l, int s, double x)
{
    (void)x;
    return ((const double *)ctx)[l * 3 + s];
}

/* FlexAttention in an If branch (depth 1: Q, K, V and P captured from the main graph), whose
 * prob_mod returns the main graph's P; the else branch runs it plain. */
static void test_in_if(void **state)
{
    (void)state;
    tb b = {.n = 0};
    Onnx__GraphProto *pm = tb_graph(&b, NONE, tb_vis(&b, "p:1"), tb_vis(&b, "P:1"), NONE);
    Onnx__NodeProto *fa1 = tb_flex(&b, "Q,K,V", "y1"), *fa2 = tb_flex(&b, "Q,K,V", "y2");
    tb_attr_g(&b, fa1, "prob_mod", pm);
    Onnx__NodeProto *iff = tb_node(&b, "If", "flag", "Y");
    tb_attr_g(&b, iff, "then_branch", tb_graph(&b, LIST(fa1), NONE, tb_vis(&b, "y1"), NONE));
    tb_attr_g(&b, iff, "else_branch", tb_graph(&b, LIST(fa2), NONE, tb_vis(&b, "y2"), NONE));
    Onnx__GraphProto *g = tb_graph(
        &b, LIST(iff), tb_vis(&b, "Q:1:1,1,2,4 K:1:1,1,3,4 V:1:1,1,3,2 flag:9: P:1:1,1,2,3"),
        tb_vis(&b, "Y:1"), NONE);
    double pv[6] = {0.25, 0.5, 0.25, 1.0, 0.0, -0.5};
    int64_t pd[4] = {1, 1, 2, 3};
    ember_model *m = NULL;
    OK(tb_load(&b, g, 1, NULL, &m));
    for (int f = 0; f < 2; f++) {
        ember_tensor *ex[2] = {NULL};
        OK(ember_tensor_create(EMBER_DTYPE_BOOL, NULL, 0, &ex[0]));
        OK(ember_tensor_create(EMBER_DTYPE_F32, pd, 4, &ex[1]));
        *(uint8_t *)ember_tensor_data(ex[0]) = (uint8_t)f;
        for (int i = 0; i < 6; i++) {
            ((float *)ember_tensor_data(ex[1]))[i] = (float)pv[i];
        }
        att a = {1, 1, 1, 2, 3, 4, 2, 0, NULL, f ? mod_replace : NULL, pv};
        assert_true(run_att(m, 1, &a, ex, 2, 1e-5));
        ember_tensor_destroy(ex[0]);
        ember_tensor_destroy(ex[1]);
    }
    ember_model_destroy(m);
    tb_free(&b);
}

/* f16 inputs (softmax in f32 by default), f32 inputs with softmax in f16, and the Loop body. */
static void test_f16(void **state)
{
    (void)state;
    tb b = {.n = 0};
    att a = {1, 2, 2, 3, 5, 4, 3, 0, NULL, NULL, NULL};
    assert_true(
        load_run(&b, flex_graph(&b, 10, "1,2,3,4", "1,2,5,4", "1,2,5,3", tb_flex(&b, "Q,K,V", "Y")),
                 10, &a, NULL, 0, 2e-3));
    Onnx__NodeProto *fa = tb_flex(&b, "Q,K,V", "Y");
    tb_attr_i(&b, fa, "softmax_precision", 10);
    assert_true(
        load_run(&b, flex_graph(&b, 1, "1,2,3,4", "1,2,5,4", "1,2,5,3", fa), 1, &a, NULL, 0, 4e-3));
    assert_true(load_run(&b, loop_graph(&b, true), 10, &a, NULL, 0, 2e-3));
    tb_free(&b);
}

/* f64 inputs, and f32 inputs with softmax in f64. The scale factor sqrt(1 / sqrt(E)) is a float
 * in ONNX's function body (onnx_flex.c computes it in f32, as the reference does), so the f64
 * result carries that factor's f32 rounding: about 6e-8 relative, not f64's 1e-16. */
static void test_double(void **state)
{
    (void)state;
    tb b = {.n = 0};
    att a = {2, 4, 2, 3, 4, 5, 3, 0, NULL, NULL, NULL};
    bool ran =
        load_run(&b, flex_graph(&b, 11, "2,4,3,5", "2,2,4,5", "2,2,4,3", tb_flex(&b, "Q,K,V", "Y")),
                 11, &a, NULL, 0, 2e-7);
    Onnx__NodeProto *fa = tb_flex(&b, "Q,K,V", "Y");
    tb_attr_i(&b, fa, "softmax_precision", 11);
    ran = load_run(&b, flex_graph(&b, 1, "2,4,3,5", "2,2,4,5", "2,2,4,3", fa), 1, &a, NULL, 0,
                   1e-6) &&
          ran;
    tb_free(&b);
    if (!ran) {
        skip();
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),     cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_modifiers), cmocka_unit_test(test_nested),
        cmocka_unit_test(test_in_if),     cmocka_unit_test(test_f16),
        cmocka_unit_test(test_double),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
