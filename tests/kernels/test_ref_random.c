/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/random_*_ref.c: the random family checked by properties. Philox4x32-10 against
 * the Random123 known-answer vectors; RandomUniform/RandomNormal and their *Like forms over
 * large samples (every value in [low, high), means and variances within 6 standard errors, a
 * 16-bin histogram, the normal's one-sigma mass) in f32 f64 f16 bf16; seeds (equal seeds give
 * equal first runs, different seeds and successive runs of one state differ, no seed differs
 * between states, threaded runs equal serial ones); Bernoulli rates (constant, per-element,
 * 0 and 1, the conformance input) in several output dtypes; Multinomial class frequencies
 * (i32/i64 outputs, f32 f64 f16 logits, -inf classes never drawn, a dead row); and malformed
 * nodes. Dropout: inference forms (no inputs, not training, ratio 0) copy data with an
 * all-true mask; training keeps elements at rate 1 - ratio with output = data / (1 - ratio)
 * rounded once (f32 f64 f16 bf16 data, f32 f64 f16 ratios), in place and threaded runs equal
 * serial ones, successive runs differ, run-time ratios 1 (all dropped) and NaN (identity),
 * and malformed nodes.
 */
#include "test_ref_util.h"

#include <stdio.h>

/* A prepared kernel kept across runs (prepare sees no input data). */
typedef struct rk {
    const em_kernel *k;
    void *state;
} rk;

static void rk_prepare(rk *r, const em_node *node, em_tensor *in, int n_in, em_tensor *out,
                       int n_out)
{
    em_tensor pin[T_MAX_IO], pout[T_MAX_IO];
    for (int i = 0; i < n_in; i++) {
        pin[i] = in[i];
        pin[i].data = NULL;
    }
    for (int i = 0; i < n_out; i++) {
        pout[i] = out[i];
        pout[i].data = NULL;
    }
    em_kinfo ki = {node, n_in, n_out, pin, pout, test_allocator(), 0, 2, NULL};
    size_t scratch = 0;
    r->k = t_kernel(node->op, EMBER_DTYPE_UNDEFINED);
    t_expect_ok(r->k->prepare(&ki, &r->state, &scratch), node->name);
    assert_int_equal(scratch, 0);
}

static void rk_run(const rk *r, em_tensor *in, em_tensor *out, em_threadpool *pool)
{
    em_kctx ctx = {pool, NULL};
    r->k->run(r->state, in, out, &ctx);
}

static void rk_release(rk *r)
{
    em_free(test_allocator(), r->state);
    r->state = NULL;
}

/* Element i of a float tensor as double, decoded here (not with the kernels' helpers). */
static double get_f(ember_dtype dt, const void *p, int64_t i)
{
    if (dt == EMBER_DTYPE_F32) {
        return ((const float *)p)[i];
    }
    if (dt == EMBER_DTYPE_F64) {
        return ((const double *)p)[i];
    }
    uint16_t h = ((const uint16_t *)p)[i];
    if (dt == EMBER_DTYPE_BF16) {
        uint32_t bits = (uint32_t)h << 16;
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return (h & 0x8000) ? -v : v;
}

/* ---- Philox ------------------------------------------------------------------------------- */

static void test_philox_kat(void **state)
{
    (void)state;
    /* Random123's kat_vectors for philox4x32_10: counter, key, expected output. */
    static const uint32_t kat[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d,
         0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
         0x94fdcceb, 0x5001e420, 0x24126ea1},
    };
    for (int i = 0; i < 3; i++) {
        uint32_t out[4];
        em_rnd_philox(kat[i], kat[i] + 4, out);
        for (int w = 0; w < 4; w++) {
            assert_int_equal(out[w], kat[i][6 + w]);
        }
    }
}

/* ---- RandomUniform / RandomNormal --------------------------------------------------------- */

typedef struct moments {
    double mean, var, min, max;
    int64_t bins[16];
    int64_t within1; /* |x - mean_param| <= scale_param (normal) */
} moments;

static void moments_of(ember_dtype dt, const void *p, int64_t n, double lo, double hi, moments *m)
{
    double s = 0.0, sq = 0.0;
    memset(m, 0, sizeof *m);
    m->min = INFINITY;
    m->max = -INFINITY;
    for (int64_t i = 0; i < n; i++) {
        double v = get_f(dt, p, i);
        s += v;
        m->min = v < m->min ? v : m->min;
        m->max = v > m->max ? v : m->max;
        if (hi > lo) {
            int b = (int)floor((v - lo) / (hi - lo) * 16.0);
            m->bins[b < 0 ? 0 : b > 15 ? 15 : b]++;
            m->within1 += fabs(v - lo) <= hi - lo;
        }
    }
    m->mean = s / (double)n;
    for (int64_t i = 0; i < n; i++) {
        double d = get_f(dt, p, i) - m->mean;
        sq += d * d;
    }
    m->var = sq / (double)(n - 1);
}

