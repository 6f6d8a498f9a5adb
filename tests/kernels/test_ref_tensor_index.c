/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/tensor_index_ref.c: Gather, GatherElements, GatherND (the ONNX spec's examples,
 * batch_dims, negative indices), ScatterElements and ScatterND (every reduction, duplicate
 * indices applied in order, integer wraparound, f16) and OneHot (numeric indices of several
 * dtypes, negative and out-of-range indices, every axis) against naive loops written here,
 * with int32 and int64 indices, hidden from prepare and then constant. Out-of-range constant
 * indices fail in prepare naming the node; at run time they write zeros (gathers) or are
 * skipped (scatters).
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

/* Writes v as element i of an int32 or int64 buffer. */
static void put_index(ember_dtype it, void *p, int64_t i, int64_t v)
{
    if (it == EMBER_DTYPE_I32) {
        ((int32_t *)p)[i] = (int32_t)v;
    } else {
        ((int64_t *)p)[i] = v;
    }
}

/* ---- Gather --------------------------------------------------------------------------------- */

typedef struct gather_case {
    const char *name;
    int xr, ir;
    int64_t xd[3], id[2];
    int64_t axis;
    int64_t idx[8];
} gather_case;

static const gather_case gather_cases[] = {
    {"axis0", 2, 1, {3, 4}, {4}, 0, {2, 0, -1, 1}},
    {"axis1_2d_indices", 2, 2, {3, 4}, {2, 3}, 1, {0, 3, -4, 1, 1, 2}},
    {"negative_axis_scalar", 3, 0, {2, 3, 4}, {0}, -1, {-2}},
    {"middle_axis", 3, 2, {2, 3, 2}, {2, 2}, -2, {2, -3, 0, 1}},
    {"empty_indices", 2, 1, {3, 4}, {0}, 0, {0}},
    {"1d", 1, 1, {5}, {6}, 0, {4, 3, 2, 1, 0, -5}},
};

static void test_gather(void **state)
{
    (void)state;
    for (size_t ci = 0; ci < sizeof gather_cases / sizeof gather_cases[0]; ci++) {
        const gather_case *c = &gather_cases[ci];
        int ax = (int)(c->axis < 0 ? c->axis + c->xr : c->axis), yr = 0;
        int64_t yd[5];
        for (int d = 0; d < ax; d++) {
            yd[yr++] = c->xd[d];
        }
        for (int d = 0; d < c->ir; d++) {
            yd[yr++] = c->id[d];
        }
        for (int d = ax + 1; d < c->xr; d++) {
            yd[yr++] = c->xd[d];
        }
        int64_t n = t_numel(yd, yr), ni = t_numel(c->id, c->ir), src[64];
        for (int64_t f = 0; f < n; f++) {
            int64_t yc[5], xc[3];
            unflat(f, yd, yr, yc);
            int64_t ic = flat(yc + ax, c->id, c->ir);
            for (int d = 0; d < c->xr; d++) {
                xc[d] = d < ax ? yc[d] : d == ax ? c->idx[ic] : yc[d - 1 + c->ir];
            }
            xc[ax] = xc[ax] < 0 ? xc[ax] + c->xd[ax] : xc[ax];
            src[f] = flat(xc, c->xd, c->xr);
        }
        for (size_t di = 0; di < N_DTYPES; di++) {
            for (int variant = 0; variant < 3; variant++) {
                ember_dtype dt = all_dtypes[di];
                ember_dtype it = variant == 2 ? EMBER_DTYPE_I32 : EMBER_DTYPE_I64;
                int64_t ibuf[8];
                for (int64_t i = 0; i < ni; i++) {
                    put_index(it, ibuf, i, c->idx[i]);
                }
                t_node nd;
                t_node_init(&nd, EM_OP_GATHER, "gather");
                if (c->axis != 0 || variant == 1) {
                    t_set_int(&nd, "axis", c->axis);
                }
                void *x = pattern(dt, t_numel(c->xd, c->xr), 31), *y = poisoned(dt, n);
                em_tensor in[2], out;
                t_tensor(&in[0], dt, c->xr, c->xd, x);
                t_tensor(&in[1], it, c->ir, c->id, ibuf);
                t_tensor(&out, dt, yr, yd, y);
                t_expect_ok(run_k(&nd.n, in, 2, &out, 1, variant == 1 ? 2u : 0u), c->name);
                expect_gathered(c->name, dt, y, x, src, n);
                test_free(x);
                test_free(y);
            }
        }
    }
}

