/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/tensor_slice_ref.c: Slice against Python's slice semantics (CPython's index
 * adjustment, which ONNX Slice-13 follows) including INT64_MIN/MAX bounds, negative steps,
 * negative and omitted axes, int32 parameters and empty results; Pad against numpy.pad
 * results pasted from numpy (constant, reflect and wrap wider than the input, edge, negative
 * pads, axes, constant_value); ReverseSequence and Trilu against naive loops. Every case runs
 * with the value inputs hidden from prepare and then shown (constants), for several dtypes;
 * malformed nodes fail naming the node, and run-time values that disagree with the planned
 * shape zero the output instead of reading out of bounds.
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

/* ---- Slice ---------------------------------------------------------------------------------- */

/* CPython's PySlice_AdjustIndices, then the index list of one axis. */
static int64_t py_slice(int64_t len, int64_t start, int64_t stop, int64_t step, int64_t *idx)
{
    if (start < 0) {
        start += len;
        if (start < 0) {
            start = step < 0 ? -1 : 0;
        }
    } else if (start >= len) {
        start = step < 0 ? len - 1 : len;
    }
    if (stop < 0) {
        stop += len;
        if (stop < 0) {
            stop = step < 0 ? -1 : 0;
        }
    } else if (stop >= len) {
        stop = step < 0 ? len - 1 : len;
    }
    int64_t n = 0;
    for (int64_t i = start; step > 0 ? i < stop : i > stop;) {
        idx[n++] = i;
        /* The next index would pass stop (unsigned: step may be INT64_MIN). */
        if (step > 0 ? stop - i <= step : (uint64_t)(i - stop) <= 0 - (uint64_t)step) {
            break;
        }
        i += step;
    }
    return n;
}

typedef struct slice_case {
    const char *name;
    int rank;
    int64_t xd[3];
    int n; /* entries in starts/ends/axes/steps */
    int64_t starts[3], ends[3], axes[3], steps[3];
    bool has_axes, has_steps;
} slice_case;

static const slice_case slice_cases[] = {
    {"basic", 2, {4, 6}, 2, {1, 0}, {3, 4}, {0, 1}, {1, 1}, true, true},
    {"defaults", 2, {4, 6}, 2, {0, 2}, {2, 5}, {0}, {0}, false, false},
    {"negative_index", 2, {4, 6}, 1, {-3}, {-1}, {1}, {1}, true, false},
    {"int64_max_end", 3, {2, 3, 4}, 1, {1}, {INT64_MAX}, {2}, {1}, true, true},
    {"reverse_all", 1, {7}, 1, {-1}, {INT64_MIN}, {0}, {-1}, true, true},
    {"negative_step_2", 2, {3, 9}, 1, {8}, {0}, {-1}, {-3}, true, true},
    {"step_beyond", 1, {5}, 1, {1}, {5}, {0}, {INT64_MAX}, true, true},
    {"negative_step_beyond", 1, {5}, 1, {4}, {-10}, {0}, {INT64_MIN}, true, true},
    {"empty", 2, {3, 4}, 1, {2}, {1}, {1}, {1}, true, true},
    {"empty_negative", 2, {3, 4}, 1, {0}, {3}, {1}, {-1}, true, true},
    {"clamped_start", 2, {3, 4}, 2, {-100, 100}, {100, -100}, {0, 1}, {1, -1}, true, true},
    {"mixed_3d",
     3,
     {3, 4, 5},
     3,
     {0, 3, -4},
     {INT64_MIN, 0, 100},
     {0, 1, 2},
     {-1, -2, 1},
     true,
     true},
    {"axes_permuted", 3, {3, 4, 5}, 2, {1, 0}, {5, 2}, {-1, 0}, {2, 1}, true, true},
    {"zero_dim_input", 2, {0, 4}, 1, {0}, {2}, {1}, {1}, true, true},
};

