/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/attn_sdpa_ref.c (Attention-23/24/25) against a naive attention written here in
 * double: Q, K, V first copied into plain [B, H, S, D] arrays (3-D inputs transposed
 * explicitly, past keys and values concatenated in front), every score computed from the
 * definition (scale applied once, softcap, mask broadcast by coordinates, causal / window /
 * padding rules spelled out per key), softmax with fully masked rows set to zero, then P V.
 * Cases on odd sizes: MHA and GQA / MQA, 3-D and 4-D, past and present, bool and additive masks
 * of ranks 1-4 with a short last dim, nonpad_kv_seqlen (negative offsets), windows, softcap,
 * scale, every qk_matmul_output mode, f64 and f16 data, serial and on a 3-thread pool; a small
 * case checked by hand; and malformed nodes.
 */
#include "test_ref_math_util.h"

#define F32 EMBER_DTYPE_F32
#define F64 EMBER_DTYPE_F64
#define F16 EMBER_DTYPE_F16
#define BOOL EMBER_DTYPE_BOOL
#define I64 EMBER_DTYPE_I64
#define NONE (-2) /* no qk_matmul_output */

typedef struct sdpa_case {
    const char *name;
    int rank;
    int64_t b, hq, hkv, sq, skv, past, dk, dv;
    int mask_rank; /* 0: no mask */
    int64_t mask_dims[4];
    ember_dtype mask_dt;
    bool causal, nonpad;
    int64_t left, right;
    float scale, softcap; /* scale 0: the default */
    int mode;             /* qk_matmul_output_mode, NONE: output absent */
    ember_dtype dt;
} sdpa_case;

/* The test's plain arrays: q [B, Hq, Sq, Dk], k [B, Hkv, T, Dk], v [B, Hkv, T, Dv]. */
typedef struct sdpa_ref {
    double *q, *k, *v, *mask;
    int64_t *nonpad;
    double *y, *qk;
} sdpa_ref;

/* Index of element (b, h, s, d) of a 3-D or 4-D input with H heads, S positions, D entries. */
static int64_t at(int rank, int64_t h_n, int64_t s_n, int64_t d_n, int64_t b, int64_t h, int64_t s,
                  int64_t d)
{
    return rank == 4 ? ((b * h_n + h) * s_n + s) * d_n + d
                     : (b * s_n + s) * h_n * d_n + h * d_n + d;
}

static double mask_at(const sdpa_case *c, const sdpa_ref *r, int64_t b, int64_t h, int64_t i,
                      int64_t t, bool *masked)
{
    const int64_t coord[4] = {b, h, i, t};
    int64_t idx = 0;
    *masked = false;
    if (c->mask_rank == 0) {
        return 0.0;
    }
    if (t >= c->mask_dims[c->mask_rank - 1]) {
        *masked = true; /* the padded keys */
        return 0.0;
    }
    for (int a = 0; a < c->mask_rank; a++) {
        int64_t dim = c->mask_dims[a], x = coord[4 - c->mask_rank + a];
        idx = idx * dim + (dim == 1 && a < c->mask_rank - 1 ? 0 : x);
    }
    if (c->mask_dt == BOOL) {
        *masked = r->mask[idx] == 0.0;
        return 0.0;
    }
    *masked = r->mask[idx] == -INFINITY;
    return r->mask[idx];
}

/* Whether query row i of batch b may see key t by the causal, window and padding rules. */
static bool visible(const sdpa_case *c, const sdpa_ref *r, int64_t b, int64_t i, int64_t t)
{
    int64_t pos = i + (c->nonpad ? r->nonpad[b] - c->sq : c->past);
    if (c->causal && t > pos) {
        return false;
    }
    if (c->left >= 0 && t < pos - c->left) {
        return false;
    }
    if (c->right >= 0 && t > pos + c->right) {
        return false;
    }
    return !(c->nonpad && t >= r->nonpad[b]);
}