/* |got - want| <= 6 standard errors. */
static void near(const char *name, const char *what, double got, double want, double se)
{
    if (!(fabs(got - want) <= 6.0 * se)) {
        fail_msg("case %s: %s = %.6g, expected %.6g +- %.3g", name, what, got, want, 6.0 * se);
    }
}

typedef struct uni_case {
    const char *name;
    em_op op;
    ember_dtype dt;
    float a, b; /* low/high or mean/scale */
    int64_t n;
} uni_case;

static void uniform_normal_check(const uni_case *c, em_threadpool *pool)
{
    void *y = test_calloc((size_t)c->n, em_dtype_size(c->dt));
    em_tensor out[1];
    t_tensor(&out[0], c->dt, 1, &c->n, y);
    t_node tn;
    t_node_init(&tn, c->op, c->name);
    t_set_ints(&tn, "shape", &c->n, 1);
    t_set_int(&tn, "dtype", c->dt);
    t_set_float(&tn, "seed", 3.0f);
    bool normal = c->op == EM_OP_RANDOMNORMAL;
    t_set_float(&tn, normal ? "mean" : "low", c->a);
    t_set_float(&tn, normal ? "scale" : "high", c->b);
    t_expect_ok(t_run(t_kernel(c->op, EMBER_DTYPE_UNDEFINED), &tn.n, NULL, 0, out, 1, pool),
                c->name);
    moments m;
    double n = (double)c->n;
    if (normal) {
        /* bins over [mean - scale, mean + scale]; within1 counts that interval */
        moments_of(c->dt, y, c->n, c->a, c->a + c->b, &m);
        near(c->name, "mean", m.mean, c->a, c->b / sqrt(n));
        near(c->name, "variance", m.var, (double)c->b * c->b, c->b * c->b * sqrt(2.0 / n));
        double p1 = 0.682689492137;
        near(c->name, "mass within one sigma", (double)m.within1 / n, p1, sqrt(p1 * (1 - p1) / n));
    } else {
        double w = (double)c->b - c->a;
        moments_of(c->dt, y, c->n, c->a, c->b, &m);
        if (m.min < c->a || m.max >= c->b) {
            fail_msg("case %s: values span [%g, %g], outside [%g, %g)", c->name, m.min, m.max,
                     (double)c->a, (double)c->b);
        }
        near(c->name, "mean", m.mean, (c->a + (double)c->b) / 2, w / sqrt(12.0 * n));
        near(c->name, "variance", m.var, w * w / 12.0, w * w * sqrt(1.0 / (180.0 * n)));
        for (int b = 0; b < 16 && c->dt != EMBER_DTYPE_BF16; b++) {
            near(c->name, "histogram bin", (double)m.bins[b], n / 16, sqrt(n / 16 * 15 / 16));
        }
    }
    test_free(y);
}

static void test_uniform_normal(void **state)
{
    (void)state;
    /* clang-format off */
    static const uni_case cases[] = {
        {"uniform_f32", EM_OP_RANDOMUNIFORM, EMBER_DTYPE_F32, 0.0f, 1.0f, 200001},
        {"uniform_f32_shift", EM_OP_RANDOMUNIFORM, EMBER_DTYPE_F32, -3.0f, 5.0f, 100000},
        {"uniform_f64", EM_OP_RANDOMUNIFORM, EMBER_DTYPE_F64, 2.0f, 2.5f, 100000},
        {"uniform_f16", EM_OP_RANDOMUNIFORM, EMBER_DTYPE_F16, 0.0f, 1.0f, 100000},
        {"uniform_bf16", EM_OP_RANDOMUNIFORM, EMBER_DTYPE_BF16, -1.0f, 1.0f, 100000},
        {"normal_f32", EM_OP_RANDOMNORMAL, EMBER_DTYPE_F32, 0.0f, 1.0f, 200001},
        {"normal_f64", EM_OP_RANDOMNORMAL, EMBER_DTYPE_F64, 10.0f, 0.25f, 100000},
        {"normal_f16", EM_OP_RANDOMNORMAL, EMBER_DTYPE_F16, -2.0f, 3.0f, 100000},
    };
    /* clang-format on */
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uniform_normal_check(&cases[i], i % 2 ? pool : NULL);
    }
    em_threadpool_destroy(pool);
}

/* A RandomUniform node of n f32 values [0, 1) with an optional seed. */
static void uniform_node(t_node *tn, const char *name, const int64_t *n, bool seeded, float seed)
{
    t_node_init(tn, EM_OP_RANDOMUNIFORM, name);
    t_set_ints(tn, "shape", n, 1);
    if (seeded) {
        t_set_float(tn, "seed", seed);
    }
}