static void test_gather_errors(void **state)
{
    (void)state;
    float x[12], y[12];
    static const int64_t xd[2] = {3, 4}, two = 2, yd[2] = {2, 4}, bad_y[2] = {2, 3};
    int64_t idx[2] = {0, 3};
    float fidx[2] = {0, 1};
    t_node nd;
    em_tensor in[2], out;
    t_node_init(&nd, EM_OP_GATHER, "bad_gather");
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, xd, x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &two, idx);
    t_tensor(&out, EMBER_DTYPE_F32, 2, yd, y);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 2), EMBER_ERR_INVALID_MODEL, "bad_gather", "oob");
    /* Hidden from prepare, the out-of-range index gives a zero row. */
    memset(y, 0xA5, sizeof y);
    t_expect_ok(run_k(&nd.n, in, 2, &out, 1, 0), "oob_at_run");
    for (int j = 0; j < 4; j++) {
        assert_true(y[j] == x[j]);
        assert_true(y[4 + j] == 0.0f);
    }
    t_tensor(&out, EMBER_DTYPE_F32, 2, bad_y, y);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_gather", "sh");
    t_tensor(&out, EMBER_DTYPE_F32, 2, yd, y);
    t_tensor(&in[1], EMBER_DTYPE_F32, 1, &two, fidx);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_gather", "f32");
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &two, idx);
    t_set_int(&nd, "axis", 2);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_gather", "ax");
}

/* ---- GatherElements ------------------------------------------------------------------------- */

static void test_gatherelements(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int rank;
        int64_t xd[3], id[3], axis;
        int64_t idx[12];
    } cases[] = {
        {"spec_axis1", 2, {2, 2}, {2, 2}, 1, {0, 0, 1, 0}},
        {"spec_axis0", 2, {3, 3}, {2, 3}, 0, {1, 2, 0, 2, 0, 0}},
        {"negative", 2, {3, 3}, {2, 3}, 0, {-1, -2, 0, -2, 0, 0}},
        {"3d_axis_neg1", 3, {2, 2, 3}, {2, 1, 2}, -1, {2, 0, -1, 1}},
        {"smaller_indices", 2, {4, 5}, {2, 3}, 1, {4, 0, 1, 3, 3, 2}},
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        int r = cases[ci].rank,
            ax = (int)(cases[ci].axis < 0 ? cases[ci].axis + r : cases[ci].axis);
        int64_t n = t_numel(cases[ci].id, r), src[12];
        for (int64_t f = 0; f < n; f++) {
            int64_t c[3];
            unflat(f, cases[ci].id, r, c);
            int64_t v = cases[ci].idx[f];
            c[ax] = v < 0 ? v + cases[ci].xd[ax] : v;
            src[f] = flat(c, cases[ci].xd, r);
        }
        for (size_t di = 0; di < N_DTYPES; di++) {
            for (int variant = 0; variant < 3; variant++) {
                ember_dtype dt = all_dtypes[di];
                ember_dtype it = variant == 2 ? EMBER_DTYPE_I32 : EMBER_DTYPE_I64;
                int64_t ibuf[12];
                for (int64_t i = 0; i < n; i++) {
                    put_index(it, ibuf, i, cases[ci].idx[i]);
                }
                t_node nd;
                t_node_init(&nd, EM_OP_GATHERELEMENTS, "ge");
                t_set_int(&nd, "axis", cases[ci].axis);
                void *x = pattern(dt, t_numel(cases[ci].xd, r), 37), *y = poisoned(dt, n);
                em_tensor in[2], out;
                t_tensor(&in[0], dt, r, cases[ci].xd, x);
                t_tensor(&in[1], it, r, cases[ci].id, ibuf);
                t_tensor(&out, dt, r, cases[ci].id, y);
                t_expect_ok(run_k(&nd.n, in, 2, &out, 1, variant == 1 ? 2u : 0u), cases[ci].name);
                expect_gathered(cases[ci].name, dt, y, x, src, n);
                test_free(x);
                test_free(y);
            }
        }
    }
    float x[4], y[4];
    static const int64_t xd[2] = {2, 2}, id1[1] = {2}, big[2] = {3, 2};
    int64_t idx[6] = {0, 2, 0, 0, 0, 0};
    t_node nd;
    em_tensor in[2], out;
    t_node_init(&nd, EM_OP_GATHERELEMENTS, "bad_ge");
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, xd, x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 2, xd, idx);
    t_tensor(&out, EMBER_DTYPE_F32, 2, xd, y);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 2), EMBER_ERR_INVALID_MODEL, "bad_ge", "oob");
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, id1, idx);
    t_tensor(&out, EMBER_DTYPE_F32, 1, id1, y);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_ge", "rank");
    t_set_int(&nd, "axis", 1);
    t_tensor(&in[1], EMBER_DTYPE_I64, 2, big, idx);
    t_tensor(&out, EMBER_DTYPE_F32, 2, big, y);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_ge", "big");
}

