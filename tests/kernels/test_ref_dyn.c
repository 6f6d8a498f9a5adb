/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/dyn_select_ref.c: NonZero and Compress against naive index computations.
 * NonZero: the conformance example, ranks 0 to 4 with odd sizes, every dtype (float zeros of
 * both signs and NaN, f16/bf16 bit patterns, integers, bool), an all-zero input, X constant at
 * prepare or not, a planned count larger than the data's (zero tail), and malformed nodes.
 * Compress: the four conformance cases, every axis (negative too) and no axis (flattened),
 * conditions shorter and longer than the axis, dtypes f32 i64 u8 bool f16, a constant
 * condition (checked against the output) and malformed nodes.
 * Unique (dyn_unique_ref.c) against a naive O(n^2) first-occurrence grouping and selection
 * sort: the five conformance cases, no axis and every axis of 1-3-D inputs, empty inputs, every
 * dtype with many repeats (-0 with +0 and NaNs collapsed, NaN last), sorted 0 and 1, one to
 * four outputs, X constant at prepare or not, and malformed nodes.
 */
#include "test_ref_tensor_util.h"

#include <stdio.h>

/* Element i of a buffer of dtype dt set to the small value v in {-1, 0, 1, 2} or to the
 * specials below, with bit patterns written out (no kernel helper). */
enum { V_NEG_ZERO = 100, V_NAN = 101 };

static void put(ember_dtype dt, void *p, int64_t i, int v)
{
    switch (dt) {
    case EMBER_DTYPE_F32:
        ((float *)p)[i] = v == V_NEG_ZERO ? -0.0f : v == V_NAN ? NAN : (float)v;
        break;
    case EMBER_DTYPE_F64:
        ((double *)p)[i] = v == V_NEG_ZERO ? -0.0 : v == V_NAN ? NAN : (double)v;
        break;
    case EMBER_DTYPE_F16: {
        static const uint16_t h[4] = {0xbc00, 0x0000, 0x3c00, 0x4000};
        ((uint16_t *)p)[i] = v == V_NEG_ZERO ? 0x8000 : v == V_NAN ? 0x7e00 : h[v + 1];
        break;
    }
    case EMBER_DTYPE_BF16: {
        static const uint16_t h[4] = {0xbf80, 0x0000, 0x3f80, 0x4000};
        ((uint16_t *)p)[i] = v == V_NEG_ZERO ? 0x8000 : v == V_NAN ? 0x7fc0 : h[v + 1];
        break;
    }
    case EMBER_DTYPE_I8:
    case EMBER_DTYPE_U8:
    case EMBER_DTYPE_BOOL:
        ((uint8_t *)p)[i] = (uint8_t)(dt == EMBER_DTYPE_BOOL ? v != 0 : v);
        break;
    case EMBER_DTYPE_I16:
    case EMBER_DTYPE_U16:
        ((uint16_t *)p)[i] = (uint16_t)v;
        break;
    case EMBER_DTYPE_I32:
    case EMBER_DTYPE_U32:
        ((uint32_t *)p)[i] = (uint32_t)v;
        break;
    default:
        ((uint64_t *)p)[i] = (uint64_t)(int64_t)v;
        break;
    }
}

static bool is_float_dt(ember_dtype dt)
{
    return dt == EMBER_DTYPE_F32 || dt == EMBER_DTYPE_F64 || dt == EMBER_DTYPE_F16 ||
           dt == EMBER_DTYPE_BF16;
}

/* ---- NonZero ------------------------------------------------------------------------------ */