static void slice_expected(const slice_case *c, int64_t *yd, int64_t **src, int64_t *n)
{
    int64_t lists[3][64], lens[3] = {0, 0, 0};
    for (int d = 0; d < c->rank; d++) {
        lens[d] = py_slice(c->xd[d], 0, c->xd[d], 1, lists[d]);
    }
    for (int i = 0; i < c->n; i++) {
        int64_t a = c->has_axes ? c->axes[i] : i;
        a = a < 0 ? a + c->rank : a;
        lens[a] =
            py_slice(c->xd[a], c->starts[i], c->ends[i], c->has_steps ? c->steps[i] : 1, lists[a]);
    }
    memcpy(yd, lens, sizeof lens);
    *n = t_numel(yd, c->rank);
    *src = test_calloc((size_t)(*n > 0 ? *n : 1), sizeof **src);
    for (int64_t f = 0; f < *n; f++) {
        int64_t yc[3], xc[3];
        unflat(f, yd, c->rank, yc);
        for (int d = 0; d < c->rank; d++) {
            xc[d] = lists[d][yc[d]];
        }
        (*src)[f] = flat(xc, c->xd, c->rank);
    }
}

static void test_slice(void **state)
{
    (void)state;
    for (size_t ci = 0; ci < sizeof slice_cases / sizeof slice_cases[0]; ci++) {
        const slice_case *c = &slice_cases[ci];
        int64_t yd[3], n, *src;
        slice_expected(c, yd, &src, &n);
        for (size_t di = 0; di < N_DTYPES; di++) {
            ember_dtype dt = all_dtypes[di];
            for (int variant = 0; variant < 3; variant++) {
                /* 0: i64 hidden; 1: i64 constants; 2: i32 hidden. */
                ember_dtype it = variant == 2 ? EMBER_DTYPE_I32 : EMBER_DTYPE_I64;
                int32_t p32[4][3];
                const int64_t *p64[4] = {c->starts, c->ends, c->axes, c->steps};
                for (int k = 0; k < 4; k++) {
                    for (int i = 0; i < c->n; i++) {
                        int64_t v = p64[k][i];
                        p32[k][i] = (int32_t)(v > INT32_MAX   ? INT32_MAX
                                              : v < INT32_MIN ? INT32_MIN
                                                              : v);
                    }
                }
                int64_t cnt = c->n, xn = t_numel(c->xd, c->rank);
                void *x = pattern(dt, xn, 17), *y = poisoned(dt, n);
                em_tensor in[5], out;
                t_node nd;
                t_node_init(&nd, EM_OP_SLICE, "slice");
                t_tensor(&in[0], dt, c->rank, c->xd, x);
                for (int k = 0; k < 4; k++) {
                    t_tensor(&in[1 + k], it, 1, &cnt,
                             it == EMBER_DTYPE_I64 ? (void *)p64[k] : (void *)p32[k]);
                }
                int n_in = 5;
                if (!c->has_steps) {
                    n_in = 4;
                    if (!c->has_axes) {
                        n_in = 3;
                    }
                }
                if (!c->has_axes && c->has_steps) {
                    t_absent(&in[3]);
                }
                t_tensor(&out, dt, c->rank, yd, y);
                t_expect_ok(run_k(&nd.n, in, n_in, &out, 1, variant == 1 ? 0x1eu : 0u), c->name);
                expect_gathered(c->name, dt, y, x, src, n);
                test_free(x);
                test_free(y);
            }
        }
        test_free(src);
    }
}