/* ---- GatherND ------------------------------------------------------------------------------- */

/* The examples of the ONNX GatherND spec (data = arange, so values are source indices). */
static void test_gathernd(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int64_t batch_dims;
        int xr, ir, yr;
        int64_t xd[3], id[3], yd[3];
        int64_t idx[8], want[8];
    } cases[] = {
        {"example1", 0, 2, 2, 1, {2, 2}, {2, 2}, {2}, {0, 0, 1, 1}, {0, 3}},
        {"example2", 0, 2, 2, 2, {2, 2}, {2, 1}, {2, 2}, {1, 0}, {2, 3, 0, 1}},
        {"example3", 0, 3, 2, 2, {2, 2, 2}, {2, 2}, {2, 2}, {0, 1, 1, 0}, {2, 3, 4, 5}},
        {"example4", 0, 3, 3, 3, {2, 2, 2}, {2, 1, 2}, {2, 1, 2}, {0, 1, 1, 0}, {2, 3, 4, 5}},
        {"example5_batch", 1, 3, 2, 2, {2, 2, 2}, {2, 1}, {2, 2}, {1, 0}, {2, 3, 4, 5}},
        {"negative", 0, 2, 2, 2, {2, 2}, {2, 1}, {2, 2}, {-1, 0}, {2, 3, 0, 1}},
        {"batch_full_tuple", 1, 3, 2, 1, {2, 2, 2}, {2, 2}, {2}, {1, 1, 0, -1}, {3, 5}},
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        for (size_t di = 0; di < N_DTYPES; di++) {
            for (unsigned konst = 0; konst < 2; konst++) {
                ember_dtype dt = all_dtypes[di];
                int64_t n = t_numel(cases[ci].yd, cases[ci].yr);
                t_node nd;
                t_node_init(&nd, EM_OP_GATHERND, "gnd");
                if (cases[ci].batch_dims != 0) {
                    t_set_int(&nd, "batch_dims", cases[ci].batch_dims);
                }
                void *x = pattern(dt, t_numel(cases[ci].xd, cases[ci].xr), 41);
                void *y = poisoned(dt, n);
                em_tensor in[2], out;
                t_tensor(&in[0], dt, cases[ci].xr, cases[ci].xd, x);
                t_tensor(&in[1], EMBER_DTYPE_I64, cases[ci].ir, cases[ci].id,
                         (void *)cases[ci].idx);
                t_tensor(&out, dt, cases[ci].yr, cases[ci].yd, y);
                t_expect_ok(run_k(&nd.n, in, 2, &out, 1, konst ? 2u : 0u), cases[ci].name);
                expect_gathered(cases[ci].name, dt, y, x, cases[ci].want, n);
                test_free(x);
                test_free(y);
            }
        }
    }
    float x[8], y[8];
    static const int64_t xd[2] = {2, 2}, id[2] = {2, 3}, yd[1] = {2}, id2[2] = {2, 2};
    int64_t idx[6] = {0, 0, 0, 1, 1, 1}, oob[4] = {0, 2, 1, 1};
    int32_t idx32[4] = {0, 0, 1, 1};
    t_node nd;
    em_tensor in[2], out;
    t_node_init(&nd, EM_OP_GATHERND, "bad_gnd");
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, xd, x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 2, id, idx);
    t_tensor(&out, EMBER_DTYPE_F32, 1, yd, y);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_gnd", "k3");
    t_tensor(&in[1], EMBER_DTYPE_I64, 2, id2, oob);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 2), EMBER_ERR_INVALID_MODEL, "bad_gnd", "oob");
    memset(y, 0xA5, sizeof y);
    t_expect_ok(run_k(&nd.n, in, 2, &out, 1, 0), "oob_at_run");
    assert_true(y[0] == 0.0f && y[1] == x[3]);
    t_tensor(&in[1], EMBER_DTYPE_I32, 2, id2, idx32);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_gnd", "i32");
    t_set_int(&nd, "batch_dims", 2);
    t_tensor(&in[1], EMBER_DTYPE_I64, 2, id2, idx);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_gnd", "b");
}

