/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels/ref/quant_matmul_ref.c: MatMulInteger-10 and QLinearMatMul-21 against a naive
 * matmul written here (numpy broadcasting worked out per output element) and the exact vectors
 * of ONNX's test_matmulinteger and test_qlinearmatmul_2D/3D. Shapes: 2-D with odd sizes, 1-D A
 * or B, batch broadcasting both ways; u8/i8 in every combination; zero points absent, per
 * tensor (0-D and [1]), per row of A / column of B (1-D), and MatMulInteger's N-D form
 * [batch..., M, 1] / [batch..., 1, N]; QLinearMatMul with per-column b, per-row a and y, f16
 * and bf16 scales, u8 and i8 outputs with saturation; and the errors.
 */
#define EM_QUANT_TEST_HELPERS_ONLY
#include "test_ref_quant_common.c"

#define U8 EMBER_DTYPE_U8
#define I8 EMBER_DTYPE_I8
#define F32 EMBER_DTYPE_F32
#define F16 EMBER_DTYPE_F16
#define BF16 EMBER_DTYPE_BF16

/* A tensor description: rank -1 = absent. */
typedef struct mm_t {
    int rank;
    int64_t dims[4];
} mm_t;

typedef struct mm_case {
    const char *name;
    mm_t a, b;
    ember_dtype at, bt;
    mm_t za, zb;         /* zero points */
    mm_t sa, sb, sy, zy; /* QLinearMatMul only: scales, y's zero point */
    ember_dtype s_dt, y_dt;
} mm_case;

/* Output shape of numpy matmul; returns its rank. */
static int mm_out_shape(const mm_t *a, const mm_t *b, int64_t *out, int *nb)
{
    int ra = a->rank >= 2 ? a->rank - 2 : 0, rb = b->rank >= 2 ? b->rank - 2 : 0;
    *nb = ra > rb ? ra : rb;
    for (int d = 0; d < *nb; d++) {
        int da = d - (*nb - ra), db = d - (*nb - rb);
        int64_t xa = da >= 0 ? a->dims[da] : 1, xb = db >= 0 ? b->dims[db] : 1;
        out[d] = xa > xb ? xa : xb;
    }
    int r = *nb;
    if (a->rank >= 2) {
        out[r++] = a->dims[a->rank - 2];
    }
    if (b->rank >= 2) {
        out[r++] = b->dims[b->rank - 1];
    }
    return r;
}

/* Linear index into operand t ([batch..., R, C]) at output batch coords cb (nb of them),
 * row r, column c: broadcast batch dims read index 0. */
static int64_t mm_at(const mm_t *t, const int64_t *cb, int nb, int64_t r, int64_t c)
{
    int tb = t->rank - 2;
    int64_t idx = 0;
    for (int d = 0; d < tb; d++) {
        int64_t coord = t->dims[d] == 1 ? 0 : cb[d + nb - tb];
        idx = idx * t->dims[d] + coord;
    }
    idx = idx * t->dims[t->rank - 2] + (t->dims[t->rank - 2] == 1 ? 0 : r);
    return idx * t->dims[t->rank - 1] + (t->dims[t->rank - 1] == 1 ? 0 : c);
}

/* Index of a parameter of rows (row r) or columns (column c) of operand `op`. */
static int64_t mm_param(const mm_t *p, const mm_t *op, const int64_t *cb, int nb, int64_t r,
                        int64_t c, bool rows)
{
    if (t_numel(p->dims, p->rank) == 1) {
        return 0;
    }
    if (p->rank == 1) {
        return rows ? r : c;
    }
    (void)op;
    return mm_at(p, cb, nb, r, c);
}

/* acc for output batch cb, row m, column n; A/B promoted from 1-D. */
static int64_t mm_acc(const mm_case *c, const mm_t *a, const mm_t *b, const void *ad,
                      const void *bd, const void *za, const void *zb, const int64_t *cb, int nb,
                      int64_t m, int64_t n)
{
    const int64_t k_len = a->dims[a->rank - 1];
    int64_t acc = 0;
    double azp = c->za.rank >= 0 ? tm_get(c->at, za, mm_param(&c->za, a, cb, nb, m, 0, true)) : 0;
    double bzp = c->zb.rank >= 0 ? tm_get(c->bt, zb, mm_param(&c->zb, b, cb, nb, 0, n, false)) : 0;
    for (int64_t k = 0; k < k_len; k++) {
        double av = tm_get(c->at, ad, mm_at(a, cb, nb, m, k));
        double bv = tm_get(c->bt, bd, mm_at(b, cb, nb, k, n));
        acc += (int64_t)((av - azp) * (bv - bzp));
    }
    return acc;
}