static void test_seeds(void **state)
{
    (void)state;
    const int64_t n = 1001;
    float a[1001], b[1001], c[1001];
    em_tensor out[1];
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    t_node tn, tn2;
    uniform_node(&tn, "seed_a", &n, true, 7.0f);
    uniform_node(&tn2, "seed_b", &n, true, 8.0f);
    rk r1, r2, r3;
    t_tensor(&out[0], EMBER_DTYPE_F32, 1, &n, a);
    rk_prepare(&r1, &tn.n, NULL, 0, out, 1);
    rk_prepare(&r2, &tn.n, NULL, 0, out, 1);
    rk_prepare(&r3, &tn2.n, NULL, 0, out, 1);
    rk_run(&r1, NULL, out, NULL);
    out[0].data = b;
    rk_run(&r2, NULL, out, pool); /* same seed, threaded: equal */
    assert_memory_equal(a, b, sizeof a);
    out[0].data = c;
    rk_run(&r3, NULL, out, NULL); /* another seed: differs */
    assert_memory_not_equal(a, c, sizeof a);
    rk_run(&r1, NULL, out, NULL); /* the second run of a state: differs from its first */
    assert_memory_not_equal(a, c, sizeof a);
    out[0].data = b;
    rk_run(&r2, NULL, out, NULL);
    assert_memory_equal(b, c, sizeof b); /* ... and is reproducible */
    rk_release(&r1);
    rk_release(&r2);
    rk_release(&r3);
    /* No seed: two states differ. */
    uniform_node(&tn, "no_seed", &n, false, 0);
    out[0].data = a;
    rk_prepare(&r1, &tn.n, NULL, 0, out, 1);
    rk_prepare(&r2, &tn.n, NULL, 0, out, 1);
    rk_run(&r1, NULL, out, NULL);
    out[0].data = b;
    rk_run(&r2, NULL, out, NULL);
    assert_memory_not_equal(a, b, sizeof a);
    rk_release(&r1);
    rk_release(&r2);
    em_threadpool_destroy(pool);
}

static void test_like(void **state)
{
    (void)state;
    const int64_t xd[3] = {3, 5, 7};
    double x[105] = {0}, y64[105];
    float y32[105];
    int32_t xi[105] = {0};
    em_tensor in[1], out[1];
    t_node tn;
    /* dtype from the input (f64), normal. */
    t_tensor(&in[0], EMBER_DTYPE_F64, 3, xd, x);
    t_tensor(&out[0], EMBER_DTYPE_F64, 3, xd, y64);
    t_node_init(&tn, EM_OP_RANDOMNORMALLIKE, "normal_like");
    t_set_float(&tn, "seed", 1.0f);
    t_set_float(&tn, "mean", 100.0f);
    t_expect_ok(
        t_run(t_kernel(EM_OP_RANDOMNORMALLIKE, EMBER_DTYPE_UNDEFINED), &tn.n, in, 1, out, 1, NULL),
        "normal_like");
    for (int i = 0; i < 105; i++) {
        assert_true(y64[i] > 90.0 && y64[i] < 110.0);
    }
    /* An int32 input with dtype f32, uniform. */
    t_tensor(&in[0], EMBER_DTYPE_I32, 3, xd, xi);
    t_tensor(&out[0], EMBER_DTYPE_F32, 3, xd, y32);
    t_node_init(&tn, EM_OP_RANDOMUNIFORMLIKE, "uniform_like");
    t_set_int(&tn, "dtype", EMBER_DTYPE_F32);
    t_set_float(&tn, "low", 4.0f);
    t_set_float(&tn, "high", 4.5f);
    t_expect_ok(
        t_run(t_kernel(EM_OP_RANDOMUNIFORMLIKE, EMBER_DTYPE_UNDEFINED), &tn.n, in, 1, out, 1, NULL),
        "uniform_like");
    for (int i = 0; i < 105; i++) {
        assert_true(y32[i] >= 4.0f && y32[i] < 4.5f);
    }
}

/* ---- Bernoulli ---------------------------------------------------------------------------- */

static void bernoulli_run(const char *name, ember_dtype in_dt, const void *p, int64_t n,
                          ember_dtype out_dt, void *y, bool set_dtype)
{
    em_tensor in[1], out[1];
    t_tensor(&in[0], in_dt, 1, &n, (void *)p);
    t_tensor(&out[0], out_dt, 1, &n, y);
    t_node tn;
    t_node_init(&tn, EM_OP_BERNOULLI, name);
    if (set_dtype) {
        t_set_int(&tn, "dtype", out_dt);
    }
    t_set_float(&tn, "seed", 5.0f);
    t_expect_ok(t_run(t_kernel(EM_OP_BERNOULLI, EMBER_DTYPE_UNDEFINED), &tn.n, in, 1, out, 1, NULL),
                name);
}