/* The same slice as numpy computes it: a[::-1, 3:0:-2, -4:100] of arange(60).reshape(3,4,5). */
static void test_slice_numpy(void **state)
{
    (void)state;
    static const int32_t want[24] = {56, 57, 58, 59, 46, 47, 48, 49, 36, 37, 38, 39,
                                     26, 27, 28, 29, 16, 17, 18, 19, 6,  7,  8,  9};
    static const int64_t xd[3] = {3, 4, 5}, yd[3] = {3, 2, 4}, three = 3;
    static const int64_t starts[3] = {-1, 3, -4}, ends[3] = {INT64_MIN, 0, 100};
    static const int64_t axes[3] = {0, 1, 2}, steps[3] = {-1, -2, 1};
    int32_t x[60], y[24];
    for (int i = 0; i < 60; i++) {
        x[i] = i;
    }
    t_node nd;
    t_node_init(&nd, EM_OP_SLICE, "slice_np");
    em_tensor in[5], out;
    t_tensor(&in[0], EMBER_DTYPE_I32, 3, xd, x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &three, (void *)starts);
    t_tensor(&in[2], EMBER_DTYPE_I64, 1, &three, (void *)ends);
    t_tensor(&in[3], EMBER_DTYPE_I64, 1, &three, (void *)axes);
    t_tensor(&in[4], EMBER_DTYPE_I64, 1, &three, (void *)steps);
    t_tensor(&out, EMBER_DTYPE_I32, 3, yd, y);
    t_expect_ok(run_k(&nd.n, in, 5, &out, 1, 0), "slice_np");
    assert_memory_equal(y, want, sizeof want);
}

static void test_slice_errors(void **state)
{
    (void)state;
    float x[12], y[12];
    static const int64_t xd[2] = {3, 4}, yd[2] = {2, 4}, one = 1, two = 2;
    static const int64_t s1[1] = {1}, e1[1] = {3}, zero_step[1] = {0}, ax_bad[1] = {2};
    static const int64_t ax_dup[2] = {0, 0}, s2[2] = {0, 0}, e2[2] = {1, 1};
    em_tensor in[5], out;
    t_node nd;
    t_node_init(&nd, EM_OP_SLICE, "bad_slice");
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, xd, x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &one, (void *)s1);
    t_tensor(&in[2], EMBER_DTYPE_I64, 1, &one, (void *)e1);
    t_tensor(&in[3], EMBER_DTYPE_I64, 1, &one, (void *)ax_bad);
    t_tensor(&in[4], EMBER_DTYPE_I64, 1, &one, (void *)zero_step);
    t_tensor(&out, EMBER_DTYPE_F32, 2, yd, y);
    t_expect_error(run_k(&nd.n, in, 4, &out, 1, 0xe), EMBER_ERR_INVALID_MODEL, "bad_slice",
                   "axis_range");
    t_tensor(&in[3], EMBER_DTYPE_I64, 1, &one, (void *)s1);
    t_expect_error(run_k(&nd.n, in, 5, &out, 1, 0x1e), EMBER_ERR_INVALID_MODEL, "bad_slice",
                   "zero_step");
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &two, (void *)s2);
    t_tensor(&in[2], EMBER_DTYPE_I64, 1, &two, (void *)e2);
    t_tensor(&in[3], EMBER_DTYPE_I64, 1, &two, (void *)ax_dup);
    t_expect_error(run_k(&nd.n, in, 4, &out, 1, 0xe), EMBER_ERR_INVALID_MODEL, "bad_slice", "dup");
    /* Lengths differ; float parameters; a constant slice that disagrees with the output. */
    t_tensor(&in[2], EMBER_DTYPE_I64, 1, &one, (void *)e1);
    t_expect_error(run_k(&nd.n, in, 3, &out, 1, 0x6), EMBER_ERR_INVALID_MODEL, "bad_slice", "len");
    t_tensor(&in[1], EMBER_DTYPE_F32, 1, &one, x);
    t_expect_error(run_k(&nd.n, in, 3, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_slice", "f32");
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &one, (void *)s1);
    t_tensor(&in[2], EMBER_DTYPE_I64, 1, &one, (void *)e1);
    static const int64_t wrong[2] = {3, 4};
    t_tensor(&out, EMBER_DTYPE_F32, 2, wrong, y);
    t_expect_error(run_k(&nd.n, in, 3, &out, 1, 0x6), EMBER_ERR_INVALID_MODEL, "bad_slice",
                   "shape");
    /* Hidden from prepare, the same disagreement zeroes the output at run time. */
    memset(y, 0xA5, sizeof y);
    t_expect_ok(run_k(&nd.n, in, 3, &out, 1, 0), "mismatch_at_run");
    for (int i = 0; i < 12; i++) {
        assert_true(y[i] == 0.0f);
    }
}