static void nonzero_run(const char *name, ember_dtype dt, int rank, const int64_t *dims,
                        const void *x, const int64_t *want, int64_t count, unsigned konst)
{
    int64_t rows = rank > 0 ? rank : 1, ydims[2] = {rows, count};
    int64_t *y = poisoned(EMBER_DTYPE_I64, rows * count);
    em_tensor in[1], out[1];
    t_tensor(&in[0], dt, rank, dims, (void *)x);
    t_tensor(&out[0], EMBER_DTYPE_I64, 2, ydims, y);
    t_node tn;
    t_node_init(&tn, EM_OP_NONZERO, name);
    t_expect_ok(run_k(&tn.n, in, 1, out, 1, konst), name);
    for (int64_t i = 0; i < rows * count; i++) {
        if (y[i] != want[i]) {
            fail_msg("case %s (%s): Y[%lld] = %lld, expected %lld", name, em_dtype_name(dt),
                     (long long)i, (long long)y[i], (long long)want[i]);
        }
    }
    test_free(y);
}

static void test_nonzero_example(void **state)
{
    (void)state;
    /* test_nonzero_example: [[1, 0], [1, 1]] -> [[0, 1, 1], [0, 0, 1]] */
    const uint8_t x[4] = {1, 0, 1, 1};
    const int64_t dims[2] = {2, 2}, want[6] = {0, 1, 1, 0, 0, 1};
    nonzero_run("nz_example", EMBER_DTYPE_BOOL, 2, dims, x, want, 3, 0);
    nonzero_run("nz_example_const", EMBER_DTYPE_BOOL, 2, dims, x, want, 3, 1);
}

static const ember_dtype all_dtypes[] = {
    EMBER_DTYPE_F32, EMBER_DTYPE_F64, EMBER_DTYPE_F16, EMBER_DTYPE_BF16, EMBER_DTYPE_I8,
    EMBER_DTYPE_U8,  EMBER_DTYPE_I16, EMBER_DTYPE_U16, EMBER_DTYPE_I32,  EMBER_DTYPE_U32,
    EMBER_DTYPE_I64, EMBER_DTYPE_U64, EMBER_DTYPE_BOOL};

static void test_nonzero_shapes_dtypes(void **state)
{
    (void)state;
    static const struct {
        int rank;
        int64_t dims[4];
    } shapes[] = {{0, {0}}, {1, {7}}, {2, {3, 5}}, {3, {2, 3, 5}}, {4, {2, 1, 3, 3}}, {2, {4, 0}}};
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        int rank = shapes[si].rank;
        const int64_t *dims = shapes[si].dims;
        int64_t n = t_numel(dims, rank), rows = rank > 0 ? rank : 1;
        for (size_t di = 0; di < sizeof all_dtypes / sizeof all_dtypes[0]; di++) {
            ember_dtype dt = all_dtypes[di];
            void *x = test_calloc((size_t)(n > 0 ? n : 1), em_dtype_size(dt));
            int64_t *want = test_calloc((size_t)(rows * (n > 0 ? n : 1)), sizeof(int64_t));
            int64_t count = 0;
            bool *nz = test_calloc((size_t)(n > 0 ? n : 1), sizeof(bool));
            for (int64_t i = 0; i < n; i++) {
                int pick = (int)((i * 7 + si + di) % 6); /* 0: 0, 1: -0, 2: NaN, else -1 1 2 */
                int v = pick == 0 ? 0 : pick == 1 ? V_NEG_ZERO : pick == 2 ? V_NAN : pick - 4;
                if (!is_float_dt(dt) && (v == V_NEG_ZERO || v == V_NAN)) {
                    v = v == V_NAN ? 2 : 0;
                }
                if (dt == EMBER_DTYPE_BOOL && v < 0) {
                    v = 0;
                }
                put(dt, x, i, v);
                nz[i] = v != 0 && v != V_NEG_ZERO;
                count += nz[i];
            }
            int64_t k = 0;
            for (int64_t i = 0; i < n; i++) {
                if (!nz[i]) {
                    continue;
                }
                int64_t rem = i; /* coordinates by division, last axis fastest */
                for (int d = rank - 1; d >= 0; d--) {
                    want[d * count + k] = rem % dims[d];
                    rem /= dims[d];
                }
                k++;
            }
            char name[64];
            snprintf(name, sizeof name, "nz_rank%d_%zu", rank, si);
            nonzero_run(name, dt, rank, dims, x, want, count, 0);
            nonzero_run(name, dt, rank, dims, x, want, count, 1);
            test_free(x);
            test_free(want);
            test_free(nz);
        }
    }
}

