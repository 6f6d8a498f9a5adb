/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `ember convert MODEL --output OUT.onnx`: a TorchScript archive (or an ONNX model) written as
 * an ONNX model, without Python. The model is loaded as `ember run` loads it (--input / --shape
 * fix the input shapes, so that TorchScript's shape arithmetic folds away) at graph
 * optimization `fold` by default: constant folding and dead code only, so every node stays a
 * standard ONNX op (ember_model_save_onnx refuses ember's internal fused ops).
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static void convert_usage(FILE *f)
{
    fprintf(f, "usage: ember convert MODEL --output OUT.onnx [options]\n"
               "\n"
               "Writes MODEL (a TorchScript archive or an ONNX model) as an ONNX model that\n"
               "ember and ONNX Runtime run. Weights over 1.8 GB go to OUT.onnx.data.\n"
               "\n"
               "options:\n"
               "  --output FILE      the ONNX file to write (written whole or not at all)\n"
               "  --input FILE       an example input (.npy or .pb), in order (repeat): gives a\n"
               "                     TorchScript model its input dtypes, ranks and shapes\n"
               "  --shape NAME=DIMS  fix an input's shape (NAME=1x3x224x224) or a symbolic dim\n"
               "                     (N=8) before folding\n"
               "  --dynamic-shapes   keep the model's symbolic dims (with --input: dtypes and\n"
               "                     ranks only)\n"
               "  --optimize LEVEL   none (the graph as loaded) or fold (default: constant\n"
               "                     folding and dead code)\n"
               "  --no-verify-checksums  do not check the CRC-32 of a TorchScript archive's\n"
               "                     weights\n"
               "  --help             this help\n");
}

int cli_convert(int argc, char **argv)
{
    const char *model = NULL, *output = NULL;
    bool verify = true, dynamic = false;
    cli_shape_opt shapes[CLI_MAX_SHAPES];
    int n_shapes = 0;
    const char *inputs[CLI_MAX_INPUTS] = {0};
    int n_inputs = 0;
    ember_graph_opt optimize = EMBER_GRAPH_OPT_FOLD;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            convert_usage(stdout);
            return 0;
        } else if (strcmp(a, "--output") == 0 || strcmp(a, "-o") == 0) {
            if (v == NULL) {
                return cli_error("%s needs a file", a), 2;
            }
            output = v;
            i++;
        } else if (strcmp(a, "--input") == 0) {
            if (v == NULL || n_inputs >= CLI_MAX_INPUTS) {
                return cli_error("--input needs a file (at most %d)", CLI_MAX_INPUTS), 2;
            }
            inputs[n_inputs++] = v;
            i++;
        } else if (strcmp(a, "--shape") == 0) {
            if (v == NULL || n_shapes >= CLI_MAX_SHAPES || !cli_parse_shape(v, &shapes[n_shapes])) {
                return cli_error("--shape needs NAME=D1xD2x..."), 2;
            }
            n_shapes++;
            i++;
        } else if (strcmp(a, "--optimize") == 0) {
            if (v == NULL || !cli_parse_optimize(v, &optimize) ||
                (optimize != EMBER_GRAPH_OPT_NONE && optimize != EMBER_GRAPH_OPT_FOLD)) {
                return cli_error("--optimize: convert takes none or fold (basic and all make "
                                 "ops that only ember runs)"), 2;
            }
            i++;
        } else if (strcmp(a, "--dynamic-shapes") == 0) {
            dynamic = true;
        } else if (strcmp(a, "--no-verify-checksums") == 0) {
            verify = false;
        } else if (a[0] == '-') {
            return cli_error("convert: unknown option '%s' (see ember convert --help)", a), 2;
        } else if (model != NULL) {
            return cli_error("convert: more than one model given ('%s' and '%s')", model, a), 2;
        } else {
            model = a;
        }
    }
    if (model == NULL || output == NULL) {
        convert_usage(stderr);
        return cli_error("convert needs a MODEL and --output FILE"), 2;
    }
    ember_model *m = NULL;
    cli_load ld = {model, inputs, n_inputs, shapes, n_shapes, optimize, verify, dynamic,
                   EMBER_INT8_OFF, EMBER_PRECISION_FP32, NULL};
    ember_status *st = cli_load_model(&ld, &m);
    if (st == NULL) {
        st = ember_model_save_onnx(m, output);
    }
    if (st == NULL) {
        printf("wrote %s: %zu nodes, %lld parameters\n", output, ember_model_node_count(m),
               (long long)ember_model_param_count(m));
    }
    ember_model_destroy(m);
    return st != NULL ? cli_fail(st) : 0;
}
