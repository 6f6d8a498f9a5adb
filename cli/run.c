/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `ember run`: loads a model, makes or reads its inputs, runs it --warmup + --iters times and
 * prints the timing contract of DESIGN.md as key=value tokens (or one JSON object with --json):
 * load_ms (load + session + plan), first_ms (first run), median_ms, min_ms, p90_ms over the
 * timed runs, peak_rss_mb. --profile adds a per-op table; --trace writes a Chrome trace.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

typedef struct run_opts {
    const char *model;
    const char *inputs[CLI_MAX_INPUTS];
    int n_inputs;
    const char *output_dir;
    int threads, warmup, iters;
    ember_device device;
    ember_precision precision;
    bool profile, json;
    bool no_verify; /* --no-verify-checksums */
    bool dynamic;   /* --dynamic-shapes */
    const char *trace;
    const char *isa;
    cli_shape_opt shapes[CLI_MAX_SHAPES];
    int n_shapes;
    ember_graph_opt optimize;
    ember_int8_mode int8; /* --int8 */
    size_t memory_limit; /* --memory-limit; 0: none */
    const char *calib[CLI_MAX_CALIB]; /* --calibrate (with --precision int8) */
    int n_calib;
    const char *calib_cache;          /* --calibration-cache */
    const char *model_name;           /* --model-name */
} run_opts;

static void run_usage(FILE *f)
{
    fprintf(f,
            "usage: ember run [MODEL] [options]\n"
            "\n"
            "Runs MODEL (an ONNX model or TorchScript archive; the built-in default CNN when\n"
            "omitted) and prints timing as key=value tokens:\n"
            "  load_ms first_ms median_ms min_ms p90_ms peak_rss_mb\n"
            "\n"
            "options:\n"
            "  --input FILE        an input as .npy or ONNX .pb (TensorProto, or SequenceProto /\n"
            "                      OptionalProto for such inputs), in the model's input order\n"
            "                      (repeat)\n"
            "  --shape NAME=DIMS   fix an input's shape (NAME=1x3x224x224) or a symbolic dim\n"
            "                      (N=8): the model is loaded for it, and generated inputs\n"
            "                      have it\n"
            "  --dynamic-shapes    keep the model's symbolic dims at load (by default the\n"
            "                      --input files' shapes and --shape fix them, so that shape\n"
            "                      arithmetic folds and more of the graph fuses)\n"
            "  --output-dir DIR    write every output as DIR/output_<i>.npy, or as an ONNX\n"
            "                      DIR/output_<i>.pb where .npy cannot hold it (bfloat16,\n"
            "                      sequences, optionals)\n"
            "  --threads N         compute threads (default: one per core)\n"
            "  --memory-limit BYTES  most bytes of one activation arena (BYTES, or with a\n"
            "                      K, M or G suffix: KiB, MiB, GiB); a plan needing more fails\n"
            "                      with an out-of-memory error (default 0: no limit)\n"
            "  --warmup N          untimed runs after the first (default 3)\n"
            "  --iters N           timed runs (default 20)\n"
            "  --device cpu|cuda   execution device (default cpu)\n"
            "  --precision fp32|fp16|bf16|int8  (default fp32); fp16 / bf16 hold the packed\n"
            "                      weights (Conv, Gemm, MatMul) in half precision, computing\n"
            "                      in fp32; int8 quantizes the fp32 model at\n"
            "                      load (ember quantize): static with --calibrate FILE...\n"
            "                      or --calibration-cache FILE, dynamic without\n"
            "  --isa NAME          cap CPU kernels: scalar, avx2, avx512, neon, native\n"
            "  --optimize LEVEL    graph passes at load: none (the graph as loaded), fold\n"
            "                      (constant folding, dead code), basic (fold + fusions) or\n"
            "                      all (default: basic + blocked conv layout)\n"
            "  --int8 MODE         a QDQ model's quantized chains: on (integer ops where\n"
            "                      exact), off (fp32 on dequantized weights) or auto\n"
            "                      (default: ember's choice for the CPU, today off)\n"
            "  --no-verify-checksums  do not check the CRC-32 of a TorchScript archive's\n"
            "                      weights (a file you trust; other records are checked)\n"
            "  --model-name NAME   which model of a .pt2 archive holding several (default:\n"
            "                      model; ember inspect lists them)\n"
            "  --profile           print a per-op time table of the timed runs\n"
            "  --trace FILE        write a Chrome trace (chrome://tracing) of the timed runs\n"
            "  --json              print the figures as one JSON object\n"
            "  --help              this help\n"
            "\n"
            "Without --input, inputs are generated deterministically from declared shapes.\n");
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static double peak_rss_mb(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) {
        return 0.0;
    }
    return (double)ru.ru_maxrss / 1024.0; /* Linux reports KiB */
}

