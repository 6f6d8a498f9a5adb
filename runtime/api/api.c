/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ember.h: versions, build info, options, models and tensors. Sessions are in session.c.
 * Models are told apart by content: each entry of the loader table (loaders.h) is asked in
 * turn whether the file's first bytes are its format.
 */
#define _POSIX_C_SOURCE 200809L
#include "api/api_internal.h"

#include "core/alloc.h"
#include "plan/backends.h"
#include "build_config.h"
#include "exec/interp.h"
#include "plan/kernel.h"
#include "plan/planner.h"
#include "core/lowp.h"
#include "passes/passes.h"
#include "plan/fold.h"
#include "core/status.h"
#include "core/file_write.h"

#include "api/loaders.h"
#include "loaders/npy/npy.h"
#include "loaders/onnx/onnx_write.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR2(x) #x
#define STR(x) STR2(x)

const char *ember_version_string(void)
{
    return STR(EMBER_VERSION_MAJOR) "." STR(EMBER_VERSION_MINOR) "." STR(EMBER_VERSION_PATCH);
}

int ember_version_number(void) { return EMBER_VERSION_NUMBER; }

static pthread_once_t info_once = PTHREAD_ONCE_INIT;
static char build_info[512];

static void build_info_make(void)
{
    char isa[256], loaders[128];
    em_isa_list(em_cpu_features(), isa, sizeof isa);
    em_loader_list("npy", loaders, sizeof loaders);
    snprintf(build_info, sizeof build_info,
             "version=%s arch=%s compiler=%s build=%s isa=%s backends=cpu,%s loaders=%s "
             "cuda=%s cuda_devices=%d",
             ember_version_string(), EMBER_BUILD_SYSTEM_PROCESSOR, EMBER_BUILD_COMPILER,
             EMBER_BUILD_TYPE, isa, em_registry_backends(), loaders, em_backend_cuda_info(),
             em_backend_cuda_devices());
}

const char *ember_build_info(void)
{
    pthread_once(&info_once, build_info_make);
    return build_info;
}

/* ---- argument checks ---- */

ember_status *em_api_null_arg(const char *fn, const char *what)
{
    return em_status_new(EMBER_ERR_INVALID_ARG, "%s: NULL %s", fn, what);
}

bool em_api_dtype_known(ember_dtype dt)
{
    return dt == EMBER_DTYPE_UNDEFINED || em_dtype_valid(dt);
}

/* ---- model options ---- */

ember_status *ember_model_options_create(ember_model_options **out)
{
    if (out == NULL) {
        return em_api_null_arg("model_options_create", "out");
    }
    *out = calloc(1, sizeof **out);
    return *out == NULL ? em_status_oom() : NULL;
}

void ember_model_options_destroy(ember_model_options *opts)
{
    if (opts == NULL) {
        return;
    }
    for (size_t i = 0; i < opts->n_shapes; i++) {
        free(opts->shapes[i].name);
    }
    for (size_t i = 0; i < opts->n_dim_fixes; i++) {
        free(opts->dim_fixes[i].name);
    }
    free(opts->model_name);
    free(opts);
}

/* The slot of shape fix (name, index) in opts: the one given before, or a new one (NULL with
 * *st set when the table is full or a name cannot be copied). */
static em_shape_fix *shape_slot(ember_model_options *opts, const char *fn, const char *name,
                                size_t index, ember_status **st)
{
    for (size_t i = 0; i < opts->n_shapes; i++) {
        em_shape_fix *f = &opts->shapes[i];
        if (name != NULL ? f->name != NULL && strcmp(f->name, name) == 0
                         : f->name == NULL && f->index == index) {
            return f;
        }
    }
    if (opts->n_shapes == EM_MAX_SHAPE_FIXES) {
        *st = em_status_new(EMBER_ERR_INVALID_ARG, "%s: more than %d fixed input shapes", fn,
                            EM_MAX_SHAPE_FIXES);
        return NULL;
    }
    em_shape_fix *f = &opts->shapes[opts->n_shapes];
    memset(f, 0, sizeof *f);
    if (name != NULL && (f->name = strdup(name)) == NULL) {
        *st = em_status_oom();
        return NULL;
    }
    f->index = index;
    opts->n_shapes++;
    return f;
}

static ember_status *set_shape(ember_model_options *opts, const char *fn, const char *name,
                               size_t index, const int64_t *dims, int rank)
{
    if (opts == NULL) {
        return em_api_null_arg(fn, "options");
    }
    if (rank < 0 || rank > EMBER_MAX_RANK) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "%s: rank %d is out of range 0..%d", fn,
                             rank, EMBER_MAX_RANK);
    }
    if (dims == NULL && rank > 0) {
        return em_api_null_arg(fn, "dims");
    }
    for (int d = 0; d < rank; d++) {
        if (dims[d] < -1) {
            return em_status_new(EMBER_ERR_INVALID_ARG, "%s: dim %d is %lld (a size >= 0, or -1 "
                                 "to leave it as the model declares it)", fn, d,
                                 (long long)dims[d]);
        }
    }
    ember_status *st = NULL;
    em_shape_fix *f = shape_slot(opts, fn, name, index, &st);
    if (f != NULL) {
        f->rank = rank;
        for (int d = 0; d < rank; d++) {
            f->dims[d] = dims[d];
        }
    }
    return st;
}