static void test_nonzero_scalar_and_tail(void **state)
{
    (void)state;
    const float one = 3.0f, zero = -0.0f;
    const int64_t want1[1] = {0};
    nonzero_run("nz_scalar_one", EMBER_DTYPE_F32, 0, NULL, &one, want1, 1, 1);
    nonzero_run("nz_scalar_zero", EMBER_DTYPE_F32, 0, NULL, &zero, NULL, 0, 1);
    /* Planned for 3 nonzeros, run on data with 1: the tail is zeroed. */
    const int32_t x[4] = {0, 0, 5, 0};
    const int64_t dims[2] = {2, 2}, want[6] = {1, 0, 0, 0, 0, 0};
    nonzero_run("nz_tail", EMBER_DTYPE_I32, 2, dims, x, want, 3, 0);
}

static void test_nonzero_errors(void **state)
{
    (void)state;
    float buf[16] = {1, 0, 1, 1};
    static const int64_t xd[2] = {2, 2}, good[2] = {2, 3}, rows[2] = {3, 3}, cnt[2] = {2, 2};
    static const struct {
        const char *name;
        ember_dtype y_dt;
        const int64_t *yd;
        int y_rank;
        unsigned konst;
    } bads[] = {
        {"nz_y_f32", EMBER_DTYPE_F32, good, 2, 0},
        {"nz_y_rows", EMBER_DTYPE_I64, rows, 2, 0},
        {"nz_y_rank1", EMBER_DTYPE_I64, good, 1, 0},
        {"nz_const_count", EMBER_DTYPE_I64, cnt, 2, 1},
    };
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        em_tensor in[1], out[1];
        t_tensor(&in[0], EMBER_DTYPE_F32, 2, xd, buf);
        t_tensor(&out[0], bads[i].y_dt, bads[i].y_rank, bads[i].yd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_NONZERO, bads[i].name);
        t_expect_error(run_k(&tn.n, in, 1, out, 1, bads[i].konst), EMBER_ERR_INVALID_MODEL,
                       bads[i].name, bads[i].name);
    }
}

/* ---- Compress ----------------------------------------------------------------------------- */

typedef struct compress_case {
    const char *name;
    int rank;
    int64_t dims[4];
    bool has_axis;
    int64_t axis;
    int64_t cond_len;
} compress_case;

/* The source element of every output element (naive: walk the output coordinates). */
static int64_t compress_expect(const compress_case *c, const uint8_t *cond, int64_t *src,
                               int64_t *ydims, int *yrank)
{
    int ax = c->has_axis ? (int)(c->axis < 0 ? c->axis + c->rank : c->axis) : -1;
    int64_t len = ax >= 0 ? c->dims[ax] : t_numel(c->dims, c->rank);
    int64_t kept[64], count = 0;
    for (int64_t i = 0; i < c->cond_len && i < len; i++) {
        if (cond[i]) {
            kept[count++] = i;
        }
    }
    if (ax < 0) {
        *yrank = 1;
        ydims[0] = count;
        for (int64_t k = 0; k < count; k++) {
            src[k] = kept[k];
        }
        return count;
    }
    *yrank = c->rank;
    memcpy(ydims, c->dims, sizeof(int64_t) * (size_t)c->rank);
    ydims[ax] = count;
    int64_t n = t_numel(ydims, c->rank), coord[4] = {0};
    for (int64_t i = 0; i < n; i++) {
        int64_t xc[4];
        memcpy(xc, coord, sizeof xc);
        xc[ax] = kept[coord[ax]];
        src[i] = flat(xc, c->dims, c->rank);
        em_ref_coord_next(coord, ydims, c->rank);
    }
    return n;
}

