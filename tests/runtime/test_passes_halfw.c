/* SPDX-License-Identifier: Apache-2.0 */
/*
 * em_pass_weights_to_half (runtime/passes/passes_half.c) on hand-built graphs:
 *  - held in half: MatMul's B (64x32), Gemm's B read twice, a Conv W (8x16x3x3): each becomes
 *    an f16 / bf16 initializer of the same name whose values are the f32 ones rounded to
 *    nearest even (em_f32_to_half_n's, checked element by element), read through one new
 *    Cast to f32 placed right before its first reader; the readers read the Cast's output;
 *  - left f32: a weight under 1024 elements, a MatMul's A that is an initializer (input 0),
 *    a B also read by an Add, a depthwise Conv W, a weight that is a graph output;
 *  - exact_only: a weight of values all exact in the half format is held, one with a value
 *    that is not stays f32;
 *  - a bad dtype is refused; a graph with nothing to hold is left unchanged;
 *  - a weight read in place from a mapped file: once its half copy exists, the pages that
 *    held only its f32 bytes are no longer resident in this process (/proc/self/smaps' Rss of
 *    the mapping; Linux), the pages it shares with its neighbours are, and the half values
 *    are the rounded file values (the load-time peak: f32 and half bytes not both alive).
 * Each rewritten graph verifies and infers shapes; test_api_halfw.c runs the values.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp, sysconf */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "test_autograd_util.h"
#include "test_passes_util.h"

#include "core/lowp.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int reader_of(const em_graph *g, int v)
{
    for (int ni = 0; ni < g->n_nodes; ni++) {
        for (int i = 0; i < g->nodes[ni].n_in; i++) {
            if (g->nodes[ni].in[i] == v) {
                return ni;
            }
        }
    }
    return -1;
}

/* Value `name` is held in `half`: its values are `orig` rounded, one Cast widens it right
 * before the first node reading the Cast's output. */
static void assert_held(const em_graph *g, const char *name, ember_dtype half, const float *orig,
                        size_t n)
{
    int v = em_graph_find_value(g, name);
    assert_true(v >= 0);
    const em_value *x = &g->values[v];
    assert_int_equal(x->kind, EM_VAL_INITIALIZER);
    assert_int_equal(x->dtype, half);
    assert_int_equal(x->init.dtype, half);
    assert_int_equal(em_tensor_numel(&x->init), (int64_t)n);
    for (size_t i = 0; i < n; i++) {
        uint16_t h;
        em_f32_to_half_n(half, &orig[i], &h, 1);
        assert_int_equal(((const uint16_t *)x->init.data)[i], h);
    }
    int c = reader_of(g, v);
    assert_true(c >= 0);
    const em_node *cast = &g->nodes[c];
    assert_int_equal(cast->op, EM_OP_CAST);
    assert_int_equal(em_node_attr_int(cast, "to", 0), EMBER_DTYPE_F32);
    int w = cast->out[0];
    assert_int_equal(g->values[w].dtype, EMBER_DTYPE_F32);
    assert_int_equal(reader_of(g, w), c + 1); /* right before its first reader */
    int readers = 0;
    for (int ni = 0; ni < g->n_nodes; ni++) {
        for (int i = 0; i < g->nodes[ni].n_in; i++) {
            readers += g->nodes[ni].in[i] == v;
        }
    }
    assert_int_equal(readers, 1); /* only the Cast reads the half value */
}

static void assert_f32(const em_graph *g, const char *name)
{
    int v = em_graph_find_value(g, name);
    assert_true(v >= 0);
    assert_int_equal(g->values[v].dtype, EMBER_DTYPE_F32);
    assert_int_equal(g->values[v].init.dtype, EMBER_DTYPE_F32);
    assert_int_equal(g->nodes[reader_of(g, v)].op == EM_OP_CAST, 0);
}

static const float *init_data(const em_graph *g, const char *name, float *copy, size_t n)
{
    memcpy(copy, g->values[em_graph_find_value(g, name)].init.data, sizeof(float) * n);
    return copy;
}

