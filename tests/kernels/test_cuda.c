/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CUDA entries (Relu, Add, cuBLAS Gemm / MatMul) against the CPU reference kernels, on
 * device copies of the same random data. Skips without a usable device (no GPU, or no driver:
 * em_cuda_device_count() == 0), but in a CUDA build the binary still links every CUDA
 * object through the registry's table, which is what proves the code links here.
 *
 * The device helpers are declared weak: a build without CUDA has no such symbols, and the
 * test skips before calling them (in a CUDA build, backends.c pulls cuda_device.o in).
 */
#include "test_x86_harness.h"

#include "plan/backends.h"

#if defined(__GNUC__)
#define KT_WEAK __attribute__((weak))
#else
#define KT_WEAK
#endif

KT_WEAK int em_cuda_malloc(void **p, size_t bytes);
KT_WEAK void em_cuda_free(void *p);
KT_WEAK int em_cuda_memcpy_h2d(void *dst, const void *src, size_t bytes);
KT_WEAK int em_cuda_memcpy_d2h(void *dst, const void *src, size_t bytes);
KT_WEAK int em_cuda_sync(void);

static const em_kernel *cuda_kernel(em_op op)
{
    for (size_t i = 0; i < em_registry_count(); i++) {
        const em_kernel *k = em_registry_at(i);
        if (k->op == op && k->device == EM_DEV_CUDA && k->dtype == EMBER_DTYPE_F32) {
            return k;
        }
    }
    return NULL;
}

static const em_kernel *need_device(em_op op)
{
    int n = em_backend_cuda_devices();
    print_message("CUDA devices: %d (backends: %s)\n", n, em_registry_backends());
    const em_kernel *k = cuda_kernel(op);
    if (n <= 0 || k == NULL || em_cuda_malloc == NULL) {
        skip();
    }
    return k;
}

static float *to_device(const float *h, int64_t n)
{
    void *d = NULL;
    assert_int_equal(em_cuda_malloc(&d, sizeof(float) * (size_t)(n > 0 ? n : 1)), 0);
    assert_int_equal(em_cuda_memcpy_h2d(d, h, sizeof(float) * (size_t)n), 0);
    return d;
}

/* Runs kernel k on device copies of in[0..n_in) and returns the output on the host. */
static void run_on_device(const em_kernel *k, const em_node *node, em_tensor *in, int n_in,
                          em_tensor *out, float *host_out)
{
    em_tensor din[3], dout[1];
    float *dptr[3] = {NULL, NULL, NULL};
    for (int i = 0; i < n_in; i++) {
        din[i] = in[i];
        if (in[i].dtype != EMBER_DTYPE_UNDEFINED) {
            dptr[i] = to_device(in[i].data, t_numel(in[i].dims, in[i].rank));
            din[i].data = dptr[i];
        }
    }
    int64_t ny = t_numel(out[0].dims, out[0].rank);
    void *dy = NULL;
    assert_int_equal(em_cuda_malloc(&dy, sizeof(float) * (size_t)(ny > 0 ? ny : 1)), 0);
    dout[0] = out[0];
    dout[0].data = dy;
    t_expect_ok(kt_run(k, node, din, n_in, dout, 1, 0, NULL), node->name);
    assert_int_equal(em_cuda_sync(), 0);
    assert_int_equal(em_cuda_memcpy_d2h(host_out, dy, sizeof(float) * (size_t)ny), 0);
    for (int i = 0; i < n_in; i++) {
        em_cuda_free(dptr[i]);
    }
    em_cuda_free(dy);
}

static void test_eltwise(void **state)
{
    em_op op = *(const em_op *)*state;
    const em_kernel *k = need_device(op);
    static const int64_t sizes[] = {1, 255, 256, 257, 100000, 1048576 + 3};
    int n_in = op == EM_OP_RELU ? 1 : 2;
    t_node node;
    t_node_init(&node, op, "ew");
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        int64_t n = sizes[si];
        float *a = t_random_f32(n, 10 + si, -2.0f, 2.0f),
              *b = t_random_f32(n, 20 + si, -2.0f, 2.0f);
        float *ref = t_f32(n), *got = t_f32(n);
        em_tensor in[2], out[1];
        t_tensor(&in[0], EMBER_DTYPE_F32, 1, &n, a);
        t_tensor(&in[1], EMBER_DTYPE_F32, 1, &n, b);
        t_tensor(&out[0], EMBER_DTYPE_F32, 1, &n, ref);
        t_expect_ok(kt_run(t_kernel(op, EMBER_DTYPE_F32), &node.n, in, n_in, out, 1, 0, NULL),
                    "ref");
        run_on_device(k, &node.n, in, n_in, out, got);
        kt_check(em_op_name(op), k->name, 10 + si, got, ref, n, 0.0, 1e-6);
        test_free(a);
        test_free(b);
        test_free(ref);
        test_free(got);
    }
}

