/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `ember quantize MODEL --calibrate FILE... --output OUT.onnx`: ember's own quantizer (issue
 * #20, ember.h section 9b). Calibration files are .npy or .pb tensors, one per model input in
 * the model's input order per batch: with a model of k inputs, files 1..k are batch 1, files
 * k+1..2k batch 2, and so on (--calibrate-dir takes a directory's .npy / .pb files sorted by
 * name the same way).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define Q_MAX_FILES 65536

static void quantize_usage(FILE *f)
{
    fprintf(f,
            "usage: ember quantize MODEL --calibrate FILE... --output OUT.onnx [options]\n"
            "\n"
            "Writes MODEL (an fp32 ONNX model or TorchScript archive) as an int8 QDQ ONNX model\n"
            "(QuantizeLinear / DequantizeLinear pairs as ONNX Runtime's quantize_static writes\n"
            "them) that ember (`ember run OUT.onnx --int8 on`) and ONNX Runtime run.\n"
            "\n"
            "calibration data (static mode):\n"
            "  --calibrate FILE...    .npy or .pb tensors, one per model input in the model's\n"
            "                         input order per batch: with k inputs, files 1..k are\n"
            "                         batch 1, files k+1..2k batch 2, ... (repeatable)\n"
            "  --calibrate-dir DIR    the .npy / .pb files of DIR, sorted by name, grouped the\n"
            "                         same way\n"
            "  --calibration-cache F  with calibration files: save the observed ranges to F;\n"
            "                         without: load them from F instead of calibrating\n"
            "\n"
            "options:\n"
            "  --output FILE          the ONNX file to write (written whole or not at all)\n"
            "  --mode M               static (default), dynamic (MatMul weights int8,\n"
            "                         activations quantized at run time) or weight-only\n"
            "  --per-channel          one weight scale per output channel (default)\n"
            "  --no-per-channel       one scale per weight tensor\n"
            "  --activations u8|s8    activation type (default u8)\n"
            "  --symmetric            symmetric activations (default asymmetric)\n"
            "  --method M             minmax (default), percentile, entropy or mse\n"
            "  --percentile P         for --method percentile (default 99.999)\n"
            "  --entropy-bins N       for --method entropy: the KL search's histogram of N bins\n"
            "                         over [-T, T] of all calibration values (default 128, as\n"
            "                         ONNX Runtime; 0: the histogram as it grew batch by batch)\n"
            "  --entropy-levels N     quantized bins of entropy's search (default 128; 0 bins and\n"
            "                         256 levels: TensorRT's scale of search)\n"
            "  --exclude NAME_OR_OP   leave nodes of this name or op type in fp32 (repeatable)\n"
            "  --shape NAME=DIMS      fix an input's shape (by default: the first batch's)\n"
            "  --report               print what was quantized, what stayed fp32 and why, and\n"
            "                         SQNR / argmax agreement on the calibration inputs\n"
            "  --quiet                no progress line\n"
            "  --help                 this help\n");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool is_tensor_file(const char *name)
{
    size_t n = strlen(name);
    return (n > 4 && strcmp(name + n - 4, ".npy") == 0) || (n > 3 && strcmp(name + n - 3, ".pb") == 0);
}

/* Appends DIR's tensor files, sorted; returns false with a message. */
static bool list_dir(const char *dir, char **files, int *n)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        cli_error("--calibrate-dir %s: cannot open the directory", dir);
        return false;
    }
    int first = *n;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!is_tensor_file(e->d_name)) {
            continue;
        }
        if (*n >= Q_MAX_FILES) {
            closedir(d);
            cli_error("--calibrate-dir %s: more than %d files", dir, Q_MAX_FILES);
            return false;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        files[*n] = malloc(len);
        if (files[*n] == NULL) {
            closedir(d);
            cli_error("out of memory");
            return false;
        }
        snprintf(files[*n], len, "%s/%s", dir, e->d_name);
        (*n)++;
    }
    closedir(d);
    qsort(files + first, (size_t)(*n - first), sizeof *files, cmp_str);
    return true;
}

typedef struct q_args {
    const char *model, *output, *cache;
    ember_quantize_options *qo;
    char **files; /* owned copies */
    int n_files;
    cli_shape_opt shapes[CLI_MAX_SHAPES];
    int n_shapes;
    bool report, quiet;
    ember_calib_method method;
    double percentile;
    long long entropy_bins, entropy_levels;
} q_args;