static void compress_check(const compress_case *c, ember_dtype dt, const uint8_t *cond,
                           unsigned konst)
{
    int64_t n = t_numel(c->dims, c->rank), src[256], ydims[4];
    int yrank;
    int64_t yn = compress_expect(c, cond, src, ydims, &yrank);
    void *x = pattern(dt, n, (unsigned)c->cond_len), *y = poisoned(dt, yn);
    em_tensor in[2], out[1];
    t_tensor(&in[0], dt, c->rank, c->dims, x);
    t_tensor(&in[1], EMBER_DTYPE_BOOL, 1, &c->cond_len, (void *)cond);
    t_tensor(&out[0], dt, yrank, ydims, y);
    t_node tn;
    t_node_init(&tn, EM_OP_COMPRESS, c->name);
    if (c->has_axis) {
        t_set_int(&tn, "axis", c->axis);
    }
    t_expect_ok(run_k(&tn.n, in, 2, out, 1, konst), c->name);
    expect_gathered(c->name, dt, y, x, src, yn);
    test_free(x);
    test_free(y);
}

static void test_compress_conformance(void **state)
{
    (void)state;
    /* The four onnx cases on [[1, 2], [3, 4], [5, 6]] (f32), values checked directly. */
    const float x[6] = {1, 2, 3, 4, 5, 6};
    static const struct {
        const char *name;
        bool has_axis;
        int64_t axis, len;
        uint8_t cond[5];
        int yrank;
        int64_t yd[2];
        float want[4];
    } cases[] = {
        {"compress_0", true, 0, 3, {0, 1, 1}, 2, {2, 2}, {3, 4, 5, 6}},
        {"compress_1", true, 1, 2, {0, 1}, 2, {3, 1}, {2, 4, 6}},
        {"compress_default_axis", false, 0, 5, {0, 1, 0, 0, 1}, 1, {2}, {2, 5}},
        {"compress_negative_axis", true, -1, 2, {0, 1}, 2, {3, 1}, {2, 4, 6}},
    };
    const int64_t xd[2] = {3, 2};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        float y[4] = {-1, -1, -1, -1};
        em_tensor in[2], out[1];
        t_tensor(&in[0], EMBER_DTYPE_F32, 2, xd, (void *)x);
        t_tensor(&in[1], EMBER_DTYPE_BOOL, 1, &cases[i].len, (void *)cases[i].cond);
        t_tensor(&out[0], EMBER_DTYPE_F32, cases[i].yrank, cases[i].yd, y);
        t_node tn;
        t_node_init(&tn, EM_OP_COMPRESS, cases[i].name);
        if (cases[i].has_axis) {
            t_set_int(&tn, "axis", cases[i].axis);
        }
        t_expect_ok(run_k(&tn.n, in, 2, out, 1, 0), cases[i].name);
        int64_t yn = t_numel(cases[i].yd, cases[i].yrank);
        for (int64_t k = 0; k < yn; k++) {
            assert_true(y[k] == cases[i].want[k]);
        }
    }
}

static void test_compress_cases(void **state)
{
    (void)state;
    /* clang-format off */
    static const compress_case cases[] = {
        {"c3_axis0", 3, {4, 3, 5}, true, 0, 4},
        {"c3_axis1_short", 3, {4, 3, 5}, true, 1, 2},
        {"c3_axis2", 3, {4, 3, 5}, true, 2, 5},
        {"c3_axis_m1_long", 3, {4, 3, 5}, true, -1, 7},
        {"c3_axis_m3", 3, {4, 3, 5}, true, -3, 3},
        {"c3_flat", 3, {2, 3, 5}, false, 0, 30},
        {"c3_flat_short", 3, {2, 3, 5}, false, 0, 11},
        {"c1", 1, {9}, true, 0, 9},
        {"c2_none", 2, {3, 4}, true, 1, 4},
    };
    /* clang-format on */
    static const ember_dtype dts[] = {EMBER_DTYPE_F32, EMBER_DTYPE_I64, EMBER_DTYPE_U8,
                                      EMBER_DTYPE_BOOL, EMBER_DTYPE_F16};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const compress_case *c = &cases[i];
        int ax = c->has_axis ? (int)(c->axis < 0 ? c->axis + c->rank : c->axis) : -1;
        int64_t len = ax >= 0 ? c->dims[ax] : t_numel(c->dims, c->rank);
        uint8_t cond[64];
        for (int64_t k = 0; k < c->cond_len; k++) {
            /* Entries past the data stay false (a true one there is an error). */
            cond[k] = k < len && strcmp(c->name, "c2_none") != 0 && (k * 5 + i) % 3 != 0;
        }
        for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
            compress_check(c, dts[d], cond, 0);
            compress_check(c, dts[d], cond, 0x2);
        }
    }
}