/* ---- Pad ------------------------------------------------------------------------------------ */

/* numpy.pad of arange(12).reshape(3, 4): each entry is the source index, -1 = constant. */
typedef struct pad_case {
    const char *name;
    const char *mode; /* NULL: attribute absent (constant) */
    int n_pads, n_axes;
    int64_t pads[4], axes[2];
    int64_t yd[2];
    int64_t want[72];
} pad_case;

/* clang-format off */
static const pad_case pad_cases[] = {
    {"constant", NULL, 4, 0, {1, 0, 2, 1}, {0}, {6, 5},
     {-1,-1,-1,-1,-1,0,1,2,3,-1,4,5,6,7,-1,8,9,10,11,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1}},
    {"reflect_wide", "reflect", 4, 0, {2, 3, 1, 4}, {0}, {6, 11},
     {11,10,9,8,9,10,11,10,9,8,9,7,6,5,4,5,6,7,6,5,4,5,3,2,1,0,1,2,3,2,1,0,1,7,6,5,4,5,6,7,
      6,5,4,5,11,10,9,8,9,10,11,10,9,8,9,7,6,5,4,5,6,7,6,5,4,5}},
    {"edge", "edge", 4, 0, {1, 2, 2, 1}, {0}, {6, 7},
     {0,0,0,1,2,3,3,0,0,0,1,2,3,3,4,4,4,5,6,7,7,8,8,8,9,10,11,11,8,8,8,9,10,11,11,8,8,8,9,10,
      11,11}},
    {"wrap_wide", "wrap", 4, 0, {2, 3, 1, 4}, {0}, {6, 11},
     {5,6,7,4,5,6,7,4,5,6,7,9,10,11,8,9,10,11,8,9,10,11,1,2,3,0,1,2,3,0,1,2,3,5,6,7,4,5,6,7,
      4,5,6,7,9,10,11,8,9,10,11,8,9,10,11,1,2,3,0,1,2,3,0,1,2,3}},
    {"reflect_end", "reflect", 4, 0, {0, 1, 3, 0}, {0}, {6, 5},
     {1,0,1,2,3,5,4,5,6,7,9,8,9,10,11,5,4,5,6,7,1,0,1,2,3,5,4,5,6,7}},
    {"negative_pads", "constant", 4, 0, {-1, 2, 1, -1}, {0}, {3, 5},
     {-1,-1,4,5,6,-1,-1,8,9,10,-1,-1,-1,-1,-1}},
    {"axes_negative", "edge", 2, 1, {1, 2}, {-1}, {3, 7},
     {0,0,1,2,3,3,3,4,4,5,6,7,7,7,8,8,9,10,11,11,11}},
};
/* clang-format on */