/* ---- ScatterElements / ScatterND ------------------------------------------------------------ */

static const ember_dtype scatter_dtypes[] = {EMBER_DTYPE_F32, EMBER_DTYPE_F64, EMBER_DTYPE_I32,
                                             EMBER_DTYPE_I64, EMBER_DTYPE_U8,  EMBER_DTYPE_F16};
static const char *const reductions[] = {"none", "add", "mul", "max", "min"};

static bool is_int_dt(ember_dtype dt)
{
    return dt == EMBER_DTYPE_I32 || dt == EMBER_DTYPE_I64 || dt == EMBER_DTYPE_U8;
}

static double tget(ember_dtype dt, const void *p, int64_t i)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
        return ((const float *)p)[i];
    case EMBER_DTYPE_F64:
        return ((const double *)p)[i];
    case EMBER_DTYPE_I32:
        return ((const int32_t *)p)[i];
    case EMBER_DTYPE_I64:
        return (double)((const int64_t *)p)[i];
    case EMBER_DTYPE_U8:
        return ((const uint8_t *)p)[i];
    default:
        return em_tref_f16_to_f32(((const uint16_t *)p)[i]);
    }
}

/* Stores v (integers: wrapped to the width, as the kernel must). */
static void tset(ember_dtype dt, void *p, int64_t i, double v)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
        ((float *)p)[i] = (float)v;
        break;
    case EMBER_DTYPE_F64:
        ((double *)p)[i] = v;
        break;
    case EMBER_DTYPE_I32:
        ((uint32_t *)p)[i] = (uint32_t)(uint64_t)(int64_t)v;
        break;
    case EMBER_DTYPE_I64:
        ((int64_t *)p)[i] = (int64_t)v;
        break;
    case EMBER_DTYPE_U8:
        ((uint8_t *)p)[i] = (uint8_t)(uint64_t)(int64_t)v;
        break;
    default:
        ((uint16_t *)p)[i] = em_tref_f32_to_f16((float)v);
        break;
    }
}

/* Data and updates: small values, exact in every dtype; u8 data near 255 so adds wrap. */
static void *scatter_values(ember_dtype dt, int64_t n, int which)
{
    void *p = test_calloc((size_t)(n > 0 ? n : 1), em_dtype_size(dt));
    for (int64_t i = 0; i < n; i++) {
        double v = which == 0 ? (double)(i % 7) - 3 : (double)(i % 5) - 2;
        if (dt == EMBER_DTYPE_U8) {
            v = which == 0 ? 250 + (double)(i % 5) : 3 + (double)(i % 4);
        } else if (!is_int_dt(dt)) {
            v += which == 0 ? 0.5 : 0.25;
        }
        tset(dt, p, i, v);
    }
    return p;
}

static double reduce_ref(int red, ember_dtype dt, double a, double b)
{
    double r = red == 0   ? b
               : red == 1 ? a + b
               : red == 2 ? a * b
               : red == 3 ? (a > b ? a : b)
                          : (a < b ? a : b);
    if (dt == EMBER_DTYPE_U8) {
        r = (double)(uint8_t)(uint64_t)(int64_t)r;
    }
    return r;
}

