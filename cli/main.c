/* SPDX-License-Identifier: Apache-2.0 */
/* The ember program: `ember run`, `ember inspect`, `ember convert`, `ember quantize`, `--version`,
 * `--help`. */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ember <command> [options]\n"
            "\n"
            "commands:\n"
            "  run [MODEL]       run a model (the built-in default model when none is given)\n"
            "                    and print its timing as key=value tokens\n"
            "  inspect [MODEL]   print inputs, outputs, op counts, parameters, memory plan\n"
            "  convert MODEL --output OUT.onnx\n"
            "                    write a TorchScript (or ONNX) model as an ONNX model\n"
            "  quantize MODEL --calibrate FILE... --output OUT.onnx\n"
            "                    write an fp32 model as an int8 QDQ ONNX model\n"
            "  grad MODEL --input X... --target T --loss LOSS\n"
            "                    print the loss and write every parameter's gradient\n"
            "  finetune MODEL --input X... --target T --loss LOSS --optim OPT --lr F --save OUT\n"
            "                    train the model's parameters and write the trained model\n"
            "\n"
            "options:\n"
            "  --version         print the version and what this build contains\n"
            "  --help            print this help; `ember <command> --help` for a command\n"
            "\n"
            "MODEL is an ONNX model or a TorchScript archive, told apart by content.\n");
}

int cli_fail(ember_status *st)
{
    fprintf(stderr, "ember: error: %s\n", ember_status_message(st));
    ember_status_destroy(st);
    return 1;
}

int cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("ember: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

bool cli_parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    if (s == NULL || *s == '\0') {
        return false;
    }
    long v = strtol(s, &end, 10);
    if (*end != '\0' || v < lo || v > hi) {
        return false;
    }
    *out = (int)v;
    return true;
}

bool cli_parse_shape(const char *arg, cli_shape_opt *opt)
{
    const char *eq = strchr(arg, '=');
    if (eq == NULL || eq == arg) {
        return false;
    }
    opt->name = arg;
    opt->rank = 0;
    const char *p = eq + 1;
    while (*p) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || v < 0 || opt->rank >= EMBER_MAX_RANK) {
            return false;
        }
        opt->dims[opt->rank++] = v;
        p = end;
        if (*p == 'x' || *p == ',') {
            p++;
            if (*p == '\0') {
                return false;
            }
        } else if (*p != '\0') {
            return false;
        }
    }
    return opt->rank > 0;
}

static bool name_is(const cli_shape_opt *o, const char *name)
{
    size_t n = (size_t)(strchr(o->name, '=') - o->name);
    return strlen(name) == n && strncmp(o->name, name, n) == 0;
}

int cli_input_shape(const ember_model *m, size_t i, const cli_shape_opt *opts, int n_opts,
                    int64_t *dims)
{
    const char *name = ember_model_input_name(m, i);
    for (int k = 0; k < n_opts; k++) {
        if (name_is(&opts[k], name)) {
            memcpy(dims, opts[k].dims, sizeof(int64_t) * (size_t)opts[k].rank);
            return opts[k].rank;
        }
    }
    int rank = ember_model_input_shape(m, i, dims, EMBER_MAX_RANK);
    if (rank < 0) {
        cli_error("input '%s' has no declared shape: give one with --shape %s=D1xD2...", name,
                  name);
        return -1;
    }
    for (int d = 0; d < rank; d++) {
        if (dims[d] >= 0) {
            continue;
        }
        const char *sym = ember_model_input_dim_name(m, i, d);
        dims[d] = 1;
        for (int k = 0; sym != NULL && k < n_opts; k++) {
            if (name_is(&opts[k], sym) && opts[k].rank == 1) {
                dims[d] = opts[k].dims[0];
            }
        }
    }
    return rank;
}

void cli_format_shape(ember_dtype dt, const int64_t *dims, int rank, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "%s[", ember_dtype_name(dt));
    for (int d = 0; d < rank && n < cap; d++) {
        n += (size_t)snprintf(buf + n, cap - n, d ? ",%lld" : "%lld", (long long)dims[d]);
    }
    if (n < cap) {
        snprintf(buf + n, cap - n, "]");
    }
}

void cli_format_declared(const ember_model *m, size_t i, bool input, char *buf, size_t cap)
{
    int64_t dims[EMBER_MAX_RANK];
    int rank = input ? ember_model_input_shape(m, i, dims, EMBER_MAX_RANK)
                     : ember_model_output_shape(m, i, dims, EMBER_MAX_RANK);
    ember_dtype dt = input ? ember_model_input_dtype(m, i) : ember_model_output_dtype(m, i);
    if (rank < 0) {
        snprintf(buf, cap, "%s[?]", ember_dtype_name(dt));
        return;
    }
    size_t n = (size_t)snprintf(buf, cap, "%s[", ember_dtype_name(dt));
    for (int d = 0; d < rank && n < cap; d++) {
        const char *sym = input ? ember_model_input_dim_name(m, i, d)
                                : ember_model_output_dim_name(m, i, d);
        const char *sep = d ? "," : "";
        if (dims[d] >= 0) {
            n += (size_t)snprintf(buf + n, cap - n, "%s%lld", sep, (long long)dims[d]);
        } else {
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", sep, sym ? sym : "?");
        }
    }
    if (n < cap) {
        snprintf(buf + n, cap - n, "]");
    }
}