ember_status *ember_model_options_set_input_shape(ember_model_options *opts, const char *name,
                                                  const int64_t *dims, int rank)
{
    static const char fn[] = "model_options_set_input_shape";
    if (opts != NULL && (name == NULL || name[0] == '\0')) {
        return name == NULL ? em_api_null_arg(fn, "name")
                            : em_status_new(EMBER_ERR_INVALID_ARG, "%s: empty name", fn);
    }
    return set_shape(opts, fn, name, 0, dims, rank);
}

ember_status *ember_model_options_set_input_shape_at(ember_model_options *opts, size_t index,
                                                     const int64_t *dims, int rank)
{
    return set_shape(opts, "model_options_set_input_shape_at", NULL, index, dims, rank);
}

ember_status *ember_model_options_set_dim_value(ember_model_options *opts, const char *dim_name,
                                                int64_t value)
{
    static const char fn[] = "model_options_set_dim_value";
    if (opts == NULL || dim_name == NULL) {
        return em_api_null_arg(fn, opts == NULL ? "options" : "dim_name");
    }
    if (dim_name[0] == '\0' || value < 0) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "%s: %s", fn,
                             value < 0 ? "a negative size" : "empty dim_name");
    }
    for (size_t i = 0; i < opts->n_dim_fixes; i++) {
        if (strcmp(opts->dim_fixes[i].name, dim_name) == 0) {
            opts->dim_fixes[i].value = value;
            return NULL;
        }
    }
    if (opts->n_dim_fixes == EM_MAX_SHAPE_FIXES) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "%s: more than %d fixed dims", fn,
                             EM_MAX_SHAPE_FIXES);
    }
    em_dim_fix *f = &opts->dim_fixes[opts->n_dim_fixes];
    if ((f->name = strdup(dim_name)) == NULL) {
        return em_status_oom();
    }
    f->value = value;
    opts->n_dim_fixes++;
    return NULL;
}

ember_status *ember_model_options_set_model_name(ember_model_options *opts, const char *name)
{
    static const char fn[] = "model_options_set_model_name";
    if (opts == NULL || name == NULL) {
        return em_api_null_arg(fn, opts == NULL ? "options" : "name");
    }
    if (name[0] == '\0') {
        return em_status_new(EMBER_ERR_INVALID_ARG, "%s: empty name", fn);
    }
    char *copy = strdup(name);
    if (copy == NULL) {
        return em_status_oom();
    }
    free(opts->model_name);
    opts->model_name = copy;
    return NULL;
}

ember_status *ember_model_options_set_input_rank(ember_model_options *opts, size_t index,
                                                 ember_dtype dtype, int rank)
{
    static const char fn[] = "model_options_set_input_rank";
    if (opts == NULL) {
        return em_api_null_arg(fn, "options");
    }
    if (index >= EM_MAX_INPUT_SPECS) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "%s: index %zu is out of range 0..%d", fn,
                             index, EM_MAX_INPUT_SPECS - 1);
    }
    if (!em_api_dtype_known(dtype)) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "%s: dtype %d is not an ember_dtype", fn,
                             (int)dtype);
    }
    if (rank < -1 || rank > EMBER_MAX_RANK) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "%s: rank %d is out of range -1..%d", fn,
                             rank, EMBER_MAX_RANK);
    }
    opts->input_dtype[index] = dtype;
    opts->input_rank[index] = rank;
    opts->input_set[index] = true;
    if (index >= opts->n_inputs) {
        opts->n_inputs = index + 1;
    }
    return NULL;
}

ember_status *ember_model_options_set_graph_optimization(ember_model_options *opts,
                                                         ember_graph_opt level)
{
    if (opts == NULL) {
        return em_api_null_arg("model_options_set_graph_optimization", "options");
    }
    if (level != EMBER_GRAPH_OPT_NONE && level != EMBER_GRAPH_OPT_BASIC &&
        level != EMBER_GRAPH_OPT_ALL && level != EMBER_GRAPH_OPT_FOLD) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "model_options_set_graph_optimization: unknown level %d, not an "
                             "ember_graph_opt (levels: NONE 0, BASIC 1, ALL 2, FOLD 3)",
                             (int)level);
    }
    opts->graph_opt = level;
    opts->has_graph_opt = true;
    return NULL;
}

ember_status *ember_model_options_set_int8(ember_model_options *opts, ember_int8_mode mode)
{
    if (opts == NULL) {
        return em_api_null_arg("model_options_set_int8", "options");
    }
    if (mode != EMBER_INT8_AUTO && mode != EMBER_INT8_ON && mode != EMBER_INT8_OFF) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "model_options_set_int8: unknown mode %d, not an ember_int8_mode "
                             "(AUTO 0, ON 1, OFF 2)",
                             (int)mode);
    }
    opts->int8 = mode;
    return NULL;
}

ember_status *ember_model_options_set_precision(ember_model_options *opts, ember_precision p)
{
    if (opts == NULL) {
        return em_api_null_arg("model_options_set_precision", "options");
    }
    if (p == EMBER_PRECISION_INT8) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "model_options_set_precision: int8 weights come from the quantizer "
                             "(ember_quantize_*), not from a load option");
    }
    if (p != EMBER_PRECISION_FP32 && p != EMBER_PRECISION_FP16 && p != EMBER_PRECISION_BF16) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "model_options_set_precision: %d is not an ember_precision "
                             "(FP32 0, FP16 1, BF16 3)",
                             (int)p);
    }
    opts->precision = p;
    return NULL;
}

