/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/tensor_move_ref.c: Transpose, Concat, Squeeze/Unsqueeze, Expand, Tile, Split,
 * DepthToSpace (DCR, CRD) and SpaceToDepth against naive coordinate mappings written here
 * (each output element names its source element), for 1-, 2-, 4- and 8-byte dtypes and bool,
 * with the value inputs hidden from prepare and then shown to it (constants). Shapes include
 * odd sizes, size-1 and zero-sized axes, negative axes and rank 0; malformed nodes (bad perm,
 * mismatched dims, wrong output shapes, bad split sizes) fail naming the node.
 */
#include "test_ref_tensor_util.h"

#include <stdio.h>


/* Coordinate of flat index f in dims. */
static void unflat(int64_t f, const int64_t *dims, int rank, int64_t *c)
{
    for (int d = rank - 1; d >= 0; d--) {
        c[d] = dims[d] > 0 ? f % dims[d] : 0;
        f = dims[d] > 0 ? f / dims[d] : 0;
    }
}

static const ember_dtype all_dtypes[] = {EMBER_DTYPE_U8, EMBER_DTYPE_F16, EMBER_DTYPE_F32,
                                         EMBER_DTYPE_I64, EMBER_DTYPE_BOOL};
#define N_DTYPES (sizeof all_dtypes / sizeof all_dtypes[0])

/* ---- Transpose ------------------------------------------------------------------------------ */

typedef struct transpose_case {
    const char *name;
    int rank;
    int64_t dims[6];
    int n_perm; /* -1: no attribute (reverse) */
    int64_t perm[6];
} transpose_case;

static const transpose_case transpose_cases[] = {
    {"2d", 2, {3, 5}, 2, {1, 0}},
    {"default_reverse_3d", 3, {2, 3, 4}, -1, {0}},
    {"nchw_to_nhwc", 4, {2, 3, 5, 7}, 4, {0, 2, 3, 1}},
    {"identity_perm", 3, {2, 1, 3}, 3, {0, 1, 2}},
    {"5d_mixed", 5, {2, 1, 3, 2, 3}, 5, {4, 2, 0, 3, 1}},
    {"zero_dim", 3, {2, 0, 3}, 3, {2, 0, 1}},
    {"rank0", 0, {0}, -1, {0}},
    {"6d_reverse", 6, {2, 1, 2, 3, 1, 2}, 6, {5, 4, 3, 2, 1, 0}},
};

static void test_transpose(void **state)
{
    (void)state;
    for (size_t ci = 0; ci < sizeof transpose_cases / sizeof transpose_cases[0]; ci++) {
        const transpose_case *c = &transpose_cases[ci];
        int64_t perm[6], yd[6];
        for (int d = 0; d < c->rank; d++) {
            perm[d] = c->n_perm < 0 ? c->rank - 1 - d : c->perm[d];
            yd[d] = c->dims[perm[d]];
        }
        int64_t n = t_numel(c->dims, c->rank);
        int64_t *src = test_calloc((size_t)(n > 0 ? n : 1), sizeof *src);
        for (int64_t i = 0; i < n; i++) {
            int64_t yc[6], xc[6];
            unflat(i, yd, c->rank, yc);
            for (int d = 0; d < c->rank; d++) {
                xc[perm[d]] = yc[d];
            }
            src[i] = flat(xc, c->dims, c->rank);
        }
        for (size_t di = 0; di < N_DTYPES; di++) {
            ember_dtype dt = all_dtypes[di];
            t_node nd;
            t_node_init(&nd, EM_OP_TRANSPOSE, "tr");
            if (c->n_perm >= 0) {
                t_set_ints(&nd, "perm", c->perm, c->n_perm);
            }
            void *x = pattern(dt, n, (unsigned)ci), *y = poisoned(dt, n);
            em_tensor in, out;
            t_tensor(&in, dt, c->rank, c->dims, x);
            t_tensor(&out, dt, c->rank, yd, y);
            t_expect_ok(run_k(&nd.n, &in, 1, &out, 1, 0), c->name);
            expect_gathered(c->name, dt, y, x, src, n);
            test_free(x);
            test_free(y);
        }
        test_free(src);
    }
}

