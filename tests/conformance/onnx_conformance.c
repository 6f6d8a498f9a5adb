/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ONNX backend conformance runner. For every case folder (model.onnx and
 * test_data_set_*\/{input,output}_*.pb) of the groups given on the command line, it loads the
 * model through ember.h, runs every data set and compares the outputs: floats within
 * |got - want| <= atol + rtol * |want| (default rtol 1e-3, atol 1e-5; NaN where NaN is
 * expected), integers, booleans and strings exactly. The float8 / float6 / float4 / float8e8m0 types
 * (one byte per element, ember.h) are compared by value, exactly: their values are results of
 * a rounding to a coarse grid, which the reference computes exactly (any NaN code matches
 * NaN, -0 matches 0).
 *
 * Each case runs in a child process with a time limit, so a crash or a hang is reported as a
 * failure of that case and never excused by the expected-failure list. The list (--expected)
 * is data: one line per case, `group/case  fail  reason...` or `group/case  tol RTOL ATOL
 * reason...`. A listed failing case is an expected failure; an unlisted failure, or any crash,
 * makes the exit code 1; a listed case that passes is reported so the list can shrink.
 * --write-expected FILE writes the list of the cases failing now, each with its error message.
 */
#define _POSIX_C_SOURCE 200809L
#include "ember.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_IO 64
/* Path buffers grow by level so that every snprintf provably fits. */
#define CASE_LEN 2048
#define DIR_LEN (CASE_LEN + 64)
#define FILE_LEN (DIR_LEN + 64)
#define REASON_LEN 400

/* How outputs are compared: within rtol/atol, or (random ops) by properties only. */
typedef enum { RANDOM_NO = 0, RANDOM_SET, RANDOM_SCALE } random_kind;

typedef struct tol {
    double rtol, atol;
    random_kind random;
    const ember_tensor *x0; /* the data set's input 0 (RANDOM_SCALE) */
} tol;

typedef struct expectation {
    char name[256]; /* group/case */
    char note[REASON_LEN]; /* a hand-written reason ("known: ..."), kept by --write-expected */
    bool fail;
    random_kind random; /* a random op: checked by properties (see compare_random) */
    char line[REASON_LEN + 300]; /* the entry as written: random / tol ones are kept as they are
                                  * by --write-expected while they pass */
    double rtol, atol;
    bool seen;
} expectation;

typedef struct runner {
    expectation *exp;
    size_t n_exp;
    double rtol, atol;
    int timeout_s;
    const char *filter;
    bool verbose;
    FILE *write_expected;
    bool roundtrip; /* --roundtrip: each model goes through ember_model_save_onnx first */
} runner;