ember_status *ember_model_options_set_verify_checksums(ember_model_options *opts, bool verify)
{
    if (opts == NULL) {
        return em_api_null_arg("model_options_set_verify_checksums", "options");
    }
    opts->trust_checksums = !verify;
    return NULL;
}

void ember_model_options_set_allocator(ember_model_options *opts, const ember_allocator *alloc)
{
    if (opts == NULL) {
        return;
    }
    opts->has_alloc = alloc != NULL;
    if (alloc != NULL) {
        opts->alloc = *alloc;
    }
}

void ember_model_options_set_log(ember_model_options *opts, ember_log_fn fn, void *ctx,
                                 ember_log_level max_level)
{
    if (opts != NULL) {
        opts->log = fn;
        opts->log_ctx = ctx;
        opts->log_level = max_level;
    }
}

void em_model_log(const ember_model *m, ember_log_level level, const char *fmt, ...)
{
    if (m->log == NULL || level > m->log_level) {
        return;
    }
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    m->log(m->log_ctx, level, msg);
}

/* ---- models ---- */

static ember_status *model_new(const ember_model_options *opts, ember_model **out)
{
    const ember_allocator *ual = opts != NULL && opts->has_alloc ? &opts->alloc : NULL;
    ember_model *m = em_calloc(ual, 1, sizeof *m);
    if (m == NULL) {
        return em_status_oom();
    }
    if (ual != NULL) {
        m->alloc = *ual;
        m->al = &m->alloc;
    }
    m->graph_opt = opts != NULL && opts->has_graph_opt ? opts->graph_opt : EMBER_GRAPH_OPT_ALL;
    /* AUTO: off until int8 kernels beat the fp32 path on some CPU (VNNI / AMX; issue #19) */
    m->int8 = opts != NULL && opts->int8 == EMBER_INT8_ON;
    m->precision = opts != NULL ? opts->precision : EMBER_PRECISION_FP32;
    if (opts != NULL) {
        m->log = opts->log;
        m->log_ctx = opts->log_ctx;
        m->log_level = opts->log_level;
    }
    pthread_mutex_init(&m->plan_mu, NULL);
    ember_status *st = em_graph_new(m->al, &m->g);
    if (st == NULL) {
        st = em_pack_cache_new(m->al, &m->packs);
    }
    if (st != NULL) {
        em_graph_destroy(m->g);
        pthread_mutex_destroy(&m->plan_mu);
        em_free(m->al, m);
        return st;
    }
    *out = m;
    return NULL;
}

void ember_model_destroy(ember_model *m)
{
    if (m == NULL) {
        return;
    }
    em_pack_cache_destroy(m->packs); /* its sessions were destroyed before; kept packs go */
    em_graph_destroy(m->g);
    pthread_mutex_destroy(&m->plan_mu);
    em_storage_release(m->bytes);
    for (size_t i = 0; m->opset_domains != NULL && i < m->n_opsets; i++) {
        em_free(m->al, m->opset_domains[i]);
    }
    em_free(m->al, m->opset_domains);
    for (size_t i = 0; i < 3 * m->n_int8_notes; i++) {
        em_free(m->al, m->int8_notes[i]);
    }
    em_free(m->al, m->int8_notes);
    em_free(m->al, m->opset_versions);
    ember_allocator al = m->alloc;
    em_free(m->al != NULL ? &al : NULL, m);
    em_heap_trim();
}

/* The int8 rewrite's note callback: appends (node, int8_op, why) to the model's notes. */
typedef struct int8_notes {
    ember_model *m;
    bool oom;
} int8_notes;

static void int8_note(void *ctx, const char *node, const char *int8_op, const char *why)
{
    int8_notes *t = ctx;
    ember_model *m = t->m;
    if (t->oom) {
        return;
    }
    char **p = em_realloc(m->al, m->int8_notes, 3 * (m->n_int8_notes + 1) * sizeof *p);
    if (p == NULL) {
        t->oom = true;
        return;
    }
    m->int8_notes = p;
    const char *s[3] = {node != NULL ? node : "", int8_op, why};
    for (int k = 0; k < 3; k++) {
        p[3 * m->n_int8_notes + k] = s[k] != NULL ? em_strdup(m->al, s[k]) : NULL;
        t->oom = t->oom || (s[k] != NULL && p[3 * m->n_int8_notes + k] == NULL);
    }
    m->n_int8_notes++;
}

/* Large packed weights held in half (ember_model_options_set_precision; passes_half.c): the
 * precision asked for, rounding; else a half model's own format, only where exact. */
static ember_status *hold_half(ember_model *m, ember_dtype model_half)
{
    ember_precision p = m->precision;
    ember_dtype half = p == EMBER_PRECISION_FP16   ? EMBER_DTYPE_F16
                       : p == EMBER_PRECISION_BF16 ? EMBER_DTYPE_BF16
                                                   : model_half;
    m->half_weights = half;
    m->drop_half = p == EMBER_PRECISION_FP16 || p == EMBER_PRECISION_BF16;
    if (half == EMBER_DTYPE_UNDEFINED) {
        return NULL;
    }
    ember_status *st =
        em_pass_weights_to_half(m->g, half, p == EMBER_PRECISION_FP32, &m->n_half_weights);
    if (st == NULL && m->n_half_weights > 0) {
        st = em_graph_infer_shapes(m->g);
    }
    return st;
}