static void check_graph(ember_dtype half)
{
    em_graph *g = NULL;
    OK(em_graph_new(test_allocator(), &g));
    static const int64_t xd[2] = {4, 64}, bd[2] = {64, 32}, sd[2] = {32, 16}, ad[2] = {16, 64};
    static const int64_t gd[2] = {32, 32}, od[2] = {32, 32};
    static const int64_t id[4] = {1, 16, 6, 6}, cw[4] = {8, 16, 3, 3}, dw[4] = {128, 1, 3, 3};
    static const int64_t id2[4] = {1, 128, 4, 4};
    int x, im, im2;
    OK(em_graph_add_input(g, "x", EMBER_DTYPE_F32, 2, xd, NULL, &x));
    OK(em_graph_add_input(g, "im", EMBER_DTYPE_F32, 4, id, NULL, &im));
    OK(em_graph_add_input(g, "im2", EMBER_DTYPE_F32, 4, id2, NULL, &im2));
    int b = tp_init_f32(g, "b", 2, bd, 1, -1, 1);         /* MatMul B: held */
    int small = tp_init_f32(g, "small", 2, sd, 2, -1, 1); /* 512: under the floor */
    int a = tp_init_f32(g, "a", 2, ad, 3, -1, 1);         /* MatMul A (input 0): left */
    int gb = tp_init_f32(g, "gb", 2, gd, 4, -1, 1);       /* Gemm B, read twice: held */
    int ab = tp_init_f32(g, "ab", 2, gd, 5, -1, 1);       /* Gemm B and Add: left */
    int out = tp_init_f32(g, "out", 2, od, 6, -1, 1);     /* a graph output: left */
    int w = tp_init_f32(g, "w", 4, cw, 7, -1, 1);         /* Conv W: held */
    int wd = tp_init_f32(g, "wd", 4, dw, 8, -1, 1);       /* depthwise (1152): left */
    float ob[64 * 32], ogb[32 * 32], ow[8 * 16 * 9];
    init_data(g, "b", ob, 64 * 32);
    init_data(g, "gb", ogb, 32 * 32);
    init_data(g, "w", ow, 8 * 16 * 9);
    int m = tp_op2(g, EM_OP_MATMUL, x, b, "m");       /* [4, 32] */
    int m2 = tp_op2(g, EM_OP_MATMUL, m, small, "m2"); /* [4, 16] */
    int m3 = tp_op2(g, EM_OP_MATMUL, a, b, "m3");     /* A initializer, B held */
    int g1 = tp_op2(g, EM_OP_GEMM, m, gb, "g1");
    int g2 = tp_op2(g, EM_OP_GEMM, g1, gb, "g2");
    int g3 = tp_op2(g, EM_OP_GEMM, g2, ab, "g3");
    int ad2 = tp_op2(g, EM_OP_ADD, ab, ab, "ad");
    OK(em_graph_mark_output(g, g3));
    int c = tp_op2(g, EM_OP_CONV, im, w, "c");
    OK(em_node_set_ints(g, g->values[c].producer, "pads", (const int64_t[]){1, 1, 1, 1}, 4));
    int c2 = tp_op2(g, EM_OP_CONV, im2, wd, "c2");
    OK(em_node_set_int(g, g->values[c2].producer, "group", 128));
    OK(em_graph_mark_output(g, c));
    (void)out;
    OK(em_graph_mark_output(g, m2));
    OK(em_graph_mark_output(g, m3));
    OK(em_graph_mark_output(g, ad2));
    OK(em_graph_mark_output(g, c2));
    OK(em_graph_mark_output(g, tp_op2(g, EM_OP_MATMUL, m, out, "mo")));
    OK(em_graph_mark_output(g, out));
    OK(em_graph_infer_shapes(g));
    int n_nodes = g->n_nodes;
    size_t n_done = 0;
    OK(em_pass_weights_to_half(g, half, false, &n_done));
    OK(em_graph_verify(g));
    OK(em_graph_infer_shapes(g));
    tp_debug_print(g);
    assert_int_equal(n_done, 3);
    assert_int_equal(g->n_nodes, n_nodes + 3);
    assert_held(g, "b", half, ob, 64 * 32);
    assert_held(g, "gb", half, ogb, 32 * 32);
    assert_held(g, "w", half, ow, 8 * 16 * 9);
    assert_f32(g, "small");
    assert_f32(g, "a");
    assert_f32(g, "ab");
    assert_f32(g, "out");
    assert_f32(g, "wd");
    (void)a, (void)small, (void)ab, (void)wd, (void)gb, (void)w;
    em_graph_destroy(g);
}