static void test_transpose_errors(void **state)
{
    (void)state;
    static const int64_t xd[3] = {2, 3, 4}, yd[3] = {4, 3, 2}, bad_y[3] = {4, 2, 3};
    static const int64_t dup[3] = {0, 0, 1}, short_perm[2] = {1, 0}, oob[3] = {0, 1, 3};
    float x[24], y[24];
    struct {
        const char *name;
        const int64_t *perm;
        int n;
        const int64_t *ydims;
    } cases[] = {{"duplicate", dup, 3, yd},
                 {"short", short_perm, 2, yd},
                 {"out_of_range", oob, 3, yd},
                 {"wrong_output", NULL, -1, bad_y}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        t_node nd;
        t_node_init(&nd, EM_OP_TRANSPOSE, "bad_tr");
        if (cases[i].perm != NULL) {
            t_set_ints(&nd, "perm", cases[i].perm, cases[i].n);
        }
        em_tensor in, out;
        t_tensor(&in, EMBER_DTYPE_F32, 3, xd, x);
        t_tensor(&out, EMBER_DTYPE_F32, 3, cases[i].ydims, y);
        t_expect_error(run_k(&nd.n, &in, 1, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_tr",
                       cases[i].name);
    }
    /* Output dtype differs from the input's. */
    t_node nd;
    t_node_init(&nd, EM_OP_TRANSPOSE, "bad_tr");
    em_tensor in, out;
    t_tensor(&in, EMBER_DTYPE_F32, 3, xd, x);
    t_tensor(&out, EMBER_DTYPE_I32, 3, yd, y);
    t_expect_error(run_k(&nd.n, &in, 1, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_tr", "dtype");
}

/* ---- Concat --------------------------------------------------------------------------------- */

typedef struct concat_case {
    const char *name;
    int rank, n_in;
    int64_t axis;
    int64_t dims[4][4]; /* per input */
} concat_case;

static const concat_case concat_cases[] = {
    {"axis0", 2, 2, 0, {{2, 3}, {4, 3}}},
    {"axis1_three", 2, 3, 1, {{2, 3}, {2, 1}, {2, 5}}},
    {"negative_axis", 3, 2, -1, {{2, 3, 2}, {2, 3, 3}}},
    {"middle_axis", 3, 3, -2, {{2, 1, 3}, {2, 4, 3}, {2, 2, 3}}},
    {"zero_size_input", 2, 3, 1, {{3, 2}, {3, 0}, {3, 1}}},
    {"single_input", 1, 1, 0, {{5}}},
    {"1d_four", 1, 4, 0, {{1}, {2}, {3}, {4}}},
};

static void test_concat(void **state)
{
    (void)state;
    for (size_t ci = 0; ci < sizeof concat_cases / sizeof concat_cases[0]; ci++) {
        const concat_case *c = &concat_cases[ci];
        int ax = (int)(c->axis < 0 ? c->axis + c->rank : c->axis);
        int64_t yd[4];
        memcpy(yd, c->dims[0], sizeof yd);
        yd[ax] = 0;
        for (int i = 0; i < c->n_in; i++) {
            yd[ax] += c->dims[i][ax];
        }
        int64_t n = t_numel(yd, c->rank);
        for (size_t di = 0; di < N_DTYPES; di++) {
            ember_dtype dt = all_dtypes[di];
            size_t es = em_dtype_size(dt);
            t_node nd;
            t_node_init(&nd, EM_OP_CONCAT, "cat");
            t_set_int(&nd, "axis", c->axis);
            em_tensor in[4], out;
            void *x[4];
            for (int i = 0; i < c->n_in; i++) {
                x[i] = pattern(dt, t_numel(c->dims[i], c->rank), (unsigned)(i + 1));
                t_tensor(&in[i], dt, c->rank, c->dims[i], x[i]);
            }
            void *y = poisoned(dt, n);
            t_tensor(&out, dt, c->rank, yd, y);
            t_expect_ok(run_k(&nd.n, in, c->n_in, &out, 1, 0), c->name);
            /* Output element at coordinate yc comes from the input whose axis range holds
             * yc[ax]. */
            for (int64_t f = 0; f < n; f++) {
                int64_t yc[4];
                unflat(f, yd, c->rank, yc);
                int i = 0;
                while (yc[ax] >= c->dims[i][ax]) {
                    yc[ax] -= c->dims[i][ax];
                    i++;
                }
                int64_t s = flat(yc, c->dims[i], c->rank);
                if (memcmp((unsigned char *)y + (size_t)f * es,
                           (unsigned char *)x[i] + (size_t)s * es, es) != 0) {
                    fail_msg("case %s (%s): element %lld", c->name, em_dtype_name(dt),
                             (long long)f);
                }
            }
            for (int i = 0; i < c->n_in; i++) {
                test_free(x[i]);
            }
            test_free(y);
        }
    }
}

static void test_concat_errors(void **state)
{
    (void)state;
    float a[12], b[12], y[24];
    static const int64_t ad[2] = {2, 3}, bd[2] = {3, 3}, yd[2] = {5, 3}, bad_y[2] = {4, 3};
    em_tensor in[2], out;
    t_node nd;
    /* Inputs differ in a dim other than the axis. */
    t_node_init(&nd, EM_OP_CONCAT, "bad_cat");
    t_set_int(&nd, "axis", 1);
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, ad, a);
    t_tensor(&in[1], EMBER_DTYPE_F32, 2, bd, b);
    t_tensor(&out, EMBER_DTYPE_F32, 2, yd, y);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_cat", "dims");
    /* Wrong output size, missing axis, axis out of range, dtype mix. */
    t_node_init(&nd, EM_OP_CONCAT, "bad_cat");
    t_set_int(&nd, "axis", 0);
    t_tensor(&out, EMBER_DTYPE_F32, 2, bad_y, y);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_cat", "out");
    t_node_init(&nd, EM_OP_CONCAT, "bad_cat");
    t_tensor(&out, EMBER_DTYPE_F32, 2, yd, y);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_cat", "noax");
    t_set_int(&nd, "axis", -3);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_cat", "range");
    t_node_init(&nd, EM_OP_CONCAT, "bad_cat");
    t_set_int(&nd, "axis", 0);
    t_tensor(&in[1], EMBER_DTYPE_I32, 2, bd, b);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_cat", "dt");
}

/* ---- Squeeze / Unsqueeze -------------------------------------------------------------------- */

static void test_squeeze_unsqueeze(void **state)
{
    (void)state;
    static const int64_t xd[3] = {3, 1, 5}, sq[2] = {3, 5}, usq[4] = {3, 1, 5, 1};
    static const int64_t one = 1, ax_neg[1] = {-1}, nax = 1;
    for (size_t di = 0; di < N_DTYPES; di++) {
        ember_dtype dt = all_dtypes[di];
        for (unsigned konst = 0; konst < 2; konst++) {
            void *x = pattern(dt, 15, 3), *y = poisoned(dt, 15);
            int64_t src[15];
            for (int i = 0; i < 15; i++) {
                src[i] = i;
            }
            t_node nd;
            em_tensor in[2], out;
            int64_t axes = one;
            t_node_init(&nd, EM_OP_SQUEEZE, "sq");
            t_tensor(&in[0], dt, 3, xd, x);
            t_tensor(&in[1], EMBER_DTYPE_I64, 1, &nax, &axes);
            t_tensor(&out, dt, 2, sq, y);
            t_expect_ok(run_k(&nd.n, in, 2, &out, 1, konst ? 2u : 0u), "squeeze_axes");
            expect_gathered("squeeze_axes", dt, y, x, src, 15);
            memset(y, 0xA5, 15 * em_dtype_size(dt));
            t_expect_ok(run_k(&nd.n, in, 1, &out, 1, 0), "squeeze_no_axes");
            expect_gathered("squeeze_no_axes", dt, y, x, src, 15);
            memset(y, 0xA5, 15 * em_dtype_size(dt));
            t_node_init(&nd, EM_OP_UNSQUEEZE, "usq");
            t_tensor(&in[1], EMBER_DTYPE_I64, 1, &nax, (void *)ax_neg);
            t_tensor(&out, dt, 4, usq, y);
            t_expect_ok(run_k(&nd.n, in, 2, &out, 1, konst ? 2u : 0u), "unsqueeze");
            expect_gathered("unsqueeze", dt, y, x, src, 15);
            /* Aliased output (the planner's usual case): nothing moves. */
            t_tensor(&out, dt, 4, usq, x);
            t_expect_ok(run_k(&nd.n, in, 2, &out, 1, 0), "unsqueeze_alias");
            expect_gathered("unsqueeze_alias", dt, x, x, src, 15);
            test_free(x);
            test_free(y);
        }
    }
    /* Element count or rank differs. */
    float x[15], y[15];
    static const int64_t bad[2] = {3, 4};
    int64_t axes = 1;
    t_node nd;
    em_tensor in[2], out;
    t_node_init(&nd, EM_OP_SQUEEZE, "bad_sq");
    t_tensor(&in[0], EMBER_DTYPE_F32, 3, xd, x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &nax, &axes);
    t_tensor(&out, EMBER_DTYPE_F32, 2, bad, y);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_sq", "numel");
    t_node_init(&nd, EM_OP_UNSQUEEZE, "bad_usq");
    t_tensor(&out, EMBER_DTYPE_F32, 2, sq, y);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_usq", "rank");
    t_expect_error(run_k(&nd.n, in, 1, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_usq", "arity");
}

/* ---- Expand --------------------------------------------------------------------------------- */

typedef struct expand_case {
    const char *name;
    int xr, sr;
    int64_t xd[4], shape[4];
} expand_case;

static const expand_case expand_cases[] = {
    {"column_to_3d", 2, 3, {3, 1}, {2, 1, 6}},
    {"shape_of_ones", 2, 2, {3, 4}, {1, 1}},
    {"1_to_5", 1, 1, {1}, {5}},
    {"scalar", 0, 2, {0}, {2, 3}},
    {"to_zero", 3, 3, {2, 1, 3}, {2, 0, 3}},
    {"empty_shape", 1, 0, {4}, {0}},
    {"middle", 3, 3, {2, 1, 3}, {1, 5, 1}},
};

static void test_expand(void **state)
{
    (void)state;
    for (size_t ci = 0; ci < sizeof expand_cases / sizeof expand_cases[0]; ci++) {
        const expand_case *c = &expand_cases[ci];
        int yr = c->xr > c->sr ? c->xr : c->sr;
        int64_t yd[4];
        for (int d = 0; d < yr; d++) {
            int ix = d - (yr - c->xr), is = d - (yr - c->sr);
            int64_t a = ix >= 0 ? c->xd[ix] : 1, b = is >= 0 ? c->shape[is] : 1;
            yd[d] = a == 1 ? b : a;
        }
        int64_t n = t_numel(yd, yr), xn = t_numel(c->xd, c->xr);
        int64_t *src = test_calloc((size_t)(n > 0 ? n : 1), sizeof *src);
        for (int64_t f = 0; f < n; f++) {
            int64_t yc[4], xc[4];
            unflat(f, yd, yr, yc);
            for (int d = 0; d < c->xr; d++) {
                xc[d] = c->xd[d] == 1 ? 0 : yc[d + yr - c->xr];
            }
            src[f] = flat(xc, c->xd, c->xr);
        }
        for (size_t di = 0; di < N_DTYPES; di++) {
            ember_dtype dt = all_dtypes[di];
            for (unsigned konst = 0; konst < 2; konst++) {
                t_node nd;
                t_node_init(&nd, EM_OP_EXPAND, "ex");
                void *x = pattern(dt, xn, 5), *y = poisoned(dt, n);
                int64_t sl = c->sr;
                em_tensor in[2], out;
                t_tensor(&in[0], dt, c->xr, c->xd, x);
                t_tensor(&in[1], EMBER_DTYPE_I64, 1, &sl, (void *)c->shape);
                t_tensor(&out, dt, yr, yd, y);
                t_expect_ok(run_k(&nd.n, in, 2, &out, 1, konst ? 2u : 0u), c->name);
                expect_gathered(c->name, dt, y, x, src, n);
                test_free(x);
                test_free(y);
            }
        }
        test_free(src);
    }
    /* Not broadcastable; output that disagrees with a constant shape. */
    float x[6], y[24];
    static const int64_t xd[2] = {2, 3}, yd[2] = {4, 3}, y2[3] = {2, 2, 3}, sl = 2, sl3 = 3;
    static const int64_t shape[2] = {4, 3}, shape3[3] = {2, 2, 3}, wrong[3] = {3, 2, 3};
    t_node nd;
    em_tensor in[2], out;
    t_node_init(&nd, EM_OP_EXPAND, "bad_ex");
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, xd, x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &sl, (void *)shape);
    t_tensor(&out, EMBER_DTYPE_F32, 2, yd, y);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 2), EMBER_ERR_INVALID_MODEL, "bad_ex", "2vs4");
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &sl3, (void *)wrong);
    t_tensor(&out, EMBER_DTYPE_F32, 3, y2, y);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 2), EMBER_ERR_INVALID_MODEL, "bad_ex", "const");
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &sl3, (void *)shape3);
    t_expect_ok(run_k(&nd.n, in, 2, &out, 1, 2), "good_const");
    t_tensor(&in[1], EMBER_DTYPE_I32, 1, &sl3, (void *)shape3);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_ex", "i32");
}