static void naive(const sdpa_case *c, sdpa_ref *r)
{
    const int64_t n = c->past + c->skv, grp = c->hq / c->hkv;
    double scale = c->scale != 0.0f ? c->scale : 1.0 / sqrt((double)c->dk);
    double *s = t_f64(n), *raw = t_f64(n);
    for (int64_t b = 0; b < c->b; b++) {
        for (int64_t h = 0; h < c->hq; h++) {
            for (int64_t i = 0; i < c->sq; i++) {
                bool all_masked = true;
                double mx = -INFINITY, sum = 0.0;
                const int64_t row = (b * c->hq + h) * c->sq + i;
                for (int64_t t = 0; t < n; t++) {
                    double dot = 0.0;
                    for (int64_t d = 0; d < c->dk; d++) {
                        dot += r->q[row * c->dk + d] *
                               r->k[((b * c->hkv + h / grp) * n + t) * c->dk + d];
                    }
                    raw[t] = dot * scale;
                    s[t] = c->softcap > 0 ? c->softcap * tanh(raw[t] / c->softcap) : raw[t];
                    if (c->mode == 0 || c->mode == 1) {
                        r->qk[row * n + t] = c->mode == 0 ? raw[t] : s[t];
                    }
                    bool masked;
                    double add = mask_at(c, r, b, h, i, t, &masked);
                    masked = masked || !visible(c, r, b, i, t);
                    s[t] = masked ? -INFINITY : s[t] + add;
                    all_masked = all_masked && masked;
                    mx = s[t] > mx ? s[t] : mx;
                    if (c->mode == 2) {
                        r->qk[row * n + t] = s[t];
                    }
                }
                for (int64_t t = 0; t < n; t++) {
                    s[t] = all_masked ? 0.0 : exp(s[t] - mx);
                    sum += s[t];
                }
                for (int64_t t = 0; t < n; t++) {
                    s[t] = all_masked ? 0.0 : s[t] / sum;
                    if (c->mode == 3) {
                        r->qk[row * n + t] = s[t];
                    }
                }
                for (int64_t d = 0; d < c->dv; d++) {
                    double acc = 0.0;
                    for (int64_t t = 0; t < n; t++) {
                        acc += s[t] * r->v[((b * c->hkv + h / grp) * n + t) * c->dv + d];
                    }
                    r->y[at(c->rank, c->hq, c->sq, c->dv, b, h, i, d)] = acc;
                }
            }
        }
    }
    test_free(s);
    test_free(raw);
}

/* Random data of dtype dt (values representable in it) and the same values as double. */
static void *fill(ember_dtype dt, int64_t n, uint64_t seed, double lo, double hi, double *copy)
{
    void *p = tm_buf(dt, n);
    tm_fill(dt, p, n, seed, (tm_range){lo, hi});
    for (int64_t i = 0; copy != NULL && i < n; i++) {
        copy[i] = tm_get(dt, p, i);
    }
    return p;
}

typedef struct sdpa_bufs {
    void *q, *k, *v, *mask, *pk, *pv, *y, *pres_k, *pres_v, *qk;
    int64_t nonpad[8];
    em_tensor in[7], out[4];
    int n_in, n_out;
} sdpa_bufs;