static void mm_promote(const mm_case *c, mm_t *a, mm_t *b)
{
    *a = c->a;
    *b = c->b;
    if (a->rank == 1) {
        a->rank = 2;
        a->dims[1] = a->dims[0];
        a->dims[0] = 1;
    }
    if (b->rank == 1) {
        b->rank = 2;
        b->dims[1] = 1;
    }
}

static void *mm_param_data(const mm_t *p, ember_dtype dt, uint64_t seed, bool scale)
{
    if (p->rank < 0) {
        return tm_buf(dt, 1);
    }
    int64_t n = t_numel(p->dims, p->rank);
    if (scale) {
        return q_random_frac(dt, n, seed, 1, 16, 256.0);
    }
    return dt == U8 ? q_random_int(dt, n, seed, 0, 255) : q_random_int(dt, n, seed, -128, 127);
}

static void mm_input(em_tensor *t, const mm_t *d, ember_dtype dt, void *data)
{
    if (d->rank < 0) {
        t_absent(t);
    } else {
        q_tensor(t, dt, d->rank, d->dims, data);
    }
}

static void mm_run_case(const mm_case *c, bool qlinear)
{
    mm_t a, b;
    int nb;
    int64_t yd[6];
    int yr = mm_out_shape(&c->a, &c->b, yd, &nb);
    mm_promote(c, &a, &b);
    const int64_t m_len = a.dims[a.rank - 2], n_len = b.dims[b.rank - 1];
    const int64_t ny = t_numel(yd, yr);
    const ember_dtype y_dt = qlinear ? c->y_dt : EMBER_DTYPE_I32;
    void *ad = q_random_int(c->at, t_numel(c->a.dims, c->a.rank), 41, c->at == U8 ? 0 : -128,
                            c->at == U8 ? 255 : 127);
    void *bd = q_random_int(c->bt, t_numel(c->b.dims, c->b.rank), 42, c->bt == U8 ? 0 : -128,
                            c->bt == U8 ? 255 : 127);
    void *za = mm_param_data(&c->za, c->at, 43, false),
         *zb = mm_param_data(&c->zb, c->bt, 44, false);
    void *sa = mm_param_data(&c->sa, c->s_dt, 45, true),
         *sb = mm_param_data(&c->sb, c->s_dt, 46, true);
    void *sy = mm_param_data(&c->sy, c->s_dt, 47, true);
    void *zy = mm_param_data(&c->zy, y_dt == EMBER_DTYPE_I32 ? U8 : y_dt, 48, false);
    void *y = tm_buf(y_dt, ny);
    double *ref = t_f64(ny), lo, hi;
    q_range(y_dt, &lo, &hi);
    int64_t cb[4] = {0};
    for (int64_t e = 0; e < ny; e++) {
        int64_t bi = e / (m_len * n_len), m = (e / n_len) % m_len, n = e % n_len, rest = bi;
        for (int d = nb - 1; d >= 0; d--) {
            cb[d] = rest % yd[d];
            rest /= yd[d];
        }
        int64_t acc = mm_acc(c, &a, &b, ad, bd, za, zb, cb, nb, m, n);
        if (!qlinear) {
            ref[e] = (double)acc;
            continue;
        }
        float fa = (float)tm_get(c->s_dt, sa, mm_param(&c->sa, &a, cb, nb, m, 0, true));
        float fb = (float)tm_get(c->s_dt, sb, mm_param(&c->sb, &b, cb, nb, 0, n, false));
        float fy = (float)tm_get(c->s_dt, sy, mm_param(&c->sy, &a, cb, nb, m, 0, true));
        double zyv =
            c->zy.rank >= 0 ? tm_get(y_dt, zy, mm_param(&c->zy, &a, cb, nb, m, 0, true)) : 0.0;
        double mult = (fa * fb) / fy;
        ref[e] = q_clamp(q_round_even((double)acc * mult) + zyv, lo, hi);
    }
    em_tensor in[8], out[1];
    t_node tn;
    if (qlinear) {
        mm_input(&in[0], &c->a, c->at, ad);
        mm_input(&in[1], &c->sa, c->s_dt, sa);
        mm_input(&in[2], &c->za, c->at, za);
        mm_input(&in[3], &c->b, c->bt, bd);
        mm_input(&in[4], &c->sb, c->s_dt, sb);
        mm_input(&in[5], &c->zb, c->bt, zb);
        mm_input(&in[6], &c->sy, c->s_dt, sy);
        mm_input(&in[7], &c->zy, y_dt, zy);
    } else {
        mm_input(&in[0], &c->a, c->at, ad);
        mm_input(&in[1], &c->b, c->bt, bd);
        mm_input(&in[2], &c->za, c->at, za);
        mm_input(&in[3], &c->zb, c->bt, zb);
    }
    q_tensor(&out[0], y_dt, yr, yd, y);
    em_op op = qlinear ? EM_OP_QLINEARMATMUL : EM_OP_MATMULINTEGER;
    t_node_init(&tn, op, c->name);
    t_expect_ok(q_run(op, &tn, in, qlinear ? 8 : 4, out, 1, 0), c->name);
    q_check(c->name, y, y_dt, ref, ny, 0, 0);
    void *bufs[] = {ad, bd, za, zb, sa, sb, sy, zy, y, ref};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
        test_free(bufs[i]);
    }
}

