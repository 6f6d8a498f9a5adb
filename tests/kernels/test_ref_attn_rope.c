/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/attn_rope_ref.c: RotaryEmbedding-23 against a rotation written here as complex
 * multiplication ((x1 + i x2) * (cos + i sin)) over explicitly gathered pairs, for 4-D and 3-D
 * inputs, halves and interleaved pairs, partial rotary dims, caches indexed by position_ids or
 * per (batch, position), f16; TensorScatter-24 against a per-output-element rule (which update
 * slot, if any, lands on this cache slot), linear and circular, with and without write_indices,
 * on several axes and dtypes, also in place; and malformed nodes of both.
 */
#include "test_ref_math_util.h"

#define F32 EMBER_DTYPE_F32
#define F16 EMBER_DTYPE_F16
#define I64 EMBER_DTYPE_I64

/* ---- RotaryEmbedding ----------------------------------------------------------------------- */

typedef struct rope_case {
    const char *name;
    int rank;
    int64_t b, h, s, d; /* X is [b, h, s, d] or [b, s, h * d] */
    int64_t rot;        /* rotary_embedding_dim attribute (0: d) */
    bool interleaved, pos;
    int64_t max_pos;
    ember_dtype dt;
} rope_case;

static void rope_run(const rope_case *c)
{
    const int64_t rot = c->rot != 0 ? c->rot : c->d, half = rot / 2;
    int64_t xd[4] = {c->b, c->rank == 4 ? c->h : c->s, c->rank == 4 ? c->s : c->h * c->d, c->d};
    int64_t cd[3] = {c->pos ? c->max_pos : c->b, c->pos ? half : c->s, half};
    int64_t pd[2] = {c->b, c->s}, nx = t_numel(xd, c->rank), nc = t_numel(cd, c->pos ? 2 : 3);
    void *x = tm_buf(c->dt, nx), *cs = tm_buf(c->dt, nc), *sn = tm_buf(c->dt, nc);
    void *y = tm_buf(c->dt, nx);
    int64_t pos[64];
    tm_fill(c->dt, x, nx, 21 + (uint64_t)nx, (tm_range){-2.0, 2.0});
    tm_fill(c->dt, cs, nc, 22, (tm_range){-1.0, 1.0});
    tm_fill(c->dt, sn, nc, 23, (tm_range){-1.0, 1.0});
    for (int64_t i = 0; i < c->b * c->s; i++) {
        pos[i] = c->pos ? (i * 7 + 3) % c->max_pos : 0;
    }
    double *ref = t_f64(nx);
    for (int64_t b = 0; b < c->b; b++) {
        for (int64_t h = 0; h < c->h; h++) {
            for (int64_t s = 0; s < c->s; s++) {
                int64_t base = c->rank == 4 ? ((b * c->h + h) * c->s + s) * c->d
                                            : (b * c->s + s) * c->h * c->d + h * c->d;
                int64_t crow = c->pos ? pos[b * c->s + s] : b * c->s + s;
                for (int64_t d = rot; d < c->d; d++) {
                    ref[base + d] = tm_get(c->dt, x, base + d);
                }
                for (int64_t k = 0; k < half; k++) {
                    int64_t i1 = c->interleaved ? 2 * k : k;
                    int64_t i2 = c->interleaved ? 2 * k + 1 : k + half;
                    double complex_re = tm_get(c->dt, x, base + i1);
                    double complex_im = tm_get(c->dt, x, base + i2);
                    double wr = tm_get(c->dt, cs, crow * half + k);
                    double wi = tm_get(c->dt, sn, crow * half + k);
                    ref[base + i1] = complex_re * wr - complex_im * wi;
                    ref[base + i2] = complex_re * wi + complex_im * wr;
                }
            }
        }
    }
    em_tensor in[4], out[1];
    t_tensor(&in[0], c->dt, c->rank, xd, x);
    t_tensor(&in[1], c->dt, c->pos ? 2 : 3, cd, cs);
    t_tensor(&in[2], c->dt, c->pos ? 2 : 3, cd, sn);
    t_tensor(&in[3], I64, 2, pd, pos);
    t_tensor(&out[0], c->dt, c->rank, xd, y);
    t_node tn;
    t_node_init(&tn, EM_OP_ROTARYEMBEDDING, c->name);
    if (c->rank == 3) {
        t_set_int(&tn, "num_heads", c->h);
    }
    if (c->rot != 0) {
        t_set_int(&tn, "rotary_embedding_dim", c->rot);
    }
    if (c->interleaved) {
        t_set_int(&tn, "interleaved", 1);
    }
    const em_kernel *k = t_kernel(EM_OP_ROTARYEMBEDDING, EMBER_DTYPE_UNDEFINED);
    t_expect_ok(t_run(k, &tn.n, in, c->pos ? 4 : 3, out, 1, NULL), c->name);
    double tol = c->dt == F16 ? 2e-3 : 1e-6;
    for (int64_t i = 0; i < nx; i++) {
        if (!t_close(tm_get(c->dt, y, i), ref[i], tol, tol)) {
            fail_msg("case %s: index %lld: got %.9g, expected %.9g", c->name, (long long)i,
                     tm_get(c->dt, y, i), ref[i]);
        }
    }
    test_free(x);
    test_free(cs);
    test_free(sn);
    test_free(y);
    test_free(ref);
}