/* A few cases from the shared table (Gemm and MatMul), through cuBLAS. */
static void test_gemm(void **state)
{
    em_op op = *(const em_op *)*state;
    const em_kernel *k = need_device(op);
    for (size_t ci = 0; ci < sizeof kt_mm_cases / sizeof kt_mm_cases[0]; ci++) {
        const kt_mm_case *c = &kt_mm_cases[ci];
        if (c->op != op) {
            continue;
        }
        t_node node;
        t_node_init(&node, op, c->name);
        if (op == EM_OP_GEMM) {
            t_set_float(&node, "alpha", c->alpha);
            t_set_float(&node, "beta", c->beta);
            t_set_int(&node, "transA", c->ta);
            t_set_int(&node, "transB", c->tb);
        }
        int64_t yd[EM_MAX_RANK], kk;
        int ry = kt_mm_out(c, yd, &kk);
        int64_t ny = t_numel(yd, ry);
        float *a = t_random_f32(t_numel(c->a, c->ra), ci, -1.0f, 1.0f);
        float *b = t_random_f32(t_numel(c->b, c->rb), ci + 1, -1.0f, 1.0f);
        float *cc = t_random_f32(c->rc >= 0 ? t_numel(c->c, c->rc) : 1, ci + 2, -1.0f, 1.0f);
        float *ref = t_f32(ny), *got = t_f32(ny);
        em_tensor in[3], out[1];
        t_tensor(&in[0], EMBER_DTYPE_F32, c->ra, c->a, a);
        t_tensor(&in[1], EMBER_DTYPE_F32, c->rb, c->b, b);
        if (c->rc >= 0) {
            t_tensor(&in[2], EMBER_DTYPE_F32, c->rc, c->c, cc);
        } else {
            t_absent(&in[2]);
        }
        int n_in = op == EM_OP_GEMM ? 3 : 2;
        t_tensor(&out[0], EMBER_DTYPE_F32, ry, yd, ref);
        t_expect_ok(kt_run(t_kernel(op, EMBER_DTYPE_F32), &node.n, in, n_in, out, 1, 0, NULL),
                    c->name);
        run_on_device(k, &node.n, in, n_in, out, got);
        kt_check(c->name, k->name, ci, got, ref, ny, kt_mm_atol(kk), KT_MM_RTOL);
        test_free(a);
        test_free(b);
        test_free(cc);
        test_free(ref);
        test_free(got);
    }
}

/* Without a device every CUDA entry declines in prepare, so the planner stays on the CPU. */
static void test_declines_without_device(void **state)
{
    (void)state;
    const em_kernel *k = cuda_kernel(EM_OP_RELU);
    if (k == NULL || em_backend_cuda_devices() > 0) {
        skip();
    }
    t_node node;
    t_node_init(&node, EM_OP_RELU, "relu");
    int64_t n = 4;
    em_tensor in[1], out[1];
    t_tensor(&in[0], EMBER_DTYPE_F32, 1, &n, NULL);
    t_tensor(&out[0], EMBER_DTYPE_F32, 1, &n, NULL);
    t_expect_error(kt_run(k, &node.n, in, 1, out, 1, 0, NULL), EMBER_ERR_UNSUPPORTED, "relu",
                   "no device");
}

int main(void)
{
    static const em_op relu = EM_OP_RELU, add = EM_OP_ADD, gemm = EM_OP_GEMM, matmul = EM_OP_MATMUL;
    const struct CMUnitTest tests[] = {
        {"test_eltwise/Relu", test_eltwise, NULL, NULL, (void *)&relu},
        {"test_eltwise/Add", test_eltwise, NULL, NULL, (void *)&add},
        {"test_gemm/Gemm", test_gemm, NULL, NULL, (void *)&gemm},
        {"test_gemm/MatMul", test_gemm, NULL, NULL, (void *)&matmul},
        cmocka_unit_test(test_declines_without_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