static void test_pad(void **state)
{
    (void)state;
    static const int64_t xd[2] = {3, 4};
    static const ember_dtype dts[] = {EMBER_DTYPE_U8, EMBER_DTYPE_F16, EMBER_DTYPE_F32,
                                      EMBER_DTYPE_I64};
    for (size_t ci = 0; ci < sizeof pad_cases / sizeof pad_cases[0]; ci++) {
        const pad_case *c = &pad_cases[ci];
        int64_t n = c->yd[0] * c->yd[1];
        for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
            ember_dtype dt = dts[di];
            for (unsigned konst = 0; konst < 2; konst++) {
                t_node nd;
                t_node_init(&nd, EM_OP_PAD, "pad");
                if (c->mode != NULL) {
                    t_set_string(&nd, "mode", c->mode);
                }
                void *x = pattern(dt, 12, 19), *y = poisoned(dt, n);
                int64_t np = c->n_pads, na = c->n_axes;
                em_tensor in[4], out;
                t_tensor(&in[0], dt, 2, xd, x);
                t_tensor(&in[1], EMBER_DTYPE_I64, 1, &np, (void *)c->pads);
                t_absent(&in[2]);
                t_tensor(&in[3], EMBER_DTYPE_I64, 1, &na, (void *)c->axes);
                t_tensor(&out, dt, 2, c->yd, y);
                t_expect_ok(run_k(&nd.n, in, c->n_axes > 0 ? 4 : 2, &out, 1, konst ? 0xau : 0),
                            c->name);
                expect_gathered(c->name, dt, y, x, c->want, n);
                test_free(x);
                test_free(y);
            }
        }
    }
}

static void test_pad_constant_value(void **state)
{
    (void)state;
    static const int64_t xd[2] = {2, 2}, yd[2] = {3, 4}, four = 4, one = 1;
    static const int64_t pads[4] = {1, 1, 0, 1};
    static const float x[4] = {1, 2, 3, 4};
    static const float want[12] = {7.5f, 7.5f, 7.5f, 7.5f, 7.5f, 1, 2, 7.5f, 7.5f, 3, 4, 7.5f};
    float y[12], cv = 7.5f;
    for (int shape1 = 0; shape1 < 2; shape1++) {
        t_node nd;
        t_node_init(&nd, EM_OP_PAD, "padv");
        t_set_string(&nd, "mode", "constant");
        em_tensor in[3], out;
        t_tensor(&in[0], EMBER_DTYPE_F32, 2, xd, (void *)x);
        t_tensor(&in[1], EMBER_DTYPE_I64, 1, &four, (void *)pads);
        t_tensor(&in[2], EMBER_DTYPE_F32, shape1, &one, &cv); /* scalar or [1] */
        t_tensor(&out, EMBER_DTYPE_F32, 2, yd, y);
        t_expect_ok(run_k(&nd.n, in, 3, &out, 1, 0), "constant_value");
        assert_memory_equal(y, want, sizeof want);
    }
}

static void test_pad_errors(void **state)
{
    (void)state;
    float x[12], y[72];
    static const int64_t xd[2] = {3, 4}, yd[2] = {6, 5}, four = 4, three = 3, one = 1;
    static const int64_t pads[4] = {1, 0, 2, 1}, crop_all[4] = {-2, 0, -2, 0};
    static const int64_t ax_dup[2] = {0, 0}, two = 2;
    static const int64_t zd[2] = {0, 4}, zy[2] = {2, 4}, zpads[4] = {1, 0, 1, 0};
    em_tensor in[4], out;
    t_node nd;
    t_node_init(&nd, EM_OP_PAD, "bad_pad");
    t_set_string(&nd, "mode", "mirror");
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, xd, x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &four, (void *)pads);
    t_tensor(&out, EMBER_DTYPE_F32, 2, yd, y);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 2), EMBER_ERR_INVALID_MODEL, "bad_pad", "mode");
    t_node_init(&nd, EM_OP_PAD, "bad_pad");
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &three, (void *)pads);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 2), EMBER_ERR_INVALID_MODEL, "bad_pad", "len");
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &four, (void *)crop_all);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 2), EMBER_ERR_INVALID_MODEL, "bad_pad", "crop");
    t_tensor(&in[1], EMBER_DTYPE_I32, 1, &four, (void *)pads);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_pad", "i32");
    /* constant_value of another dtype; repeated axes. */
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &four, (void *)pads);
    t_tensor(&in[2], EMBER_DTYPE_I64, 1, &one, (void *)pads);
    t_expect_error(run_k(&nd.n, in, 3, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_pad", "cv");
    t_absent(&in[2]);
    t_tensor(&in[3], EMBER_DTYPE_I64, 1, &two, (void *)ax_dup);
    t_expect_error(run_k(&nd.n, in, 4, &out, 1, 0xa), EMBER_ERR_INVALID_MODEL, "bad_pad", "dup");
    /* edge padding of an empty axis. */
    t_node_init(&nd, EM_OP_PAD, "bad_pad");
    t_set_string(&nd, "mode", "edge");
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, zd, x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &four, (void *)zpads);
    t_tensor(&out, EMBER_DTYPE_F32, 2, zy, y);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 2), EMBER_ERR_INVALID_MODEL, "bad_pad", "empty");
    /* ... while constant padding of it is fine. */
    t_node_init(&nd, EM_OP_PAD, "pad_empty");
    memset(y, 0xA5, sizeof y);
    t_expect_ok(run_k(&nd.n, in, 2, &out, 1, 2), "pad_empty");
    for (int i = 0; i < 8; i++) {
        assert_true(y[i] == 0.0f);
    }
}