static bool exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0) {
        float v = ldexpf((float)man, -24);
        return sign ? -v : v;
    }
    if (exp == 31) {
        bits = sign | 0x7f800000u | (man << 13);
    } else {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static double elem_as_double(const void *data, ember_dtype dt, int64_t i)
{
    switch (dt) {
    case EMBER_DTYPE_F32: return ((const float *)data)[i];
    case EMBER_DTYPE_F64: return ((const double *)data)[i];
    case EMBER_DTYPE_F16: return half_to_float(((const uint16_t *)data)[i]);
    case EMBER_DTYPE_BF16: {
        uint32_t bits = (uint32_t)((const uint16_t *)data)[i] << 16;
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    default: return 0.0;
    }
}

/* The value of one element (byte b) of a low-precision float type, from the format's
 * definition: sign, e_bits of exponent (bias), m_bits of mantissa, subnormals at exponent 0;
 * NaN and infinity codes as each format has them. */
static double lowp_value(ember_dtype dt, uint8_t b)
{
    int e_bits = 4, m_bits = 3, bias = 7;
    enum { IEEE, FN, FNUZ, NONE } special = FN;
    switch (dt) {
    case EMBER_DTYPE_F8E8M0: return b == 0xFF ? NAN : ldexp(1.0, (int)b - 127);
    case EMBER_DTYPE_F8E4M3FN: break;
    case EMBER_DTYPE_F8E4M3FNUZ: bias = 8, special = FNUZ; break;
    case EMBER_DTYPE_F8E5M2: e_bits = 5, m_bits = 2, bias = 15, special = IEEE; break;
    case EMBER_DTYPE_F8E5M2FNUZ: e_bits = 5, m_bits = 2, bias = 16, special = FNUZ; break;
    case EMBER_DTYPE_F4E2M1: e_bits = 2, m_bits = 1, bias = 1, special = NONE; break;
    case EMBER_DTYPE_F6E2M3: e_bits = 2, m_bits = 3, bias = 1, special = NONE; break;
    default: e_bits = 3, m_bits = 2, bias = 3, special = NONE; break; /* F6E3M2 */
    }
    const int width = 1 + e_bits + m_bits, e_max = (1 << e_bits) - 1;
    b &= (uint8_t)((1u << width) - 1);
    const bool neg = (b >> (width - 1)) & 1;
    const int e = (b >> m_bits) & e_max, m = b & ((1 << m_bits) - 1);
    if ((special == FNUZ && b == 0x80) || (special == FN && e == e_max && m == (1 << m_bits) - 1) ||
        (special == IEEE && e == e_max && m != 0)) {
        return NAN;
    }
    double v = special == IEEE && e == e_max ? INFINITY
               : e == 0 ? ldexp((double)m, 1 - bias - m_bits)
                        : ldexp(1.0 + ldexp((double)m, -m_bits), e - bias);
    return neg ? -v : v;
}

static bool is_lowp_float(ember_dtype dt)
{
    return dt == EMBER_DTYPE_F8E4M3FN || dt == EMBER_DTYPE_F8E4M3FNUZ ||
           dt == EMBER_DTYPE_F8E5M2 || dt == EMBER_DTYPE_F8E5M2FNUZ || dt == EMBER_DTYPE_F4E2M1 ||
           dt == EMBER_DTYPE_F8E8M0 || dt == EMBER_DTYPE_F6E2M3 || dt == EMBER_DTYPE_F6E3M2;
}

static bool is_float(ember_dtype dt)
{
    return dt == EMBER_DTYPE_F32 || dt == EMBER_DTYPE_F64 || dt == EMBER_DTYPE_F16 ||
           dt == EMBER_DTYPE_BF16;
}

/* Compares one output; on mismatch writes why into reason. */
/* A random op's output, checked by properties once dtype and shape match:
 *  RANDOM_SET   every value is 0 or within the values the reference produced (integer and bool
 *               outputs: in its value set): Bernoulli's 0/1, masks;
 *  RANDOM_SCALE every nonzero value is input 0's value times one common factor, the factor the
 *               reference's nonzero values show: Dropout's output in training mode.
 * Rates are checked by the kernels' unit tests on large samples. */
static bool compare_scaled(const void *g, const void *w, const ember_tensor *x0, ember_dtype dt,
                           int64_t n, int idx, char *reason)
{
    if (x0 == NULL || ember_tensor_dtype(x0) != dt || ember_tensor_elem_count(x0) != n) {
        snprintf(reason, REASON_LEN, "output %d: no input 0 of its dtype and size to scale", idx);
        return false;
    }
    const void *x = ember_tensor_data((ember_tensor *)x0);
    double scale = NAN;
    for (int64_t i = 0; i < n && isnan(scale); i++) {
        double b = elem_as_double(w, dt, i), xi = elem_as_double(x, dt, i);
        scale = b != 0 && xi != 0 ? b / xi : NAN;
    }
    for (int64_t i = 0; i < n; i++) {
        double a = elem_as_double(g, dt, i), xi = elem_as_double(x, dt, i);
        if (a == 0) {
            continue;
        }
        if (isnan(scale)) {
            scale = a / xi;
        }
        if (!(fabs(a - xi * scale) <= 1e-6 + 1e-5 * fabs(xi * scale))) {
            snprintf(reason, REASON_LEN, "output %d: element %lld (%.9g) is neither 0 nor input "
                     "0 (%.9g) times the reference's factor %.9g", idx, (long long)i, a, xi,
                     scale);
            return false;
        }
    }
    return true;
}

static bool compare_random(const void *g, const void *w, ember_dtype dt, int64_t n, int idx,
                           char *reason)
{
    for (int64_t i = 0; i < n; i++) {
        double a = elem_as_double(g, dt, i);
        bool ok = a == 0;
        double lo = INFINITY, hi = -INFINITY;
        for (int64_t j = 0; j < n && !ok; j++) {
            double b = elem_as_double(w, dt, j);
            ok = !is_float(dt) && a == b;
            lo = b < lo ? b : lo;
            hi = b > hi ? b : hi;
        }
        if (!ok && is_float(dt)) {
            ok = a >= lo - 1e-6 - 1e-5 * fabs(lo) && a <= hi + 1e-6 + 1e-5 * fabs(hi);
        }
        if (!ok) {
            snprintf(reason, REASON_LEN, "output %d: element %lld (%.9g) is outside the values a "
                     "random op may give here", idx, (long long)i, a);
            return false;
        }
    }
    return true;
}

static bool compare(const ember_tensor *got, const ember_tensor *want, tol t, int idx,
                    char *reason)
{
    double rtol = t.rtol, atol = t.atol;
    ember_dtype dt = ember_tensor_dtype(want);
    int rank = ember_tensor_rank(want);
    if (dt == EMBER_DTYPE_U16 && ember_tensor_dtype(got) == EMBER_DTYPE_BF16) {
        dt = EMBER_DTYPE_BF16; /* onnx 1.12 stores bfloat16 data as uint16 bits (see below) */
    }
    if (ember_tensor_dtype(got) != dt) {
        snprintf(reason, REASON_LEN, "output %d: dtype %s, expected %s", idx,
                 ember_dtype_name(ember_tensor_dtype(got)), ember_dtype_name(dt));
        return false;
    }
    if (ember_tensor_rank(got) != rank ||
        memcmp(ember_tensor_dims(got), ember_tensor_dims(want), sizeof(int64_t) * (size_t)rank)) {
        snprintf(reason, REASON_LEN, "output %d: shape differs (rank %d vs %d)", idx,
                 ember_tensor_rank(got), rank);
        return false;
    }
    int64_t n = ember_tensor_elem_count(want);
    const void *g = ember_tensor_data((ember_tensor *)got), *w = ember_tensor_data((ember_tensor *)want);
    if (t.random == RANDOM_SCALE && is_float(dt)) {
        return compare_scaled(g, w, t.x0, dt, n, idx, reason);
    }
    if (t.random != RANDOM_NO) {
        return compare_random(g, w, dt, n, idx, reason);
    }
    if (dt == EMBER_DTYPE_STRING) { /* exact, byte for byte */
        for (int64_t i = 0; i < n; i++) {
            const char *a = ember_tensor_string(got, i), *b = ember_tensor_string(want, i);
            if (strcmp(a, b) != 0) {
                snprintf(reason, REASON_LEN, "output %d: element %lld is \"%.80s\", expected "
                         "\"%.80s\"", idx, (long long)i, a, b);
                return false;
            }
        }
        return true;
    }
    if (is_lowp_float(dt)) {
        for (int64_t i = 0; i < n; i++) {
            double a = lowp_value(dt, ((const uint8_t *)g)[i]);
            double b = lowp_value(dt, ((const uint8_t *)w)[i]);
            if (isnan(b) ? !isnan(a) : a != b) {
                snprintf(reason, REASON_LEN, "output %d: element %lld is %.9g, expected %.9g",
                         idx, (long long)i, a, b);
                return false;
            }
        }
        return true;
    }
    if (!is_float(dt)) {
        size_t es = ember_dtype_size(dt);
        for (int64_t i = 0; i < n; i++) {
            if (memcmp((const char *)g + i * (int64_t)es, (const char *)w + i * (int64_t)es, es)) {
                snprintf(reason, REASON_LEN, "output %d: element %lld differs", idx, (long long)i);
                return false;
            }
        }
        return true;
    }
    for (int64_t i = 0; i < n; i++) {
        double a = elem_as_double(g, dt, i), b = elem_as_double(w, dt, i);
        if (isnan(b) ? !isnan(a) : (isinf(b) ? a != b : !(fabs(a - b) <= atol + rtol * fabs(b)))) {
            snprintf(reason, REASON_LEN, "output %d: element %lld is %.9g, expected %.9g", idx,
                     (long long)i, a, b);
            return false;
        }
    }
    return true;
}

/* Compares values of any kind: tensors, sequences item by item, empty optionals. */
static bool compare_value(const ember_tensor *got, const ember_tensor *want, tol t, int idx,
                          char *reason)
{
    ember_value_kind k = ember_tensor_kind(want);
    if (ember_tensor_kind(got) != k) {
        snprintf(reason, REASON_LEN, "output %d: a %s, expected a %s", idx,
                 ember_tensor_kind(got) == EMBER_VALUE_SEQUENCE ? "sequence" : "tensor or none",
                 k == EMBER_VALUE_SEQUENCE ? "sequence" : "tensor or none");
        return false;
    }
    if (k == EMBER_VALUE_NONE) {
        return true;
    }
    if (k == EMBER_VALUE_TENSOR) {
        return compare(got, want, t, idx, reason);
    }
    if (ember_sequence_length(got) != ember_sequence_length(want)) {
        snprintf(reason, REASON_LEN, "output %d: %zu items, expected %zu", idx,
                 ember_sequence_length(got), ember_sequence_length(want));
        return false;
    }
    for (size_t i = 0; i < ember_sequence_length(want); i++) {
        if (!compare(ember_sequence_item(got, i), ember_sequence_item(want, i), t, idx, reason)) {
            size_t l = strlen(reason);
            snprintf(reason + l, REASON_LEN - l, " (item %zu)", i);
            return false;
        }
    }
    return true;
}

/* Loads input_N.pb / output_N.pb as the kinds the model declares (a file does not say). */
static void load_set(const ember_model *m, const char *dir, const char *prefix, ember_tensor **t,
                     int *n, char *reason, bool *ok)
{
    *n = 0;
    for (int k = 0; k < MAX_IO && *ok; k++) {
        char path[FILE_LEN];
        snprintf(path, sizeof path, "%s/%s_%d.pb", dir, prefix, k);
        if (!exists(path)) {
            break;
        }
        bool in = prefix[0] == 'i';
        ember_type_kind kind = in ? ember_model_input_type(m, (size_t)k)
                                  : ember_model_output_type(m, (size_t)k);
        ember_status *st = ember_value_load_pb(path, kind, &t[k]);
        if (st != NULL) {
            snprintf(reason, REASON_LEN, "%s", ember_status_message(st));
            ember_status_destroy(st);
            *ok = false;
            break;
        }
        (*n)++;
        /* numpy has no bfloat16: onnx 1.12 saved bfloat16 values as UINT16 TensorProtos of the
         * same bits. Give the model the dtype it declares. */
        ember_dtype want = in ? ember_model_input_dtype(m, (size_t)k) : EMBER_DTYPE_UNDEFINED;
        if (want == EMBER_DTYPE_BF16 && ember_tensor_kind(t[k]) == EMBER_VALUE_TENSOR &&
            ember_tensor_dtype(t[k]) == EMBER_DTYPE_U16) {
            ember_tensor *bf = NULL;
            st = ember_tensor_create(EMBER_DTYPE_BF16, ember_tensor_dims(t[k]),
                                     ember_tensor_rank(t[k]), &bf);
            if (st == NULL) {
                memcpy(ember_tensor_data(bf), ember_tensor_data(t[k]), ember_tensor_nbytes(bf));
                ember_tensor_destroy(t[k]);
                t[k] = bf;
            } else {
                ember_status_destroy(st);
            }
        }
    }
}

/* --roundtrip: loads `path` at graph optimization FOLD, writes it with ember_model_save_onnx
 * to a file of this process and loads that file back (at the default level) into *m. */
static ember_status *load_roundtrip(const char *path, ember_model **m)
{
    char tmp[128];
    const char *dir = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%.80s/ember_roundtrip_%ld.onnx", dir && dir[0] ? dir : "/tmp",
             (long)getpid());
    ember_model_options *mo = NULL;
    ember_model *first = NULL;
    ember_status *st = ember_model_options_create(&mo);
    if (st == NULL) {
        st = ember_model_options_set_graph_optimization(mo, EMBER_GRAPH_OPT_FOLD);
    }
    if (st == NULL) {
        st = ember_model_load_file(path, mo, &first);
    }
    if (st == NULL) {
        st = ember_model_save_onnx(first, tmp);
    }
    if (st == NULL) {
        st = ember_model_load_file(tmp, NULL, m);
    }
    remove(tmp);
    ember_model_destroy(first);
    ember_model_options_destroy(mo);
    return st;
}

/* Runs one case in this process: true when every data set matches. */
static bool run_case(const runner *r, const char *case_dir, tol t, char *reason)
{
    char path[DIR_LEN];
    ember_model *m = NULL;
    ember_session *s = NULL;
    ember_session_options *so = NULL;
    bool ok = true;
    snprintf(path, sizeof path, "%s/model.onnx", case_dir);
    ember_status *st = r->roundtrip ? load_roundtrip(path, &m)
                                    : ember_model_load_file(path, NULL, &m);
    if (st == NULL && (st = ember_session_options_create(&so)) == NULL) {
        ember_session_options_set_threads(so, 1);
        st = ember_session_create(m, so, &s);
    }
    if (st != NULL) {
        snprintf(reason, REASON_LEN, "%s", ember_status_message(st));
        ember_status_destroy(st);
        ok = false;
    }
    for (int set = 0; ok; set++) {
        char dir[DIR_LEN];
        snprintf(dir, sizeof dir, "%s/test_data_set_%d", case_dir, set);
        if (!exists(dir)) {
            if (set == 0) {
                snprintf(reason, REASON_LEN, "no test_data_set_0");
                ok = false;
            }
            break;
        }
        ember_tensor *in[MAX_IO] = {NULL}, *want[MAX_IO] = {NULL}, *got[MAX_IO] = {NULL};
        int n_in = 0, n_want = 0;
        load_set(m, dir, "input", in, &n_in, reason, &ok);
        load_set(m, dir, "output", want, &n_want, reason, &ok);
        if (ok && (size_t)n_in != ember_model_input_count(m)) {
            snprintf(reason, REASON_LEN, "the data set has %d inputs, the model %zu", n_in,
                     ember_model_input_count(m));
            ok = false;
        }
        if (ok && (size_t)n_want != ember_model_output_count(m)) {
            snprintf(reason, REASON_LEN, "the data set has %d outputs, the model %zu", n_want,
                     ember_model_output_count(m));
            ok = false;
        }
        if (ok && (st = ember_session_run(s, in, (size_t)n_in, got, (size_t)n_want)) != NULL) {
            snprintf(reason, REASON_LEN, "%s", ember_status_message(st));
            ember_status_destroy(st);
            ok = false;
        }
        t.x0 = n_in > 0 ? in[0] : NULL;
        for (int k = 0; ok && k < n_want; k++) {
            ok = compare_value(got[k], want[k], t, k, reason);
        }
        for (int k = 0; k < MAX_IO; k++) {
            ember_tensor_destroy(in[k]);
            ember_tensor_destroy(want[k]);
            ember_tensor_destroy(got[k]);
        }
    }
    ember_session_destroy(s);
    ember_session_options_destroy(so);
    ember_model_destroy(m);
    return ok;
}

typedef enum { R_PASS, R_FAIL, R_CRASH } result;

/* Runs a case in a child with a time limit; the reason comes back through a pipe. */
static result run_isolated(const runner *r, const char *case_dir, tol t, char *reason)
{
    int fd[2];
    reason[0] = '\0';
    if (pipe(fd) != 0) {
        snprintf(reason, REASON_LEN, "pipe: %s", strerror(errno));
        return R_CRASH;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        alarm((unsigned)r->timeout_s);
        char why[REASON_LEN] = "";
        bool ok = run_case(r, case_dir, t, why);
        ssize_t w = write(fd[1], why, strlen(why));
        (void)w;
        close(fd[1]);
        _exit(ok ? 0 : 1);
    }
    close(fd[1]);
    size_t len = 0;
    ssize_t k;
    while (len + 1 < REASON_LEN && (k = read(fd[0], reason + len, REASON_LEN - 1 - len)) > 0) {
        len += (size_t)k;
    }
    reason[len] = '\0';
    close(fd[0]);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        snprintf(reason, REASON_LEN, "could not run the case");
        return R_CRASH;
    }
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        if (sig == SIGALRM) {
            snprintf(reason, REASON_LEN, "timed out after %d s", r->timeout_s);
        } else {
            snprintf(reason, REASON_LEN, "crashed: signal %d (%s)", sig, strsignal(sig));
        }
        return R_CRASH;
    }
    return WEXITSTATUS(status) == 0 ? R_PASS : R_FAIL;
}