#define NO                                                                                         \
    {                                                                                              \
        -1,                                                                                        \
        {                                                                                          \
            0                                                                                      \
        }                                                                                          \
    }
#define SCALAR                                                                                     \
    {                                                                                              \
        0,                                                                                         \
        {                                                                                          \
            0                                                                                      \
        }                                                                                          \
    }

/* clang-format off */
static const mm_case mi_cases[] = {
    {"plain_u8", {2, {5, 7}}, {2, {7, 3}}, U8, U8, SCALAR, SCALAR, NO, NO, NO, NO, F32, U8},
    {"no_zp_i8", {2, {3, 4}}, {2, {4, 6}}, I8, I8, NO, NO, NO, NO, NO, NO, F32, U8},
    {"mixed_u8_i8", {2, {4, 5}}, {2, {5, 2}}, U8, I8, {1, {1}}, NO, NO, NO, NO, NO, F32, U8},
    {"mixed_i8_u8", {2, {4, 5}}, {2, {5, 2}}, I8, U8, NO, {1, {1}}, NO, NO, NO, NO, F32, U8},
    {"per_row_col", {3, {2, 3, 5}}, {2, {5, 4}}, I8, U8, {1, {3}}, {1, {4}}, NO, NO, NO, NO,
     F32, U8},
    {"batch_bcast", {4, {2, 1, 3, 4}}, {3, {3, 4, 5}}, U8, U8, SCALAR, {1, {5}}, NO, NO, NO, NO,
     F32, U8},
    {"batch_bcast_b", {3, {1, 3, 2}}, {3, {4, 2, 3}}, U8, I8, {1, {3}}, SCALAR, NO, NO, NO, NO,
     F32, U8},
    {"a_1d", {1, {4}}, {3, {2, 4, 3}}, U8, U8, SCALAR, {1, {3}}, NO, NO, NO, NO, F32, U8},
    {"b_1d", {2, {3, 4}}, {1, {4}}, I8, I8, {1, {3}}, SCALAR, NO, NO, NO, NO, F32, U8},
    {"both_1d", {1, {6}}, {1, {6}}, U8, U8, {1, {1}}, {1, {1}}, NO, NO, NO, NO, F32, U8},
    {"nd_zp", {3, {2, 3, 4}}, {3, {2, 4, 5}}, U8, U8, {3, {2, 3, 1}}, {3, {2, 1, 5}}, NO, NO, NO,
     NO, F32, U8},
    {"nd_zp_bcast", {3, {2, 3, 4}}, {3, {2, 4, 5}}, I8, U8, {3, {1, 3, 1}}, {3, {2, 1, 1}}, NO,
     NO, NO, NO, F32, U8},
    {"zero_k", {2, {3, 0}}, {2, {0, 2}}, U8, U8, SCALAR, SCALAR, NO, NO, NO, NO, F32, U8},
    {"empty_m", {2, {0, 3}}, {2, {3, 2}}, U8, U8, SCALAR, SCALAR, NO, NO, NO, NO, F32, U8},
};