static ember_status *model_finish(ember_model *m)
{
    ember_dtype model_half = EMBER_DTYPE_UNDEFINED;
    ember_status *st = em_graph_verify(m->g);
    if (st == NULL) {
        st = em_graph_infer_shapes(m->g);
        model_half = em_pass_half_weights_dtype(m->g);
    }
    if (st == NULL) { /* f16 / bf16 regions -> fp32 compute, before the fp32 passes */
        int n = m->g->n_nodes;
        st = em_pass_half_to_f32(m->g);
        if (st == NULL && n != m->g->n_nodes) {
            st = em_graph_infer_shapes(m->g);
        }
    }
    if (st == NULL) {
        em_passes_options po = em_passes_level(m->graph_opt);
        po.eval = em_plan_eval_const;
        int8_notes t = {m, false};
        const em_passes_extra x = {m->int8, int8_note, &t};
        st = em_passes_run_extra(m->g, &po, &x);
        if (st == NULL && t.oom) {
            st = em_status_oom();
        }
    }
    if (st == NULL) {
        st = hold_half(m, model_half);
    }
    if (st == NULL) { /* e.g. the weights that Conv+BatchNorm folding replaced */
        st = em_graph_drop_unused_image(m->g, m->bytes);
    }
    return st;
}

/* The load arguments of `opts` (may be NULL) that do not depend on the image. */
static em_load_args load_args(const ember_model_options *opts)
{
    em_load_args a = {0};
    if (opts != NULL) {
        a.trust_checksums = opts->trust_checksums;
        a.shapes = opts->shapes;
        a.n_shapes = opts->n_shapes;
        a.dim_fixes = opts->dim_fixes;
        a.n_dim_fixes = opts->n_dim_fixes;
        a.model_name = opts->model_name;
    }
    return a;
}

ember_status *ember_model_load_builtin(const char *name, const ember_model_options *opts,
                                       ember_model **out)
{
    ember_status *st = NULL;
    ember_model *m = NULL;
    if (out == NULL) {
        return em_api_null_arg("model_load_builtin", "out");
    }
    *out = NULL;
    if (name != NULL && strcmp(name, "default") != 0 && strcmp(name, "mnist") != 0) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "model_load_builtin: no built-in model named '%s' (there is: "
                             "default)", name);
    }
    EMBER_TRY(model_new(opts, &m));
    m->format = "builtin";
    EMBER_TRY(em_builtin_default(m->g));
    em_load_args args = load_args(opts);
    EMBER_TRY(em_load_fix_graph(&args, "builtin:default", m->g));
    EMBER_TRY(model_finish(m));
    *out = m;
    return NULL;
fail:
    ember_model_destroy(m);
    return st;
}

/* Identifies the format of a model image and hands it to its loader. `path` is NULL for a
 * model from memory. */
static ember_status *load_image(ember_model *m, const char *path)
{
    const char *what = path != NULL ? path : "<memory>";
    const unsigned char *d = em_storage_data(m->bytes);
    size_t n = em_storage_size(m->bytes);
    const em_loader *ld = em_loader_for(d, n);
    if (ld == NULL) {
        char kinds[256];
        return em_status_new(EMBER_ERR_INVALID_MODEL, "%s: not a model ember knows (not %s)",
                             what, em_loader_kinds(kinds, sizeof kinds));
    }
    if (ld->load == NULL) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: %s; this build has no loader for it (%s)",
                             what, ld->kind, ld->missing);
    }
    em_input_spec spec[EM_MAX_INPUT_SPECS];
    size_t n_spec = m->opts != NULL ? m->opts->n_inputs : 0;
    for (size_t i = 0; i < n_spec; i++) {
        bool set = m->opts->input_set[i];
        spec[i].dtype = set ? m->opts->input_dtype[i] : EMBER_DTYPE_UNDEFINED;
        spec[i].rank = set ? m->opts->input_rank[i] : -1;
    }
    em_load_args args = load_args(m->opts);
    args.image = m->bytes;
    args.path = path;
    args.inputs = spec;
    args.n_inputs = n_spec;
    em_load_info info = {0};
    ember_status *st = ld->load(&args, m->g, &info);
    if (st == NULL) { /* the model owns info's arrays from here, also if the fixes fail */
        m->format = ld->name;
        m->n_opsets = info.n_opsets;
        m->opset_domains = info.opset_domains;
        m->opset_versions = info.opset_versions;
        st = em_load_fix_graph(&args, what, m->g);
    }
    return st;
}

ember_status *ember_model_load_file(const char *path, const ember_model_options *opts,
                                    ember_model **out)
{
    ember_status *st = NULL;
    ember_model *m = NULL;
    if (out == NULL) {
        return em_api_null_arg("model_load_file", "out");
    }
    *out = NULL;
    if (path == NULL) {
        return em_api_null_arg("model_load_file", "path");
    }
    EMBER_TRY(model_new(opts, &m));
    EMBER_TRY(em_storage_new_mmap(m->al, path, &m->bytes));
    m->opts = opts;
    EMBER_TRY(load_image(m, path));
    m->opts = NULL;
    EMBER_TRY(model_finish(m));
    *out = m;
    return NULL;
fail:
    ember_model_destroy(m);
    return st;
}