static bool takes_value(const char *a)
{
    static const char *const opts[] = {"--input",  "--output-dir", "--threads", "--warmup",
                                       "--iters",  "--device",     "--precision", "--trace",
                                       "--isa",    "--shape",      "--optimize", "--memory-limit",
                                       "--int8", "--calibrate", "--calibration-cache",
                                       "--model-name"};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        if (strcmp(a, opts[i]) == 0) {
            return true;
        }
    }
    return false;
}

/* "--memory-limit" values: digits with an optional K, M or G suffix (powers of 1024). */
static bool parse_bytes(const char *s, size_t *out)
{
    if (s[0] < '0' || s[0] > '9') {
        return false;
    }
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k') {
        shift = 10;
    } else if (*end == 'M' || *end == 'm') {
        shift = 20;
    } else if (*end == 'G' || *end == 'g') {
        shift = 30;
    }
    if (shift > 0) {
        end++;
    }
    if (errno != 0 || *end != '\0' || v > (SIZE_MAX >> shift)) {
        return false;
    }
    *out = (size_t)v << shift;
    return true;
}

static int parse_args(int argc, char **argv, run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->warmup = 3;
    o->iters = 20;
    o->optimize = EMBER_GRAPH_OPT_ALL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = true;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            run_usage(stdout);
            return 0;
        } else if (strcmp(a, "--profile") == 0) {
            o->profile = true;
            takes = false;
        } else if (strcmp(a, "--json") == 0) {
            o->json = true;
            takes = false;
        } else if (strcmp(a, "--no-verify-checksums") == 0) {
            o->no_verify = true;
            takes = false;
        } else if (strcmp(a, "--dynamic-shapes") == 0) {
            o->dynamic = true;
            takes = false;
        } else if (takes_value(a) && v == NULL) {
            return cli_error("%s needs a value", a), 2;
        } else if (strcmp(a, "--input") == 0) {
            if (o->n_inputs >= CLI_MAX_INPUTS) {
                return cli_error("too many --input files"), 2;
            }
            o->inputs[o->n_inputs++] = v;
        } else if (strcmp(a, "--calibrate") == 0) {
            for (i++; i < argc && strncmp(argv[i], "--", 2) != 0; i++) {
                if (o->n_calib >= CLI_MAX_CALIB) {
                    return cli_error("more than %d --calibrate files", CLI_MAX_CALIB), 2;
                }
                o->calib[o->n_calib++] = argv[i];
            }
            if (o->n_calib == 0) {
                return cli_error("--calibrate needs at least one file"), 2;
            }
            i -= 2; /* the loop's i++ and the value skip below */
        } else if (strcmp(a, "--calibration-cache") == 0) {
            o->calib_cache = v;
        } else if (strcmp(a, "--model-name") == 0) {
            o->model_name = v;
        } else if (strcmp(a, "--output-dir") == 0) {
            o->output_dir = v;
        } else if (strcmp(a, "--threads") == 0) {
            if (!cli_parse_int(v, 0, 1024, &o->threads)) {
                return cli_error("--threads: '%s' is not a number in 0..1024", v), 2;
            }
        } else if (strcmp(a, "--memory-limit") == 0) {
            if (!parse_bytes(v, &o->memory_limit)) {
                return cli_error("--memory-limit: '%s' is not a byte count (N, NK, NM or NG)", v),
                       2;
            }
        } else if (strcmp(a, "--warmup") == 0) {
            if (!cli_parse_int(v, 0, 1000000, &o->warmup)) {
                return cli_error("--warmup: '%s' is not a non-negative number", v), 2;
            }
        } else if (strcmp(a, "--iters") == 0) {
            if (!cli_parse_int(v, 1, 10000000, &o->iters)) {
                return cli_error("--iters: '%s' is not a positive number", v), 2;
            }
        } else if (strcmp(a, "--device") == 0) {
            if (strcmp(v, "cpu") == 0) {
                o->device = EMBER_DEVICE_CPU;
            } else if (strcmp(v, "cuda") == 0) {
                o->device = EMBER_DEVICE_CUDA;
            } else {
                return cli_error("--device: '%s' is not cpu or cuda", v), 2;
            }
        } else if (strcmp(a, "--precision") == 0) {
            if (strcmp(v, "fp32") == 0) {
                o->precision = EMBER_PRECISION_FP32;
            } else if (strcmp(v, "fp16") == 0) {
                o->precision = EMBER_PRECISION_FP16;
            } else if (strcmp(v, "bf16") == 0) {
                o->precision = EMBER_PRECISION_BF16;
            } else if (strcmp(v, "int8") == 0) {
                o->precision = EMBER_PRECISION_INT8;
            } else {
                return cli_error("--precision: '%s' is not fp32, fp16, bf16 or int8", v), 2;
            }
        } else if (strcmp(a, "--trace") == 0) {
            o->trace = v;
        } else if (strcmp(a, "--isa") == 0) {
            o->isa = v;
        } else if (strcmp(a, "--optimize") == 0) {
            if (!cli_parse_optimize(v, &o->optimize)) {
                return cli_error("--optimize: '%s' is not none, fold, basic or all", v), 2;
            }
        } else if (strcmp(a, "--int8") == 0) {
            if (!cli_parse_int8(v, &o->int8)) {
                return cli_error("--int8: '%s' is not auto, on or off", v), 2;
            }
        } else if (strcmp(a, "--shape") == 0) {
            if (o->n_shapes >= CLI_MAX_SHAPES || !cli_parse_shape(v, &o->shapes[o->n_shapes])) {
                return cli_error("--shape: '%s' is not NAME=D1xD2x...", v), 2;
            }
            o->n_shapes++;
        } else if (a[0] == '-') {
            return cli_error("run: unknown option '%s' (see ember run --help)", a), 2;
        } else {
            takes = false;
            if (o->model != NULL) {
                return cli_error("run: more than one model given ('%s', '%s')", o->model, a), 2;
            }
            o->model = a;
        }
        if (takes) {
            i++;
        }
    }
    return -1; /* parsed; go on */
}

