/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the whole-model fuzz targets (tests/fuzz/fuzz_onnx_model.c, fuzz_ts_model.c) found,
 * kept as regression cases: each file of tests/data/fuzz_regress goes through load, session
 * and one run on zero inputs of its declared shapes (a free dim is 1), as the fuzz harness
 * does, and must stop with the code and one-line message listed, naming the node (or, for
 * EMBER_OK, run). Before the fixes each crashed or leaked under ASan/UBSan (the ASan stage of
 * tools/test.sh runs this test with leak detection). The same files are also in the fuzz
 * corpora.
 */
#include "ember.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_ok.h"

typedef struct regress {
    const char *file;   /* under tests/data/fuzz_regress */
    const char *loader; /* the loader the file needs */
    const char *stage;  /* where it must stop: "load" or "run" */
    ember_code code;
    const char *needle;
} regress;

/* clang-format off */
static const regress cases[] = {
    /* shape inference multiplied a declared input's dims past INT64_MAX (UBSan), in Reshape
     * and in Unique; every node's input and output shapes are now checked */
    {"onnx_reshape_overflow.onnx", "onnx", "load", EMBER_ERR_INVALID_MODEL,
     "node '#1' (Reshape): input 0 has more than INT64_MAX elements"},
    {"onnx_unique_dims_overflow.onnx", "onnx", "load", EMBER_ERR_INVALID_MODEL,
     "node '#0' (Unique): input 0 has more than INT64_MAX elements"},
    /* Scan (opset 8) sliced every input by the first input's batch: a heap over-read (ASan) */
    {"onnx_scan8_batch.onnx", "onnx", "run", EMBER_ERR_INVALID_ARG,
     "node '#0' (Scan): input 2 has no batch axis of 3"},
    /* Scan (opset 9+) with an absent ("") input read the value before the first (ASan) */
    {"onnx_scan_missing_input.onnx", "onnx", "run", EMBER_ERR_INVALID_MODEL,
     "node '#0' (Scan): input 0 is missing"},
    /* Scan with num_scan_inputs above its input count: a negative state count (ASan) */
    {"onnx_scan_too_many_scan_inputs.onnx", "onnx", "run", EMBER_ERR_INVALID_MODEL,
     "node '#0' (Scan): num_scan_inputs 3 is more than its inputs"},
    /* Scan (opset 8) whose first scan input is absent: read before the value table (ASan) */
    {"onnx_scan8_absent_input.onnx", "onnx", "run", EMBER_ERR_INVALID_ARG,
     "node '#0' (Scan): inputs need a batch axis"},
    /* an empty input (a dim of 0) whose other dims multiply past INT64_MAX: a kernel's
     * strides overflowed (UBSan); now refused where its shape is first used */
    {"onnx_empty_dims_overflow.onnx", "onnx", "load", EMBER_ERR_INVALID_MODEL,
     "node '#1' (ReduceMax): input 0 has more than INT64_MAX elements"},
    /* Resize's roi of the wrong dtype: the dtype check's own status leaked (LeakSanitizer) */
    {"onnx_resize_roi_bool.onnx", "onnx", "run", EMBER_ERR_INVALID_MODEL,
     "node '#0' (Resize): tf_crop_and_resize needs a float roi of 8 values"},
    /* a float16 Conv on an empty weight: the widening wrapper offset a NULL scratch (UBSan);
     * it runs, giving an empty output */
    {"onnx_conv_f16_empty.onnx", "onnx", "run", EMBER_OK, ""},
};
/* clang-format on */

static bool built(const char *loader)
{
    const char *l = strstr(ember_build_info(), " loaders=");
    const char *end = l != NULL ? strchr(l + 1, ' ') : NULL, *hit = l ? strstr(l, loader) : NULL;
    return hit != NULL && (end == NULL || hit < end);
}

static ember_status *load(const regress *c, ember_model **m)
{
    const char *root = getenv("EMBER_TEST_DATA");
    char path[4096];
    snprintf(path, sizeof path, "%s/fuzz_regress/%s", root ? root : "tests/data", c->file);
    return ember_model_load_file(path, NULL, m);
}

/* One run on zero inputs of the declared shapes (free dims 1). */
static ember_status *run(const ember_model *m)
{
    ember_session *s = NULL;
    ember_status *st = ember_session_create(m, NULL, &s);
    size_t n_in = ember_model_input_count(m), n_out = ember_model_output_count(m);
    ember_tensor *in[8] = {NULL}, *out[8] = {NULL};
    assert_true(n_in <= 8 && n_out <= 8);
    for (size_t i = 0; i < n_in && st == NULL; i++) {
        int64_t dims[EMBER_MAX_RANK];
        int rank = ember_model_input_shape(m, i, dims, EMBER_MAX_RANK);
        for (int d = 0; d < rank; d++) {
            dims[d] = dims[d] < 0 ? 1 : dims[d];
        }
        st = ember_tensor_create(ember_model_input_dtype(m, i), dims, rank < 0 ? 0 : rank, &in[i]);
    }
    if (st == NULL) {
        st = ember_session_run(s, in, n_in, out, n_out);
    }
    for (size_t i = 0; i < 8; i++) {
        ember_tensor_destroy(in[i]);
        ember_tensor_destroy(out[i]);
    }
    ember_session_destroy(s);
    return st;
}

static void test_regressions(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const regress *c = &cases[i];
        if (!built(c->loader)) {
            continue;
        }
        ember_model *m = NULL;
        ember_status *st = load(c, &m);
        bool at_load = strcmp(c->stage, "load") == 0;
        if (!at_load) {
            OK(st);
            st = run(m);
        }
        const char *msg = ember_status_message(st);
        if (ember_status_code(st) != c->code || strstr(msg, c->needle) == NULL ||
            strchr(msg, '\n') != NULL) {
            fail_msg("%s: got %s '%s', expected %s with '%s' at %s", c->file,
                     ember_code_name(ember_status_code(st)), msg, ember_code_name(c->code),
                     c->needle, c->stage);
        }
        ember_status_destroy(st);
        ember_model_destroy(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regressions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