/* The output as 0/1 doubles, decoded here; fails on any other value. */
static double bit_at(const char *name, ember_dtype dt, const void *y, int64_t i)
{
    double v;
    switch (dt) {
    case EMBER_DTYPE_I32:
        v = ((const int32_t *)y)[i];
        break;
    case EMBER_DTYPE_U8:
    case EMBER_DTYPE_BOOL:
        v = ((const uint8_t *)y)[i];
        break;
    case EMBER_DTYPE_I64:
        v = (double)((const int64_t *)y)[i];
        break;
    default:
        v = get_f(dt, y, i);
        break;
    }
    if (v != 0.0 && v != 1.0) {
        fail_msg("case %s: element %lld is %g, not 0 or 1", name, (long long)i, v);
    }
    return v;
}

static void test_bernoulli_rates(void **state)
{
    (void)state;
    enum { N = 100000 };
    static const ember_dtype outs[] = {EMBER_DTYPE_F32, EMBER_DTYPE_F64, EMBER_DTYPE_I32,
                                       EMBER_DTYPE_I64, EMBER_DTYPE_U8,  EMBER_DTYPE_BOOL,
                                       EMBER_DTYPE_F16, EMBER_DTYPE_BF16};
    float *p = t_f32(N);
    double *pd = t_f64(N);
    void *y = test_calloc(N, 8);
    for (int64_t i = 0; i < N; i++) {
        p[i] = (float)(i % 10) / 10.0f; /* rates 0, 0.1, ..., 0.9 */
        pd[i] = 0.3;
    }
    for (size_t o = 0; o < sizeof outs / sizeof outs[0]; o++) {
        double ones[10] = {0}, all = 0;
        bernoulli_run("bern_per_element", EMBER_DTYPE_F32, p, N, outs[o], y, true);
        for (int64_t i = 0; i < N; i++) {
            ones[i % 10] += bit_at("bern_per_element", outs[o], y, i);
        }
        assert_true(ones[0] == 0.0);
        for (int k = 1; k < 10; k++) {
            double r = k / 10.0, m = N / 10.0;
            near("bern_per_element", "rate", ones[k] / m, r, sqrt(r * (1 - r) / m));
        }
        bernoulli_run("bern_const_f64", EMBER_DTYPE_F64, pd, N, outs[o], y, true);
        for (int64_t i = 0; i < N; i++) {
            all += bit_at("bern_const_f64", outs[o], y, i);
        }
        near("bern_const_f64", "rate", all / N, 0.3, sqrt(0.21 / N));
    }
    /* p = 1 gives ones, the output dtype defaulting to the input's. */
    for (int64_t i = 0; i < N; i++) {
        pd[i] = 1.0;
    }
    bernoulli_run("bern_one", EMBER_DTYPE_F64, pd, N, EMBER_DTYPE_F64, y, false);
    for (int64_t i = 0; i < N; i++) {
        assert_true(((double *)y)[i] == 1.0);
    }
    test_free(p);
    test_free(pd);
    test_free(y);
}

/* ---- Multinomial -------------------------------------------------------------------------- */

/* Logits exactly representable in f16: row 0 = 0 1 2 0.5 -inf, row 1 = 30 everywhere (uniform,
 * far from 0), row 2 = -inf everywhere (no mass: class 0). */
enum { MN_C = 5, MN_S = 40000 };
static const double mn_logits[3][MN_C] = {{0, 1, 2, 0.5, -INFINITY},
                                          {30, 30, 30, 30, 30},
                                          {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY}};
static const uint16_t mn_logits_f16[3][MN_C] = {{0x0000, 0x3c00, 0x4000, 0x3800, 0xfc00},
                                                {0x4f80, 0x4f80, 0x4f80, 0x4f80, 0x4f80},
                                                {0xfc00, 0xfc00, 0xfc00, 0xfc00, 0xfc00}};