/* Fills a generated input deterministically: floats in [0, 1), integers 0..9, bools alternate,
 * strings "0".."9" (static text, which outlives the tensor). */
static void fill_input(ember_tensor *t, size_t which)
{
    static const char *const digit_text[10] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
    uint64_t s = 0x243f6a8885a308d3ull ^ (uint64_t)which;
    int64_t n = ember_tensor_elem_count(t);
    void *d = ember_tensor_data(t);
    for (int64_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        double u = (double)(s >> 40) * (1.0 / 16777216.0);
        switch (ember_tensor_dtype(t)) {
        case EMBER_DTYPE_F32: ((float *)d)[i] = (float)u; break;
        case EMBER_DTYPE_F64: ((double *)d)[i] = u; break;
        case EMBER_DTYPE_I64: ((int64_t *)d)[i] = (int64_t)(u * 10); break;
        case EMBER_DTYPE_I32: ((int32_t *)d)[i] = (int32_t)(u * 10); break;
        case EMBER_DTYPE_I8: ((int8_t *)d)[i] = (int8_t)(u * 10); break;
        case EMBER_DTYPE_U8: ((uint8_t *)d)[i] = (uint8_t)(u * 10); break;
        case EMBER_DTYPE_BOOL: ((uint8_t *)d)[i] = (uint8_t)(i & 1); break;
        case EMBER_DTYPE_STRING: ((const char **)d)[i] = digit_text[(int)(u * 10)]; break;
        default: break; /* other dtypes stay zero */
        }
    }
}