static void test_rotary(void **state)
{
    (void)state;
    static const rope_case cases[] = {
        {"rope_4d_pos", 4, 2, 3, 5, 6, 0, false, true, 11, F32},
        {"rope_4d_interleaved", 4, 1, 2, 3, 8, 0, true, true, 9, F32},
        {"rope_3d", 3, 2, 3, 4, 4, 0, false, true, 13, F32},
        {"rope_partial", 4, 2, 2, 3, 10, 4, false, true, 7, F32},
        {"rope_partial_interleaved_3d", 3, 1, 3, 5, 6, 2, true, true, 5, F32},
        {"rope_no_pos", 4, 2, 3, 3, 6, 0, false, false, 0, F32},
        {"rope_no_pos_3d_interleaved", 3, 3, 2, 2, 4, 0, true, false, 0, F32},
        {"rope_f16", 4, 1, 2, 4, 6, 4, false, true, 8, F16},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rope_run(&cases[i]);
    }
}

static void test_rotary_errors(void **state)
{
    (void)state;
    float buf[256] = {0};
    int64_t pos[6] = {0, 1, 2, 3, 4, 9}, xd[4] = {1, 2, 3, 6}, cd[2] = {5, 3}, pd[2] = {1, 3};
    int64_t x3[3] = {1, 3, 12}, c2[2] = {5, 2};
    static const char *const names[] = {"rope_odd_dim", "rope_pos_range", "rope_no_heads",
                                        "rope_cache_dim"};
    for (int i = 0; i < 4; i++) {
        em_tensor in[4], out[1];
        t_tensor(&in[0], F32, i == 2 ? 3 : 4, i == 2 ? x3 : xd, buf);
        t_tensor(&in[1], F32, 2, i == 3 ? c2 : cd, buf);
        t_tensor(&in[2], F32, 2, i == 3 ? c2 : cd, buf);
        t_tensor(&in[3], I64, 2, pd, pos + (i == 1 ? 3 : 0)); /* 3, 4, 9: 9 is past 5 */
        t_tensor(&out[0], F32, i == 2 ? 3 : 4, i == 2 ? x3 : xd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_ROTARYEMBEDDING, names[i]);
        if (i == 0) {
            t_set_int(&tn, "rotary_embedding_dim", 3);
        }
        const em_kernel *k = t_kernel(EM_OP_ROTARYEMBEDDING, EMBER_DTYPE_UNDEFINED);
        t_expect_error(t_run_const(k, &tn.n, in, 4, out, 1, NULL, 0x8), EMBER_ERR_INVALID_MODEL,
                       names[i], names[i]);
    }
}

/* ---- TensorScatter ------------------------------------------------------------------------- */

typedef struct ts_case {
    const char *name;
    int rank;
    int64_t cache[4];
    int axis;        /* normalised */
    int64_t upd_len; /* update's length along the axis */
    bool circular, indices, inplace;
    int64_t idx[4];
    ember_dtype dt;
} ts_case;