static void make_inputs(const sdpa_case *c, sdpa_bufs *bf, sdpa_ref *r)
{
    const int64_t n = c->past + c->skv, hs = c->rank == 4;
    int64_t qd[4] = {c->b, hs ? c->hq : c->sq, hs ? c->sq : c->hq * c->dk, c->dk};
    int64_t kd[4] = {c->b, hs ? c->hkv : c->skv, hs ? c->skv : c->hkv * c->dk, c->dk};
    int64_t vd[4] = {c->b, hs ? c->hkv : c->skv, hs ? c->skv : c->hkv * c->dv, c->dv};
    int64_t nq = t_numel(qd, c->rank), nk = t_numel(kd, c->rank), nv = t_numel(vd, c->rank);
    double *q = t_f64(nq), *k = t_f64(nk), *v = t_f64(nv);
    bf->q = fill(c->dt, nq, 11 + (uint64_t)nq, -1.5, 1.5, q);
    bf->k = fill(c->dt, nk, 12 + (uint64_t)nk, -1.5, 1.5, k);
    bf->v = fill(c->dt, nv, 13 + (uint64_t)nv, -2.0, 2.0, v);
    int64_t pkd[4] = {c->b, c->hkv, c->past, c->dk}, pvd[4] = {c->b, c->hkv, c->past, c->dv};
    double *pk = t_f64(t_numel(pkd, 4)), *pv = t_f64(t_numel(pvd, 4));
    bf->pk = fill(c->dt, t_numel(pkd, 4), 14, -1.5, 1.5, pk);
    bf->pv = fill(c->dt, t_numel(pvd, 4), 15, -2.0, 2.0, pv);
    r->q = t_f64(c->b * c->hq * c->sq * c->dk);
    r->k = t_f64(c->b * c->hkv * n * c->dk);
    r->v = t_f64(c->b * c->hkv * n * c->dv);
    for (int64_t b = 0; b < c->b; b++) { /* the plain [B, H, S, D] copies, past first */
        for (int64_t h = 0; h < c->hq; h++) {
            for (int64_t i = 0; i < c->sq * c->dk; i++) {
                r->q[(b * c->hq + h) * c->sq * c->dk + i] =
                    q[at(c->rank, c->hq, c->sq, c->dk, b, h, i / c->dk, i % c->dk)];
            }
        }
        for (int64_t h = 0; h < c->hkv; h++) {
            for (int64_t t = 0; t < n; t++) {
                for (int64_t d = 0; d < c->dk || d < c->dv; d++) {
                    int64_t o = (b * c->hkv + h) * n + t, s = t - c->past;
                    if (d < c->dk) {
                        r->k[o * c->dk + d] =
                            t < c->past ? pk[((b * c->hkv + h) * c->past + t) * c->dk + d]
                                        : k[at(c->rank, c->hkv, c->skv, c->dk, b, h, s, d)];
                    }
                    if (d < c->dv) {
                        r->v[o * c->dv + d] =
                            t < c->past ? pv[((b * c->hkv + h) * c->past + t) * c->dv + d]
                                        : v[at(c->rank, c->hkv, c->skv, c->dv, b, h, s, d)];
                    }
                }
            }
        }
    }
    t_tensor(&bf->in[0], c->dt, c->rank, qd, bf->q);
    t_tensor(&bf->in[1], c->dt, c->rank, kd, bf->k);
    t_tensor(&bf->in[2], c->dt, c->rank, vd, bf->v);
    for (int i = 3; i < 7; i++) {
        t_absent(&bf->in[i]);
    }
    bf->n_in = c->nonpad ? 7 : c->past > 0 ? 6 : c->mask_rank > 0 ? 4 : 3;
    if (c->mask_rank > 0) {
        int64_t nm = t_numel(c->mask_dims, c->mask_rank);
        r->mask = t_f64(nm);
        bf->mask = fill(c->mask_dt, nm, 16 + (uint64_t)nm, c->mask_dt == BOOL ? 0.0 : -2.0,
                        c->mask_dt == BOOL ? 1.9 : 2.0, r->mask);
        for (int64_t i = 3; c->mask_dt != BOOL && i < nm; i += 5) {
            tm_set(c->mask_dt, bf->mask, i, -INFINITY); /* some keys masked by -inf */
            r->mask[i] = -INFINITY;
        }
        t_tensor(&bf->in[3], c->mask_dt, c->mask_rank, c->mask_dims, bf->mask);
    }
    if (c->past > 0) {
        t_tensor(&bf->in[4], c->dt, 4, pkd, bf->pk);
        t_tensor(&bf->in[5], c->dt, 4, pvd, bf->pv);
    }
    if (c->nonpad) {
        for (int64_t b = 0; b < c->b; b++) { /* includes a row count below Sq: negative offset */
            bf->nonpad[b] = (c->skv - 2 * b) > 0 ? c->skv - 2 * b : 0;
        }
        r->nonpad = bf->nonpad;
        int64_t nb = c->b;
        t_tensor(&bf->in[6], I64, 1, &nb, bf->nonpad);
    }
    test_free(q);
    test_free(k);
    test_free(v);
    test_free(pk);
    test_free(pv);
}

static void set_attrs(const sdpa_case *c, t_node *tn)
{
    t_node_init(tn, EM_OP_ATTENTION, c->name);
    if (c->rank == 3) {
        t_set_int(tn, "q_num_heads", c->hq);
        t_set_int(tn, "kv_num_heads", c->hkv);
    }
    if (c->causal) {
        t_set_int(tn, "is_causal", 1);
    }
    if (c->left != -1 || c->right != -1) {
        t_set_int(tn, "left_window_size", c->left);
        t_set_int(tn, "right_window_size", c->right);
    }
    if (c->scale != 0.0f) {
        t_set_float(tn, "scale", c->scale);
    }
    if (c->softcap != 0.0f) {
        t_set_float(tn, "softcap", c->softcap);
    }
    if (c->mode >= 0) {
        t_set_int(tn, "qk_matmul_output_mode", c->mode);
    }
}

static void check(const char *name, const char *what, ember_dtype dt, const void *got,
                  const double *want, int64_t n, double tol)
{
    for (int64_t i = 0; i < n; i++) {
        if (!t_close(tm_get(dt, got, i), want[i], tol, tol)) {
            fail_msg("case %s: %s[%lld] = %.9g, expected %.9g", name, what, (long long)i,
                     tm_get(dt, got, i), want[i]);
        }
    }
}