static ember_status *make_inputs(const ember_model *m, const run_opts *o, ember_tensor **in,
                                 int *rc)
{
    size_t n = ember_model_input_count(m);
    *rc = 0;
    if (o->n_inputs > 0 && (size_t)o->n_inputs != n) {
        *rc = cli_error("the model has %zu inputs, %d --input files were given", n, o->n_inputs);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (o->n_inputs > 0) {
            /* Sequences and optionals come as ONNX .pb files (a .npy holds tensors only). */
            ember_type_kind kind = ember_model_input_type(m, i);
            ember_status *st = kind == EMBER_TYPE_TENSOR
                                   ? ember_tensor_load(o->inputs[i], &in[i])
                                   : ember_value_load_pb(o->inputs[i], kind, &in[i]);
            if (st != NULL) {
                return st;
            }
            continue;
        }
        int64_t dims[EMBER_MAX_RANK];
        int rank = cli_input_shape(m, i, o->shapes, o->n_shapes, dims);
        if (rank < 0) {
            *rc = 1;
            return NULL;
        }
        ember_status *st = ember_tensor_create(ember_model_input_dtype(m, i), dims, rank, &in[i]);
        if (st != NULL) {
            return st;
        }
        fill_input(in[i], i);
    }
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct op_row {
    const char *op;
    long calls;
    double ms;
} op_row;

static int cmp_row(const void *a, const void *b)
{
    const op_row *x = a, *y = b;
    return x->ms < y->ms ? 1 : x->ms > y->ms ? -1 : 0;
}

static void print_profile(const ember_profile *p, bool json)
{
    op_row rows[128];
    int n = 0;
    double total = 0;
    size_t ne = ember_profile_event_count(p);
    for (size_t i = 0; i < ne; i++) {
        const char *op = ember_profile_event_op(p, i);
        double ms = (double)ember_profile_event_dur_ns(p, i) * 1e-6;
        int k = 0;
        while (k < n && strcmp(rows[k].op, op) != 0) {
            k++;
        }
        if (k == n) {
            if (n == 128) {
                continue;
            }
            rows[n].op = op;
            rows[n].calls = 0;
            rows[n].ms = 0;
            n++;
        }
        rows[k].calls++;
        rows[k].ms += ms;
        total += ms;
    }
    qsort(rows, (size_t)n, sizeof rows[0], cmp_row);
    if (json) {
        printf(",\"profile\":[");
        for (int k = 0; k < n; k++) {
            printf("%s{\"op\":\"%s\",\"calls\":%ld,\"total_ms\":%.4f,\"share\":%.4f}", k ? "," : "",
                   rows[k].op, rows[k].calls, rows[k].ms, total > 0 ? rows[k].ms / total : 0);
        }
        printf("]");
        return;
    }
    printf("%-24s %8s %12s %8s\n", "op", "calls", "total_ms", "share");
    for (int k = 0; k < n; k++) {
        printf("%-24s %8ld %12.4f %7.1f%%\n", rows[k].op, rows[k].calls, rows[k].ms,
               total > 0 ? 100.0 * rows[k].ms / total : 0.0);
    }
    printf("%-24s %8zu %12.4f %7.1f%%\n", "total", ne, total, 100.0);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fprintf(f, "\\%c", c);
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
        } else {
            fputc(c, f);
        }
    }
    fputc('"', f);
}

/* Writes the events as Chrome trace JSON; returns 0 or a cli_error exit code. */
static int write_trace(const ember_profile *p, const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        return cli_error("--trace %s: cannot write: %s", path, strerror(errno));
    }
    fprintf(f, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
    size_t n = ember_profile_event_count(p);
    for (size_t i = 0; i < n; i++) {
        const char *node = ember_profile_event_node(p, i);
        fprintf(f, "%s{\"name\":", i ? ",\n" : "");
        json_string(f, node[0] ? node : ember_profile_event_op(p, i));
        fprintf(f, ",\"cat\":");
        json_string(f, ember_profile_event_op(p, i));
        fprintf(f, ",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":1,\"tid\":%d,\"args\":{\"kernel\":",
                (double)ember_profile_event_start_ns(p, i) * 1e-3,
                (double)ember_profile_event_dur_ns(p, i) * 1e-3, ember_profile_event_thread(p, i));
        json_string(f, ember_profile_event_kernel(p, i));
        fprintf(f, ",\"run\":%lld}}", (long long)ember_profile_event_run(p, i));
    }
    fprintf(f, "\n]}\n");
    if (ferror(f) | fclose(f)) {
        return cli_error("--trace %s: write failed", path);
    }
    return 0;
}

/* Writes output i as DIR/output_<i>.npy, or as DIR/output_<i>.pb (an ONNX TensorProto,
 * SequenceProto or OptionalProto) when .npy cannot hold it: a dtype numpy lacks (bfloat16),
 * a sequence, an optional. */
static int write_outputs(const run_opts *o, const ember_model *m, ember_tensor **out, size_t n)
{
    if (mkdir(o->output_dir, 0777) != 0 && errno != EEXIST) {
        return cli_error("--output-dir %s: %s", o->output_dir, strerror(errno));
    }
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        ember_type_kind kind = ember_model_output_type(m, i);
        ember_status *st = NULL;
        if (kind == EMBER_TYPE_TENSOR && ember_tensor_kind(out[i]) == EMBER_VALUE_TENSOR) {
            snprintf(path, sizeof path, "%s/output_%zu.npy", o->output_dir, i);
            st = ember_tensor_save_npy(out[i], path);
            if (st == NULL || ember_status_code(st) != EMBER_ERR_UNSUPPORTED) {
                if (st != NULL) {
                    return cli_fail(st);
                }
                continue;
            }
            ember_status_destroy(st);
        }
        snprintf(path, sizeof path, "%s/output_%zu.pb", o->output_dir, i);
        st = ember_value_save_pb(out[i], kind, path);
        if (st != NULL) {
            return cli_fail(st);
        }
    }
    return 0;
}

