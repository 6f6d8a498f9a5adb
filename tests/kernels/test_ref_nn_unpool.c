/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/nn_unpool_ref.c: MaxUnpool against a naive scatter written here: every X element
 * lands at the coordinates its index names in the unpooled shape, inside a zero Y whose shape is
 * that one or the output_shape input (the unpooled block at Y's origin). Indices come from the
 * MaxPool reference kernel (the round trip the op exists for) and from hand-written lists with
 * repeats. Cases: 1-D, 2-D, 3-D, strides, pads, a larger output_shape, f32 / f64 / i32 / u8,
 * the two conformance vectors, and malformed nodes.
 */
#include "test_ref_util.h"

#include <stdio.h>

#define F32 EMBER_DTYPE_F32
#define I64 EMBER_DTYPE_I64

/* Y of the naive unpooling: `inf` the unpooled shape, yd Y's. */
static void unpool_naive(int rank, const int64_t *inf, const int64_t *yd, const double *x,
                         const int64_t *ind, int64_t nx, double *y)
{
    int64_t ny = t_numel(yd, rank);
    for (int64_t i = 0; i < ny; i++) {
        y[i] = 0.0;
    }
    for (int64_t i = 0; i < nx; i++) {
        int64_t c[EM_MAX_RANK], rest = ind[i], off = 0;
        for (int d = rank - 1; d >= 0; d--) {
            c[d] = rest % inf[d];
            rest /= inf[d];
        }
        bool inside = true;
        for (int d = 0; d < rank; d++) {
            inside = inside && c[d] < yd[d];
            off = off * yd[d] + c[d];
        }
        if (inside) {
            y[off] = x[i];
        }
    }
}

typedef struct unpool_case {
    const char *name;
    int n_sp;
    int64_t n, c, in[3], k[3], s[3], pads[6];
    int64_t extra[3]; /* output_shape = unpooled + extra; all 0: no output_shape input */
    ember_dtype dt;
    uint64_t seed;
} unpool_case;

/* MaxPool on a random tensor of the unpooled shape gives X and I; then MaxUnpool. */
static void unpool_run(const unpool_case *c)
{
    int rank = c->n_sp + 2;
    int64_t inf[5] = {c->n, c->c}, pd[5] = {c->n, c->c}, yd[5] = {c->n, c->c};
    bool has_os = c->extra[0] != 0 || c->extra[1] != 0 || c->extra[2] != 0;
    for (int d = 0; d < c->n_sp; d++) {
        inf[2 + d] = (c->in[d] - 1) * c->s[d] + c->k[d] - c->pads[d] - c->pads[c->n_sp + d];
        pd[2 + d] = c->in[d];
        yd[2 + d] = inf[2 + d] + c->extra[d];
    }
    int64_t ninf = t_numel(inf, rank), nx = t_numel(pd, rank), ny = t_numel(yd, rank);
    float *src = t_random_f32(ninf, c->seed, -3.0f, 3.0f);
    float *pooled = t_f32(nx);
    int64_t *ind = test_calloc((size_t)nx + 1, sizeof(int64_t));
    em_tensor pin[1], pout[2];
    t_tensor(&pin[0], F32, rank, inf, src);
    t_tensor(&pout[0], F32, rank, pd, pooled);
    t_tensor(&pout[1], I64, rank, pd, ind);
    t_node pn;
    t_node_init(&pn, EM_OP_MAXPOOL, c->name);
    t_set_ints(&pn, "kernel_shape", c->k, c->n_sp);
    t_set_ints(&pn, "strides", c->s, c->n_sp);
    t_set_ints(&pn, "pads", c->pads, 2 * c->n_sp);
    t_expect_ok(t_run(t_kernel(EM_OP_MAXPOOL, EMBER_DTYPE_UNDEFINED), &pn.n, pin, 1, pout, 2, NULL),
                c->name);
    /* X in the case's dtype, from the pooled values */
    void *x = test_calloc((size_t)nx + 1, 8), *y = test_calloc((size_t)ny + 1, 8);
    double *xv = t_f64(nx), *ref = t_f64(ny);
    for (int64_t i = 0; i < nx; i++) {
        em_tref_set(c->dt, x, i,
                    c->dt == F32 || c->dt == EMBER_DTYPE_F64 ? pooled[i] : fabs(pooled[i]) * 40);
        xv[i] = em_tref_get(c->dt, x, i);
    }
    int64_t r64 = rank;
    em_tensor in[3], out[1];
    t_tensor(&in[0], c->dt, rank, pd, x);
    t_tensor(&in[1], I64, rank, pd, ind);
    t_tensor(&in[2], I64, 1, &r64, yd);
    t_tensor(&out[0], c->dt, rank, yd, y);
    t_node tn;
    t_node_init(&tn, EM_OP_MAXUNPOOL, c->name);
    t_set_ints(&tn, "kernel_shape", c->k, c->n_sp);
    t_set_ints(&tn, "strides", c->s, c->n_sp);
    t_set_ints(&tn, "pads", c->pads, 2 * c->n_sp);
    const em_kernel *k = t_kernel(EM_OP_MAXUNPOOL, EMBER_DTYPE_UNDEFINED);
    t_expect_ok(t_run_const(k, &tn.n, in, has_os ? 3 : 2, out, 1, NULL, 0x4), c->name);
    unpool_naive(rank, inf, yd, xv, ind, nx, ref);
    for (int64_t i = 0; i < ny; i++) {
        if (em_tref_get(c->dt, y, i) != ref[i]) {
            fail_msg("case %s: index %lld: got %.9g, expected %.9g", c->name, (long long)i,
                     em_tref_get(c->dt, y, i), ref[i]);
        }
    }
    test_free(src);
    test_free(pooled);
    test_free(ind);
    test_free(x);
    test_free(y);
    test_free(xv);
    test_free(ref);
}

static void test_maxunpool_cases(void **state)
{
    (void)state;
    /* clang-format off */
    static const unpool_case cases[] = {
        {"unpool_2d", 2, 1, 2, {3, 4}, {2, 2}, {2, 2}, {0}, {0}, F32, 1},
        {"unpool_2d_overlap", 2, 2, 1, {4, 3}, {3, 2}, {1, 2}, {0}, {0}, F32, 2},
        {"unpool_2d_pads", 2, 1, 1, {3, 3}, {3, 3}, {2, 2}, {1, 1, 0, 1}, {0}, F32, 3},
        {"unpool_2d_oshape", 2, 1, 2, {2, 3}, {2, 2}, {2, 2}, {0}, {1, 2}, EMBER_DTYPE_F64, 4},
        {"unpool_1d_i32", 1, 2, 2, {5}, {3}, {2}, {1, 0}, {0}, EMBER_DTYPE_I32, 5},
        {"unpool_3d_u8", 3, 1, 1, {2, 2, 3}, {2, 2, 2}, {2, 2, 2}, {0}, {0, 1, 1},
         EMBER_DTYPE_U8, 6},
        {"unpool_zero_batch", 2, 0, 2, {2, 2}, {2, 2}, {2, 2}, {0}, {0}, F32, 7},
    };
    /* clang-format on */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unpool_run(&cases[i]);
    }
}

