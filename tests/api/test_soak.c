/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Soak (issue #17, item 7; ctest label `soak`): thousands of load -> session -> run ->
 * destroy cycles, through ember.h only, of the built-in model (4000), a small TorchScript
 * fixture (tests/data/torchscript/models/tiny_resnet.trace.t113.pt, 1500) and a small ONNX one
 * (tests/data/onnx/cnn_v13.onnx, 2000), each session on two compute threads. After WARMUP
 * cycles of a model, RSS may grow by at most GROWTH_LIMIT over the remaining cycles: growth of
 * more than 300-800 bytes a cycle on average (a leaked block, a heap that fragments, a
 * process-wide cache that grows) exceeds it (a planted 1 KiB leak per cycle failed all three),
 * while allocator noise stays below (measured here: 0-0.2 MiB). Smaller leaks are
 * AddressSanitizer's to find. Each run's output is checked against the first cycle's, bit
 * for bit.
 * Under AddressSanitizer or ThreadSanitizer RSS means nothing (quarantine, shadow memory):
 * the cycles run (a tenth of them) for the sanitizers' own checks, without the RSS bound.
 * Time: ~20 s in a release build on this 2-core VM (7 s of CPU).
 */
#define _POSIX_C_SOURCE 200809L
#include "ember.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_ok.h"
#include "common/test_rss.h"

#define WARMUP 100
#define GROWTH_LIMIT (TEST_MIB) /* after warm-up, over all the remaining cycles */

#if TEST_RSS_SANITIZED
#define SCALE 10
#else
#define SCALE 1
#endif

typedef struct soak_model {
    const char *what;
    const char *path; /* under EMBER_TEST_DATA; NULL: the built-in model */
    int rank_option;  /* TorchScript: the input's rank to declare; 0: none */
    int64_t dims[4];  /* the input */
    int cycles;
} soak_model;

static const char *data_path(const char *rel, char *buf, size_t cap)
{
    const char *root = getenv("EMBER_TEST_DATA");
    snprintf(buf, cap, "%s/%s", root ? root : "tests/data", rel);
    return buf;
}

/* Loads the model; NULL status and NULL *m when this build cannot read its format. */
static ember_status *load(const soak_model *sm, ember_model **m)
{
    if (sm->path == NULL) {
        return ember_model_load_builtin(NULL, NULL, m);
    }
    char path[4096];
    ember_model_options *mo = NULL;
    ember_status *st = ember_model_options_create(&mo);
    if (st == NULL && sm->rank_option > 0) {
        st = ember_model_options_set_input_rank(mo, 0, EMBER_DTYPE_F32, sm->rank_option);
    }
    if (st == NULL) {
        st = ember_model_load_file(data_path(sm->path, path, sizeof path), mo, m);
    }
    ember_model_options_destroy(mo);
    if (st != NULL && ember_status_code(st) == EMBER_ERR_UNSUPPORTED &&
        strstr(ember_status_message(st), "this build has no") != NULL) {
        ember_status_destroy(st);
        *m = NULL;
        return NULL;
    }
    return st;
}

/* One cycle; the output's bytes into out (nbytes of them). False when the format is not
 * built in. */
static bool cycle(const soak_model *sm, const ember_session_options *so, void *out, size_t *nbytes)
{
    ember_model *m = NULL;
    ember_session *s = NULL;
    ember_tensor *x = NULL, *y = NULL;
    OK(load(sm, &m));
    if (m == NULL) {
        return false;
    }
    OK(ember_session_create(m, so, &s));
    OK(ember_tensor_create(EMBER_DTYPE_F32, sm->dims, 4, &x));
    float *d = ember_tensor_data(x);
    for (int64_t i = 0; i < ember_tensor_elem_count(x); i++) {
        d[i] = (float)((i * 37) % 101) / 101.0f - 0.5f;
    }
    OK(ember_session_run(s, &x, 1, &y, 1));
    *nbytes = ember_tensor_nbytes(y);
    assert_true(*nbytes <= 4096);
    memcpy(out, ember_tensor_data(y), *nbytes);
    ember_tensor_destroy(x);
    ember_tensor_destroy(y);
    ember_session_destroy(s);
    ember_model_destroy(m);
    return true;
}

static void soak(const soak_model *sm)
{
    ember_session_options *so = NULL;
    OK(ember_session_options_create(&so));
    ember_session_options_set_threads(so, 2);
    unsigned char first[4096], out[4096];
    size_t n_first = 0, n = 0;
    if (!cycle(sm, so, first, &n_first)) {
        ember_session_options_destroy(so);
        skip();
    }
    int cycles = sm->cycles / SCALE;
    size_t rss_warm = 0, rss_max = 0;
    for (int i = 1; i < cycles; i++) {
        assert_true(cycle(sm, so, out, &n));
        assert_int_equal(n, n_first);
        assert_memory_equal(out, first, n);
        if (i == WARMUP / SCALE) {
            rss_warm = test_rss_bytes();
        } else if (i > WARMUP / SCALE) {
            size_t r = test_rss_bytes();
            rss_max = r > rss_max ? r : rss_max;
        }
    }
    ember_session_options_destroy(so);
    print_message("%s: %d cycles, RSS after warm-up %.1f MiB, most after it %+.2f MiB\n", sm->what,
                  cycles, (double)rss_warm / TEST_MIB, test_mib_diff(rss_max, rss_warm));
    if (!TEST_RSS_SANITIZED && rss_warm > 0) {
        assert_true(rss_max <= rss_warm + GROWTH_LIMIT);
    }
}

static void test_soak_builtin(void **state)
{
    (void)state;
    const soak_model sm = {"built-in", NULL, 0, {1, 1, 28, 28}, 4000};
    soak(&sm);
}

static void test_soak_torchscript(void **state)
{
    (void)state;
    const soak_model sm = {"torchscript tiny_resnet",
                           "torchscript/models/tiny_resnet.trace.t113.pt",
                           4,
                           {1, 3, 12, 12},
                           1500};
    soak(&sm);
}

static void test_soak_onnx(void **state)
{
    (void)state;
    const soak_model sm = {"onnx cnn_v13", "onnx/cnn_v13.onnx", 0, {2, 3, 8, 8}, 2000};
    soak(&sm);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_soak_builtin),
        cmocka_unit_test(test_soak_torchscript),
        cmocka_unit_test(test_soak_onnx),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
