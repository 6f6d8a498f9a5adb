/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The x86 broadcasting Add / Sub / Mul / Div kernels (f32, AVX2 and AVX-512) against the
 * reference, which they must match exactly (one IEEE operation per element): same shapes,
 * scalars (rank 0 and [1]), trailing blocks ([N] over [M, N], [1, 1, N] and [S, N] over
 * [B, S, N]) and blocks followed by broadcast axes ([C, 1, 1] over [N, C, H, W]) on either
 * side, odd periods around the vector widths, outputs spanning several
 * parallel blocks on a 2-thread pool (bitwise equal), in place on the big operand. Declines:
 * two separate broadcast blocks, both operands broadcast, i32.
 */
#include "test_x86_harness.h"

typedef struct bn_case {
    int ra, rb;
    int64_t a[3], b[3];
} bn_case;

/* clang-format off */
static const bn_case cases[] = {
    {2, 2, {5, 7}, {5, 7}},
    {3, 0, {3, 5, 17}, {0}},
    {2, 1, {9, 1}, {1}},
    {2, 1, {64, 2048}, {2048}},
    {1, 3, {33}, {4, 5, 33}},
    {3, 3, {1, 1, 15}, {6, 7, 15}},
    {3, 2, {2, 64, 768}, {64, 768}},
    {2, 2, {3, 100}, {3, 100}},
    {3, 1, {7, 3, 16}, {16}},
    {1, 1, {40000}, {40000}},
    {2, 1, {41, 1001}, {1001}},
    {2, 3, {5, 1}, {2, 5, 19}},             /* per-channel, inner 19 */
    {3, 3, {4, 30, 33}, {1, 30, 1}},        /* middle axis, inner 33 */
    {3, 2, {3, 96, 56}, {96, 1}},           /* inner 56 */
    {3, 3, {2, 7, 9}, {2, 1, 1}},           /* leading axis, inner 63 */
};
/* clang-format on */

static const em_op ops[] = {EM_OP_ADD, EM_OP_SUB, EM_OP_MUL, EM_OP_DIV};

static void test_cases(void **state)
{
    const char *suffix = *state;
    em_threadpool *pool = NULL;
    t_expect_ok(em_threadpool_create(test_allocator(), 2, &pool), "pool");
    int ran = 0;
    for (size_t oi = 0; oi < 4; oi++) {
        const em_kernel *ks[KT_MAX_KERNELS], *k = NULL;
        size_t nk = kt_find(ops[oi], suffix, ks, KT_MAX_KERNELS);
        for (size_t i = 0; i < nk; i++) {
            if (strstr(ks[i]->name, "_bcast_") != NULL && kt_isa_ok(ks[i])) {
                k = ks[i];
            }
        }
        if (k == NULL) {
            continue;
        }
        for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
            const bn_case *c = &cases[ci];
            bool a_big = c->ra >= c->rb && t_numel(c->a, c->ra) >= t_numel(c->b, c->rb);
            const int64_t *yd = a_big ? c->a : c->b;
            int ry = a_big ? c->ra : c->rb;
            int64_t na = t_numel(c->a, c->ra), nb = t_numel(c->b, c->rb), ny = t_numel(yd, ry);
            float *a = t_random_f32(na, ci, -2.0f, 2.0f), *b = t_random_f32(nb, ci + 50, 0.5f, 3.0f);
            float *ref = t_f32(ny), *got = t_f32(ny), *par = t_f32(ny);
            char name[64];
            snprintf(name, sizeof name, "%s_case%zu", em_op_name(ops[oi]), ci);
            t_node tn;
            t_node_init(&tn, ops[oi], "bin");
            em_tensor in[2], out[1];
            t_tensor(&in[0], EMBER_DTYPE_F32, c->ra, c->a, a);
            t_tensor(&in[1], EMBER_DTYPE_F32, c->rb, c->b, b);
            t_tensor(&out[0], EMBER_DTYPE_F32, ry, yd, ref);
            t_expect_ok(kt_run(t_kernel(ops[oi], EMBER_DTYPE_F32), &tn.n, in, 2, out, 1, 0, NULL),
                        name);
            kt_fill_nan(got, ny);
            out[0].data = got;
            t_expect_ok(kt_run(k, &tn.n, in, 2, out, 1, 0, NULL), name);
            kt_check(name, k->name, ci, got, ref, ny, 0.0, 0.0);
            kt_fill_nan(par, ny);
            out[0].data = par;
            t_expect_ok(kt_run(k, &tn.n, in, 2, out, 1, 0, pool), name);
            kt_check_same(name, k->name, "2-thread result", got, par, ny);
            if (a_big) { /* in place: out == in[0] */
                out[0].data = a;
                t_expect_ok(kt_run(k, &tn.n, in, 2, out, 1, 0, pool), name);
                kt_check(name, k->name, ci, a, ref, ny, 0.0, 0.0);
            }
            test_free(a);
            test_free(b);
            test_free(ref);
            test_free(got);
            test_free(par);
            ran++;
        }
    }
    em_threadpool_destroy(pool);
    if (ran == 0) {
        skip();
    }
}

static void test_declines(void **state)
{
    const em_kernel *ks[KT_MAX_KERNELS], *k = NULL;
    size_t nk = kt_find(EM_OP_SUB, *state, ks, KT_MAX_KERNELS);
    for (size_t i = 0; i < nk; i++) {
        k = kt_isa_ok(ks[i]) ? ks[i] : k;
    }
    if (k == NULL) {
        skip();
    }
    float buf[64] = {0};
    int64_t d23[2] = {2, 3}, d21[2] = {2, 1}, d13[2] = {1, 3}, d3[1] = {3};
    int64_t d234[3] = {2, 3, 4}, d214[3] = {2, 1, 4};
    em_tensor in[2], out[1];
    t_node tn;
    t_node_init(&tn, EM_OP_SUB, "sub");
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, d23, buf);
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, d23, buf);
    t_tensor(&out[0], EMBER_DTYPE_F32, 3, d234, buf);
    t_tensor(&in[0], EMBER_DTYPE_F32, 3, d234, buf);
    t_tensor(&in[1], EMBER_DTYPE_F32, 3, d214, buf); /* two blocks: [2] and [4] */
    t_expect_error(kt_run(k, &tn.n, in, 2, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "sub", "two");
    t_tensor(&out[0], EMBER_DTYPE_F32, 2, d23, buf);
    t_tensor(&in[0], EMBER_DTYPE_F32, 2, d21, buf);
    t_tensor(&in[1], EMBER_DTYPE_F32, 2, d13, buf);
    t_expect_error(kt_run(k, &tn.n, in, 2, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "sub", "both");
    t_tensor(&in[0], EMBER_DTYPE_I32, 2, d23, buf);
    t_tensor(&in[1], EMBER_DTYPE_I32, 1, d3, buf);
    t_tensor(&out[0], EMBER_DTYPE_I32, 2, d23, buf);
    t_expect_error(kt_run(k, &tn.n, in, 2, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "sub", "i32");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KT_TEST(test_cases, "__avx2"),
        KT_TEST(test_cases, "__avx512"),
        KT_TEST(test_declines, "__avx2"),
        KT_TEST(test_declines, "__avx512"),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