static void test_compress_errors(void **state)
{
    (void)state;
    float buf[16] = {0};
    uint8_t cond[4] = {1, 0, 1, 1};
    static const int64_t xd[2] = {3, 2}, yd[2] = {2, 2}, y1[1] = {2}, c2 = 2, c3 = 3, c4 = 4;
    static const struct {
        const char *name;
        ember_dtype c_dt;
        int c_rank;
        const int64_t *c_len;
        bool has_axis;
        int64_t axis;
        const int64_t *yd;
        int y_rank;
        unsigned konst;
    } bads[] = {
        {"cp_cond_f32", EMBER_DTYPE_F32, 1, &c3, true, 0, yd, 2, 0},
        {"cp_cond_rank2", EMBER_DTYPE_BOOL, 2, xd, true, 0, yd, 2, 0},
        {"cp_axis_range", EMBER_DTYPE_BOOL, 1, &c3, true, 2, yd, 2, 0},
        {"cp_axis_neg_range", EMBER_DTYPE_BOOL, 1, &c3, true, -3, yd, 2, 0},
        {"cp_out_shape", EMBER_DTYPE_BOOL, 1, &c3, true, 0, y1, 1, 0},
        {"cp_const_count", EMBER_DTYPE_BOOL, 1, &c2, true, 0, yd, 2, 0x2},
        {"cp_const_beyond", EMBER_DTYPE_BOOL, 1, &c4, true, 0, yd, 2, 0x2},
    };
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        em_tensor in[2], out[1];
        t_tensor(&in[0], EMBER_DTYPE_F32, 2, xd, buf);
        t_tensor(&in[1], bads[i].c_dt, bads[i].c_rank, bads[i].c_len, cond);
        t_tensor(&out[0], EMBER_DTYPE_F32, bads[i].y_rank, bads[i].yd, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_COMPRESS, bads[i].name);
        if (bads[i].has_axis) {
            t_set_int(&tn, "axis", bads[i].axis);
        }
        t_expect_error(run_k(&tn.n, in, 2, out, 1, bads[i].konst), EMBER_ERR_INVALID_MODEL,
                       bads[i].name, bads[i].name);
    }
}

/* ---- Unique ------------------------------------------------------------------------------- */

/* The logical value of put(v): -0 reads as 0, NaN as NaN. */
static double logical(int v)
{
    return v == V_NAN ? NAN : v == V_NEG_ZERO ? 0.0 : (double)v;
}

/* numpy's order of two values: NaN after every number and equal to NaN. */
static int order(double a, double b)
{
    if (isnan(a) || isnan(b)) {
        return isnan(a) - isnan(b);
    }
    return (a > b) - (a < b);
}

typedef struct unique_case {
    const char *name;
    int rank;
    int64_t dims[3];
    bool has_axis;
    int64_t axis;
} unique_case;

typedef struct unique_want {
    int64_t u, n, slice;
    int64_t first[64], count[64], inverse[64];
} unique_want;

/* Slice a vs slice b of the logical values (n slices of outer x inner). */
static int slice_order(const double *v, int64_t outer, int64_t n, int64_t inner, int64_t a,
                       int64_t b)
{
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t j = 0; j < inner; j++) {
            int c = order(v[(o * n + a) * inner + j], v[(o * n + b) * inner + j]);
            if (c != 0) {
                return c;
            }
        }
    }
    return 0;
}