/* "f32[1,1000]" for a tensor, "seq(f32)[3]" for a sequence of 3, "none(f32)" for an empty
 * optional. */
static void format_value(const ember_tensor *v, char *buf, size_t cap)
{
    ember_value_kind k = ember_tensor_kind(v);
    if (k == EMBER_VALUE_TENSOR) {
        cli_format_shape(ember_tensor_dtype(v), ember_tensor_dims(v), ember_tensor_rank(v), buf,
                         cap);
        return;
    }
    const char *elem = ember_dtype_name(ember_tensor_dtype(v));
    if (k == EMBER_VALUE_SEQUENCE) {
        snprintf(buf, cap, "seq(%s)[%zu]", elem, ember_sequence_length(v));
    } else {
        snprintf(buf, cap, "none(%s)", elem);
    }
}

static void print_figures(const run_opts *o, const ember_model *m, int threads, double load_ms,
                          double first_ms, double *t, ember_tensor **out)
{
    int n = o->iters;
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    double median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    int p90i = (int)(0.9 * (n - 1) + 0.5);
    double rss = peak_rss_mb();
    char shape[256];
    const char *model = o->model ? o->model : "builtin:default";
    size_t n_out = ember_model_output_count(m);
    if (o->json) {
        printf("{\"model\":");
        json_string(stdout, model);
        printf(",\"format\":\"%s\",\"threads\":%d,\"warmup\":%d,\"iters\":%d,\"load_ms\":%.4f,"
               "\"first_ms\":%.4f,\"median_ms\":%.4f,\"min_ms\":%.4f,\"p90_ms\":%.4f,"
               "\"peak_rss_mb\":%.2f,\"outputs\":[",
               ember_model_format(m), threads, o->warmup, o->iters, load_ms, first_ms, median,
               t[0], t[p90i], rss);
        for (size_t i = 0; i < n_out; i++) {
            format_value(out[i], shape, sizeof shape);
            printf("%s", i ? "," : "");
            json_string(stdout, shape);
        }
        printf("]");
        return;
    }
    printf("model=%s format=%s threads=%d warmup=%d iters=%d", model, ember_model_format(m),
           threads, o->warmup, o->iters);
    for (size_t i = 0; i < n_out; i++) {
        format_value(out[i], shape, sizeof shape);
        printf(" output_%zu=%s", i, shape);
    }
    printf("\nload_ms=%.4f first_ms=%.4f median_ms=%.4f min_ms=%.4f p90_ms=%.4f peak_rss_mb=%.2f\n",
           load_ms, first_ms, median, t[0], t[p90i], rss);
}

/* Sequence and optional outputs are created by each run (ember.h): drop the previous ones. */
static void drop_value_outputs(const ember_model *m, ember_tensor **out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (ember_model_output_type(m, i) != EMBER_TYPE_TENSOR ||
            (out[i] != NULL && ember_tensor_kind(out[i]) != EMBER_VALUE_TENSOR)) {
            ember_tensor_destroy(out[i]);
            out[i] = NULL;
        }
    }
}