ember_status *ember_model_load_memory(const void *data, size_t size, unsigned flags,
                                      const ember_model_options *opts, ember_model **out)
{
    ember_status *st = NULL;
    ember_model *m = NULL;
    if (out == NULL) {
        return em_api_null_arg("model_load_memory", "out");
    }
    *out = NULL;
    if (data == NULL && size > 0) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "model_load_memory: NULL data of size %zu",
                             size);
    }
    if ((flags & ~EMBER_LOAD_BORROW) != 0) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "model_load_memory: unknown flags 0x%x (EMBER_LOAD_BORROW is 0x1)",
                             flags & ~EMBER_LOAD_BORROW);
    }
    EMBER_TRY(model_new(opts, &m));
    if (flags & EMBER_LOAD_BORROW) {
        EMBER_TRY(em_storage_new_borrowed(m->al, (void *)data, size, &m->bytes));
    } else {
        EMBER_TRY(em_storage_new_owned(m->al, size, &m->bytes));
        if (size > 0) {
            memcpy(em_storage_data(m->bytes), data, size);
        }
    }
    m->opts = opts;
    EMBER_TRY(load_image(m, NULL));
    m->opts = NULL;
    EMBER_TRY(model_finish(m));
    *out = m;
    return NULL;
fail:
    ember_model_destroy(m);
    return st;
}

const char *ember_model_format(const ember_model *m) { return m != NULL ? m->format : NULL; }

size_t ember_model_input_count(const ember_model *m)
{
    return m != NULL ? (size_t)m->g->n_inputs : 0;
}

size_t ember_model_output_count(const ember_model *m)
{
    return m != NULL ? (size_t)m->g->n_outputs : 0;
}

/* Input or output i of the model; NULL for a NULL model or i out of range. */
static const em_value *io_value(const ember_model *m, size_t i, bool input)
{
    if (m == NULL) {
        return NULL;
    }
    const em_graph *g = m->g;
    if (input) {
        return i < (size_t)g->n_inputs ? &g->values[g->inputs[i]] : NULL;
    }
    return i < (size_t)g->n_outputs ? &g->values[g->outputs[i]] : NULL;
}

const char *ember_model_input_name(const ember_model *m, size_t i)
{
    const em_value *v = io_value(m, i, true);
    return v ? v->name : NULL;
}

const char *ember_model_output_name(const ember_model *m, size_t i)
{
    const em_value *v = io_value(m, i, false);
    return v ? v->name : NULL;
}

ember_dtype ember_model_input_dtype(const ember_model *m, size_t i)
{
    const em_value *v = io_value(m, i, true);
    return v ? v->dtype : EMBER_DTYPE_UNDEFINED;
}

ember_dtype ember_model_output_dtype(const ember_model *m, size_t i)
{
    const em_value *v = io_value(m, i, false);
    return v ? v->dtype : EMBER_DTYPE_UNDEFINED;
}

static int value_shape(const em_value *v, int64_t *dims, int cap)
{
    if (v == NULL || v->rank < 0) {
        return -1;
    }
    for (int d = 0; dims != NULL && d < v->rank && d < cap; d++) {
        dims[d] = v->dims[d].v;
    }
    return v->rank;
}

int ember_model_input_shape(const ember_model *m, size_t i, int64_t *dims, int cap)
{
    return value_shape(io_value(m, i, true), dims, cap);
}

int ember_model_output_shape(const ember_model *m, size_t i, int64_t *dims, int cap)
{
    return value_shape(io_value(m, i, false), dims, cap);
}

static const char *dim_name(const ember_model *m, const em_value *v, int d)
{
    if (v == NULL || d < 0 || d >= v->rank || v->dims[d].sym <= 0) {
        return NULL;
    }
    return m->g->sym_names[v->dims[d].sym - 1];
}

const char *ember_model_input_dim_name(const ember_model *m, size_t i, int d)
{
    return dim_name(m, io_value(m, i, true), d);
}

const char *ember_model_output_dim_name(const ember_model *m, size_t i, int d)
{
    return dim_name(m, io_value(m, i, false), d);
}

size_t ember_model_node_count(const ember_model *m)
{
    return m != NULL ? (size_t)m->g->n_nodes : 0;
}

const char *ember_model_node_op(const ember_model *m, size_t i)
{
    return m != NULL && i < (size_t)m->g->n_nodes ? em_op_name(m->g->nodes[i].op) : NULL;
}

const char *ember_model_node_name(const ember_model *m, size_t i)
{
    return m != NULL && i < (size_t)m->g->n_nodes ? m->g->nodes[i].name : NULL;
}

size_t ember_model_int8_note_count(const ember_model *m)
{
    return m != NULL ? m->n_int8_notes : 0;
}

bool ember_model_int8_note(const ember_model *m, size_t i, const char **node, const char **int8_op,
                           const char **why)
{
    if (m == NULL || i >= m->n_int8_notes) {
        return false;
    }
    char *const *p = &m->int8_notes[3 * i];
    if (node != NULL) {
        *node = p[0];
    }
    if (int8_op != NULL) {
        *int8_op = p[1];
    }
    if (why != NULL) {
        *why = p[2];
    }
    return true;
}

int64_t ember_model_param_count(const ember_model *m)
{
    return m != NULL ? em_graph_param_count(m->g) : 0;
}

size_t ember_model_weight_bytes(const ember_model *m, ember_dtype dt)
{
    size_t total = 0;
    for (int v = 0; m != NULL && v < m->g->n_values; v++) {
        const em_value *x = &m->g->values[v];
        if (x->kind == EM_VAL_INITIALIZER && x->init.dtype == dt) {
            total += em_tensor_nbytes(&x->init);
        }
    }
    return total;
}