/* ONNX's test_maxunpool_export_with(out)_output_shape: the same indices into 4x4 and 5x5. */
static void test_maxunpool_vectors(void **state)
{
    (void)state;
    static const int64_t xd[4] = {1, 1, 2, 2}, y4[4] = {1, 1, 4, 4}, y5[4] = {1, 1, 5, 5},
                         k[2] = {2, 2};
    float x[4] = {5, 6, 7, 8}, y[25];
    int64_t ind[4] = {5, 7, 13, 15}, four = 4;
    double want4[16] = {0}, want5[25] = {0};
    want4[5] = 5, want4[7] = 6, want4[13] = 7, want4[15] = 8;
    want5[6] = 5, want5[8] = 6, want5[16] = 7, want5[18] = 8;
    for (int with_os = 0; with_os < 2; with_os++) {
        em_tensor in[3], out[1];
        t_tensor(&in[0], F32, 4, xd, x);
        t_tensor(&in[1], I64, 4, xd, ind);
        t_tensor(&in[2], I64, 1, &four, (void *)y5);
        t_tensor(&out[0], F32, 4, with_os ? y5 : y4, y);
        t_node tn;
        t_node_init(&tn, EM_OP_MAXUNPOOL, with_os ? "unpool_oshape" : "unpool_plain");
        t_set_ints(&tn, "kernel_shape", k, 2);
        t_set_ints(&tn, "strides", k, 2);
        const em_kernel *kr = t_kernel(EM_OP_MAXUNPOOL, EMBER_DTYPE_UNDEFINED);
        t_expect_ok(t_run(kr, &tn.n, in, 2 + with_os, out, 1, NULL), "unpool_vector");
        t_check_f32("unpool_vector", y, with_os ? want5 : want4, with_os ? 25 : 16, 0.0, 0.0);
    }
}

static void test_maxunpool_errors(void **state)
{
    (void)state;
    static const char *const names[] = {"up_i_shape", "up_i_dtype", "up_no_kernel", "up_os_len",
                                        "up_bad_y",   "up_index",   "up_rank2",     "up_os_value"};
    static const int64_t k[2] = {2, 2};
    for (int i = 0; i < 8; i++) {
        int64_t xd[4] = {1, 1, 2, 2}, id[4] = {1, 1, 2, i == 0 ? 3 : 2};
        int64_t yd[4] = {1, 1, 4, i == 4 ? 5 : 4}, osd = i == 3 ? 3 : 4;
        int64_t ind[6] = {0, 1, 2, i == 5 ? 16 : 3}, os[4] = {1, 1, 4, i == 7 ? 5 : 4};
        double buf[32] = {0};
        em_tensor in[3], out[1];
        t_tensor(&in[0], F32, i == 6 ? 2 : 4, xd, buf);
        t_tensor(&in[1], i == 1 ? EMBER_DTYPE_I32 : I64, i == 6 ? 2 : 4, id, ind);
        t_tensor(&in[2], I64, 1, &osd, os);
        t_tensor(&out[0], F32, i == 6 ? 2 : 4, yd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_MAXUNPOOL, names[i]);
        if (i != 2) {
            t_set_ints(&tn, "kernel_shape", k, 2);
        }
        t_set_ints(&tn, "strides", k, 2);
        int n_in = i == 3 || i == 7 ? 3 : 2;
        const em_kernel *kr = t_kernel(EM_OP_MAXUNPOOL, EMBER_DTYPE_UNDEFINED);
        t_expect_error(t_run_const(kr, &tn.n, in, n_in, out, 1, NULL, 0x6), EMBER_ERR_INVALID_MODEL,
                       names[i], names[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_maxunpool_cases),
        cmocka_unit_test(test_maxunpool_vectors),
        cmocka_unit_test(test_maxunpool_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