static const mm_case ql_cases[] = {
    {"ql_u8", {2, {5, 7}}, {2, {7, 3}}, U8, U8, SCALAR, SCALAR, SCALAR, SCALAR, SCALAR, SCALAR,
     F32, U8},
    {"ql_i8_out", {2, {4, 9}}, {2, {9, 5}}, I8, U8, {1, {1}}, SCALAR, {1, {1}}, SCALAR, SCALAR,
     SCALAR, F32, I8},
    {"ql_per_col", {3, {2, 3, 6}}, {2, {6, 4}}, U8, I8, SCALAR, {1, {4}}, SCALAR, {1, {4}}, SCALAR,
     SCALAR, F32, U8},
    {"ql_per_row", {2, {3, 6}}, {3, {2, 6, 4}}, U8, U8, {1, {3}}, SCALAR, {1, {3}}, SCALAR,
     {1, {3}}, {1, {3}}, F32, I8},
    {"ql_f16_scales", {2, {3, 5}}, {2, {5, 2}}, I8, I8, SCALAR, {1, {2}}, SCALAR, SCALAR, SCALAR,
     SCALAR, F16, U8},
    {"ql_bf16_scales", {1, {5}}, {2, {5, 2}}, U8, U8, SCALAR, SCALAR, SCALAR, {1, {2}}, SCALAR,
     SCALAR, BF16, I8},
    {"ql_no_zps", {2, {2, 3}}, {2, {3, 2}}, U8, U8, NO, NO, SCALAR, SCALAR, SCALAR, NO, F32, U8},
};
/* clang-format on */

static void test_matmulinteger_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof mi_cases / sizeof mi_cases[0]; i++) {
        mm_run_case(&mi_cases[i], false);
    }
}

static void test_qlinearmatmul_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof ql_cases / sizeof ql_cases[0]; i++) {
        mm_run_case(&ql_cases[i], true);
    }
}

static void test_conformance(void **state)
{
    (void)state;
    /* test_matmulinteger */
    const uint8_t a[12] = {11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0}, b[6] = {1, 4, 2, 5, 3, 6};
    const uint8_t za = 12, zb = 0;
    const double want[8] = {-38, -83, -44, -98, -50, -113, -56, -128};
    int32_t y[8];
    em_tensor in[8], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_MATMULINTEGER, "test_matmulinteger");
    q_tensor(&in[0], U8, 2, Q_DIMS(4, 3), a);
    q_tensor(&in[1], U8, 2, Q_DIMS(3, 2), b);
    q_tensor(&in[2], U8, 1, Q_DIMS(1), &za);
    q_tensor(&in[3], U8, 1, Q_DIMS(1), &zb);
    q_tensor(&out[0], EMBER_DTYPE_I32, 2, Q_DIMS(4, 2), y);
    t_expect_ok(q_run(EM_OP_MATMULINTEGER, &tn, in, 4, out, 1, 0), "mi");
    q_check("test_matmulinteger", y, EMBER_DTYPE_I32, want, 8, 0, 0);

    /* test_qlinearmatmul_3D (its 2-D case is each batch). */
    const uint8_t qa[16] = {208, 236, 0, 238, 3, 214, 255, 29, 208, 236, 0, 238, 3, 214, 255, 29};
    const uint8_t qb[24] = {152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247,
                            152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247};
    const float as = 0.0066f, bs = 0.00705f, ys = 0.0107f;
    const uint8_t qza = 113, qzb = 114, qzy = 118;
    const double qwant[12] = {168, 115, 255, 1, 66, 151, 168, 115, 255, 1, 66, 151};
    uint8_t qy[12];
    t_node_init(&tn, EM_OP_QLINEARMATMUL, "test_qlinearmatmul_3D");
    q_tensor(&in[0], U8, 3, Q_DIMS(2, 2, 4), qa);
    q_tensor(&in[1], F32, 1, Q_DIMS(1), &as);
    q_tensor(&in[2], U8, 1, Q_DIMS(1), &qza);
    q_tensor(&in[3], U8, 3, Q_DIMS(2, 4, 3), qb);
    q_tensor(&in[4], F32, 1, Q_DIMS(1), &bs);
    q_tensor(&in[5], U8, 1, Q_DIMS(1), &qzb);
    q_tensor(&in[6], F32, 1, Q_DIMS(1), &ys);
    q_tensor(&in[7], U8, 1, Q_DIMS(1), &qzy);
    q_tensor(&out[0], U8, 3, Q_DIMS(2, 2, 3), qy);
    t_expect_ok(q_run(EM_OP_QLINEARMATMUL, &tn, in, 8, out, 1, 0), "ql3d");
    q_check("test_qlinearmatmul_3D", qy, U8, qwant, 12, 0, 0);
}