/* Naive Unique: distinct slices by first occurrence (O(n^2)), then a selection sort. */
static void unique_naive(const double *v, int64_t outer, int64_t n, int64_t inner, bool sorted,
                         unique_want *w)
{
    int64_t group_of[64];
    w->u = 0;
    w->n = n;
    for (int64_t i = 0; i < n; i++) {
        int64_t g = -1;
        for (int64_t k = 0; k < w->u && g < 0; k++) {
            g = slice_order(v, outer, n, inner, w->first[k], i) == 0 ? k : -1;
        }
        if (g < 0) {
            g = w->u++;
            w->first[g] = i;
            w->count[g] = 0;
        }
        w->count[g]++;
        group_of[i] = g;
    }
    int64_t rank_of[64];
    for (int64_t k = 0; k < w->u; k++) {
        rank_of[k] = k;
    }
    for (int64_t a = 0; sorted && a < w->u; a++) {
        int64_t r = 0; /* groups ordered before group a */
        for (int64_t b = 0; b < w->u; b++) {
            r += slice_order(v, outer, n, inner, w->first[b], w->first[a]) < 0;
        }
        rank_of[a] = r;
    }
    int64_t first[64] = {0}, count[64] = {0};
    for (int64_t k = 0; k < w->u; k++) {
        first[rank_of[k]] = w->first[k];
        count[rank_of[k]] = w->count[k];
    }
    memcpy(w->first, first, sizeof first);
    memcpy(w->count, count, sizeof count);
    for (int64_t i = 0; i < n; i++) {
        w->inverse[i] = rank_of[group_of[i]];
    }
}

static void unique_check_run(const unique_case *c, ember_dtype dt, const void *x,
                             const unique_want *w, int64_t outer, int64_t inner, bool sorted,
                             int n_out, unsigned konst)
{
    int ax = c->has_axis ? (int)(c->axis < 0 ? c->axis + c->rank : c->axis) : -1;
    int64_t ydims[3] = {w->u}, n = w->n, u = w->u;
    int yrank = 1;
    if (ax >= 0) {
        memcpy(ydims, c->dims, sizeof ydims);
        ydims[ax] = u;
        yrank = c->rank;
    }
    int64_t yn = t_numel(ydims, yrank), src[256];
    void *y = poisoned(dt, yn);
    int64_t *idx[3] = {poisoned(EMBER_DTYPE_I64, u), poisoned(EMBER_DTYPE_I64, n),
                       poisoned(EMBER_DTYPE_I64, u)};
    em_tensor in[1], out[4];
    t_tensor(&in[0], dt, c->rank, c->dims, (void *)x);
    t_tensor(&out[0], dt, yrank, ydims, y);
    t_tensor(&out[1], EMBER_DTYPE_I64, 1, &u, idx[0]);
    t_tensor(&out[2], EMBER_DTYPE_I64, 1, &n, idx[1]);
    t_tensor(&out[3], EMBER_DTYPE_I64, 1, &u, idx[2]);
    t_node tn;
    t_node_init(&tn, EM_OP_UNIQUE, c->name);
    if (c->has_axis) {
        t_set_int(&tn, "axis", c->axis);
    }
    t_set_int(&tn, "sorted", sorted);
    t_expect_ok(t_run_const(t_kernel(EM_OP_UNIQUE, EMBER_DTYPE_UNDEFINED), &tn.n, in, 1, out, n_out,
                            NULL, konst),
                c->name);
    /* Y: output slice k is input slice first[k]. */
    for (int64_t o = 0, e = 0; o < outer; o++) {
        for (int64_t k = 0; k < u; k++) {
            for (int64_t j = 0; j < inner; j++) {
                src[e++] = (o * n + w->first[k]) * inner + j;
            }
        }
    }
    expect_gathered(c->name, dt, y, x, src, yn);
    for (int64_t k = 0; k < u; k++) {
        assert_true(n_out < 2 || idx[0][k] == w->first[k]);
        assert_true(n_out < 4 || idx[2][k] == w->count[k]);
    }
    for (int64_t i = 0; i < n && n_out >= 3; i++) {
        assert_true(idx[1][i] == w->inverse[i]);
    }
    test_free(y);
    for (int i = 0; i < 3; i++) {
        test_free(idx[i]);
    }
}