static void multinomial_check(ember_dtype in_dt, ember_dtype out_dt, em_threadpool *pool)
{
    unsigned char x[3 * MN_C * 8];
    for (int i = 0; i < 3 * MN_C; i++) {
        double v = mn_logits[i / MN_C][i % MN_C];
        if (in_dt == EMBER_DTYPE_F32) {
            ((float *)x)[i] = (float)v;
        } else if (in_dt == EMBER_DTYPE_F64) {
            ((double *)x)[i] = v;
        } else {
            ((uint16_t *)x)[i] = mn_logits_f16[i / MN_C][i % MN_C];
        }
    }
    const int64_t xd[2] = {3, MN_C}, yd[2] = {3, MN_S};
    void *y = test_calloc(3 * MN_S, 8);
    em_tensor in[1], out[1];
    t_tensor(&in[0], in_dt, 2, xd, x);
    t_tensor(&out[0], out_dt, 2, yd, y);
    t_node tn;
    t_node_init(&tn, EM_OP_MULTINOMIAL, "multinomial");
    t_set_int(&tn, "sample_size", MN_S);
    t_set_float(&tn, "seed", 2.0f);
    if (out_dt != EMBER_DTYPE_I32) {
        t_set_int(&tn, "dtype", out_dt);
    }
    t_expect_ok(
        t_run(t_kernel(EM_OP_MULTINOMIAL, EMBER_DTYPE_UNDEFINED), &tn.n, in, 1, out, 1, pool),
        "multinomial");
    for (int r = 0; r < 3; r++) {
        double counts[MN_C] = {0}, z = 0.0;
        for (int64_t k = 0; k < MN_S; k++) {
            int64_t i = r * MN_S + k;
            int64_t c = out_dt == EMBER_DTYPE_I32 ? ((int32_t *)y)[i] : ((int64_t *)y)[i];
            assert_true(c >= 0 && c < MN_C);
            counts[c]++;
        }
        for (int c = 0; c < MN_C; c++) {
            z += exp(mn_logits[r][c] - (r == 1 ? 30.0 : 0.0));
        }
        for (int c = 0; c < MN_C; c++) {
            double p = r == 2 ? (c == 0) : exp(mn_logits[r][c] - (r == 1 ? 30.0 : 0.0)) / z;
            near("multinomial", "class frequency", counts[c] / MN_S, p, sqrt(p * (1 - p) / MN_S));
            if (p == 0.0) {
                assert_true(counts[c] == 0.0);
            }
        }
    }
    test_free(y);
}

static void test_multinomial(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    multinomial_check(EMBER_DTYPE_F32, EMBER_DTYPE_I32, NULL);
    multinomial_check(EMBER_DTYPE_F64, EMBER_DTYPE_I64, pool);
    multinomial_check(EMBER_DTYPE_F16, EMBER_DTYPE_I32, pool);
    em_threadpool_destroy(pool);
}

/* ---- Malformed nodes ------------------------------------------------------------------------ */

typedef struct rnd_bad {
    const char *name;
    em_op op;
    ember_dtype in_dt, out_dt;
    int in_rank, out_rank;
    int64_t dtype_attr; /* 0: absent */
    int64_t sample_size;
    bool no_shape, swap_range;
} rnd_bad;

static void test_random_errors(void **state)
{
    (void)state;
    double buf[16] = {0};
    static const int64_t dims[2] = {2, 3}, mdims[2] = {2, 1};
    /* clang-format off */
    static const rnd_bad bads[] = {
        {"ru_int_dtype", EM_OP_RANDOMUNIFORM, 0, EMBER_DTYPE_I32, 0, 2, EMBER_DTYPE_I32, 0, false, false},
        {"ru_no_shape", EM_OP_RANDOMUNIFORM, 0, EMBER_DTYPE_F32, 0, 2, 0, 0, true, false},
        {"ru_low_high", EM_OP_RANDOMUNIFORM, 0, EMBER_DTYPE_F32, 0, 2, 0, 0, false, true},
        {"ru_out_shape", EM_OP_RANDOMUNIFORM, 0, EMBER_DTYPE_F32, 0, 1, 0, 0, false, false},
        {"rn_out_dtype", EM_OP_RANDOMNORMAL, 0, EMBER_DTYPE_F64, 0, 2, 0, 0, false, false},
        {"rul_int_input", EM_OP_RANDOMUNIFORMLIKE, EMBER_DTYPE_I64, EMBER_DTYPE_I64, 2, 2, 0, 0,
         false, false},
        {"bern_int_input", EM_OP_BERNOULLI, EMBER_DTYPE_I32, EMBER_DTYPE_I32, 2, 2, 0, 0, false,
         false},
        {"bern_out_dtype", EM_OP_BERNOULLI, EMBER_DTYPE_F32, EMBER_DTYPE_F32, 2, 2,
         EMBER_DTYPE_I32, 0, false, false},
        {"mn_sample0", EM_OP_MULTINOMIAL, EMBER_DTYPE_F32, EMBER_DTYPE_I32, 2, 2, 0, -1, false,
         false},
        {"mn_f32_out", EM_OP_MULTINOMIAL, EMBER_DTYPE_F32, EMBER_DTYPE_F32, 2, 2, EMBER_DTYPE_F32,
         1, false, false},
        {"mn_rank1", EM_OP_MULTINOMIAL, EMBER_DTYPE_F32, EMBER_DTYPE_I32, 1, 2, 0, 1, false,
         false},
    };
    /* clang-format on */
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        const rnd_bad *c = &bads[i];
        bool mn = c->op == EM_OP_MULTINOMIAL;
        em_tensor in[1], out[1];
        t_tensor(&in[0], c->in_dt, c->in_rank, dims, buf);
        t_tensor(&out[0], c->out_dt, c->out_rank, mn ? mdims : dims, buf);
        t_node tn;
        t_node_init(&tn, c->op, c->name);
        if (!c->no_shape) {
            t_set_ints(&tn, "shape", dims, 2);
        }
        if (c->dtype_attr != 0) {
            t_set_int(&tn, "dtype", c->dtype_attr);
        }
        if (c->sample_size != 0) {
            t_set_int(&tn, "sample_size", c->sample_size < 0 ? 0 : c->sample_size);
        }
        if (c->swap_range) {
            t_set_float(&tn, "low", 2.0f);
            t_set_float(&tn, "high", 1.0f);
        }
        int n_in = c->op == EM_OP_RANDOMUNIFORM || c->op == EM_OP_RANDOMNORMAL ? 0 : 1;
        t_expect_error(t_run(t_kernel(c->op, EMBER_DTYPE_UNDEFINED), &tn.n, in, n_in, out, 1, NULL),
                       EMBER_ERR_INVALID_MODEL, c->name, c->name);
    }
    /* A seed of another type. */
    em_tensor out[1];
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, dims, buf);
    t_node tn;
    t_node_init(&tn, EM_OP_RANDOMNORMAL, "rn_seed_string");
    t_set_ints(&tn, "shape", dims, 2);
    t_set_string(&tn, "seed", "zero");
    t_expect_error(
        t_run(t_kernel(EM_OP_RANDOMNORMAL, EMBER_DTYPE_UNDEFINED), &tn.n, NULL, 0, out, 1, NULL),
        EMBER_ERR_INVALID_MODEL, "rn_seed_string", "rn_seed_string");
}