ember_status *ember_model_graph_text(const ember_model *m, char **text)
{
    if (text == NULL) {
        return em_api_null_arg("model_graph_text", "text");
    }
    *text = NULL;
    if (m == NULL) {
        return em_api_null_arg("model_graph_text", "model");
    }
    return em_graph_to_text(m->g, text);
}

bool em_model_drop_half(void *ctx, int v)
{
    ember_model *m = ctx;
    em_value *x = &m->g->values[v];
    size_t f32_bytes = sizeof(float) * (size_t)em_tensor_numel(&x->init);
    if (!m->drop_half || x->init.data == NULL || !em_pack_cache_keep(m->packs, x, f32_bytes)) {
        return false;
    }
    em_storage_release(x->storage);
    x->storage = NULL;
    x->init.data = NULL;
    return true;
}

ember_status *em_model_restore_half(const ember_model *cm)
{
    ember_model *m = (ember_model *)cm; /* the bytes come back; the model's values do not change */
    ember_status *st = NULL;
    pthread_mutex_lock(&m->plan_mu);
    for (int v = 0; st == NULL && v < m->g->n_values; v++) {
        em_value *x = &m->g->values[v];
        if (x->kind != EM_VAL_INITIALIZER || x->init.data != NULL || x->storage != NULL ||
            (x->dtype != EMBER_DTYPE_F16 && x->dtype != EMBER_DTYPE_BF16)) {
            continue;
        }
        size_t n = (size_t)em_tensor_numel(&x->init);
        float *w = em_malloc(m->al, sizeof(float) * (n > 0 ? n : 1));
        em_storage *h = NULL;
        st = w == NULL ? em_status_oom() : em_storage_new_owned(m->al, sizeof(uint16_t) * n, &h);
        if (st == NULL && !em_pack_cache_unpack(m->packs, x, sizeof(float) * n, w)) {
            st = em_status_new(EMBER_ERR_INTERNAL, "weight '%s': no pack gives it back", x->name);
        }
        if (st == NULL) {
            em_f32_to_half_n(x->dtype, w, em_storage_data(h), n); /* exact: half values */
            x->storage = h;
            x->init.data = em_storage_data(h);
            h = NULL;
        }
        em_storage_release(h);
        em_free(m->al, w);
    }
    pthread_mutex_unlock(&m->plan_mu);
    return st;
}

ember_status *ember_model_save_onnx(const ember_model *m, const char *path)
{
    if (m == NULL || path == NULL) {
        return em_api_null_arg("model_save_onnx", m == NULL ? "model" : "path");
    }
    EM_RETURN_IF_ERROR(em_model_restore_half(m));
    em_onnx_write_opts o = {0};
    for (size_t i = 0; i < m->n_opsets; i++) {
        const char *d = m->opset_domains[i];
        if (d[0] == '\0' || strcmp(d, "ai.onnx") == 0) {
            o.source_opset = m->opset_versions[i];
        }
    }
    return em_onnx_write_file(m->g, path, &o);
}

/* ---- tensors ---- */

ember_status *em_api_check_shape(const char *fn, ember_dtype dt, const int64_t *dims, int rank,
                                 size_t *nbytes)
{
    em_tensor t = {0};
    if (dt == EMBER_DTYPE_UNDEFINED) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "%s: dtype EMBER_DTYPE_UNDEFINED (0) has no "
                             "elements", fn);
    }
    if (!em_dtype_valid(dt)) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "%s: dtype %d is not an ember_dtype", fn,
                             (int)dt);
    }
    if (rank < 0 || rank > EMBER_MAX_RANK) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "%s: rank %d is out of range 0..%d", fn, rank,
                             EMBER_MAX_RANK);
    }
    if (rank > 0 && dims == NULL) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "%s: NULL dims with rank %d", fn, rank);
    }
    em_tensor_set_shape(&t, dt, dims, rank);
    if (!em_tensor_nbytes_checked(&t, nbytes)) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "%s: negative or overflowing dims", fn);
    }
    return NULL;
}

ember_status *em_tensor_new_owned(const ember_allocator *al, ember_dtype dt, const int64_t *dims,
                                  int rank, ember_tensor **out)
{
    size_t nbytes;
    ember_status *st = em_api_check_shape("tensor", dt, dims, rank, &nbytes);
    if (st != NULL) {
        return st;
    }
    ember_tensor *t = em_calloc(al, 1, sizeof *t);
    if (t == NULL) {
        return em_status_oom();
    }
    if (al != NULL) {
        t->alloc = *al;
        t->al = &t->alloc;
    }
    em_tensor_set_shape(&t->t, dt, dims, rank);
    t->nbytes = nbytes;
    t->owned = true;
    t->t.data = em_big_alloc(t->al, nbytes, true);
    if (t->t.data == NULL) {
        em_free(al, t);
        return em_status_oom();
    }
    *out = t;
    return NULL;
}

ember_status *ember_tensor_create(ember_dtype dtype, const int64_t *dims, int rank,
                                  ember_tensor **out)
{
    size_t nbytes;
    if (out == NULL) {
        return em_api_null_arg("tensor_create", "out");
    }
    *out = NULL;
    ember_status *st = em_api_check_shape("tensor_create", dtype, dims, rank, &nbytes);
    return st != NULL ? st : em_tensor_new_owned(NULL, dtype, dims, rank, out);
}