/* ---- Tile ----------------------------------------------------------------------------------- */

typedef struct tile_case {
    const char *name;
    int rank;
    int64_t xd[3], reps[3];
} tile_case;

static const tile_case tile_cases[] = {
    {"2d", 2, {2, 3}, {2, 3}},         {"rows", 2, {1, 5}, {3, 1}},
    {"zero_repeat", 1, {3}, {0}},      {"3d", 3, {2, 1, 2}, {1, 4, 2}},
    {"ones", 3, {2, 3, 1}, {1, 1, 1}}, {"zero_dim", 2, {0, 2}, {3, 2}},
};

static void test_tile(void **state)
{
    (void)state;
    for (size_t ci = 0; ci < sizeof tile_cases / sizeof tile_cases[0]; ci++) {
        const tile_case *c = &tile_cases[ci];
        int64_t yd[3];
        for (int d = 0; d < c->rank; d++) {
            yd[d] = c->xd[d] * c->reps[d];
        }
        int64_t n = t_numel(yd, c->rank), xn = t_numel(c->xd, c->rank);
        int64_t *src = test_calloc((size_t)(n > 0 ? n : 1), sizeof *src);
        for (int64_t f = 0; f < n; f++) {
            int64_t yc[3], xc[3];
            unflat(f, yd, c->rank, yc);
            for (int d = 0; d < c->rank; d++) {
                xc[d] = yc[d] % c->xd[d];
            }
            src[f] = flat(xc, c->xd, c->rank);
        }
        for (size_t di = 0; di < N_DTYPES; di++) {
            ember_dtype dt = all_dtypes[di];
            for (unsigned konst = 0; konst < 2; konst++) {
                t_node nd;
                t_node_init(&nd, EM_OP_TILE, "tile");
                void *x = pattern(dt, xn, 7), *y = poisoned(dt, n);
                int64_t rl = c->rank;
                em_tensor in[2], out;
                t_tensor(&in[0], dt, c->rank, c->xd, x);
                t_tensor(&in[1], EMBER_DTYPE_I64, 1, &rl, (void *)c->reps);
                t_tensor(&out, dt, c->rank, yd, y);
                t_expect_ok(run_k(&nd.n, in, 2, &out, 1, konst ? 2u : 0u), c->name);
                expect_gathered(c->name, dt, y, x, src, n);
                test_free(x);
                test_free(y);
            }
        }
        test_free(src);
    }
    float x[6], y[36];
    static const int64_t xd[2] = {2, 3}, yd[2] = {4, 9}, bad[2] = {5, 9}, rl = 2, r1 = 1;
    static const int64_t reps[2] = {2, 3}, wrong[2] = {2, 2};
    t_node nd;
    em_tensor in[2], out;
    t_node_init(&nd, EM_OP_TILE, "bad_tile");
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, xd, x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &rl, (void *)reps);
    t_tensor(&out, EMBER_DTYPE_F32, 2, bad, y);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_tile", "5");
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &rl, (void *)wrong);
    t_tensor(&out, EMBER_DTYPE_F32, 2, yd, y);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 2), EMBER_ERR_INVALID_MODEL, "bad_tile", "rep");
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &r1, (void *)reps);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_tile", "len");
}