static int parse_args(int argc, char **argv, q_args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        ember_status *st = NULL;
        if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
            quantize_usage(stdout);
            return 0;
        } else if (strcmp(s, "--calibrate") == 0) {
            int k = 0;
            while (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0 && a->n_files < Q_MAX_FILES) {
                a->files[a->n_files] = malloc(strlen(argv[i + 1]) + 1);
                if (a->files[a->n_files] == NULL) {
                    return cli_error("out of memory"), 1;
                }
                strcpy(a->files[a->n_files++], argv[++i]);
                k++;
            }
            if (k == 0) {
                return cli_error("--calibrate needs at least one file"), 2;
            }
            continue;
        } else if (strcmp(s, "--calibrate-dir") == 0) {
            if (v == NULL) {
                return cli_error("--calibrate-dir needs a directory"), 2;
            }
            if (!list_dir(v, a->files, &a->n_files)) {
                return 1;
            }
            i++;
            continue;
        } else if (strcmp(s, "--report") == 0) {
            a->report = true;
            continue;
        } else if (strcmp(s, "--quiet") == 0) {
            a->quiet = true;
            continue;
        } else if (strcmp(s, "--per-channel") == 0 || strcmp(s, "--no-per-channel") == 0 ||
                   strcmp(s, "--symmetric") == 0) { /* flags: no value */
            st = strcmp(s, "--symmetric") == 0
                     ? ember_quantize_options_set_symmetric(a->qo, true)
                     : ember_quantize_options_set_per_channel(a->qo, s[2] == 'p');
            if (st != NULL) {
                return cli_fail(st);
            }
            continue;
        } else if (s[0] == '-' && v == NULL) {
            return cli_error("quantize: %s needs a value (or is unknown; see ember quantize "
                             "--help)", s), 2;
        } else if (strcmp(s, "--output") == 0 || strcmp(s, "-o") == 0) {
            a->output = v;
        } else if (strcmp(s, "--calibration-cache") == 0) {
            a->cache = v;
        } else if (strcmp(s, "--mode") == 0) {
            ember_quant_mode m = strcmp(v, "static") == 0        ? EMBER_QUANT_STATIC
                                 : strcmp(v, "dynamic") == 0     ? EMBER_QUANT_DYNAMIC
                                 : strcmp(v, "weight-only") == 0 ? EMBER_QUANT_WEIGHT_ONLY
                                                                 : (ember_quant_mode)-1;
            if ((int)m < 0) {
                return cli_error("--mode: '%s' is not static, dynamic or weight-only", v), 2;
            }
            st = ember_quantize_options_set_mode(a->qo, m);
        } else if (strcmp(s, "--activations") == 0) {
            if (strcmp(v, "u8") != 0 && strcmp(v, "s8") != 0) {
                return cli_error("--activations: '%s' is not u8 or s8", v), 2;
            }
            st = ember_quantize_options_set_activation_type(
                a->qo, strcmp(v, "u8") == 0 ? EMBER_DTYPE_U8 : EMBER_DTYPE_I8);
        } else if (strcmp(s, "--method") == 0) {
            static const char *const names[] = {"minmax", "percentile", "entropy", "mse"};
            int m = -1;
            for (int k = 0; k < 4; k++) {
                m = strcmp(v, names[k]) == 0 ? k : m;
            }
            if (m < 0) {
                return cli_error("--method: '%s' is not minmax, percentile, entropy or mse", v), 2;
            }
            a->method = (ember_calib_method)m;
        } else if (strcmp(s, "--percentile") == 0) {
            char *end = NULL;
            a->percentile = strtod(v, &end);
            if (end == v || *end != '\0') {
                return cli_error("--percentile: '%s' is not a number", v), 2;
            }
        } else if (strcmp(s, "--entropy-bins") == 0 || strcmp(s, "--entropy-levels") == 0) {
            char *end = NULL;
            long long n = strtoll(v, &end, 10);
            if (end == v || *end != '\0') {
                return cli_error("%s: '%s' is not an integer", s, v), 2;
            }
            if (strcmp(s, "--entropy-bins") == 0) {
                a->entropy_bins = n;
            } else {
                a->entropy_levels = n;
            }
        } else if (strcmp(s, "--exclude") == 0) {
            st = ember_quantize_options_add_exclude(a->qo, v);
        } else if (strcmp(s, "--shape") == 0) {
            if (a->n_shapes >= CLI_MAX_SHAPES || !cli_parse_shape(v, &a->shapes[a->n_shapes])) {
                return cli_error("--shape needs NAME=D1xD2x..."), 2;
            }
            a->n_shapes++;
        } else if (s[0] == '-') {
            return cli_error("quantize: unknown option '%s' (see ember quantize --help)", s), 2;
        } else if (a->model != NULL) {
            return cli_error("quantize: more than one model given ('%s' and '%s')", a->model, s), 2;
        } else {
            a->model = s;
            continue;
        }
        if (st != NULL) {
            return cli_fail(st);
        }
        i++;
    }
    ember_status *st = ember_quantize_options_set_method(a->qo, a->method, a->percentile);
    if (st == NULL) {
        if (a->entropy_levels < 0 || a->entropy_levels > 65536) {
            return cli_error("--entropy-levels: %lld is not in [2, 65536]", a->entropy_levels), 2;
        }
        st = ember_quantize_options_set_entropy(a->qo, (int64_t)a->entropy_bins,
                                                (int)a->entropy_levels);
    }
    return st != NULL ? cli_fail(st) : -1;
}