/* ---- Dropout ------------------------------------------------------------------------------ */

/* Dropout of n elements of dt: ratio (f32 unless ratio_dt says otherwise; NULL = absent),
 * training (NULL = absent), outputs y and mask (NULL = one output). konst: inputs prepare sees. */
typedef struct drop_io {
    ember_dtype dt, ratio_dt;
    int64_t n;
    const void *x, *ratio;
    const uint8_t *training;
    void *y;
    uint8_t *mask;
} drop_io;

static ember_status *drop_run(const char *name, const drop_io *d, unsigned konst,
                              em_threadpool *pool)
{
    em_tensor in[3], out[2];
    int n_in = d->training != NULL ? 3 : d->ratio != NULL ? 2 : 1;
    t_tensor(&in[0], d->dt, 1, &d->n, (void *)d->x);
    t_tensor(&in[1], d->ratio_dt, 0, NULL, (void *)d->ratio);
    if (d->ratio == NULL) {
        t_absent(&in[1]);
    }
    t_tensor(&in[2], EMBER_DTYPE_BOOL, 0, NULL, (void *)d->training);
    t_tensor(&out[0], d->dt, 1, &d->n, d->y);
    t_tensor(&out[1], EMBER_DTYPE_BOOL, 1, &d->n, d->mask);
    t_node tn;
    t_node_init(&tn, EM_OP_DROPOUT, name);
    t_set_int(&tn, "seed", 0);
    return t_run_const(t_kernel(EM_OP_DROPOUT, EMBER_DTYPE_UNDEFINED), &tn.n, in, n_in, out,
                       d->mask != NULL ? 2 : 1, pool, konst);
}

static void test_dropout_inference(void **state)
{
    (void)state;
    enum { N = 60 };
    float *x = t_random_f32(N, 9, -3.0f, 3.0f), y[N], r = 0.1f, r0 = 0.0f;
    uint8_t mask[N], no = 0, yes = 1;
    const struct {
        const char *name;
        const float *ratio;
        const uint8_t *training;
    } cases[] = {{"do_default", NULL, NULL},
                 {"do_ratio", &r, NULL},
                 {"do_not_training", &r, &no},
                 {"do_zero_ratio_training", &r0, &yes}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int with_mask = 0; with_mask < 2; with_mask++) {
            drop_io d = {EMBER_DTYPE_F32, EMBER_DTYPE_F32,   N, x,
                         cases[i].ratio,  cases[i].training, y, with_mask ? mask : NULL};
            memset(y, 0, sizeof y);
            memset(mask, 7, sizeof mask);
            t_expect_ok(drop_run(cases[i].name, &d, 0x6, NULL), cases[i].name);
            assert_memory_equal(y, x, sizeof y);
            for (int k = 0; with_mask && k < N; k++) {
                assert_int_equal(mask[k], 1);
            }
        }
    }
    test_free(x);
}

