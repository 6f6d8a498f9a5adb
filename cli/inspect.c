/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `ember inspect`: the model's format, inputs and outputs (symbolic dims by name), op counts,
 * parameter count, the model's metadata (for a TorchScript archive its module tree), and the
 * memory plan for the given (or default) input shapes: planned arena bytes next to the naive
 * sum of all intermediates, what the session then holds (plans, their arenas, packed weights,
 * run contexts), then each value's offset and lifetime.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static void inspect_usage(FILE *f)
{
    fprintf(f, "usage: ember inspect [MODEL] [options]\n"
               "\n"
               "Prints MODEL's inputs, outputs, op counts, parameter count, metadata (for a\n"
               "TorchScript archive: its module tree) and memory plan (the built-in default\n"
               "model when MODEL is omitted).\n"
               "\n"
               "options:\n"
               "  --input FILE       an input (.npy or .pb), in order (repeat): a TorchScript\n"
               "                     model is lowered for the inputs' ranks and dtypes, and\n"
               "                     every model for their shapes (see --dynamic-shapes)\n"
               "  --shape NAME=DIMS  fix an input's shape (NAME=1x3x224x224) or a symbolic dim\n"
               "                     (N=8) at load; used for the memory plan\n"
               "  --dynamic-shapes   keep the model's symbolic dims at load (the plan still\n"
               "                     uses --input / --shape)\n"
               "  --graph            also print the graph in ember's text form\n"
               "  --no-plan          skip the memory plan\n"
               "  --optimize LEVEL   graph passes at load: none, fold, basic or all (default)\n"
               "  --precision P      fp32 (default), fp16 or bf16: the precision the packed\n"
               "                     weights are held in (as ember run --precision)\n"
               "  --int8 MODE        a QDQ model's quantized chains: on, off or auto (default:\n"
               "                     ember's choice, today off); with on, prints which nodes run\n"
               "                     in int8 and why each other chain stays fp32\n"
               "  --no-verify-checksums  do not check the CRC-32 of a TorchScript archive's\n"
               "                     weights (a file you trust; other records are checked)\n"
               "  --model-name NAME  which model of a .pt2 archive holding several (default:\n"
               "                     model; the metadata's pt2.models lists them)\n"
               "  --help             this help\n");
}

typedef struct op_count {
    const char *op;
    int n;
} op_count;

static void print_ops(const ember_model *m)
{
    op_count c[256];
    int n = 0;
    size_t nodes = ember_model_node_count(m);
    for (size_t i = 0; i < nodes; i++) {
        const char *op = ember_model_node_op(m, i);
        int k = 0;
        while (k < n && strcmp(c[k].op, op) != 0) {
            k++;
        }
        if (k == n && n < 256) {
            c[n].op = op;
            c[n++].n = 0;
        }
        if (k < n) {
            c[k].n++;
        }
    }
    printf("nodes: %zu\nops:", nodes);
    for (int k = 0; k < n; k++) {
        printf(" %s=%d", c[k].op, c[k].n);
    }
    printf("\n");
}

/* Metadata, one `key: value` line each; a multi-line value (the module tree) goes below its
 * key, indented. */
static void print_metadata(const ember_model *m)
{
    const char *key = NULL, *val = NULL;
    for (size_t i = 0; ember_model_metadata(m, i, &key, &val); i++) {
        if (strchr(val, '\n') == NULL) {
            printf("%s: %s\n", key, val);
            continue;
        }
        printf("%s:\n", key);
        for (const char *p = val; *p != '\0';) {
            const char *nl = strchr(p, '\n');
            int len = nl != NULL ? (int)(nl - p) : (int)strlen(p);
            printf("  %.*s\n", len, p);
            p += len + (nl != NULL);
        }
    }
}

/* Weight bytes per dtype, the dtypes the model holds any of. */
static void print_weight_bytes(const ember_model *m)
{
    static const ember_dtype dts[] = {EMBER_DTYPE_F32, EMBER_DTYPE_F16, EMBER_DTYPE_BF16,
                                      EMBER_DTYPE_F64, EMBER_DTYPE_I8,  EMBER_DTYPE_U8,
                                      EMBER_DTYPE_I32, EMBER_DTYPE_I64};
    static const char *const names[] = {"f32", "f16", "bf16", "f64", "i8", "u8", "i32", "i64"};
    printf("weight bytes:");
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
        size_t b = ember_model_weight_bytes(m, dts[i]);
        if (b > 0) {
            printf(" %s=%zu", names[i], b);
        }
    }
    printf("\n");
}

