/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for loaders/onnx through ember.h. Any input must come back as a status or
 * a model (then freed), without out-of-bounds access, leak, undefined behaviour or deep
 * recursion; a model that loads must also print as text. The same bytes also go through the
 * TensorProto reader.
 */
#include <stdint.h>
#include <stdlib.h>

#include "ember.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
    if (!ok) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ember_model *m = NULL;
    ember_status *st = ember_model_load_memory(data, size, EMBER_LOAD_BORROW, NULL, &m);
    check(ember_status_message(st) != NULL);
    if (st == NULL) {
        char *text = NULL;
        check(m != NULL);
        st = ember_model_graph_text(m, &text);
        check(st == NULL && text != NULL);
        ember_string_free(text);
        ember_model_destroy(m);
    } else {
        check(m == NULL);
        ember_status_destroy(st);
    }

    ember_tensor *t = NULL;
    st = ember_tensor_load_pb_memory(data, size, "fuzz", &t);
    check((st == NULL) == (t != NULL));
    ember_status_destroy(st);
    ember_tensor_destroy(t);
    return 0;
}