static bool is_zip(const char *path)
{
    unsigned char b[4] = {0};
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return false;
    }
    size_t n = fread(b, 1, 4, f);
    fclose(f);
    return n == 4 && b[0] == 'P' && b[1] == 'K' && b[2] == 3 && b[3] == 4;
}

static void progress(bool tty, size_t b, size_t n, double secs)
{
    if (tty) {
        int w = 30, done = n > 0 ? (int)((size_t)w * b / n) : w;
        fprintf(stderr, "\rcalibrating [%.*s%*s] %zu/%zu batches %.1f s", done,
                "##############################", w - done, "", b, n, secs);
        if (b == n) {
            fputc('\n', stderr);
        }
    } else {
        fprintf(stderr, "calibrating: batch %zu/%zu (%.1f s)\n", b, n, secs);
    }
    fflush(stderr);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runs every batch of files; errors name the batch and the files. */
static ember_status *calibrate(ember_quantizer *q, const char *const *files, int n_files,
                               bool quiet, size_t n_in)
{
    size_t n_batches = (size_t)n_files / n_in;
    bool tty = isatty(2) != 0;
    double t0 = now_s();
    ember_tensor *in[CLI_MAX_INPUTS] = {0};
    for (size_t b = 0; b < n_batches; b++) {
        ember_status *st = NULL;
        for (size_t i = 0; i < n_in && st == NULL; i++) {
            const char *f = files[b * n_in + i];
            st = ember_tensor_load(f, &in[i]);
        }
        if (st == NULL) {
            st = ember_quantizer_add_batch(q, in, n_in);
        }
        for (size_t i = 0; i < n_in; i++) {
            ember_tensor_destroy(in[i]);
            in[i] = NULL;
        }
        if (st != NULL) {
            char names[1024] = "";
            for (size_t i = 0; i < n_in; i++) {
                size_t l = strlen(names);
                snprintf(names + l, sizeof names - l, "%s%s", i ? ", " : "", files[b * n_in + i]);
            }
            if (!quiet && tty) {
                fputc('\n', stderr);
            }
            fprintf(stderr, "ember: error: calibration batch %zu (%s): %s\n", b + 1, names,
                    ember_status_message(st));
            return st;
        }
        if (!quiet) {
            progress(tty, b + 1, n_batches, now_s() - t0);
        }
    }
    return NULL;
}

int cli_quantize(int argc, char **argv)
{
    q_args a;
    memset(&a, 0, sizeof a);
    a.percentile = 99.999;
    a.entropy_bins = 128;
    a.entropy_levels = 128;
    a.files = calloc(Q_MAX_FILES, sizeof *a.files);
    ember_status *st = a.files == NULL ? NULL : ember_quantize_options_create(&a.qo);
    int rc = a.files == NULL ? cli_error("out of memory") : st != NULL ? cli_fail(st) : -1;
    if (rc < 0) {
        rc = parse_args(argc, argv, &a);
    }
    ember_quantizer *q = NULL;
    ember_model_options *mo = NULL;
    const char *first[CLI_MAX_INPUTS];
    if (rc < 0 && (a.model == NULL || a.output == NULL)) {
        quantize_usage(stderr);
        rc = cli_error("quantize needs a MODEL and --output FILE");
    }
    if (rc < 0) {
        /* A TorchScript archive (a zip) declares no input dtypes or shapes: the first batch's
         * files give them. Its input count shows only once loaded: try one file, and when the
         * model says it has k inputs, the first k. ONNX models declare their inputs. */
        int nf = is_zip(a.model) && a.n_files > 0 ? 1 : 0;
        for (int attempt = 0; attempt < 2; attempt++) {
            for (int i = 0; i < nf; i++) {
                first[i] = a.files[i];
            }
            cli_load ld = {a.model, first, nf, a.shapes, a.n_shapes, EMBER_GRAPH_OPT_FOLD, true,
                           false, EMBER_INT8_OFF, EMBER_PRECISION_FP32, NULL};
            ember_model_options_destroy(mo);
            mo = NULL;
            st = cli_model_options(&ld, &mo);
            if (st == NULL) {
                st = ember_quantizer_create(a.model, mo, a.qo, &q);
            }
            const char *has = st != NULL ? strstr(ember_status_message(st), "the model has ") : NULL;
            int k = has != NULL ? atoi(has + strlen("the model has ")) : 0;
            if (attempt > 0 || nf == 0 || k <= nf || k > a.n_files || k > CLI_MAX_INPUTS) {
                break;
            }
            ember_status_destroy(st);
            nf = k;
        }
        rc = st != NULL ? cli_fail(st) : -1;
    }
    if (rc < 0) {
        size_t n_in = ember_model_input_count(ember_quantizer_model(q));
        bool calibrating = a.n_files > 0;
        if (n_in == 0 || n_in > CLI_MAX_INPUTS) {
            rc = cli_error("quantize: the model has %zu inputs (1 to %d are supported)", n_in,
                           CLI_MAX_INPUTS);
        } else if (calibrating && (size_t)a.n_files % n_in != 0) {
            rc = cli_error("quantize: %d calibration files for a model of %zu inputs: give one "
                           "file per input per batch, in the model's input order", a.n_files, n_in);
        } else if (calibrating) {
            st = calibrate(q, (const char *const *)a.files, a.n_files, a.quiet, n_in);
            if (st != NULL) {
                ember_status_destroy(st);
                rc = 1;
            } else if (a.cache != NULL) {
                st = ember_quantizer_save_calibration(q, a.cache);
                rc = st != NULL ? cli_fail(st) : -1;
            }
        } else if (a.cache != NULL) {
            st = ember_quantizer_load_calibration(q, a.cache);
            rc = st != NULL ? cli_fail(st) : -1;
        }
    }
    if (rc < 0) {
        st = ember_quantizer_save_onnx(q, a.output);
        rc = st != NULL ? cli_fail(st) : -1;
    }
    if (rc < 0) {
        printf("wrote %s: %zu calibration batches\n", a.output, ember_quantizer_batch_count(q));
        if (a.report) {
            char *text = NULL;
            st = ember_quantizer_report(q, true, &text);
            if (st != NULL) {
                rc = cli_fail(st);
            } else {
                fputs(text, stdout);
                ember_string_free(text);
            }
        }
    }
    ember_quantizer_destroy(q);
    ember_model_options_destroy(mo);
    ember_quantize_options_destroy(a.qo);
    for (int i = 0; a.files != NULL && i < a.n_files; i++) {
        free(a.files[i]);
    }
    free(a.files);
    return rc < 0 ? 0 : rc;
}

ember_status *cli_quantize_load(const cli_load *ld, const char *const *calib, int n_calib,
                                const char *cache, ember_model **out)
{
    *out = NULL;
    ember_quantize_options *qo = NULL;
    ember_model_options *mo = NULL;
    ember_quantizer *q = NULL;
    ember_status *st = ember_quantize_options_create(&qo);
    if (st == NULL && n_calib == 0 && cache == NULL) {
        st = ember_quantize_options_set_mode(qo, EMBER_QUANT_DYNAMIC);
    }
    if (st == NULL) {
        st = cli_model_options(ld, &mo);
    }
    if (st == NULL) {
        st = ember_quantizer_create(ld->path, mo, qo, &q);
    }
    size_t n_in = st == NULL ? ember_model_input_count(ember_quantizer_model(q)) : 0;
    if (st == NULL && n_calib > 0) {
        if (n_in == 0 || (size_t)n_calib % n_in != 0) {
            cli_error("--calibrate: %d files for a model of %zu inputs: give one file per input "
                      "per batch, in the model's input order", n_calib, n_in);
            st = ember_quantizer_add_batch(NULL, NULL, 0); /* an INVALID_ARG to return */
        } else {
            st = calibrate(q, calib, n_calib, true, n_in);
        }
    } else if (st == NULL && cache != NULL) {
        st = ember_quantizer_load_calibration(q, cache);
    }
    if (st == NULL) {
        st = ember_model_options_set_int8(mo, EMBER_INT8_ON);
    }
    if (st == NULL) {
        st = ember_model_options_set_graph_optimization(mo, ld->level);
    }
    if (st == NULL) {
        st = ember_quantizer_load_model(q, mo, out);
    }
    if (st == NULL) {
        fprintf(stderr, "ember: quantized at load (%s, %d calibration batches)\n",
                n_calib > 0 ? "static" : cache != NULL ? "static, from the cache" : "dynamic",
                n_in > 0 ? n_calib / (int)n_in : 0);
    }
    ember_quantizer_destroy(q);
    ember_model_options_destroy(mo);
    ember_quantize_options_destroy(qo);
    return st;
}