/* ---- Split ---------------------------------------------------------------------------------- */

typedef struct split_case {
    const char *name;
    int rank;
    int64_t xd[3];
    int64_t axis;
    int mode; /* 0: 'split' input, 1: num_outputs, 2: neither (equal parts) */
    int n_out;
    int64_t sizes[4];
} split_case;

static const split_case split_cases[] = {
    {"split_input", 2, {6, 4}, 0, 0, 3, {1, 2, 3}},
    {"num_outputs_uneven", 2, {2, 7}, -1, 1, 3, {3, 3, 1}},
    {"equal_parts", 2, {2, 6}, 1, 2, 3, {2, 2, 2}},
    {"zero_size_split", 1, {6}, 0, 0, 3, {2, 0, 4}},
    {"middle_axis", 3, {2, 5, 3}, 1, 0, 2, {4, 1}},
    {"num_outputs_even", 3, {2, 4, 3}, -2, 1, 2, {2, 2}},
};

static void test_split(void **state)
{
    (void)state;
    for (size_t ci = 0; ci < sizeof split_cases / sizeof split_cases[0]; ci++) {
        const split_case *c = &split_cases[ci];
        int ax = (int)(c->axis < 0 ? c->axis + c->rank : c->axis);
        int64_t xn = t_numel(c->xd, c->rank);
        for (size_t di = 0; di < N_DTYPES; di++) {
            ember_dtype dt = all_dtypes[di];
            for (unsigned konst = 0; konst < 2; konst++) {
                t_node nd;
                t_node_init(&nd, EM_OP_SPLIT, "split");
                t_set_int(&nd, "axis", c->axis);
                if (c->mode == 1) {
                    t_set_int(&nd, "num_outputs", c->n_out);
                }
                void *x = pattern(dt, xn, 9), *y[4];
                int64_t nout = c->n_out, yd[4][3];
                em_tensor in[2], out[4];
                t_tensor(&in[0], dt, c->rank, c->xd, x);
                t_tensor(&in[1], EMBER_DTYPE_I64, 1, &nout, (void *)c->sizes);
                for (int o = 0; o < c->n_out; o++) {
                    memcpy(yd[o], c->xd, sizeof yd[o]);
                    yd[o][ax] = c->sizes[o];
                    y[o] = poisoned(dt, t_numel(yd[o], c->rank));
                    t_tensor(&out[o], dt, c->rank, yd[o], y[o]);
                }
                t_expect_ok(run_k(&nd.n, in, c->mode == 0 ? 2 : 1, out, c->n_out, konst ? 2u : 0u),
                            c->name);
                int64_t first = 0;
                for (int o = 0; o < c->n_out; o++) {
                    int64_t n = t_numel(yd[o], c->rank);
                    int64_t *src = test_calloc((size_t)(n > 0 ? n : 1), sizeof *src);
                    for (int64_t f = 0; f < n; f++) {
                        int64_t cc[3];
                        unflat(f, yd[o], c->rank, cc);
                        cc[ax] += first;
                        src[f] = flat(cc, c->xd, c->rank);
                    }
                    expect_gathered(c->name, dt, y[o], x, src, n);
                    first += c->sizes[o];
                    test_free(src);
                    test_free(y[o]);
                }
                test_free(x);
            }
        }
    }
}