/* out = data; then target[k] op= updates[k] in order. */
static void check_scatter(const char *name, ember_dtype dt, int red, const void *data,
                          int64_t n_data, const void *upd, const int64_t *target, int64_t n_upd,
                          const void *got)
{
    double *want = test_calloc((size_t)n_data, sizeof *want);
    for (int64_t i = 0; i < n_data; i++) {
        want[i] = tget(dt, data, i);
    }
    for (int64_t k = 0; k < n_upd; k++) {
        want[target[k]] = reduce_ref(red, dt, want[target[k]], tget(dt, upd, k));
        /* f16 rounds after every step, as the kernel stores each result. */
        if (dt == EMBER_DTYPE_F16) {
            want[target[k]] = em_tref_f16_to_f32(em_tref_f32_to_f16((float)want[target[k]]));
        } else if (dt == EMBER_DTYPE_F32) {
            want[target[k]] = (float)want[target[k]];
        }
    }
    for (int64_t i = 0; i < n_data; i++) {
        if (tget(dt, got, i) != want[i]) {
            fail_msg("case %s (%s, %s): index %lld: got %g, expected %g", name, em_dtype_name(dt),
                     reductions[red], (long long)i, tget(dt, got, i), want[i]);
        }
    }
    test_free(want);
}

static void test_scatterelements(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int rank;
        int64_t xd[3], id[3], axis;
        int64_t idx[8];
    } cases[] = {
        {"spec_axis1", 2, {1, 5}, {1, 2}, 1, {1, 3}},
        {"duplicates", 2, {1, 5}, {1, 2}, 1, {1, 1}},
        {"negative", 2, {1, 5}, {1, 2}, 1, {1, -3}},
        {"axis0", 2, {3, 3}, {2, 3}, 0, {1, 0, 2, 0, 2, 1}},
        {"3d_neg_axis_dups", 3, {2, 2, 3}, {2, 1, 3}, -1, {2, 2, 0, 1, 1, -3}},
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        int r = cases[ci].rank,
            ax = (int)(cases[ci].axis < 0 ? cases[ci].axis + r : cases[ci].axis);
        int64_t nx = t_numel(cases[ci].xd, r), ni = t_numel(cases[ci].id, r), target[8];
        for (int64_t f = 0; f < ni; f++) {
            int64_t c[3], v = cases[ci].idx[f];
            unflat(f, cases[ci].id, r, c);
            c[ax] = v < 0 ? v + cases[ci].xd[ax] : v;
            target[f] = flat(c, cases[ci].xd, r);
        }
        for (size_t di = 0; di < sizeof scatter_dtypes / sizeof scatter_dtypes[0]; di++) {
            for (int red = 0; red < 5; red++) {
                ember_dtype dt = scatter_dtypes[di];
                void *x = scatter_values(dt, nx, 0), *u = scatter_values(dt, ni, 1);
                void *y = poisoned(dt, nx);
                int32_t i32[8];
                for (int64_t i = 0; i < ni; i++) {
                    i32[i] = (int32_t)cases[ci].idx[i];
                }
                t_node nd;
                t_node_init(&nd, EM_OP_SCATTERELEMENTS, "se");
                t_set_int(&nd, "axis", cases[ci].axis);
                if (red > 0) {
                    t_set_string(&nd, "reduction", reductions[red]);
                }
                em_tensor in[3], out;
                t_tensor(&in[0], dt, r, cases[ci].xd, x);
                t_tensor(&in[1], red % 2 ? EMBER_DTYPE_I32 : EMBER_DTYPE_I64, r, cases[ci].id,
                         red % 2 ? (void *)i32 : (void *)cases[ci].idx);
                t_tensor(&in[2], dt, r, cases[ci].id, u);
                t_tensor(&out, dt, r, cases[ci].xd, y);
                t_expect_ok(run_k(&nd.n, in, 3, &out, 1, red == 2 ? 2u : 0u), cases[ci].name);
                check_scatter(cases[ci].name, dt, red, x, nx, u, target, ni, y);
                /* In place (out = data) gives the same. */
                t_tensor(&out, dt, r, cases[ci].xd, x);
                memcpy(y, x, (size_t)nx * em_dtype_size(dt));
                t_expect_ok(run_k(&nd.n, in, 3, &out, 1, 0), cases[ci].name);
                check_scatter(cases[ci].name, dt, red, y, nx, u, target, ni, x);
                test_free(x);
                test_free(u);
                test_free(y);
            }
        }
    }
}