static void run_case(const sdpa_case *c, em_threadpool *pool)
{
    sdpa_bufs bf;
    sdpa_ref r;
    memset(&bf, 0, sizeof bf);
    memset(&r, 0, sizeof r);
    make_inputs(c, &bf, &r);
    const int64_t n = c->past + c->skv;
    int64_t yd[4] = {c->b, c->rank == 4 ? c->hq : c->sq, c->rank == 4 ? c->sq : c->hq * c->dv,
                     c->dv};
    int64_t pkd[4] = {c->b, c->hkv, n, c->dk}, pvd[4] = {c->b, c->hkv, n, c->dv};
    int64_t qkd[4] = {c->b, c->hq, c->sq, n};
    int64_t ny = t_numel(yd, c->rank), nqk = t_numel(qkd, 4);
    r.y = t_f64(ny);
    r.qk = t_f64(nqk);
    naive(c, &r);
    bf.n_out = c->mode != NONE ? 4 : c->past > 0 ? 3 : 1;
    double tol = c->dt == F16 ? 2e-2 : c->dt == F64 ? 1e-12 : 2e-5;
    for (int threaded = 0; threaded < 2; threaded++) {
        bf.y = tm_buf(c->dt, ny);
        bf.pres_k = tm_buf(c->dt, t_numel(pkd, 4));
        bf.pres_v = tm_buf(c->dt, t_numel(pvd, 4));
        bf.qk = tm_buf(c->dt, nqk);
        t_tensor(&bf.out[0], c->dt, c->rank, yd, bf.y);
        t_tensor(&bf.out[1], c->dt, 4, pkd, bf.pres_k);
        t_tensor(&bf.out[2], c->dt, 4, pvd, bf.pres_v);
        t_tensor(&bf.out[3], c->dt, 4, qkd, bf.qk);
        t_node tn;
        set_attrs(c, &tn);
        const em_kernel *k = t_kernel(EM_OP_ATTENTION, EMBER_DTYPE_UNDEFINED);
        t_expect_ok(t_run(k, &tn.n, bf.in, bf.n_in, bf.out, bf.n_out, threaded ? pool : NULL),
                    c->name);
        check(c->name, "Y", c->dt, bf.y, r.y, ny, tol);
        if (bf.n_out > 1) { /* present = the plain arrays (exact copies) */
            check(c->name, "present_key", c->dt, bf.pres_k, r.k, t_numel(pkd, 4), 0.0);
            check(c->name, "present_value", c->dt, bf.pres_v, r.v, t_numel(pvd, 4), 0.0);
        }
        if (bf.n_out > 3) {
            check(c->name, "qk_matmul_output", c->dt, bf.qk, r.qk, nqk, tol);
        }
        test_free(bf.y);
        test_free(bf.pres_k);
        test_free(bf.pres_v);
        test_free(bf.qk);
    }
    void *bufs[] = {bf.q, bf.k, bf.v, bf.mask, bf.pk, bf.pv, r.q, r.k, r.v, r.mask, r.y, r.qk};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
        if (bufs[i] != NULL) {
            test_free(bufs[i]);
        }
    }
}