static int load_expected(runner *r, const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "onnx_conformance: %s: %s\n", path, strerror(errno));
        return -1;
    }
    char line[1024];
    size_t cap = r->n_exp; /* a second list appends: the array is full */
    int lineno = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        lineno++;
        char name[256], kind[16];
        if (line[0] == '#' || sscanf(line, "%255s %15s", name, kind) != 2) {
            continue;
        }
        if (r->n_exp == cap) {
            cap = cap ? cap * 2 : 256;
            expectation *e = realloc(r->exp, cap * sizeof *e);
            if (e == NULL) {
                fclose(f);
                return -1;
            }
            r->exp = e;
        }
        expectation *e = &r->exp[r->n_exp];
        memset(e, 0, sizeof *e);
        snprintf(e->name, sizeof e->name, "%s", name);
        snprintf(e->line, sizeof e->line, "%.*s", (int)strcspn(line, "\n"), line);
        if (strcmp(kind, "fail") == 0) {
            e->fail = true;
            const char *known = strstr(line, "known: ");
            if (known != NULL) {
                snprintf(e->note, sizeof e->note, "%.*s", (int)strcspn(known, "\n"), known);
            }
        } else if (strcmp(kind, "random") == 0) {
            char prop[16] = "";
            sscanf(line, "%*s %*s %15s", prop);
            e->random = strcmp(prop, "scale") == 0 ? RANDOM_SCALE : RANDOM_SET;
        } else if (strcmp(kind, "tol") != 0 ||
                   sscanf(line, "%*s %*s %lf %lf", &e->rtol, &e->atol) != 2) {
            fprintf(stderr, "onnx_conformance: %s:%d: expected 'fail', 'random' or 'tol RTOL ATOL'\n",
                    path, lineno);
            fclose(f);
            return -1;
        }
        r->n_exp++;
    }
    fclose(f);
    return 0;
}