static void test_scatternd(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int xr, ir, ur;
        int64_t xd[3], id[2], ud[3];
        int64_t idx[8];
    } cases[] = {
        {"spec_1d", 1, 2, 1, {8}, {4, 1}, {4}, {4, 3, 1, 7}},
        {"spec_slices", 3, 2, 3, {4, 4, 4}, {2, 1}, {2, 4, 4}, {0, 2}},
        {"duplicates", 3, 2, 3, {4, 4, 4}, {2, 1}, {2, 4, 4}, {0, 0}},
        {"full_tuples_negative", 2, 2, 1, {3, 4}, {3, 2}, {3}, {0, -1, 2, 1, 0, -1}},
        {"pairs_rows", 3, 2, 2, {2, 3, 2}, {2, 2}, {2, 2}, {1, 2, -2, 0}},
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        int64_t nx = t_numel(cases[ci].xd, cases[ci].xr), nu = t_numel(cases[ci].ud, cases[ci].ur);
        int64_t k = cases[ci].id[cases[ci].ir - 1],
                tuples = t_numel(cases[ci].id, cases[ci].ir) / k;
        int64_t slice = nu / tuples, target[128];
        for (int64_t t = 0; t < tuples; t++) {
            int64_t c[3] = {0, 0, 0};
            for (int64_t j = 0; j < k; j++) {
                int64_t v = cases[ci].idx[t * k + j];
                c[j] = v < 0 ? v + cases[ci].xd[j] : v;
            }
            for (int64_t e = 0; e < slice; e++) {
                target[t * slice + e] = flat(c, cases[ci].xd, cases[ci].xr) + e;
            }
        }
        for (size_t di = 0; di < sizeof scatter_dtypes / sizeof scatter_dtypes[0]; di++) {
            for (int red = 0; red < 5; red++) {
                ember_dtype dt = scatter_dtypes[di];
                void *x = scatter_values(dt, nx, 0), *u = scatter_values(dt, nu, 1);
                void *y = poisoned(dt, nx);
                t_node nd;
                t_node_init(&nd, EM_OP_SCATTERND, "snd");
                if (red > 0) {
                    t_set_string(&nd, "reduction", reductions[red]);
                }
                em_tensor in[3], out;
                t_tensor(&in[0], dt, cases[ci].xr, cases[ci].xd, x);
                t_tensor(&in[1], EMBER_DTYPE_I64, cases[ci].ir, cases[ci].id,
                         (void *)cases[ci].idx);
                t_tensor(&in[2], dt, cases[ci].ur, cases[ci].ud, u);
                t_tensor(&out, dt, cases[ci].xr, cases[ci].xd, y);
                t_expect_ok(run_k(&nd.n, in, 3, &out, 1, red == 2 ? 2u : 0u), cases[ci].name);
                check_scatter(cases[ci].name, dt, red, x, nx, u, target, nu, y);
                test_free(x);
                test_free(u);
                test_free(y);
            }
        }
    }
}