/* Training: every element is 0 or data * 1 / (1 - ratio), the mask says which, at the rate. */
static void dropout_train_check(ember_dtype dt, ember_dtype ratio_dt, double ratio,
                                em_threadpool *pool)
{
    enum { N = 100001 };
    size_t es = em_dtype_size(dt);
    unsigned char *x = test_calloc(N, es), *y = test_calloc(N, es), r[8];
    uint8_t *mask = test_calloc(N, 1), yes = 1;
    float *src = t_random_f32(N, 21, -4.0f, 4.0f);
    for (int64_t i = 0; i < N; i++) {
        if (dt == EMBER_DTYPE_F32) {
            ((float *)x)[i] = src[i];
        } else if (dt == EMBER_DTYPE_F64) {
            ((double *)x)[i] = src[i] * 1.000000123;
        } else { /* f16 / bf16: small integers and halves are exact in both */
            uint16_t h = dt == EMBER_DTYPE_F16 ? 0x3c00 : 0x3f80;      /* 1.0 */
            ((uint16_t *)x)[i] = (uint16_t)(h + (i % 2 ? 0x8000 : 0)); /* +-1 */
        }
    }
    if (ratio_dt == EMBER_DTYPE_F32) {
        float f = (float)ratio;
        memcpy(r, &f, sizeof f);
        ratio = f;
    } else if (ratio_dt == EMBER_DTYPE_F64) {
        memcpy(r, &ratio, sizeof ratio);
    } else {                                         /* f16: ratios of the form k / 4 are exact */
        uint16_t h = ratio == 0.5 ? 0x3800 : 0x3a00; /* 0.5 or 0.75 */
        memcpy(r, &h, sizeof h);
    }
    drop_io d = {dt, ratio_dt, N, x, r, &yes, y, mask};
    t_expect_ok(drop_run("do_train", &d, 0x6, pool), "do_train");
    double scale = 1.0 / (1.0 - ratio), kept = 0;
    for (int64_t i = 0; i < N; i++) {
        double xv = get_f(dt, x, i), yv = get_f(dt, y, i);
        assert_true(mask[i] == 0 || mask[i] == 1);
        kept += mask[i];
        if (!mask[i]) {
            assert_true(yv == 0.0);
        } else if (dt == EMBER_DTYPE_F32) {
            assert_true(((float *)y)[i] == (float)(src[i] * scale)); /* rounded once */
        } else if (dt == EMBER_DTYPE_F64) {
            assert_true(yv == xv * scale);
        } else {
            assert_true(yv == xv * scale); /* +-2 and +-4 are exact in f16 / bf16 */
        }
    }
    near("do_train", "keep rate", kept / N, 1.0 - ratio, sqrt(ratio * (1 - ratio) / N));
    test_free(x);
    test_free(y);
    test_free(mask);
    test_free(src);
}

static void test_dropout_training(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    dropout_train_check(EMBER_DTYPE_F32, EMBER_DTYPE_F32, 0.5, NULL);
    dropout_train_check(EMBER_DTYPE_F32, EMBER_DTYPE_F32, 0.1, pool);
    dropout_train_check(EMBER_DTYPE_F32, EMBER_DTYPE_F64, 0.75, pool);
    dropout_train_check(EMBER_DTYPE_F64, EMBER_DTYPE_F32, 0.3, NULL);
    dropout_train_check(EMBER_DTYPE_F16, EMBER_DTYPE_F16, 0.5, pool);
    dropout_train_check(EMBER_DTYPE_BF16, EMBER_DTYPE_F16, 0.75, NULL);
    em_threadpool_destroy(pool);
}

/* In place, threaded, successive runs; ratio 1 and NaN seen only at run time. */
static void test_dropout_runs(void **state)
{
    (void)state;
    enum { N = 999 };
    float *x = t_random_f32(N, 4, -1.0f, 1.0f), a[N], b[N], ratio = 0.4f;
    uint8_t yes = 1, ma[N], mb[N];
    const int64_t n = N;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "threadpool");
    em_tensor in[3], out[2];
    t_tensor(&in[0], EMBER_DTYPE_F32, 1, &n, x);
    t_tensor(&in[1], EMBER_DTYPE_F32, 0, NULL, &ratio);
    t_tensor(&in[2], EMBER_DTYPE_BOOL, 0, NULL, &yes);
    t_tensor(&out[0], EMBER_DTYPE_F32, 1, &n, a);
    t_tensor(&out[1], EMBER_DTYPE_BOOL, 1, &n, ma);
    t_node tn;
    t_node_init(&tn, EM_OP_DROPOUT, "do_runs");
    t_set_int(&tn, "seed", 42);
    rk r1, r2;
    rk_prepare(&r1, &tn.n, in, 3, out, 2);
    rk_prepare(&r2, &tn.n, in, 3, out, 2);
    rk_run(&r1, in, out, NULL);
    memcpy(b, x, sizeof b);
    em_tensor in2[3] = {in[0], in[1], in[2]}, out2[2] = {out[0], out[1]};
    in2[0].data = b; /* in place, threaded */
    out2[0].data = b;
    out2[1].data = mb;
    rk_run(&r2, in2, out2, pool);
    assert_memory_equal(a, b, sizeof a);
    assert_memory_equal(ma, mb, sizeof ma);
    rk_run(&r1, in, out2, NULL); /* the state's second run: another mask */
    assert_memory_not_equal(ma, mb, sizeof ma);
    ratio = 1.0f; /* at run time: everything dropped */
    rk_run(&r1, in, out, NULL);
    for (int i = 0; i < N; i++) {
        assert_true(a[i] == 0.0f && ma[i] == 0);
    }
    ratio = NAN; /* at run time: read as 0, the identity */
    rk_run(&r1, in, out, NULL);
    assert_memory_equal(a, x, sizeof a);
    rk_release(&r1);
    rk_release(&r2);
    em_threadpool_destroy(pool);
    test_free(x);
}