typedef struct mm_bad {
    const char *name;
    mm_t a, b, za, zb, y;
    ember_dtype at, bt, zat, y_dt;
    ember_code code;
} mm_bad;

static void test_matmulinteger_errors(void **state)
{
    (void)state;
    /* clang-format off */
    static const mm_bad bads[] = {
        {"mi_f32", {2, {2, 3}}, {2, {3, 2}}, NO, NO, {2, {2, 2}}, F32, U8, F32, EMBER_DTYPE_I32,
         EMBER_ERR_UNSUPPORTED},
        {"mi_k", {2, {2, 3}}, {2, {4, 2}}, NO, NO, {2, {2, 2}}, U8, U8, U8, EMBER_DTYPE_I32,
         EMBER_ERR_INVALID_MODEL},
        {"mi_batch", {3, {2, 2, 3}}, {3, {3, 3, 2}}, NO, NO, {3, {3, 2, 2}}, U8, U8, U8,
         EMBER_DTYPE_I32, EMBER_ERR_INVALID_MODEL},
        {"mi_zp_dtype", {2, {2, 3}}, {2, {3, 2}}, SCALAR, NO, {2, {2, 2}}, U8, U8, I8,
         EMBER_DTYPE_I32, EMBER_ERR_INVALID_MODEL},
        {"mi_zp_shape", {2, {2, 3}}, {2, {3, 2}}, {1, {3}}, NO, {2, {2, 2}}, U8, U8, U8,
         EMBER_DTYPE_I32, EMBER_ERR_INVALID_MODEL},
        {"mi_zp_nd", {3, {2, 2, 3}}, {2, {3, 2}}, {3, {2, 2, 3}}, NO, {3, {2, 2, 2}}, U8, U8, U8,
         EMBER_DTYPE_I32, EMBER_ERR_INVALID_MODEL},
        {"mi_y_dtype", {2, {2, 3}}, {2, {3, 2}}, NO, NO, {2, {2, 2}}, U8, U8, U8, EMBER_DTYPE_I64,
         EMBER_ERR_INVALID_MODEL},
        {"mi_y_shape", {2, {2, 3}}, {2, {3, 2}}, NO, NO, {2, {2, 3}}, U8, U8, U8, EMBER_DTYPE_I32,
         EMBER_ERR_INVALID_MODEL},
        {"mi_scalar_a", {0, {0}}, {2, {3, 2}}, NO, NO, {1, {2}}, U8, U8, U8, EMBER_DTYPE_I32,
         EMBER_ERR_INVALID_MODEL},
    };
    /* clang-format on */
    uint8_t buf[64] = {0};
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        em_tensor in[4], out[1];
        mm_input(&in[0], &bads[i].a, bads[i].at, buf);
        mm_input(&in[1], &bads[i].b, bads[i].bt, buf);
        mm_input(&in[2], &bads[i].za, bads[i].zat, buf);
        mm_input(&in[3], &bads[i].zb, bads[i].bt, buf);
        mm_input(&out[0], &bads[i].y, bads[i].y_dt, buf);
        t_node tn;
        t_node_init(&tn, EM_OP_MATMULINTEGER, bads[i].name);
        t_expect_error(q_run(EM_OP_MATMULINTEGER, &tn, in, 4, out, 1, 0), bads[i].code,
                       bads[i].name, bads[i].name);
    }
}