static expectation *find_expected(runner *r, const char *name)
{
    for (size_t i = 0; i < r->n_exp; i++) {
        if (strcmp(r->exp[i].name, name) == 0) {
            return &r->exp[i];
        }
    }
    return NULL;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct counts {
    int pass, fail, xfail, xpass, crash;
} counts;

static void run_group(runner *r, const char *dir, counts *total)
{
    const char *group = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "onnx_conformance: %s: %s\n", dir, strerror(errno));
        total->fail++;
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' || (r->filter && !strstr(de->d_name, r->filter))) {
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            names = realloc(names, cap * sizeof *names);
        }
        names[n++] = strdup(de->d_name);
    }
    closedir(d);
    if (n > 0) {
        qsort(names, n, sizeof *names, cmp_str);
    }
    counts c = {0};
    for (size_t i = 0; i < n; i++) {
        char case_dir[CASE_LEN], full[512], reason[REASON_LEN], model[DIR_LEN];
        snprintf(case_dir, sizeof case_dir, "%s/%s", dir, names[i]);
        snprintf(model, sizeof model, "%s/model.onnx", case_dir);
        if (!exists(model)) {
            continue;
        }
        snprintf(full, sizeof full, "%s/%s", group, names[i]);
        expectation *e = find_expected(r, full);
        tol t = {r->rtol, r->atol, e != NULL ? e->random : RANDOM_NO, NULL};
        if (e != NULL && !e->fail && !e->random) {
            t.rtol = e->rtol;
            t.atol = e->atol;
        }
        result res = run_isolated(r, case_dir, t, reason);
        if (e != NULL) {
            e->seen = true;
        }
        const char *tag;
        if (res == R_CRASH) {
            c.crash++;
            tag = "CRASH";
        } else if (res == R_PASS) {
            c.pass++;
            tag = e && e->fail ? "XPASS" : "PASS";
            c.xpass += e && e->fail;
        } else if (e && e->fail) {
            c.xfail++;
            tag = "XFAIL";
        } else {
            c.fail++;
            tag = "FAIL";
        }
        char *at = strstr(reason, case_dir); /* "<case_dir>/model.onnx" -> "model.onnx" */
        if (at != NULL) {
            size_t cut = strlen(case_dir) + 1;
            memmove(at, at + cut, strlen(at + cut) + 1);
        }
        if (res == R_PASS && r->write_expected != NULL && e != NULL && !e->fail) {
            fprintf(r->write_expected, "%s\n", e->line);
        }
        if (res != R_PASS && r->write_expected != NULL) {
            for (char *p = reason; *p; p++) {
                if (*p == '\n') {
                    *p = ' ';
                }
            }
            fprintf(r->write_expected, "%-60s fail  %s\n", full,
                    e != NULL && e->note[0] ? e->note : reason);
        }
        bool quiet = strcmp(tag, "PASS") == 0 || strcmp(tag, "XFAIL") == 0;
        if (r->verbose || !quiet) {
            printf("%-6s %s%s%s\n", tag, full, reason[0] ? ": " : "", reason);
        }
        free(names[i]);
    }
    free(names);
    printf("%s: %d passed, %d failed (%d expected failures, %d crashed, %d newly passing)\n",
           group, c.pass, c.fail + c.crash, c.xfail, c.crash, c.xpass);
    total->pass += c.pass;
    total->fail += c.fail;
    total->xfail += c.xfail;
    total->xpass += c.xpass;
    total->crash += c.crash;
}