ember_status *ember_tensor_wrap(ember_dtype dtype, const int64_t *dims, int rank, void *data,
                                size_t nbytes, ember_tensor **out)
{
    size_t need;
    if (out == NULL) {
        return em_api_null_arg("tensor_wrap", "out");
    }
    *out = NULL;
    ember_status *st = em_api_check_shape("tensor_wrap", dtype, dims, rank, &need);
    if (st != NULL) {
        return st;
    }
    if (data == NULL && (nbytes > 0 || need > 0)) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "tensor_wrap: NULL data (nbytes %zu, the shape needs %zu)", nbytes,
                             need);
    }
    if (nbytes != need) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "tensor_wrap: %zu bytes given, the shape needs %zu", nbytes, need);
    }
    ember_tensor *t = calloc(1, sizeof *t);
    if (t == NULL) {
        return em_status_oom();
    }
    em_tensor_set_shape(&t->t, dtype, dims, rank);
    t->t.data = data;
    t->nbytes = nbytes;
    *out = t;
    return NULL;
}

void ember_tensor_destroy(ember_tensor *t)
{
    if (t == NULL) {
        return;
    }
    ember_allocator al = t->alloc;
    const ember_allocator *a = t->al != NULL ? &al : NULL;
    for (size_t i = 0; i < t->n_items; i++) {
        ember_tensor_destroy(t->items[i]);
    }
    em_free(a, t->items);
    em_storage_release(t->keep);
    if (t->owned) {
        em_big_free(a, t->t.data, t->nbytes);
        em_free(a, t);
    } else {
        free(t);
    }
}

ember_dtype ember_tensor_dtype(const ember_tensor *t)
{
    return t != NULL ? t->t.dtype : EMBER_DTYPE_UNDEFINED;
}

int ember_tensor_rank(const ember_tensor *t) { return t != NULL ? t->t.rank : -1; }
const int64_t *ember_tensor_dims(const ember_tensor *t) { return t != NULL ? t->t.dims : NULL; }

int64_t ember_tensor_elem_count(const ember_tensor *t)
{
    return t != NULL ? em_tensor_numel(&t->t) : 0;
}

size_t ember_tensor_nbytes(const ember_tensor *t) { return t != NULL ? t->nbytes : 0; }
void *ember_tensor_data(ember_tensor *t) { return t != NULL ? t->t.data : NULL; }

ember_status *ember_tensor_load_npy_memory(const void *data, size_t size, const char *what,
                                           ember_tensor **out)
{
    em_tensor shape = {0};
    em_storage *s = NULL;
    ember_tensor *t = NULL;
    if (out == NULL) {
        return em_api_null_arg("tensor_load_npy_memory", "out");
    }
    *out = NULL;
    if (data == NULL && size > 0) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "tensor_load_npy_memory: NULL data of size %zu", size);
    }
    ember_status *st = em_npy_read(data, size, what, NULL, &shape, &s);
    if (st != NULL) {
        return st;
    }
    st = em_tensor_new_owned(NULL, shape.dtype, shape.dims, shape.rank, &t);
    if (st == NULL && t->nbytes > 0) {
        memcpy(t->t.data, em_storage_data(s), t->nbytes);
    }
    if (st == NULL && shape.dtype == EMBER_DTYPE_STRING) {
        t->keep = em_storage_retain(s); /* a packed string storage: the bytes follow */
    }
    em_storage_release(s);
    *out = t;
    return st;
}

ember_status *ember_tensor_load_npy(const char *path, ember_tensor **out)
{
    em_storage *s = NULL;
    if (out == NULL) {
        return em_api_null_arg("tensor_load_npy", "out");
    }
    *out = NULL;
    if (path == NULL) {
        return em_api_null_arg("tensor_load_npy", "path");
    }
    ember_status *st = em_storage_new_mmap(NULL, path, &s);
    if (st != NULL) {
        return st;
    }
    st = ember_tensor_load_npy_memory(em_storage_data(s), em_storage_size(s), path, out);
    em_storage_release(s);
    return st;
}

ember_status *ember_tensor_save_npy(const ember_tensor *t, const char *path)
{
    void *buf = NULL;
    size_t n = 0;
    if (t == NULL || path == NULL) {
        return em_api_null_arg("tensor_save_npy", t == NULL ? "tensor" : "path");
    }
    if (t->kind != EMBER_VALUE_TENSOR) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "tensor_save_npy: the handle is %s, not a tensor (.npy holds one "
                             "array; ember_value_save_pb writes sequences and optionals)",
                             t->kind == EMBER_VALUE_SEQUENCE ? "a sequence" : "an empty optional");
    }
    ember_status *st = em_npy_write(&t->t, &buf, &n);
    if (st != NULL) {
        return st;
    }
    st = em_api_write_file(path, buf, n);
    free(buf);
    return st;
}

ember_status *em_api_write_file(const char *path, const void *data, size_t n)
{
    return em_write_file_atomic(path, data, n); /* whole or not at all */
}

/* ---- ONNX tensors and opsets ---- */