bool cli_parse_optimize(const char *s, ember_graph_opt *level)
{
    static const char *const names[] = {"none", "fold", "basic", "all"};
    static const ember_graph_opt levels[] = {EMBER_GRAPH_OPT_NONE, EMBER_GRAPH_OPT_FOLD,
                                             EMBER_GRAPH_OPT_BASIC, EMBER_GRAPH_OPT_ALL};
    for (size_t i = 0; s != NULL && i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(s, names[i]) == 0) {
            *level = levels[i];
            return true;
        }
    }
    return false;
}

bool cli_parse_int8(const char *s, ember_int8_mode *mode)
{
    static const char *const names[] = {"auto", "on", "off"};
    static const ember_int8_mode modes[] = {EMBER_INT8_AUTO, EMBER_INT8_ON, EMBER_INT8_OFF};
    for (size_t i = 0; s != NULL && i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(s, names[i]) == 0) {
            *mode = modes[i];
            return true;
        }
    }
    return false;
}

/* Fixes the shapes the --shape options give (see cli_load_model). */
static ember_status *fix_named_shapes(ember_model_options *opts, const cli_shape_opt *shapes,
                                      int n_shapes)
{
    ember_status *st = NULL;
    for (int k = 0; k < n_shapes && st == NULL; k++) {
        char name[256];
        size_t n = (size_t)(strchr(shapes[k].name, '=') - shapes[k].name);
        snprintf(name, sizeof name, "%.*s", (int)n, shapes[k].name);
        /* One size is a symbolic dim's (N=8), or a 1-D input's: that one is generated with the
         * size but left symbolic at load. */
        st = shapes[k].rank == 1
                 ? ember_model_options_set_dim_value(opts, name, shapes[k].dims[0])
                 : ember_model_options_set_input_shape(opts, name, shapes[k].dims, shapes[k].rank);
    }
    return st;
}

ember_status *cli_model_options(const cli_load *l, ember_model_options **out)
{
    ember_model_options *opts = NULL;
    ember_status *st = ember_model_options_create(&opts);
    if (st == NULL) {
        st = ember_model_options_set_graph_optimization(opts, l->level);
    }
    if (st == NULL) {
        st = ember_model_options_set_int8(opts, l->int8);
    }
    if (st == NULL && l->precision != EMBER_PRECISION_INT8) {
        st = ember_model_options_set_precision(opts, l->precision);
    }
    if (st == NULL) {
        st = ember_model_options_set_verify_checksums(opts, l->verify);
    }
    if (st == NULL && l->model_name != NULL) {
        st = ember_model_options_set_model_name(opts, l->model_name);
    }
    if (st == NULL && !l->dynamic) {
        st = fix_named_shapes(opts, l->shapes, l->n_shapes);
    }
    /* TorchScript declares no input ranks: take them from the --input files, and their shapes
     * unless --dynamic-shapes. */
    for (int i = 0; i < l->n_inputs && st == NULL; i++) {
        ember_tensor *t = NULL;
        ember_status *lt = ember_tensor_load(l->inputs[i], &t);
        if (lt != NULL) { /* sequences and the like: the loader reports what it needs */
            ember_status_destroy(lt);
            continue;
        }
        st = ember_model_options_set_input_rank(opts, (size_t)i, ember_tensor_dtype(t),
                                                (int)ember_tensor_rank(t));
        if (st == NULL && !l->dynamic) {
            st = ember_model_options_set_input_shape_at(opts, (size_t)i, ember_tensor_dims(t),
                                                        (int)ember_tensor_rank(t));
        }
        ember_tensor_destroy(t);
    }
    if (st != NULL) {
        ember_model_options_destroy(opts);
        opts = NULL;
    }
    *out = opts;
    return st;
}

ember_status *cli_load_model(const cli_load *l, ember_model **out)
{
    ember_model_options *opts = NULL;
    ember_status *st = cli_model_options(l, &opts);
    if (st == NULL) {
        st = l->path != NULL ? ember_model_load_file(l->path, opts, out)
                             : ember_model_load_builtin("default", opts, out);
    }
    ember_model_options_destroy(opts);
    return st;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("ember %s\n%s\n", ember_version_string(), ember_build_info());
        return 0;
    }
    if (strcmp(cmd, "run") == 0) {
        return cli_run(argc - 1, argv + 1);
    }
    if (strcmp(cmd, "inspect") == 0) {
        return cli_inspect(argc - 1, argv + 1);
    }
    if (strcmp(cmd, "convert") == 0) {
        return cli_convert(argc - 1, argv + 1);
    }
    if (strcmp(cmd, "quantize") == 0) {
        return cli_quantize(argc - 1, argv + 1);
    }
    if (strcmp(cmd, "grad") == 0 || strcmp(cmd, "finetune") == 0) {
        return (cmd[0] == 'g' ? cli_grad : cli_finetune)(argc - 1, argv + 1);
    }
    fprintf(stderr, "ember: error: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