static void test_scatter_errors(void **state)
{
    (void)state;
    float x[8], y[8], u[4];
    static const int64_t xd[1] = {8}, id[2] = {2, 1}, ud[1] = {2}, bad_ud[1] = {3};
    int64_t idx[2] = {1, 8};
    uint64_t x64[8], u64[2];
    t_node nd;
    em_tensor in[3], out;
    t_node_init(&nd, EM_OP_SCATTERND, "bad_snd");
    t_tensor(&in[0], EMBER_DTYPE_F32, 1, xd, x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 2, id, idx);
    t_tensor(&in[2], EMBER_DTYPE_F32, 1, ud, u);
    t_tensor(&out, EMBER_DTYPE_F32, 1, xd, y);
    t_expect_error(run_k(&nd.n, in, 3, &out, 1, 2), EMBER_ERR_INVALID_MODEL, "bad_snd", "oob");
    /* At run time the out-of-range update is skipped. */
    for (int i = 0; i < 8; i++) {
        x[i] = (float)i;
    }
    u[0] = 100;
    u[1] = 200;
    t_expect_ok(run_k(&nd.n, in, 3, &out, 1, 0), "oob_at_run");
    for (int i = 0; i < 8; i++) {
        assert_true(y[i] == (i == 1 ? 100.0f : (float)i));
    }
    t_tensor(&in[2], EMBER_DTYPE_F32, 1, bad_ud, u);
    t_expect_error(run_k(&nd.n, in, 3, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_snd", "upd");
    t_tensor(&in[2], EMBER_DTYPE_F32, 1, ud, u);
    t_set_string(&nd, "reduction", "avg");
    t_expect_error(run_k(&nd.n, in, 3, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_snd", "red");
    /* A reduction on u64 is declined (UNSUPPORTED); without one any dtype works. */
    t_node_init(&nd, EM_OP_SCATTERND, "u64_snd");
    t_set_string(&nd, "reduction", "add");
    idx[1] = 3;
    t_tensor(&in[0], EMBER_DTYPE_U64, 1, xd, x64);
    t_tensor(&in[2], EMBER_DTYPE_U64, 1, ud, u64);
    t_tensor(&out, EMBER_DTYPE_U64, 1, xd, x64);
    t_expect_error(run_k(&nd.n, in, 3, &out, 1, 0), EMBER_ERR_UNSUPPORTED, "u64_snd", "u64");
    /* ScatterElements: updates shape differs from the indices'. */
    static const int64_t sd[2] = {2, 4}, si[2] = {1, 2}, su[2] = {1, 3};
    int64_t sidx[2] = {0, 1};
    t_node_init(&nd, EM_OP_SCATTERELEMENTS, "bad_se");
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, sd, x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 2, si, sidx);
    t_tensor(&in[2], EMBER_DTYPE_F32, 2, su, u);
    t_tensor(&out, EMBER_DTYPE_F32, 2, sd, y);
    t_expect_error(run_k(&nd.n, in, 3, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_se", "upd");
}

/* ---- OneHot --------------------------------------------------------------------------------- */

static void test_onehot(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int rank;
        int64_t id[2], axis;
        double idx[6];
        int64_t depth;
    } cases[] = {
        {"spec_axis1", 2, {2, 2}, 1, {1, 9, 2, 4}, 10},
        {"default_axis", 1, {3}, -1, {0, 7, 6}, 8},
        {"negative_indices", 1, {4}, 0, {-1, 1, -4, 3}, 4},
        {"out_of_range", 2, {2, 3}, -2, {5, -6, 2, 1, 0, 2.7}, 5},
        {"axis_neg3", 2, {2, 3}, -3, {0, 1, 2, 3, -1, -3}, 3},
    };
    static const ember_dtype idx_dts[] = {EMBER_DTYPE_I64, EMBER_DTYPE_I32, EMBER_DTYPE_F32};
    static const ember_dtype val_dts[] = {EMBER_DTYPE_F32, EMBER_DTYPE_I64, EMBER_DTYPE_I32,
                                          EMBER_DTYPE_U8};
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        int r = cases[ci].rank, yr = r + 1;
        int ax = (int)(cases[ci].axis < 0 ? cases[ci].axis + yr : cases[ci].axis);
        int64_t yd[3], depth = cases[ci].depth;
        for (int d = 0, s = 0; d < yr; d++) {
            yd[d] = d == ax ? depth : cases[ci].id[s++];
        }
        int64_t n = t_numel(yd, yr), ni = t_numel(cases[ci].id, r);
        for (size_t ii = 0; ii < 3; ii++) {
            for (size_t vi = 0; vi < 4; vi++) {
                ember_dtype it = idx_dts[ii], vt = val_dts[vi];
                if (it != EMBER_DTYPE_F32 && cases[ci].idx[5] != (int64_t)cases[ci].idx[5]) {
                    continue;
                }
                int64_t ibuf[6], one = 2, dbuf = depth;
                float fdepth = (float)depth;
                for (int64_t i = 0; i < ni; i++) {
                    if (it == EMBER_DTYPE_F32) {
                        ((float *)ibuf)[i] = (float)cases[ci].idx[i];
                    } else {
                        put_index(it, ibuf, i, (int64_t)cases[ci].idx[i]);
                    }
                }
                unsigned char vals[16];
                tset(vt == EMBER_DTYPE_U8 ? EMBER_DTYPE_U8 : vt, vals, 0, 3);
                tset(vt, vals, 1, 5);
                void *y = poisoned(vt, n);
                t_node nd;
                t_node_init(&nd, EM_OP_ONEHOT, "oh");
                if (cases[ci].axis != -1) {
                    t_set_int(&nd, "axis", cases[ci].axis);
                }
                em_tensor in[3], out;
                t_tensor(&in[0], it, r, cases[ci].id, ibuf);
                if (vi % 2) {
                    t_tensor(&in[1], EMBER_DTYPE_F32, 0, NULL, &fdepth);
                } else {
                    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &(int64_t){1}, &dbuf);
                }
                t_tensor(&in[2], vt, 1, &one, vals);
                t_tensor(&out, vt, yr, yd, y);
                t_expect_ok(run_k(&nd.n, in, 3, &out, 1, ii == 0 ? 2u : 0u), cases[ci].name);
                for (int64_t f = 0; f < n; f++) {
                    int64_t yc[3], ic[2];
                    unflat(f, yd, yr, yc);
                    for (int d = 0, s = 0; d < yr; d++) {
                        if (d != ax) {
                            ic[s++] = yc[d];
                        }
                    }
                    double v = cases[ci].idx[flat(ic, cases[ci].id, r)];
                    int64_t hot = (int64_t)v; /* truncation toward zero */
                    hot = hot < 0 ? hot + depth : hot;
                    double want = hot == yc[ax] ? 5 : 3;
                    if (tget(vt, y, f) != want) {
                        fail_msg("case %s (indices %s, values %s): element %lld: got %g, want %g",
                                 cases[ci].name, em_dtype_name(it), em_dtype_name(vt), (long long)f,
                                 tget(vt, y, f), want);
                    }
                }
                test_free(y);
            }
        }
    }
    float y[8];
    int64_t idx[2] = {0, 1}, depth = 4, two = 2, three = 3;
    float vals[3] = {0, 1, 2};
    static const int64_t id[1] = {2}, yd[2] = {2, 4}, bad_y[2] = {2, 5};
    t_node nd;
    em_tensor in[3], out;
    t_node_init(&nd, EM_OP_ONEHOT, "bad_oh");
    t_tensor(&in[0], EMBER_DTYPE_I64, 1, id, idx);
    t_tensor(&in[1], EMBER_DTYPE_I64, 0, NULL, &depth);
    t_tensor(&in[2], EMBER_DTYPE_F32, 1, &three, vals);
    t_tensor(&out, EMBER_DTYPE_F32, 2, yd, y);
    t_expect_error(run_k(&nd.n, in, 3, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_oh", "vals3");
    t_tensor(&in[2], EMBER_DTYPE_F32, 1, &two, vals);
    t_tensor(&out, EMBER_DTYPE_F32, 2, bad_y, y);
    t_expect_error(run_k(&nd.n, in, 3, &out, 1, 2), EMBER_ERR_INVALID_MODEL, "bad_oh", "depth");
    t_tensor(&out, EMBER_DTYPE_I64, 2, yd, y);
    t_expect_error(run_k(&nd.n, in, 3, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_oh", "dtype");
    t_tensor(&out, EMBER_DTYPE_F32, 2, yd, y);
    t_set_int(&nd, "axis", 2);
    t_expect_error(run_k(&nd.n, in, 3, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_oh", "axis");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gather),          cmocka_unit_test(test_gather_errors),
        cmocka_unit_test(test_gatherelements),  cmocka_unit_test(test_gathernd),
        cmocka_unit_test(test_scatterelements), cmocka_unit_test(test_scatternd),
        cmocka_unit_test(test_scatter_errors),  cmocka_unit_test(test_onehot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