static void test_dropout_errors(void **state)
{
    (void)state;
    double buf[8] = {0};
    float one = 1.0f, neg = -0.25f;
    int32_t ri = 0;
    static const int64_t n = 4, two = 2, three = 3;
    static const struct {
        const char *name;
        ember_dtype x_dt, r_dt, t_dt, y_dt, m_dt;
        int r_rank;
        const int64_t *y_len;
        int which_ratio; /* 0 buf, 1 one, 2 neg, 3 ri */
        bool string_seed;
    } bads[] = {
        {"dr_ratio_one", EMBER_DTYPE_F32, EMBER_DTYPE_F32, EMBER_DTYPE_BOOL, EMBER_DTYPE_F32,
         EMBER_DTYPE_BOOL, 0, &n, 1, false},
        {"dr_ratio_neg", EMBER_DTYPE_F32, EMBER_DTYPE_F32, EMBER_DTYPE_BOOL, EMBER_DTYPE_F32,
         EMBER_DTYPE_BOOL, 0, &n, 2, false},
        {"dr_ratio_i32", EMBER_DTYPE_F32, EMBER_DTYPE_I32, EMBER_DTYPE_BOOL, EMBER_DTYPE_F32,
         EMBER_DTYPE_BOOL, 0, &n, 3, false},
        {"dr_ratio_two", EMBER_DTYPE_F32, EMBER_DTYPE_F32, EMBER_DTYPE_BOOL, EMBER_DTYPE_F32,
         EMBER_DTYPE_BOOL, 1, &n, 0, false},
        {"dr_training_f32", EMBER_DTYPE_F32, EMBER_DTYPE_F32, EMBER_DTYPE_F32, EMBER_DTYPE_F32,
         EMBER_DTYPE_BOOL, 0, &n, 0, false},
        {"dr_data_i32", EMBER_DTYPE_I32, EMBER_DTYPE_F32, EMBER_DTYPE_BOOL, EMBER_DTYPE_I32,
         EMBER_DTYPE_BOOL, 0, &n, 0, false},
        {"dr_mask_f32", EMBER_DTYPE_F32, EMBER_DTYPE_F32, EMBER_DTYPE_BOOL, EMBER_DTYPE_F32,
         EMBER_DTYPE_F32, 0, &n, 0, false},
        {"dr_out_shape", EMBER_DTYPE_F32, EMBER_DTYPE_F32, EMBER_DTYPE_BOOL, EMBER_DTYPE_F32,
         EMBER_DTYPE_BOOL, 0, &three, 0, false},
        {"dr_seed_string", EMBER_DTYPE_F32, EMBER_DTYPE_F32, EMBER_DTYPE_BOOL, EMBER_DTYPE_F32,
         EMBER_DTYPE_BOOL, 0, &n, 0, true},
    };
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        const void *ratios[4] = {buf, &one, &neg, &ri};
        em_tensor in[3], out[2];
        t_tensor(&in[0], bads[i].x_dt, 1, &n, buf);
        t_tensor(&in[1], bads[i].r_dt, bads[i].r_rank, &two, (void *)ratios[bads[i].which_ratio]);
        t_tensor(&in[2], bads[i].t_dt, 0, NULL, buf);
        t_tensor(&out[0], bads[i].y_dt, 1, bads[i].y_len, buf);
        t_tensor(&out[1], bads[i].m_dt, 1, &n, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_DROPOUT, bads[i].name);
        if (bads[i].string_seed) {
            t_set_string(&tn, "seed", "x");
        }
        t_expect_error(t_run_const(t_kernel(EM_OP_DROPOUT, EMBER_DTYPE_UNDEFINED), &tn.n, in, 3,
                                   out, 2, NULL, 0x2),
                       EMBER_ERR_INVALID_MODEL, bads[i].name, bads[i].name);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_philox_kat),
        cmocka_unit_test(test_uniform_normal),
        cmocka_unit_test(test_seeds),
        cmocka_unit_test(test_like),
        cmocka_unit_test(test_bernoulli_rates),
        cmocka_unit_test(test_multinomial),
        cmocka_unit_test(test_random_errors),
        cmocka_unit_test(test_dropout_inference),
        cmocka_unit_test(test_dropout_training),
        cmocka_unit_test(test_dropout_runs),
        cmocka_unit_test(test_dropout_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