/* What the int8 rewrite did: the nodes now integer ops, and each chain left fp32 with why. */
static void print_int8(const ember_model *m)
{
    size_t n = ember_model_int8_note_count(m), n_int8 = 0;
    const char *node, *op, *why;
    for (size_t i = 0; ember_model_int8_note(m, i, &node, &op, &why); i++) {
        n_int8 += op != NULL;
    }
    if (n == 0) {
        return;
    }
    printf("int8: %zu of %zu quantized chains run as integer ops\n", n_int8, n);
    for (size_t i = 0; ember_model_int8_note(m, i, &node, &op, &why); i++) {
        if (op != NULL) {
            printf("  int8 %s: %s\n", node, op);
        } else {
            printf("  fp32 %s: %s\n", node, why);
        }
    }
}

/* Input i's shape for the plan: the --input file's when given, else --shape / declared. */
static int plan_shape(const ember_model *m, size_t i, const char *const *inputs, int n_inputs,
                      const cli_shape_opt *shapes, int n_shapes, int64_t *dims)
{
    ember_tensor *t = NULL;
    ember_status *st = (int)i < n_inputs ? ember_tensor_load(inputs[i], &t) : NULL;
    ember_status_destroy(st); /* a file that is not a plain tensor: the loader reported it */
    if (t != NULL) {
        int rank = (int)ember_tensor_rank(t);
        memcpy(dims, ember_tensor_dims(t), sizeof(int64_t) * (size_t)rank);
        ember_tensor_destroy(t);
        return rank;
    }
    return cli_input_shape(m, i, shapes, n_shapes, dims);
}

static int print_plan(const ember_model *m, const char *const *inputs, int n_inputs,
                      const cli_shape_opt *shapes, int n_shapes)
{
    ember_session *s = NULL;
    char *text = NULL;
    size_t n = ember_model_input_count(m);
    int64_t dims[CLI_MAX_INPUTS][EMBER_MAX_RANK];
    const int64_t *sp[CLI_MAX_INPUTS];
    int ranks[CLI_MAX_INPUTS];
    size_t arena = 0, naive = 0;
    if (n > CLI_MAX_INPUTS) {
        return cli_error("more than %d inputs", CLI_MAX_INPUTS);
    }
    for (size_t i = 0; i < n; i++) {
        ranks[i] = plan_shape(m, i, inputs, n_inputs, shapes, n_shapes, dims[i]);
        if (ranks[i] < 0) {
            return 1;
        }
        sp[i] = dims[i];
    }
    ember_status *st = ember_session_create(m, NULL, &s);
    if (st == NULL) {
        st = ember_session_prepare(s, sp, ranks, n);
    }
    if (ember_status_code(st) == EMBER_ERR_STATE) {
        /* Interpreted models, and inputs whose values decide shapes: planned while running. */
        printf("plan: none before a run (%s)\n", ember_status_message(st));
        ember_status_destroy(st);
        ember_session_destroy(s);
        return 0;
    }
    if (st == NULL) {
        st = ember_session_memory_info(s, &arena, &naive);
    }
    static const ember_memory_stat stat_ids[] = {
        EMBER_MEMORY_PLANS, EMBER_MEMORY_PLAN_ARENA_BYTES, EMBER_MEMORY_PACKED_WEIGHT_BYTES,
        EMBER_MEMORY_RUN_CONTEXTS, EMBER_MEMORY_RUN_CONTEXT_BYTES};
    size_t stats[sizeof stat_ids / sizeof stat_ids[0]] = {0};
    for (size_t i = 0; st == NULL && i < sizeof stat_ids / sizeof stat_ids[0]; i++) {
        st = ember_session_memory_stat(s, stat_ids[i], &stats[i]);
    }
    if (st == NULL) {
        st = ember_session_plan_text(s, &text);
    }
    if (st != NULL) {
        ember_session_destroy(s);
        return cli_fail(st);
    }
    printf("plan for:");
    for (size_t i = 0; i < n; i++) {
        char buf[256];
        cli_format_shape(ember_model_input_dtype(m, i), dims[i], ranks[i], buf, sizeof buf);
        printf(" %s=%s", ember_model_input_name(m, i), buf);
    }
    printf("\narena_bytes=%zu naive_bytes=%zu\n", arena, naive);
    printf("held: plans=%zu plan_arena_bytes=%zu packed_weight_bytes=%zu run_contexts=%zu "
           "run_context_bytes=%zu\n%s",
           stats[0], stats[1], stats[2], stats[3], stats[4], text);
    ember_string_free(text);
    ember_session_destroy(s);
    return 0;
}