static void ts_run(const ts_case *c)
{
    int64_t ud[4];
    memcpy(ud, c->cache, sizeof ud);
    ud[c->axis] = c->upd_len;
    const int64_t nc = t_numel(c->cache, c->rank), nu = t_numel(ud, c->rank);
    const int64_t max = c->cache[c->axis],
                  inner = t_numel(c->cache + c->axis + 1, c->rank - c->axis - 1);
    void *past = tm_buf(c->dt, nc), *upd = tm_buf(c->dt, nu);
    tm_fill(c->dt, past, nc, 31, (tm_range){-50.0, 50.0});
    tm_fill(c->dt, upd, nu, 32, (tm_range){100.0, 200.0});
    double *ref = t_f64(nc);
    for (int64_t e = 0; e < nc; e++) {
        int64_t slot = e / inner % max, prefix = e / inner / max, b = e / (nc / c->cache[0]);
        int64_t w = c->indices ? c->idx[b] : 0, off = slot - w;
        if (c->circular) {
            off = ((off % max) + max) % max;
        }
        bool hit = off >= 0 && off < c->upd_len;
        ref[e] = hit ? tm_get(c->dt, upd, (prefix * c->upd_len + off) * inner + e % inner)
                     : tm_get(c->dt, past, e);
    }
    void *y = c->inplace ? past : tm_buf(c->dt, nc);
    int64_t nb = c->cache[0];
    em_tensor in[3], out[1];
    t_tensor(&in[0], c->dt, c->rank, c->cache, past);
    t_tensor(&in[1], c->dt, c->rank, ud, upd);
    t_tensor(&in[2], I64, 1, &nb, (void *)c->idx);
    t_tensor(&out[0], c->dt, c->rank, c->cache, y);
    t_node tn;
    t_node_init(&tn, EM_OP_TENSORSCATTER, c->name);
    if (c->axis != c->rank - 2) {
        t_set_int(&tn, "axis", c->axis - (c->axis % 2 == 0 ? 0 : c->rank)); /* both signs */
    }
    if (c->circular) {
        t_set_string(&tn, "mode", "circular");
    }
    const em_kernel *k = t_kernel(EM_OP_TENSORSCATTER, EMBER_DTYPE_UNDEFINED);
    t_expect_ok(t_run(k, &tn.n, in, c->indices ? 3 : 2, out, 1, NULL), c->name);
    for (int64_t e = 0; e < nc; e++) {
        if (tm_get(c->dt, y, e) != ref[e]) {
            fail_msg("case %s: index %lld: got %.9g, expected %.9g", c->name, (long long)e,
                     tm_get(c->dt, y, e), ref[e]);
        }
    }
    if (!c->inplace) {
        test_free(y);
    }
    test_free(past);
    test_free(upd);
    test_free(ref);
}

static void test_tensorscatter(void **state)
{
    (void)state;
    static const ts_case cases[] = {
        {"ts_4d_linear", 4, {2, 1, 4, 5}, 2, 1, false, true, false, {3, 1}, F32},
        {"ts_3d_prefill", 3, {3, 4, 5}, 1, 2, false, true, false, {0, 2, 1}, F32},
        {"ts_circular_wrap", 4, {2, 3, 5, 2}, 2, 3, true, true, false, {4, 1}, F32},
        {"ts_no_indices", 3, {2, 6, 3}, 1, 4, false, false, false, {0}, I64},
        {"ts_axis_last", 3, {2, 3, 7}, 2, 3, true, true, true, {5, 6}, EMBER_DTYPE_U8},
        {"ts_inplace_f16", 4, {2, 2, 5, 3}, 2, 2, false, true, true, {1, 3}, F16},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ts_run(&cases[i]);
    }
}

static void test_tensorscatter_errors(void **state)
{
    (void)state;
    float buf[128] = {0};
    int64_t cd[3] = {2, 4, 3}, ud_ok[3] = {2, 2, 3}, ud_bad[3] = {2, 2, 4}, nb = 2;
    int64_t idx[2] = {1, 3}; /* 3 + 2 > 4: past the end in linear mode */
    static const char *const names[] = {"ts_axis0", "ts_shape", "ts_index_range", "ts_mode"};
    for (int i = 0; i < 4; i++) {
        em_tensor in[3], out[1];
        t_tensor(&in[0], F32, 3, cd, buf);
        t_tensor(&in[1], F32, 3, i == 1 ? ud_bad : ud_ok, buf);
        t_tensor(&in[2], I64, 1, &nb, idx);
        t_tensor(&out[0], F32, 3, cd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_TENSORSCATTER, names[i]);
        t_set_int(&tn, "axis", i == 0 ? 0 : 1);
        if (i == 3) {
            t_set_string(&tn, "mode", "ring");
        }
        const em_kernel *k = t_kernel(EM_OP_TENSORSCATTER, EMBER_DTYPE_UNDEFINED);
        t_expect_error(t_run_const(k, &tn.n, in, 3, out, 1, NULL, 0x4), EMBER_ERR_INVALID_MODEL,
                       names[i], names[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rotary),
        cmocka_unit_test(test_rotary_errors),
        cmocka_unit_test(test_tensorscatter),
        cmocka_unit_test(test_tensorscatter_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