/* clang-format off */
static const sdpa_case cases[] = {
    /* name            rank b hq hkv sq skv past dk dv  mask                      causal nonpad left right scale softcap mode dt */
    {"mha_4d",          4, 2, 3, 3, 4, 6, 0, 5, 7,  0, {0}, 0,                  false, false, -1, -1, 0, 0, NONE, F32},
    {"gqa_3d",          3, 2, 6, 2, 3, 5, 0, 4, 3,  0, {0}, 0,                  false, false, -1, -1, 0, 0, NONE, F32},
    {"mqa_causal",      4, 1, 4, 1, 5, 5, 0, 3, 2,  0, {0}, 0,                  true,  false, -1, -1, 0, 0, NONE, F32},
    {"cross_causal",    4, 1, 2, 2, 3, 7, 0, 4, 4,  0, {0}, 0,                  true,  false, -1, -1, 0, 0, NONE, F32},
    {"past_causal_3d",  3, 2, 3, 3, 2, 3, 4, 4, 5,  0, {0}, 0,                  true,  false, -1, -1, 0, 0, NONE, F32},
    {"bool_mask_2d",    4, 2, 3, 3, 4, 6, 0, 3, 3,  2, {4, 6}, BOOL,            false, false, -1, -1, 0, 0, NONE, F32},
    {"float_mask_4d",   4, 2, 3, 3, 3, 5, 2, 4, 3,  4, {2, 3, 3, 5}, F32,       false, false, -1, -1, 0, 0, 2, F32},
    {"mask_3d_short",   4, 2, 2, 1, 3, 6, 0, 4, 4,  3, {2, 1, 4}, F32,          true,  false, -1, -1, 0, 0, NONE, F32},
    {"mask_rank1_bool", 4, 1, 2, 2, 4, 5, 0, 2, 3,  1, {4}, BOOL,               false,  false, 2, -1, 0, 0, NONE, F32},
    {"nonpad_causal",   4, 3, 2, 1, 3, 6, 0, 4, 2,  2, {1, 5}, F32,             true,  true,  -1, -1, 0, 0, NONE, F32},
    {"window_bidir",    4, 1, 1, 1, 6, 6, 0, 3, 2,  0, {0}, 0,                  false, false, 1, 2, 0, 0, NONE, F32},
    {"window_nonpad",   4, 2, 2, 2, 3, 7, 0, 3, 3,  0, {0}, 0,                  true,  true,  2, -1, 0, 0, 3, F32},
    {"softcap_mode0",   4, 1, 2, 2, 3, 4, 0, 5, 2,  2, {3, 4}, F32,             false, false, -1, -1, 0, 1.5f, 0, F32},
    {"softcap_mode1",   3, 1, 4, 2, 3, 4, 2, 2, 3,  0, {0}, 0,                  true,  false, -1, -1, 0, 0.5f, 1, F32},
    {"scaled_mode3",    4, 2, 2, 2, 2, 3, 0, 3, 3,  4, {2, 2, 2, 3}, BOOL,      false, false, -1, -1, 0.3f, 0, 3, F32},
    {"f64_gqa_past",    4, 1, 4, 2, 3, 2, 3, 3, 4,  2, {3, 5}, F64,             true,  false, -1, -1, 0, 0, 2, F64},
    {"f16_causal",      4, 2, 2, 2, 3, 5, 0, 4, 3,  0, {0}, 0,                  true,  false, -1, -1, 0, 0, NONE, F16},
    {"one_key",         4, 1, 1, 1, 1, 1, 0, 1, 1,  0, {0}, 0,                  false, false, -1, -1, 0, 0, 3, F32},
};
/* clang-format on */

static void test_attention_cases(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 3, &pool), "threadpool");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_case(&cases[i], pool);
    }
    em_threadpool_destroy(pool);
}

/* Q [1, 1, 1, 2] = (1, 0), K = ((1, 0), (0, 1)), V = (2, 4), scale 1/sqrt(2): the scores are
 * (1/sqrt(2), 0), p0 = 1 / (1 + e^(-1/sqrt(2))) = 0.669762..., Y = 2 p0 + 4 (1 - p0). A
 * bool mask hiding key 0 gives Y = 4; hiding both keys gives 0. */
static void test_attention_by_hand(void **state)
{
    (void)state;
    float q[2] = {1, 0}, k[4] = {1, 0, 0, 1}, v[2] = {2, 4}, y[1];
    uint8_t masks[3][2] = {{1, 1}, {0, 1}, {0, 0}};
    const double want[3] = {4.0 - 2.0 / (1.0 + exp(-1.0 / sqrt(2.0))), 4.0, 0.0};
    int64_t qd[4] = {1, 1, 1, 2}, kd[4] = {1, 1, 2, 2}, vd[4] = {1, 1, 2, 1}, md[1] = {2};
    int64_t yd[4] = {1, 1, 1, 1};
    for (int m = 0; m < 3; m++) {
        em_tensor in[4], out[1];
        t_tensor(&in[0], F32, 4, qd, q);
        t_tensor(&in[1], F32, 4, kd, k);
        t_tensor(&in[2], F32, 4, vd, v);
        t_tensor(&in[3], BOOL, 1, md, masks[m]);
        t_tensor(&out[0], F32, 4, yd, y);
        t_node tn;
        t_node_init(&tn, EM_OP_ATTENTION, "by_hand");
        const em_kernel *kern = t_kernel(EM_OP_ATTENTION, EMBER_DTYPE_UNDEFINED);
        t_expect_ok(t_run(kern, &tn.n, in, 4, out, 1, NULL), "by_hand");
        if (!t_close(y[0], want[m], 1e-6, 1e-6)) {
            fail_msg("mask %d: Y = %.9g, expected %.9g", m, (double)y[0], want[m]);
        }
    }
}