static void test_qlinearmatmul_errors(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int missing;      /* input made absent, -1: none */
        ember_dtype s_dt; /* dtype of every scale */
        ember_dtype zy_dt, y_dt;
        int64_t bs_len; /* b_scale length */
        ember_code code;
    } bads[] = {
        {"ql_no_a_scale", 1, F32, U8, U8, 1, EMBER_ERR_INVALID_MODEL},
        {"ql_no_y_scale", 6, F32, U8, U8, 1, EMBER_ERR_INVALID_MODEL},
        {"ql_scale_i32", -1, EMBER_DTYPE_I32, U8, U8, 1, EMBER_ERR_INVALID_MODEL},
        {"ql_y_f32", -1, F32, F32, F32, 1, EMBER_ERR_UNSUPPORTED},
        {"ql_zy_dtype", -1, F32, I8, U8, 1, EMBER_ERR_INVALID_MODEL},
        {"ql_bs_len", -1, F32, U8, U8, 3, EMBER_ERR_INVALID_MODEL},
    };
    float buf[64] = {0};
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        em_tensor in[8], out[1];
        q_tensor(&in[0], U8, 2, Q_DIMS(2, 3), buf);
        q_tensor(&in[1], bads[i].s_dt, 0, NULL, buf);
        q_tensor(&in[2], U8, 0, NULL, buf);
        q_tensor(&in[3], U8, 2, Q_DIMS(3, 2), buf);
        q_tensor(&in[4], bads[i].s_dt, 1, &bads[i].bs_len, buf);
        q_tensor(&in[5], U8, 0, NULL, buf);
        q_tensor(&in[6], bads[i].s_dt, 0, NULL, buf);
        q_tensor(&in[7], bads[i].zy_dt, 0, NULL, buf);
        q_tensor(&out[0], bads[i].y_dt, 2, Q_DIMS(2, 2), buf);
        if (bads[i].missing >= 0) {
            t_absent(&in[bads[i].missing]);
        }
        t_node tn;
        t_node_init(&tn, EM_OP_QLINEARMATMUL, bads[i].name);
        t_expect_error(q_run(EM_OP_QLINEARMATMUL, &tn, in, 8, out, 1, 0), bads[i].code,
                       bads[i].name, bads[i].name);
    }
}

/* The same rows computed with a thread pool. */
static void test_threaded(void **state)
{
    (void)state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 3, &pool), "pool");
    const int64_t ad[3] = {3, 9, 4}, bd[3] = {3, 4, 5}, yd[3] = {3, 9, 5};
    uint8_t *a = q_random_int(U8, 108, 5, 0, 255), *b = q_random_int(U8, 60, 6, 0, 255);
    int32_t *y1 = test_calloc(135, 4), *y2 = test_calloc(135, 4);
    em_tensor in[2], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_MATMULINTEGER, "threaded");
    tn.n.n_in = 2;
    tn.n.n_out = 1;
    q_tensor(&in[0], U8, 3, ad, a);
    q_tensor(&in[1], U8, 3, bd, b);
    q_tensor(&out[0], EMBER_DTYPE_I32, 3, yd, y1);
    const em_kernel *k = t_kernel(EM_OP_MATMULINTEGER, EMBER_DTYPE_UNDEFINED);
    t_expect_ok(t_run(k, &tn.n, in, 2, out, 1, NULL), "serial");
    out[0].data = y2;
    t_expect_ok(t_run(k, &tn.n, in, 2, out, 1, pool), "pool");
    assert_memory_equal(y1, y2, 135 * 4);
    em_threadpool_destroy(pool);
    test_free(a);
    test_free(b);
    test_free(y1);
    test_free(y2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matmulinteger_cases),  cmocka_unit_test(test_qlinearmatmul_cases),
        cmocka_unit_test(test_conformance),          cmocka_unit_test(test_matmulinteger_errors),
        cmocka_unit_test(test_qlinearmatmul_errors), cmocka_unit_test(test_threaded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