static void test_split_errors(void **state)
{
    (void)state;
    float x[12], y[3][12];
    static const int64_t xd[2] = {6, 2}, sizes[3] = {1, 2, 3}, two = 2, three = 3;
    static const int64_t bad_sizes[3] = {1, 1, 3};
    int64_t yd[3][2] = {{1, 2}, {2, 2}, {3, 2}};
    em_tensor in[2], out[3];
    t_node nd;
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, xd, x);
    for (int o = 0; o < 3; o++) {
        t_tensor(&out[o], EMBER_DTYPE_F32, 2, yd[o], y[o]);
    }
    /* Constant split sizes disagree with the outputs; split of the wrong length. */
    t_node_init(&nd, EM_OP_SPLIT, "bad_split");
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &three, (void *)bad_sizes);
    t_expect_error(run_k(&nd.n, in, 2, out, 3, 2), EMBER_ERR_INVALID_MODEL, "bad_split", "sz");
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &two, (void *)sizes);
    t_expect_error(run_k(&nd.n, in, 2, out, 3, 0), EMBER_ERR_INVALID_MODEL, "bad_split", "len");
    /* Outputs that do not add up (non-constant split: only the sum is checked). */
    yd[2][0] = 2;
    t_tensor(&out[2], EMBER_DTYPE_F32, 2, yd[2], y[2]);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &three, (void *)sizes);
    t_expect_error(run_k(&nd.n, in, 2, out, 3, 0), EMBER_ERR_INVALID_MODEL, "bad_split", "sum");
    /* num_outputs that is not the output count; equal parts that do not divide. */
    yd[2][0] = 3;
    t_tensor(&out[2], EMBER_DTYPE_F32, 2, yd[2], y[2]);
    t_set_int(&nd, "num_outputs", 2);
    t_expect_error(run_k(&nd.n, in, 1, out, 3, 0), EMBER_ERR_INVALID_MODEL, "bad_split", "num");
    t_node_init(&nd, EM_OP_SPLIT, "bad_split");
    t_set_int(&nd, "axis", 1);
    t_expect_error(run_k(&nd.n, in, 1, out, 3, 0), EMBER_ERR_INVALID_MODEL, "bad_split", "eq");
}