static void test_unique_conformance(void **state)
{
    (void)state;
    /* test_unique_sorted_with_axis_3d: X [2, 4, 2], axis 1. */
    const float x[16] = {1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 0, 1, 2, 1, 0, 1};
    const unique_case c = {"unique_axis_3d", 3, {2, 4, 2}, true, 1};
    unique_want w = {3, 4, 4, {1, 0, 2}, {2, 1, 1}, {1, 0, 2, 0}};
    unique_check_run(&c, EMBER_DTYPE_F32, x, &w, 2, 2, true, 4, 0);
    /* test_unique_sorted_without_axis / not_sorted. */
    const float x1[6] = {2, 1, 1, 3, 4, 3};
    const unique_case c1 = {"unique_flat", 1, {6}, false, 0};
    unique_want ws = {4, 6, 1, {1, 0, 3, 4}, {2, 1, 2, 1}, {1, 0, 0, 2, 3, 2}};
    unique_want wu = {4, 6, 1, {0, 1, 3, 4}, {1, 2, 2, 1}, {0, 1, 1, 2, 3, 2}};
    unique_check_run(&c1, EMBER_DTYPE_F32, x1, &ws, 1, 1, true, 4, 0);
    unique_check_run(&c1, EMBER_DTYPE_F32, x1, &wu, 1, 1, false, 4, 1);
    /* test_unique_sorted_with_axis (0) and _with_negative_axis (-1) on [3, 3]. */
    const float x2[9] = {1, 0, 0, 1, 0, 0, 2, 3, 4}, x3[9] = {1, 0, 0, 1, 0, 0, 2, 3, 3};
    const unique_case c2 = {"unique_axis0", 2, {3, 3}, true, 0};
    const unique_case c3 = {"unique_axis_m1", 2, {3, 3}, true, -1};
    unique_want w2 = {2, 3, 3, {0, 2}, {2, 1}, {0, 0, 1}};
    unique_want w3 = {2, 3, 3, {1, 0}, {2, 1}, {1, 0, 0}};
    unique_check_run(&c2, EMBER_DTYPE_F32, x2, &w2, 1, 3, true, 4, 0);
    unique_check_run(&c3, EMBER_DTYPE_F32, x3, &w3, 3, 1, true, 4, 0);
}

static void test_unique_cases(void **state)
{
    (void)state;
    /* clang-format off */
    static const unique_case cases[] = {
        {"u_flat11", 1, {11}, false, 0},
        {"u_flat_2d", 2, {3, 5}, false, 0},
        {"u_axis0", 2, {7, 2}, true, 0},
        {"u_axis1", 2, {2, 9}, true, 1},
        {"u_axis_m1", 3, {2, 5, 3}, true, -1},
        {"u_axis1_3d", 3, {2, 6, 2}, true, 1},
        {"u_empty", 2, {0, 3}, false, 0},
        {"u_empty_axis", 2, {0, 3}, true, 0},
    };
    /* clang-format on */
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const unique_case *c = &cases[ci];
        int ax = c->has_axis ? (int)(c->axis < 0 ? c->axis + c->rank : c->axis) : -1;
        int64_t numel = t_numel(c->dims, c->rank);
        int64_t outer = ax >= 0 ? t_numel(c->dims, ax) : 1;
        int64_t n = ax >= 0 ? c->dims[ax] : numel;
        int64_t inner = ax >= 0 ? t_numel(c->dims + ax + 1, c->rank - ax - 1) : 1;
        for (size_t di = 0; di < sizeof all_dtypes / sizeof all_dtypes[0]; di++) {
            ember_dtype dt = all_dtypes[di];
            void *x = test_calloc((size_t)(numel > 0 ? numel : 1), em_dtype_size(dt));
            double v[64];
            for (int64_t i = 0; i < numel; i++) {
                int pick = (int)((i * i * 3 + i + ci + di) % 7); /* few values: many repeats */
                int val = pick < 4 ? pick - 1 : pick == 4 ? V_NEG_ZERO : pick == 5 ? V_NAN : 0;
                if (!is_float_dt(dt) && (val == V_NEG_ZERO || val == V_NAN)) {
                    val = val == V_NAN ? 2 : 0;
                }
                if ((dt == EMBER_DTYPE_BOOL && val < 0) || (dt == EMBER_DTYPE_BOOL && val > 1)) {
                    val = 1;
                }
                put(dt, x, i, val);
                /* Unsigned dtypes read -1 as their maximum: order it last. */
                bool uns = dt == EMBER_DTYPE_U8 || dt == EMBER_DTYPE_U16 || dt == EMBER_DTYPE_U32 ||
                           dt == EMBER_DTYPE_U64;
                v[i] = uns && val == -1 ? 1e30 : logical(val);
            }
            for (int sorted = 0; sorted < 2; sorted++) {
                unique_want w;
                unique_naive(v, outer, n, inner, sorted, &w);
                for (int n_out = 1; n_out <= 4; n_out++) {
                    unique_check_run(c, dt, x, &w, outer, inner, sorted, n_out,
                                     (unsigned)(n_out & 1));
                }
            }
            test_free(x);
        }
    }
}