int main(int argc, char **argv)
{
    runner r = {NULL, 0, 1e-3, 1e-5, 60, NULL, false, NULL, false};
    int first_dir = argc;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--expected") == 0 && i + 1 < argc) {
            if (load_expected(&r, argv[++i]) != 0) {
                return 2;
            }
        } else if (strcmp(argv[i], "--write-expected") == 0 && i + 1 < argc) {
            r.write_expected = fopen(argv[++i], "w");
            if (r.write_expected == NULL) {
                fprintf(stderr, "onnx_conformance: %s: %s\n", argv[i], strerror(errno));
                return 2;
            }
        } else if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc) {
            r.filter = argv[++i];
        } else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) {
            r.timeout_s = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--verbose") == 0) {
            r.verbose = true;
        } else if (strcmp(argv[i], "--roundtrip") == 0) {
            r.roundtrip = true;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: onnx_conformance [--expected FILE] [--write-expected FILE] "
                            "[--filter TEXT] [--timeout S] [--verbose] [--roundtrip] "
                            "GROUP_DIR...\n");
            return 2;
        } else {
            first_dir = i;
            break;
        }
    }
    counts total = {0};
    for (int i = first_dir; i < argc; i++) {
        run_group(&r, argv[i], &total);
    }
    if (r.write_expected != NULL) {
        fclose(r.write_expected);
    }
    for (size_t i = 0; i < r.n_exp; i++) {
        if (!r.exp[i].seen && r.filter == NULL) {
            printf("note: %s is listed but was not found\n", r.exp[i].name);
        }
    }
    free(r.exp);
    printf("conformance: %d passed, %d failed\n", total.pass, total.fail + total.crash);
    return total.fail + total.crash > 0 ? 1 : 0;
}