static void test_halfw_f16(void **state)
{
    (void)state;
    check_graph(EMBER_DTYPE_F16);
}

static void test_halfw_bf16(void **state)
{
    (void)state;
    check_graph(EMBER_DTYPE_BF16);
}

/* exact_only: a weight of half values is held, one with a single inexact value is not. */
static void test_halfw_exact_only(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        ember_dtype half = k == 0 ? EMBER_DTYPE_F16 : EMBER_DTYPE_BF16;
        em_graph *g = NULL;
        OK(em_graph_new(test_allocator(), &g));
        static const int64_t xd[2] = {2, 64}, bd[2] = {64, 32};
        int x;
        OK(em_graph_add_input(g, "x", EMBER_DTYPE_F32, 2, xd, NULL, &x));
        float v[64 * 32];
        for (int i = 0; i < 64 * 32; i++) {
            v[i] = (float)(i % 61 - 30) * 0.25f; /* exact in f16 and bf16 */
        }
        int e = tp_init(g, "exact", EMBER_DTYPE_F32, 2, bd, v);
        v[100] = 1.0f + 1.0f / 4096.0f; /* 1 + 2^-12: in neither */
        int ne = tp_init(g, "inexact", EMBER_DTYPE_F32, 2, bd, v);
        OK(em_graph_mark_output(g, tp_op2(g, EM_OP_MATMUL, x, e, "y0")));
        OK(em_graph_mark_output(g, tp_op2(g, EM_OP_MATMUL, x, ne, "y1")));
        OK(em_graph_infer_shapes(g));
        size_t n_done = 0;
        OK(em_pass_weights_to_half(g, half, true, &n_done));
        OK(em_graph_verify(g));
        assert_int_equal(n_done, 1);
        v[100] = 1.0f + 1.0f / 4096.0f;
        float ve[64 * 32];
        for (int i = 0; i < 64 * 32; i++) {
            ve[i] = (float)(i % 61 - 30) * 0.25f;
        }
        assert_held(g, "exact", half, ve, 64 * 32);
        assert_f32(g, "inexact");
        em_graph_destroy(g);
    }
}

static void test_halfw_refused_and_nothing(void **state)
{
    (void)state;
    em_graph *g = NULL;
    OK(em_graph_new(test_allocator(), &g));
    static const int64_t xd[2] = {2, 8}, bd[2] = {8, 4};
    int x;
    OK(em_graph_add_input(g, "x", EMBER_DTYPE_F32, 2, xd, NULL, &x));
    int b = tp_init_f32(g, "b", 2, bd, 1, -1, 1);
    OK(em_graph_mark_output(g, tp_op2(g, EM_OP_MATMUL, x, b, "y")));
    OK(em_graph_infer_shapes(g));
    size_t n_done = 7;
    ember_status *st = em_pass_weights_to_half(g, EMBER_DTYPE_F32, false, &n_done);
    assert_int_equal(ember_status_code(st), EMBER_ERR_INVALID_ARG);
    assert_non_null(strstr(ember_status_message(st), "not f16 or bf16"));
    ember_status_destroy(st);
    int n = g->n_nodes;
    OK(em_pass_weights_to_half(g, EMBER_DTYPE_F16, false, &n_done));
    assert_int_equal(n_done, 0);
    assert_int_equal(g->n_nodes, n);
    assert_f32(g, "b");
    em_graph_destroy(g);
}

