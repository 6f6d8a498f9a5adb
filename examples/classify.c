/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The C API in brief: load a model (the built-in default CNN, or a file given as argv[1]),
 * run it on a zero-filled batch wrapped without copying, and print the top class per sample.
 * Build against an installed ember:  cc classify.c $(pkg-config --cflags --libs ember)
 */
#include <ember.h>

#include <stdio.h>
#include <stdlib.h>

static int check(ember_status *st)
{
    if (st == NULL) {
        return 0;
    }
    fprintf(stderr, "error: %s\n", ember_status_message(st));
    ember_status_destroy(st);
    return 1;
}

int main(int argc, char **argv)
{
    ember_model *model = NULL;
    ember_session *session = NULL;
    ember_tensor *input = NULL, *output = NULL;
    static float pixels[2 * 1 * 28 * 28]; /* caller memory, wrapped without a copy */
    int64_t dims[4] = {2, 1, 28, 28};
    int rc = 1;

    printf("ember %s\n", ember_version_string());
    if (check(argc > 1 ? ember_model_load_file(argv[1], NULL, &model)
                       : ember_model_load_builtin(NULL, NULL, &model)) ||
        check(ember_session_create(model, NULL, &session)) ||
        check(ember_tensor_wrap(EMBER_DTYPE_F32, dims, 4, pixels, sizeof pixels, &input)) ||
        check(ember_session_run(session, &input, 1, &output, 1))) { /* NULL slot: created */
        goto done;
    }
    const float *probs = ember_tensor_data(output);
    int64_t classes = ember_tensor_dims(output)[1];
    for (int64_t n = 0; n < ember_tensor_dims(output)[0]; n++) {
        int64_t best = 0;
        for (int64_t c = 1; c < classes; c++) {
            if (probs[n * classes + c] > probs[n * classes + best]) {
                best = c;
            }
        }
        printf("sample %lld: class %lld (p=%.4f)\n", (long long)n, (long long)best,
               probs[n * classes + best]);
    }
    rc = 0;
done:
    ember_tensor_destroy(output);
    ember_tensor_destroy(input);
    ember_session_destroy(session);
    ember_model_destroy(model);
    return rc;
}