static void test_unique_errors(void **state)
{
    (void)state;
    float buf[16] = {1, 2, 2, 3};
    static const int64_t xd[2] = {2, 2}, u3 = 3, u2 = 2, n4 = 4, n3 = 3;
    static const struct {
        const char *name;
        bool has_axis;
        int64_t axis, sorted;
        ember_dtype y_dt, i_dt;
        const int64_t *u, *n;
        unsigned konst;
    } bads[] = {
        {"un_sorted2", false, 0, 2, EMBER_DTYPE_F32, EMBER_DTYPE_I64, &u3, &n4, 0},
        {"un_axis_range", true, 2, 1, EMBER_DTYPE_F32, EMBER_DTYPE_I64, &u3, &n4, 0},
        {"un_y_dtype", false, 0, 1, EMBER_DTYPE_F64, EMBER_DTYPE_I64, &u3, &n4, 0},
        {"un_idx_dtype", false, 0, 1, EMBER_DTYPE_F32, EMBER_DTYPE_I32, &u3, &n4, 0},
        {"un_inverse_len", false, 0, 1, EMBER_DTYPE_F32, EMBER_DTYPE_I64, &u3, &n3, 0},
        {"un_const_count", false, 0, 1, EMBER_DTYPE_F32, EMBER_DTYPE_I64, &u2, &n4, 1},
    };
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        em_tensor in[1], out[4];
        t_tensor(&in[0], EMBER_DTYPE_F32, 2, xd, buf);
        t_tensor(&out[0], bads[i].y_dt, 1, bads[i].u, buf);
        t_tensor(&out[1], bads[i].i_dt, 1, bads[i].u, buf);
        t_tensor(&out[2], bads[i].i_dt, 1, bads[i].n, buf);
        t_tensor(&out[3], bads[i].i_dt, 1, bads[i].u, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_UNIQUE, bads[i].name);
        if (bads[i].has_axis) {
            t_set_int(&tn, "axis", bads[i].axis);
        }
        t_set_int(&tn, "sorted", bads[i].sorted);
        t_expect_error(t_run_const(t_kernel(EM_OP_UNIQUE, EMBER_DTYPE_UNDEFINED), &tn.n, in, 1, out,
                                   4, NULL, bads[i].konst),
                       EMBER_ERR_INVALID_MODEL, bads[i].name, bads[i].name);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nonzero_example),
        cmocka_unit_test(test_nonzero_shapes_dtypes),
        cmocka_unit_test(test_nonzero_scalar_and_tail),
        cmocka_unit_test(test_nonzero_errors),
        cmocka_unit_test(test_compress_conformance),
        cmocka_unit_test(test_compress_cases),
        cmocka_unit_test(test_compress_errors),
        cmocka_unit_test(test_unique_conformance),
        cmocka_unit_test(test_unique_cases),
        cmocka_unit_test(test_unique_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