/* Moves an em_storage holding exactly a tensor's bytes into a new owned ember_tensor. */
static ember_status *tensor_from_storage(const em_tensor *shape, em_storage *s,
                                         ember_tensor **out)
{
    ember_tensor *t = NULL;
    ember_status *st = em_tensor_new_owned(NULL, shape->dtype, shape->dims, shape->rank, &t);
    if (st == NULL && t->nbytes > 0) {
        memcpy(t->t.data, em_storage_data(s), t->nbytes);
    }
    if (st == NULL && shape->dtype == EMBER_DTYPE_STRING) {
        t->keep = em_storage_retain(s); /* a packed string storage: the bytes follow */
    }
    *out = t;
    return st;
}

static ember_status *tensor_load_pb(const void *data, size_t size, const char *what,
                                    const char *path, ember_tensor **out)
{
    const em_loader *onnx = em_loader_named("onnx");
    if (onnx == NULL || onnx->read_tensor == NULL) {
        return em_status_new(EMBER_ERR_UNSUPPORTED,
                             "%s: an ONNX TensorProto; this build has no ONNX loader",
                             what != NULL ? what : "<memory>");
    }
    em_tensor shape = {0};
    em_storage *s = NULL;
    ember_status *st = onnx->read_tensor(data, size, what, path, NULL, &shape, &s);
    if (st == NULL) {
        st = tensor_from_storage(&shape, s, out);
    }
    em_storage_release(s);
    return st;
}

ember_status *ember_tensor_load_pb_memory(const void *data, size_t size, const char *what,
                                          ember_tensor **out)
{
    if (out == NULL) {
        return em_api_null_arg("tensor_load_pb_memory", "out");
    }
    *out = NULL;
    if (data == NULL && size > 0) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "tensor_load_pb_memory: NULL data of size %zu", size);
    }
    return tensor_load_pb(data, size, what, NULL, out);
}

/* Maps `path` and reads it as .npy (npy true), .pb (false) or by content (pick true). `fn`
 * names the public function in argument errors. */
static ember_status *tensor_load_file(const char *fn, const char *path, bool pick, bool npy,
                                      ember_tensor **out)
{
    em_storage *s = NULL;
    if (out == NULL) {
        return em_api_null_arg(fn, "out");
    }
    *out = NULL;
    if (path == NULL) {
        return em_api_null_arg(fn, "path");
    }
    ember_status *st = em_storage_new_mmap(NULL, path, &s);
    if (st != NULL) {
        return st;
    }
    const void *d = em_storage_data(s);
    size_t n = em_storage_size(s);
    if (pick) {
        npy = n >= 6 && memcmp(d, "\x93NUMPY", 6) == 0;
    }
    st = npy ? ember_tensor_load_npy_memory(d, n, path, out)
             : tensor_load_pb(d, n, path, path, out);
    em_storage_release(s);
    return st;
}

ember_status *ember_tensor_load_pb(const char *path, ember_tensor **out)
{
    return tensor_load_file("tensor_load_pb", path, false, false, out);
}

ember_status *ember_tensor_load(const char *path, ember_tensor **out)
{
    return tensor_load_file("tensor_load", path, true, false, out);
}

size_t ember_model_metadata_count(const ember_model *m)
{
    return m != NULL ? (size_t)m->g->n_meta : 0;
}

bool ember_model_metadata(const ember_model *m, size_t i, const char **key, const char **value)
{
    if (m == NULL || i >= (size_t)m->g->n_meta) {
        return false;
    }
    if (key != NULL) {
        *key = m->g->meta_keys[i];
    }
    if (value != NULL) {
        *value = m->g->meta_vals[i];
    }
    return true;
}

size_t ember_model_opset_count(const ember_model *m) { return m != NULL ? m->n_opsets : 0; }

bool ember_model_opset(const ember_model *m, size_t i, const char **domain, int64_t *version)
{
    if (m == NULL || i >= m->n_opsets) {
        return false;
    }
    if (domain != NULL) {
        *domain = m->opset_domains[i];
    }
    if (version != NULL) {
        *version = m->opset_versions[i];
    }
    return true;
}

/* Sequence and optional files (the rest of the value API is in api_value.c). */
ember_status *ember_value_load_pb(const char *path, ember_type_kind kind, ember_tensor **out)
{
    if (out == NULL) {
        return em_api_null_arg("value_load_pb", "out");
    }
    *out = NULL;
    if (path == NULL) {
        return em_api_null_arg("value_load_pb", "path");
    }
    if ((unsigned)kind > EMBER_TYPE_OPTIONAL_SEQUENCE) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "value_load_pb: kind %d is not an ember_type_kind", (int)kind);
    }
    if (kind == EMBER_TYPE_TENSOR) {
        return ember_tensor_load_pb(path, out);
    }
    const em_loader *onnx = em_loader_named("onnx");
    if (onnx == NULL || onnx->read_value == NULL) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: an ONNX value; this build has no ONNX "
                             "loader", path);
    }
    em_storage *s = NULL;
    em_rv v = {0};
    ember_status *st = em_storage_new_mmap(NULL, path, &s);
    if (st != NULL) {
        return st;
    }
    em_vtype vt = kind == EMBER_TYPE_SEQUENCE   ? EM_VT_SEQUENCE
                  : kind == EMBER_TYPE_OPTIONAL ? EM_VT_OPTIONAL
                                                : EM_VT_OPTIONAL_SEQUENCE;
    st = onnx->read_value(em_storage_data(s), em_storage_size(s), path, vt, NULL, &v);
    if (st == NULL) {
        st = em_api_value_from_rv(NULL, &v, out);
    }
    em_rv_clear(NULL, &v);
    em_storage_release(s);
    return st;
}