/* ---- ReverseSequence ------------------------------------------------------------------------ */

static void test_reversesequence(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int64_t batch_axis, time_axis;
        int rank;
        int64_t xd[3];
        int64_t lens[4];
    } cases[] = {
        {"time_major", 1, 0, 2, {4, 4}, {4, 3, 2, 1}},
        {"batch_major", 0, 1, 2, {4, 4}, {1, 2, 3, 4}},
        {"3d_time_major", 1, 0, 3, {5, 3, 2}, {5, 0, 2}},
        {"3d_batch_major", 0, 1, 3, {2, 3, 3}, {3, 1}},
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        int64_t n = t_numel(cases[ci].xd, cases[ci].rank), src[64];
        int ba = (int)cases[ci].batch_axis, ta = (int)cases[ci].time_axis;
        for (int64_t f = 0; f < n; f++) {
            int64_t c[3];
            unflat(f, cases[ci].xd, cases[ci].rank, c);
            int64_t len = cases[ci].lens[c[ba]];
            if (c[ta] < len) {
                c[ta] = len - 1 - c[ta];
            }
            src[f] = flat(c, cases[ci].xd, cases[ci].rank);
        }
        for (size_t di = 0; di < N_DTYPES; di++) {
            ember_dtype dt = all_dtypes[di];
            for (unsigned konst = 0; konst < 2; konst++) {
                t_node nd;
                t_node_init(&nd, EM_OP_REVERSESEQUENCE, "rs");
                t_set_int(&nd, "batch_axis", cases[ci].batch_axis);
                t_set_int(&nd, "time_axis", cases[ci].time_axis);
                void *x = pattern(dt, n, 23), *y = poisoned(dt, n);
                int64_t nb = cases[ci].xd[ba];
                em_tensor in[2], out;
                t_tensor(&in[0], dt, cases[ci].rank, cases[ci].xd, x);
                t_tensor(&in[1], EMBER_DTYPE_I64, 1, &nb, (void *)cases[ci].lens);
                t_tensor(&out, dt, cases[ci].rank, cases[ci].xd, y);
                t_expect_ok(run_k(&nd.n, in, 2, &out, 1, konst ? 2u : 0u), cases[ci].name);
                expect_gathered(cases[ci].name, dt, y, x, src, n);
                test_free(x);
                test_free(y);
            }
        }
    }
    float x[16], y[16];
    static const int64_t xd[2] = {4, 4}, four = 4, three = 3, lens[4] = {1, 5, 1, 1};
    t_node nd;
    em_tensor in[2], out;
    t_node_init(&nd, EM_OP_REVERSESEQUENCE, "bad_rs");
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, xd, x);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &four, (void *)lens);
    t_tensor(&out, EMBER_DTYPE_F32, 2, xd, y);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 2), EMBER_ERR_INVALID_MODEL, "bad_rs", "len5");
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &three, (void *)lens);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_rs", "count");
    t_set_int(&nd, "batch_axis", 0);
    t_tensor(&in[1], EMBER_DTYPE_I64, 1, &four, (void *)lens);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_rs", "axes");
}