/* Malformed nodes: each is INVALID_MODEL naming the node. */
static void test_attention_errors(void **state)
{
    (void)state;
    float buf[512] = {0};
    static const struct {
        const char *name;
        int rank;
        int64_t q[4], k[4], v[4];
        int64_t qh, kvh; /* attributes when > 0 */
        int64_t mask[4];
        int mask_rank;
    } bad[] = {
        {"rank_mix", 4, {1, 2, 3, 4}, {1, 2, 3}, {1, 2, 3, 4}, 0, 0, {0}, 0},
        {"heads_not_multiple", 4, {1, 3, 2, 4}, {1, 2, 2, 4}, {1, 2, 2, 4}, 0, 0, {0}, 0},
        {"head_size", 4, {1, 2, 2, 4}, {1, 2, 2, 5}, {1, 2, 2, 4}, 0, 0, {0}, 0},
        {"3d_no_heads", 3, {1, 2, 8}, {1, 2, 8}, {1, 2, 8}, 0, 0, {0}, 0},
        {"3d_hidden", 3, {1, 2, 9}, {1, 2, 8}, {1, 2, 8}, 2, 2, {0}, 0},
        {"mask_too_long", 4, {1, 2, 2, 4}, {1, 2, 3, 4}, {1, 2, 3, 4}, 0, 0, {2, 4}, 2},
        {"mask_bad_bcast", 4, {1, 2, 2, 4}, {1, 2, 3, 4}, {1, 2, 3, 4}, 0, 0, {3, 2, 3}, 3},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        em_tensor in[4], out[1];
        int r = bad[i].rank, kr = bad[i].k[3] == 0 && r == 4 ? 3 : r;
        int64_t yd[4] = {1, 1, 1, 1};
        t_tensor(&in[0], F32, r, bad[i].q, buf);
        t_tensor(&in[1], F32, kr, bad[i].k, buf);
        t_tensor(&in[2], F32, r, bad[i].v, buf);
        t_tensor(&in[3], F32, bad[i].mask_rank, bad[i].mask, buf);
        t_tensor(&out[0], F32, r, yd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_ATTENTION, bad[i].name);
        if (bad[i].qh > 0) {
            t_set_int(&tn, "q_num_heads", bad[i].qh);
            t_set_int(&tn, "kv_num_heads", bad[i].kvh);
        }
        const em_kernel *k = t_kernel(EM_OP_ATTENTION, EMBER_DTYPE_UNDEFINED);
        t_expect_error(t_run(k, &tn.n, in, bad[i].mask_rank > 0 ? 4 : 3, out, 1, NULL),
                       EMBER_ERR_INVALID_MODEL, bad[i].name, bad[i].name);
    }
    /* past_key without past_value, a bad softmax_precision, and an integer Q (declined). */
    int64_t d4[4] = {1, 1, 2, 2};
    em_tensor in[6], out[1];
    for (int i = 0; i < 6; i++) {
        t_tensor(&in[i], F32, 4, d4, buf);
    }
    t_absent(&in[5]);
    t_tensor(&out[0], F32, 4, d4, buf);
    t_node tn;
    t_node_init(&tn, EM_OP_ATTENTION, "past_alone");
    const em_kernel *k = t_kernel(EM_OP_ATTENTION, EMBER_DTYPE_UNDEFINED);
    t_expect_error(t_run(k, &tn.n, in, 6, out, 1, NULL), EMBER_ERR_INVALID_MODEL, "past_alone",
                   "past_alone");
    t_node_init(&tn, EM_OP_ATTENTION, "bad_precision");
    t_set_int(&tn, "softmax_precision", 7);
    t_expect_error(t_run(k, &tn.n, in, 3, out, 1, NULL), EMBER_ERR_INVALID_MODEL, "bad_precision",
                   "bad_precision");
    t_tensor(&in[0], EMBER_DTYPE_I32, 4, d4, buf);
    t_node_init(&tn, EM_OP_ATTENTION, "int_q");
    t_expect_error(t_run(k, &tn.n, in, 3, out, 1, NULL), EMBER_ERR_UNSUPPORTED, "int_q", "int_q");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attention_cases),
        cmocka_unit_test(test_attention_by_hand),
        cmocka_unit_test(test_attention_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