/* ---- DepthToSpace / SpaceToDepth ------------------------------------------------------------ */

static void test_depth_space(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        em_op op;
        const char *mode;
        int64_t b, xd[4];
    } cases[] = {
        {"d2s_dcr", EM_OP_DEPTHTOSPACE, NULL, 2, {2, 8, 3, 2}},
        {"d2s_dcr_explicit", EM_OP_DEPTHTOSPACE, "DCR", 3, {1, 18, 2, 1}},
        {"d2s_crd", EM_OP_DEPTHTOSPACE, "CRD", 2, {2, 8, 1, 3}},
        {"d2s_b1", EM_OP_DEPTHTOSPACE, "CRD", 1, {1, 3, 2, 2}},
        {"s2d", EM_OP_SPACETODEPTH, NULL, 2, {2, 3, 4, 6}},
        {"s2d_b3", EM_OP_SPACETODEPTH, NULL, 3, {1, 2, 3, 6}},
        {"s2d_crd", EM_OP_SPACETODEPTH, "CRD", 2, {2, 3, 4, 6}}, /* SpaceToDepth-28 */
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        int64_t b = cases[ci].b, N = cases[ci].xd[0], C = cases[ci].xd[1];
        int64_t H = cases[ci].xd[2], W = cases[ci].xd[3], yd[4];
        bool d2s = cases[ci].op == EM_OP_DEPTHTOSPACE;
        bool crd = cases[ci].mode != NULL && strcmp(cases[ci].mode, "CRD") == 0;
        if (d2s) {
            int64_t t[4] = {N, C / (b * b), H * b, W * b};
            memcpy(yd, t, sizeof yd);
        } else {
            int64_t t[4] = {N, C * b * b, H / b, W / b};
            memcpy(yd, t, sizeof yd);
        }
        int64_t n = t_numel(yd, 4);
        int64_t *src = test_calloc((size_t)n, sizeof *src);
        for (int64_t f = 0; f < n; f++) {
            int64_t yc[4], xc[4];
            unflat(f, yd, 4, yc);
            xc[0] = yc[0];
            if (d2s) { /* y[n, c, h*b + i, w*b + j] */
                int64_t c = yc[1], i = yc[2] % b, j = yc[3] % b, cc = yd[1];
                xc[1] = crd ? c * b * b + i * b + j : (i * b + j) * cc + c;
                xc[2] = yc[2] / b;
                xc[3] = yc[3] / b;
            } else { /* y[n, (i*b + j)*C + c, h, w] (CRD: y[n, c*b*b + i*b + j, h, w])
                      * = x[n, c, h*b + i, w*b + j] */
                int64_t c = crd ? yc[1] / (b * b) : yc[1] % C;
                int64_t ij = crd ? yc[1] % (b * b) : yc[1] / C;
                xc[1] = c;
                xc[2] = yc[2] * b + ij / b;
                xc[3] = yc[3] * b + ij % b;
            }
            src[f] = flat(xc, cases[ci].xd, 4);
        }
        for (size_t di = 0; di < N_DTYPES; di++) {
            ember_dtype dt = all_dtypes[di];
            t_node nd;
            t_node_init(&nd, cases[ci].op, "ds");
            t_set_int(&nd, "blocksize", b);
            if (cases[ci].mode != NULL) {
                t_set_string(&nd, "mode", cases[ci].mode);
            }
            void *x = pattern(dt, n, 13), *y = poisoned(dt, n);
            em_tensor in, out;
            t_tensor(&in, dt, 4, cases[ci].xd, x);
            t_tensor(&out, dt, 4, yd, y);
            t_expect_ok(run_k(&nd.n, &in, 1, &out, 1, 0), cases[ci].name);
            expect_gathered(cases[ci].name, dt, y, x, src, n);
            test_free(x);
            test_free(y);
        }
        test_free(src);
    }
    /* Channels not a multiple of b^2, bad mode, missing blocksize, H not a multiple. */
    float x[72], y[72];
    static const int64_t xd[4] = {1, 6, 2, 2}, yd[4] = {1, 1, 4, 4}, x2[4] = {1, 8, 2, 2};
    static const int64_t y2[4] = {1, 2, 4, 4}, x3[4] = {1, 2, 3, 4}, y3[4] = {1, 8, 1, 2};
    t_node nd;
    em_tensor in, out;
    t_node_init(&nd, EM_OP_DEPTHTOSPACE, "bad_d2s");
    t_set_int(&nd, "blocksize", 2);
    t_tensor(&in, EMBER_DTYPE_F32, 4, xd, x);
    t_tensor(&out, EMBER_DTYPE_F32, 4, yd, y);
    t_expect_error(run_k(&nd.n, &in, 1, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_d2s", "C");
    t_set_string(&nd, "mode", "XYZ");
    t_tensor(&in, EMBER_DTYPE_F32, 4, x2, x);
    t_tensor(&out, EMBER_DTYPE_F32, 4, y2, y);
    t_expect_error(run_k(&nd.n, &in, 1, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_d2s", "mode");
    t_node_init(&nd, EM_OP_DEPTHTOSPACE, "bad_d2s");
    t_expect_error(run_k(&nd.n, &in, 1, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_d2s", "nob");
    t_node_init(&nd, EM_OP_SPACETODEPTH, "bad_s2d");
    t_set_int(&nd, "blocksize", 2);
    t_tensor(&in, EMBER_DTYPE_F32, 4, x3, x);
    t_tensor(&out, EMBER_DTYPE_F32, 4, y3, y);
    t_expect_error(run_k(&nd.n, &in, 1, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_s2d", "H");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transpose),
        cmocka_unit_test(test_transpose_errors),
        cmocka_unit_test(test_concat),
        cmocka_unit_test(test_concat_errors),
        cmocka_unit_test(test_squeeze_unsqueeze),
        cmocka_unit_test(test_expand),
        cmocka_unit_test(test_tile),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_split_errors),
        cmocka_unit_test(test_depth_space),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