/* ---- Trilu ---------------------------------------------------------------------------------- */

static void test_trilu(void **state)
{
    (void)state;
    static const struct {
        int rank;
        int64_t xd[3];
    } shapes[] = {{2, {4, 5}}, {2, {5, 3}}, {3, {2, 3, 4}}, {2, {1, 1}}, {3, {2, 0, 3}}};
    static const int64_t ks[] = {0, 1, -1, 2, -3, 7, -7, INT64_MAX, INT64_MIN};
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        int64_t n = t_numel(shapes[si].xd, shapes[si].rank);
        int64_t rows = shapes[si].xd[shapes[si].rank - 2],
                cols = shapes[si].xd[shapes[si].rank - 1];
        for (int upper = -1; upper <= 1; upper++) { /* -1: attribute absent (upper) */
            for (size_t ki = 0; ki < sizeof ks / sizeof ks[0] + 1; ki++) {
                bool has_k = ki < sizeof ks / sizeof ks[0];
                int64_t k = has_k ? ks[ki] : 0, src[64];
                for (int64_t f = 0; f < n; f++) {
                    int64_t i = (f / cols) % rows, j = f % cols;
                    bool keep = upper != 0 ? j - i >= k : j - i <= k;
                    src[f] = keep ? f : -1;
                }
                for (size_t di = 0; di < N_DTYPES; di++) {
                    ember_dtype dt = all_dtypes[di];
                    t_node nd;
                    t_node_init(&nd, EM_OP_TRILU, "trilu");
                    if (upper >= 0) {
                        t_set_int(&nd, "upper", upper);
                    }
                    void *x = pattern(dt, n, 29), *y = poisoned(dt, n);
                    em_tensor in[2], out;
                    t_tensor(&in[0], dt, shapes[si].rank, shapes[si].xd, x);
                    t_tensor(&in[1], EMBER_DTYPE_I64, 0, NULL, &k);
                    t_tensor(&out, dt, shapes[si].rank, shapes[si].xd, y);
                    t_expect_ok(run_k(&nd.n, in, has_k ? 2 : 1, &out, 1, 0), "trilu");
                    expect_gathered("trilu", dt, y, x, src, n);
                    test_free(x);
                    test_free(y);
                }
            }
        }
    }
    float x[4], y[4];
    static const int64_t xd[1] = {4}, x2[2] = {2, 2};
    int32_t k32 = 0;
    t_node nd;
    em_tensor in[2], out;
    t_node_init(&nd, EM_OP_TRILU, "bad_trilu");
    t_tensor(&in[0], EMBER_DTYPE_F32, 1, xd, x);
    t_tensor(&out, EMBER_DTYPE_F32, 1, xd, y);
    t_expect_error(run_k(&nd.n, in, 1, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_trilu", "1d");
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, x2, x);
    t_tensor(&in[1], EMBER_DTYPE_I32, 0, NULL, &k32);
    t_tensor(&out, EMBER_DTYPE_F32, 2, x2, y);
    t_expect_error(run_k(&nd.n, in, 2, &out, 1, 0), EMBER_ERR_INVALID_MODEL, "bad_trilu", "k32");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slice),
        cmocka_unit_test(test_slice_numpy),
        cmocka_unit_test(test_slice_errors),
        cmocka_unit_test(test_pad),
        cmocka_unit_test(test_pad_constant_value),
        cmocka_unit_test(test_pad_errors),
        cmocka_unit_test(test_reversesequence),
        cmocka_unit_test(test_trilu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