int cli_inspect(int argc, char **argv)
{
    const char *model = NULL, *model_name = NULL;
    bool graph = false, plan = true, verify = true, dynamic = false;
    cli_shape_opt shapes[CLI_MAX_SHAPES];
    int n_shapes = 0;
    const char *inputs[CLI_MAX_INPUTS] = {0};
    int n_inputs = 0;
    ember_graph_opt optimize = EMBER_GRAPH_OPT_ALL;
    ember_int8_mode int8 = EMBER_INT8_AUTO;
    ember_precision precision = EMBER_PRECISION_FP32;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            inspect_usage(stdout);
            return 0;
        } else if (strcmp(a, "--graph") == 0) {
            graph = true;
        } else if (strcmp(a, "--input") == 0) {
            if (i + 1 >= argc || n_inputs >= CLI_MAX_INPUTS) {
                return cli_error("--input needs a file (at most %d)", CLI_MAX_INPUTS), 2;
            }
            inputs[n_inputs++] = argv[++i];
        } else if (strcmp(a, "--optimize") == 0) {
            if (i + 1 >= argc || !cli_parse_optimize(argv[i + 1], &optimize)) {
                return cli_error("--optimize needs none, fold, basic or all"), 2;
            }
            i++;
        } else if (strcmp(a, "--precision") == 0) {
            const char *v = i + 1 < argc ? argv[++i] : "";
            if (strcmp(v, "fp32") == 0 || strcmp(v, "fp16") == 0 || strcmp(v, "bf16") == 0) {
                precision = v[0] == 'b'   ? EMBER_PRECISION_BF16
                            : v[2] == '1' ? EMBER_PRECISION_FP16
                                          : EMBER_PRECISION_FP32;
            } else {
                return cli_error("--precision needs fp32, fp16 or bf16"), 2;
            }
        } else if (strcmp(a, "--int8") == 0) {
            if (i + 1 >= argc || !cli_parse_int8(argv[i + 1], &int8)) {
                return cli_error("--int8 needs auto, on or off"), 2;
            }
            i++;
        } else if (strcmp(a, "--dynamic-shapes") == 0) {
            dynamic = true;
        } else if (strcmp(a, "--no-plan") == 0) {
            plan = false;
        } else if (strcmp(a, "--no-verify-checksums") == 0) {
            verify = false;
        } else if (strcmp(a, "--model-name") == 0) {
            if (i + 1 >= argc) {
                return cli_error("--model-name needs a name"), 2;
            }
            model_name = argv[++i];
        } else if (strcmp(a, "--shape") == 0) {
            if (i + 1 >= argc || n_shapes >= CLI_MAX_SHAPES ||
                !cli_parse_shape(argv[i + 1], &shapes[n_shapes])) {
                return cli_error("--shape needs NAME=D1xD2x..."), 2;
            }
            n_shapes++;
            i++;
        } else if (a[0] == '-') {
            return cli_error("inspect: unknown option '%s' (see ember inspect --help)", a), 2;
        } else if (model != NULL) {
            return cli_error("inspect: more than one model given"), 2;
        } else {
            model = a;
        }
    }
    ember_model *m = NULL;
    cli_load ld = {model,    inputs, n_inputs, shapes, n_shapes,
                   optimize, verify, dynamic,  int8,   precision, model_name};
    ember_status *st = cli_load_model(&ld, &m);
    if (st != NULL) {
        return cli_fail(st);
    }
    char buf[256];
    printf("model: %s\nformat: %s\n", model ? model : "builtin:default", ember_model_format(m));
    if (ember_model_opset_count(m) > 0) {
        printf("opsets:");
        for (size_t i = 0; i < ember_model_opset_count(m); i++) {
            const char *domain = "";
            int64_t version = 0;
            if (ember_model_opset(m, i, &domain, &version)) {
                printf(" %s=%lld", domain[0] ? domain : "ai.onnx", (long long)version);
            }
        }
        printf("\n");
    }
    for (size_t i = 0; i < ember_model_input_count(m); i++) {
        cli_format_declared(m, i, true, buf, sizeof buf);
        printf("input %zu: %s %s\n", i, ember_model_input_name(m, i), buf);
    }
    for (size_t i = 0; i < ember_model_output_count(m); i++) {
        cli_format_declared(m, i, false, buf, sizeof buf);
        printf("output %zu: %s %s\n", i, ember_model_output_name(m, i), buf);
    }
    print_ops(m);
    printf("parameters: %lld\n", (long long)ember_model_param_count(m));
    print_weight_bytes(m);
    print_metadata(m);
    print_int8(m);
    int rc = 0;
    if (graph) {
        char *text = NULL;
        st = ember_model_graph_text(m, &text);
        if (st != NULL) {
            rc = cli_fail(st);
        } else {
            printf("%s", text);
            ember_string_free(text);
        }
    }
    if (rc == 0 && plan) {
        rc = print_plan(m, inputs, n_inputs, shapes, n_shapes);
    }
    ember_model_destroy(m);
    return rc;
}