static int run_loop(const run_opts *o, ember_model *m, ember_session *s, ember_tensor **in,
                    ember_tensor **out, double load_ms)
{
    size_t n_in = ember_model_input_count(m), n_out = ember_model_output_count(m);
    double *t = calloc((size_t)o->iters, sizeof *t);
    ember_profile *prof = NULL;
    int rc = 0;
    if (t == NULL) {
        return cli_error("out of memory");
    }
    double t0 = now_ms();
    ember_status *st = ember_session_run(s, in, n_in, out, n_out);
    double first_ms = now_ms() - t0;
    for (int i = 0; st == NULL && i < o->warmup; i++) {
        drop_value_outputs(m, out, n_out);
        st = ember_session_run(s, in, n_in, out, n_out);
    }
    bool profiling = o->profile || o->trace != NULL;
    if (st == NULL && profiling) { /* keep the timed runs only */
        st = ember_session_profile(s, true, &prof);
        ember_profile_destroy(prof);
        prof = NULL;
    }
    for (int i = 0; st == NULL && i < o->iters; i++) {
        drop_value_outputs(m, out, n_out);
        t0 = now_ms();
        st = ember_session_run(s, in, n_in, out, n_out);
        t[i] = now_ms() - t0;
    }
    if (st == NULL && profiling) {
        st = ember_session_profile(s, false, &prof);
    }
    if (st != NULL) {
        free(t);
        return cli_fail(st);
    }
    print_figures(o, m, ember_session_thread_count(s), load_ms, first_ms, t, out);
    if (o->profile) {
        print_profile(prof, o->json);
    }
    if (o->json) {
        printf("}\n");
    }
    if (o->trace != NULL) {
        rc = write_trace(prof, o->trace);
    }
    if (rc == 0 && o->output_dir != NULL) {
        rc = write_outputs(o, m, out, n_out);
    }
    ember_profile_destroy(prof);
    free(t);
    return rc;
}

int cli_run(int argc, char **argv)
{
    run_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) {
        return rc;
    }
    ember_model *m = NULL;
    ember_session_options *so = NULL;
    ember_session *s = NULL;
    ember_tensor *in[CLI_MAX_INPUTS] = {NULL}, *out[CLI_MAX_INPUTS] = {NULL};
    ember_status *st = NULL;
    rc = 0;

    double t0 = now_ms();
    cli_load ld = {o.model, (const char *const *)o.inputs, o.n_inputs, o.shapes, o.n_shapes,
                   o.optimize, !o.no_verify, o.dynamic, o.int8, o.precision, o.model_name};
    if (o.precision == EMBER_PRECISION_INT8) { /* quantized at load; the session runs it */
        st = cli_quantize_load(&ld, o.calib, o.n_calib, o.calib_cache, &m);
        o.precision = EMBER_PRECISION_FP32;
    } else if (o.n_calib > 0 || o.calib_cache != NULL) {
        rc = cli_error("--calibrate / --calibration-cache go with --precision int8");
        goto done;
    } else {
        st = cli_load_model(&ld, &m);
    }
    if (st != NULL) {
        goto done;
    }
    if (ember_model_input_count(m) > CLI_MAX_INPUTS || ember_model_output_count(m) > CLI_MAX_INPUTS) {
        rc = cli_error("%s: more than %d inputs or outputs", o.model, CLI_MAX_INPUTS);
        goto done;
    }
    if ((st = ember_session_options_create(&so)) != NULL) {
        goto done;
    }
    ember_session_options_set_threads(so, o.threads);
    ember_session_options_set_device(so, o.device);
    ember_session_options_set_precision(so, o.precision);
    ember_session_options_set_profiling(so, o.profile || o.trace != NULL);
    ember_session_options_set_memory_limit(so, o.memory_limit);
    if (o.isa != NULL && (st = ember_session_options_set_isa_max(so, o.isa)) != NULL) {
        goto done;
    }
    if ((st = ember_session_create(m, so, &s)) != NULL) {
        goto done;
    }
    if ((st = make_inputs(m, &o, in, &rc)) != NULL || rc != 0) {
        goto done;
    }
    /* Plan for these shapes now, so that load_ms holds the one-time work. */
    size_t n_in = ember_model_input_count(m);
    const int64_t *shapes[CLI_MAX_INPUTS];
    int ranks[CLI_MAX_INPUTS];
    for (size_t i = 0; i < n_in; i++) {
        shapes[i] = ember_tensor_dims(in[i]);
        ranks[i] = ember_tensor_rank(in[i]);
    }
    st = ember_session_prepare(s, shapes, ranks, n_in);
    if (ember_status_code(st) == EMBER_ERR_STATE) {
        /* An input's value decides shapes: the first run plans (its cost lands in first_ms). */
        ember_status_destroy(st);
        st = NULL;
    }
    if (st != NULL) {
        goto done;
    }
    double load_ms = now_ms() - t0;
    rc = run_loop(&o, m, s, in, out, load_ms);
done:
    if (st != NULL) {
        rc = cli_fail(st);
    }
    for (int i = 0; i < CLI_MAX_INPUTS; i++) {
        ember_tensor_destroy(in[i]);
        ember_tensor_destroy(out[i]);
    }
    ember_session_destroy(s);
    ember_session_options_destroy(so);
    ember_model_destroy(m);
    return rc;
}