/* Resident bytes of the mapping that starts at `base` (/proc/self/smaps), or -1 when unknown. */
static long mapped_rss(const void *base)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (f == NULL) {
        return -1;
    }
    char line[512];
    bool in = false;
    long kb = -1;
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) { /* a mapping's header line */
            in = lo == (uintptr_t)base;
        } else if (in && sscanf(line, "Rss: %ld kB", &kb) == 1) {
            break;
        }
    }
    fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

/* `bytes` of img in a temp file (removed), mapped, every page read in (as a loader would). */
static em_storage *map_touched(const unsigned char *img, size_t bytes)
{
    char path[] = "/tmp/ember_test_halfw_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, img, bytes), (ssize_t)bytes);
    close(fd);
    em_storage *s = NULL;
    OK(em_storage_new_mmap(test_allocator(), path, &s));
    unlink(path);
    const volatile unsigned char *m = em_storage_data(s);
    unsigned sum = 0;
    for (size_t i = 0; i < bytes; i++) {
        sum += m[i];
    }
    (void)sum;
    return s;
}

static void test_halfw_mapped_pages_dropped(void **state)
{
    (void)state;
    long page = sysconf(_SC_PAGESIZE);
    enum { N = 64 * 256, HEAD = 100 };               /* 64 KB of f32, starting off a page */
    size_t bytes = HEAD + sizeof(float) * N + HEAD;
    unsigned char *img = calloc(1, bytes);
    float *w = malloc(sizeof(float) * N);
    assert_non_null(img);
    assert_non_null(w);
    for (int i = 0; i < N; i++) {
        w[i] = (float)((i * 7919) % 2001 - 1000) * 0.0137f;
    }
    memcpy(img + HEAD, w, sizeof(float) * N);
    /* whether this system shows pages given back (smaps there, madvise honoured: qemu-user
     * may do neither): a second mapping, all its whole pages dropped (the last, partial one
     * stays: em_storage_drop_pages rounds inward) */
    em_storage *probe = map_touched(img, bytes);
    long probe_in = mapped_rss(em_storage_data(probe));
    em_storage_drop_pages(probe, 0, bytes);
    long probe_out = mapped_rss(em_storage_data(probe));
    em_storage_release(probe);
    if (probe_in < (long)(bytes / (size_t)page) * page || probe_out < 0 || probe_out > page) {
        print_message("skipped: resident pages not observable here (smaps Rss %ld -> %ld)\n",
                      probe_in, probe_out);
        free(img);
        free(w);
        return;
    }
    em_storage *s = map_touched(img, bytes);
    long before = mapped_rss(em_storage_data(s));
    assert_true(before >= (long)(bytes / (size_t)page) * page);
    em_graph *g = NULL;
    OK(em_graph_new(test_allocator(), &g));
    static const int64_t xd[2] = {2, 64}, bd[2] = {64, 256};
    int x, b;
    OK(em_graph_add_input(g, "x", EMBER_DTYPE_F32, 2, xd, NULL, &x));
    OK(em_graph_add_initializer(g, "b", EMBER_DTYPE_F32, 2, bd, s, HEAD, &b));
    OK(em_graph_mark_output(g, tp_op2(g, EM_OP_MATMUL, x, b, "y")));
    OK(em_graph_infer_shapes(g));
    size_t n_done = 0;
    OK(em_pass_weights_to_half(g, EMBER_DTYPE_F16, false, &n_done));
    assert_int_equal(n_done, 1);
    assert_held(g, "b", EMBER_DTYPE_F16, w, N);
    /* the first and last pages also hold the file's other bytes: they stay */
    long after = mapped_rss(em_storage_data(s));
    assert_true(after >= 0);
    assert_true(after <= 2 * page);
    em_graph_destroy(g);
    em_storage_release(s);
    free(img);
    free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_halfw_f16),
        cmocka_unit_test(test_halfw_bf16),
        cmocka_unit_test(test_halfw_exact_only),
        cmocka_unit_test(test_halfw_refused_and_nothing),
        cmocka_unit_test(test_halfw_mapped_pages_dropped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
