/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libtriton_ember.so: a Triton Inference Server backend that runs models with ember
 * (TRITONBACKEND API; triton_api.h says which version and where the declarations come from).
 *
 * Model repository: <repo>/<model>/config.pbtxt and <repo>/<model>/<version>/<file>, the file
 * being config's `default_model_filename` or the first of model.onnx, model.pt, model.pt2
 * that exists (ember tells the format by content). config.pbtxt `parameters` (string values):
 *   threads   compute threads of each instance's session (default 0: one per core)
 *   precision fp32 (default) | fp16 | bf16: weights held in that format (ember run --precision)
 *   device    cpu | cuda: overrides the instance group's kind (KIND_GPU means cuda)
 * One ember model per Triton model (ModelInitialize), one ember session per instance
 * (ModelInstanceInitialize); sessions run concurrently, so instance_group count > 1 scales.
 *
 * Execute: every request is checked on its own (inputs by name, missing / unknown / repeated
 * inputs, datatype mapping, byte sizes, CPU memory) and a bad one gets its own error response
 * carrying ember's or the backend's one-line message; the others still run. Dynamic batching
 * (max_batch_size > 0): the requests of one Execute call whose inputs agree in dtype and in
 * every dim but the first are concatenated along dim 0 and run once; each output is split back
 * along dim 0 by each request's batch size. If that run fails, or an output's first dim is not
 * the total batch, the group is run again request by request, so each request gets its own
 * result or error (string inputs and outputs are not batched). Inputs in one CPU buffer are
 * wrapped without copying. BYTES tensors are ember string tensors, in Triton's layout (a 4-byte
 * little-endian length before each element).
 */
#define _POSIX_C_SOURCE 200809L

#include "triton_api.h"

#include <ember.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "json.h"

#define EM_TRITON_MSG 1024

/* ---- errors and logging ---- */

static TRITONSERVER_Error *em_errf(TRITONSERVER_Error_Code code, const char *fmt, ...)
{
    char msg[EM_TRITON_MSG];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return TRITONSERVER_ErrorNew(code, msg);
}

static TRITONSERVER_Error_Code em_code(ember_code c)
{
    switch (c) {
    case EMBER_ERR_INVALID_ARG:
        return TRITONSERVER_ERROR_INVALID_ARG;
    case EMBER_ERR_UNSUPPORTED:
        return TRITONSERVER_ERROR_UNSUPPORTED;
    case EMBER_ERR_IO:
        return TRITONSERVER_ERROR_NOT_FOUND;
    case EMBER_ERR_OUT_OF_MEMORY:
        return TRITONSERVER_ERROR_UNAVAILABLE;
    case EMBER_ERR_INVALID_MODEL:
        return TRITONSERVER_ERROR_INVALID_ARG;
    default:
        return TRITONSERVER_ERROR_INTERNAL;
    }
}

/* A Triton error carrying ember's message (prefixed by `what` when given); frees `st`. */
static TRITONSERVER_Error *em_from_status(ember_status *st, const char *what)
{
    TRITONSERVER_Error *e =
        what ? em_errf(em_code(ember_status_code(st)), "%s: %s", what, ember_status_message(st))
             : TRITONSERVER_ErrorNew(em_code(ember_status_code(st)), ember_status_message(st));
    ember_status_destroy(st);
    return e;
}

static void em_log(TRITONSERVER_LogLevel level, int line, const char *fmt, ...)
{
    if (!TRITONSERVER_LogIsEnabled(level)) {
        return;
    }
    char msg[EM_TRITON_MSG];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    TRITONSERVER_Error *e = TRITONSERVER_LogMessage(level, __FILE__, line, msg);
    if (e) {
        TRITONSERVER_ErrorDelete(e);
    }
}

#define EM_RETURN_IF_ERROR(x)                                                                      \
    do {                                                                                           \
        TRITONSERVER_Error *em_e_ = (x);                                                           \
        if (em_e_) {                                                                               \
            return em_e_;                                                                          \
        }                                                                                          \
    } while (0)

static uint64_t em_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- datatypes ---- */

static const struct {
    TRITONSERVER_DataType triton;
    ember_dtype ember;
    const char *config; /* the model configuration's data_type */
} em_types[] = {
    {TRITONSERVER_TYPE_BOOL, EMBER_DTYPE_BOOL, "TYPE_BOOL"},
    {TRITONSERVER_TYPE_UINT8, EMBER_DTYPE_U8, "TYPE_UINT8"},
    {TRITONSERVER_TYPE_UINT16, EMBER_DTYPE_U16, "TYPE_UINT16"},
    {TRITONSERVER_TYPE_UINT32, EMBER_DTYPE_U32, "TYPE_UINT32"},
    {TRITONSERVER_TYPE_UINT64, EMBER_DTYPE_U64, "TYPE_UINT64"},
    {TRITONSERVER_TYPE_INT8, EMBER_DTYPE_I8, "TYPE_INT8"},
    {TRITONSERVER_TYPE_INT16, EMBER_DTYPE_I16, "TYPE_INT16"},
    {TRITONSERVER_TYPE_INT32, EMBER_DTYPE_I32, "TYPE_INT32"},
    {TRITONSERVER_TYPE_INT64, EMBER_DTYPE_I64, "TYPE_INT64"},
    {TRITONSERVER_TYPE_FP16, EMBER_DTYPE_F16, "TYPE_FP16"},
    {TRITONSERVER_TYPE_FP32, EMBER_DTYPE_F32, "TYPE_FP32"},
    {TRITONSERVER_TYPE_FP64, EMBER_DTYPE_F64, "TYPE_FP64"},
    {TRITONSERVER_TYPE_BF16, EMBER_DTYPE_BF16, "TYPE_BF16"},
    {TRITONSERVER_TYPE_BYTES, EMBER_DTYPE_STRING, "TYPE_STRING"},
};
#define EM_N_TYPES (sizeof em_types / sizeof em_types[0])

static ember_dtype em_dtype_from_triton(TRITONSERVER_DataType t)
{
    for (size_t i = 0; i < EM_N_TYPES; i++) {
        if (em_types[i].triton == t) {
            return em_types[i].ember;
        }
    }
    return EMBER_DTYPE_UNDEFINED;
}

static TRITONSERVER_DataType em_dtype_to_triton(ember_dtype d)
{
    for (size_t i = 0; i < EM_N_TYPES; i++) {
        if (em_types[i].ember == d) {
            return em_types[i].triton;
        }
    }
    return TRITONSERVER_TYPE_INVALID;
}

static const char *em_config_type(ember_dtype d)
{
    for (size_t i = 0; i < EM_N_TYPES; i++) {
        if (em_types[i].ember == d) {
            return em_types[i].config;
        }
    }
    return "(none)";
}

/* ---- the model: one per Triton model ---- */

typedef struct em_triton_model {
    char name[256];
    char path[4096];
    ember_model *model;
    int64_t max_batch; /* config max_batch_size: > 0 means inputs carry the batch dim */
    int threads;
    ember_precision precision;
    int device; /* -1: from the instance kind; else an ember_device */
    size_t n_in, n_out;
} em_triton_model;

typedef struct em_triton_instance {
    em_triton_model *m;
    ember_session *session;
    char name[256];
} em_triton_instance;

/* A config parameter's string_value (NULL when absent). */
static const char *em_param(const em_tj *config, const char *key)
{
    const em_tj *p = em_tj_get(em_tj_get(config, "parameters"), key);
    const em_tj *v = em_tj_get(p, "string_value");
    return (v && v->kind == EM_TJ_STRING) ? v->string : NULL;
}

static bool em_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static TRITONSERVER_Error *em_read_params(em_triton_model *m, const em_tj *config)
{
    const em_tj *mb = em_tj_get(config, "max_batch_size");
    m->max_batch = (mb && mb->kind == EM_TJ_NUMBER) ? (int64_t)mb->number : 0;
    m->threads = 0;
    m->precision = EMBER_PRECISION_FP32;
    m->device = -1;
    const char *v = em_param(config, "threads");
    if (v) {
        char *end = NULL;
        long t = strtol(v, &end, 10);
        if (!*v || *end || t < 0 || t > 1024) {
            return em_errf(TRITONSERVER_ERROR_INVALID_ARG,
                           "model '%s': config.pbtxt parameter threads '%s' is not a number "
                           "from 0 to 1024",
                           m->name, v);
        }
        m->threads = (int)t;
    }
    v = em_param(config, "precision");
    if (v) {
        if (strcmp(v, "fp32") == 0) {
            m->precision = EMBER_PRECISION_FP32;
        } else if (strcmp(v, "fp16") == 0) {
            m->precision = EMBER_PRECISION_FP16;
        } else if (strcmp(v, "bf16") == 0) {
            m->precision = EMBER_PRECISION_BF16;
        } else {
            return em_errf(TRITONSERVER_ERROR_INVALID_ARG,
                           "model '%s': config.pbtxt parameter precision '%s': expected fp32, "
                           "fp16 or bf16 (int8: quantize the model with `ember quantize`)",
                           m->name, v);
        }
    }
    v = em_param(config, "device");
    if (v) {
        if (strcmp(v, "cpu") == 0) {
            m->device = EMBER_DEVICE_CPU;
        } else if (strcmp(v, "cuda") == 0) {
            m->device = EMBER_DEVICE_CUDA;
        } else {
            return em_errf(TRITONSERVER_ERROR_INVALID_ARG,
                           "model '%s': config.pbtxt parameter device '%s': expected cpu or cuda",
                           m->name, v);
        }
    }
    return NULL;
}

static TRITONSERVER_Error *em_find_file(em_triton_model *m, const char *repo, uint64_t version,
                                        const em_tj *config)
{
    const em_tj *dflt = em_tj_get(config, "default_model_filename");
    if (dflt && dflt->kind == EM_TJ_STRING && dflt->string[0]) {
        snprintf(m->path, sizeof m->path, "%s/%llu/%s", repo, (unsigned long long)version,
                 dflt->string);
        if (!em_file_exists(m->path)) {
            return em_errf(TRITONSERVER_ERROR_NOT_FOUND,
                           "model '%s': %s (default_model_filename) does not exist", m->name,
                           m->path);
        }
        return NULL;
    }
    static const char *const names[] = {"model.onnx", "model.pt", "model.pt2"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(m->path, sizeof m->path, "%s/%llu/%s", repo, (unsigned long long)version,
                 names[i]);
        if (em_file_exists(m->path)) {
            return NULL;
        }
    }
    return em_errf(TRITONSERVER_ERROR_NOT_FOUND,
                   "model '%s': no model.onnx, model.pt or model.pt2 in %s/%llu (or set "
                   "default_model_filename in config.pbtxt)",
                   m->name, repo, (unsigned long long)version);
}

/* Checks config.pbtxt's input / output lists, where given, against the loaded model. */
static TRITONSERVER_Error *em_check_io(const em_triton_model *m, const em_tj *config, bool input)
{
    const em_tj *list = em_tj_get(config, input ? "input" : "output");
    if (!list || list->kind != EM_TJ_ARRAY) {
        return NULL;
    }
    size_t n = input ? m->n_in : m->n_out;
    for (size_t k = 0; k < list->count; k++) {
        const em_tj *name = em_tj_get(&list->items[k], "name");
        const em_tj *type = em_tj_get(&list->items[k], "data_type");
        if (!name || name->kind != EM_TJ_STRING) {
            continue;
        }
        size_t i = 0;
        while (i < n && strcmp(input ? ember_model_input_name(m->model, i)
                                     : ember_model_output_name(m->model, i),
                               name->string) != 0) {
            i++;
        }
        if (i == n) {
            return em_errf(TRITONSERVER_ERROR_INVALID_ARG,
                           "model '%s': config.pbtxt %s '%s' is not an %s of %s", m->name,
                           input ? "input" : "output", name->string, input ? "input" : "output",
                           m->path);
        }
        ember_dtype d =
            input ? ember_model_input_dtype(m->model, i) : ember_model_output_dtype(m->model, i);
        if (type && type->kind == EM_TJ_STRING && strcmp(type->string, em_config_type(d)) != 0) {
            return em_errf(TRITONSERVER_ERROR_INVALID_ARG,
                           "model '%s': config.pbtxt %s '%s' has data_type %s, the model's is %s",
                           m->name, input ? "input" : "output", name->string, type->string,
                           em_config_type(d));
        }
    }
    return NULL;
}

static TRITONSERVER_Error *em_load(em_triton_model *m, const em_tj *config)
{
    ember_model_options *mo = NULL;
    ember_status *st = ember_model_options_create(&mo);
    if (!st && m->precision != EMBER_PRECISION_FP32) {
        st = ember_model_options_set_precision(mo, m->precision);
    }
    if (!st) {
        st = ember_model_load_file(m->path, mo, &m->model);
    }
    ember_model_options_destroy(mo);
    if (st) {
        char what[4400];
        snprintf(what, sizeof what, "model '%s'", m->name);
        return em_from_status(st, what);
    }
    m->n_in = ember_model_input_count(m->model);
    m->n_out = ember_model_output_count(m->model);
    for (size_t i = 0; i < m->n_in + m->n_out; i++) {
        bool in = i < m->n_in;
        size_t j = in ? i : i - m->n_in;
        ember_type_kind kind =
            in ? ember_model_input_type(m->model, j) : ember_model_output_type(m->model, j);
        ember_dtype d =
            in ? ember_model_input_dtype(m->model, j) : ember_model_output_dtype(m->model, j);
        if (kind != EMBER_TYPE_TENSOR || em_dtype_to_triton(d) == TRITONSERVER_TYPE_INVALID) {
            return em_errf(
                TRITONSERVER_ERROR_UNSUPPORTED,
                "model '%s': %s '%s' is a %s of %s: this backend carries dense "
                "tensors of numeric and bool dtypes only",
                m->name, in ? "input" : "output",
                in ? ember_model_input_name(m->model, j) : ember_model_output_name(m->model, j),
                kind == EMBER_TYPE_TENSOR ? "tensor" : "sequence or optional", ember_dtype_name(d));
        }
    }
    EM_RETURN_IF_ERROR(em_check_io(m, config, true));
    return em_check_io(m, config, false);
}

static void em_model_free(em_triton_model *m)
{
    if (m) {
        ember_model_destroy(m->model);
        free(m);
    }
}

/* ---- backend, model and instance lifecycle ---- */

TRITONBACKEND_ISPEC TRITONSERVER_Error *TRITONBACKEND_Initialize(TRITONBACKEND_Backend *backend)
{
    const char *name = NULL;
    EM_RETURN_IF_ERROR(TRITONBACKEND_BackendName(backend, &name));
    uint32_t major = 0, minor = 0;
    EM_RETURN_IF_ERROR(TRITONBACKEND_ApiVersion(&major, &minor));
    if (major != TRITONBACKEND_API_VERSION_MAJOR || minor < TRITONBACKEND_API_VERSION_MINOR) {
        return em_errf(TRITONSERVER_ERROR_UNSUPPORTED,
                       "backend '%s': the server's TRITONBACKEND API is %u.%u; this backend was "
                       "built for %d.%d (same major, minor at least that)",
                       name ? name : "ember", major, minor, TRITONBACKEND_API_VERSION_MAJOR,
                       TRITONBACKEND_API_VERSION_MINOR);
    }
    em_log(TRITONSERVER_LOG_INFO, __LINE__, "backend '%s': ember %s (%s), TRITONBACKEND API %u.%u",
           name ? name : "ember", ember_version_string(), ember_build_info(), major, minor);
    return NULL;
}

TRITONBACKEND_ISPEC TRITONSERVER_Error *TRITONBACKEND_Finalize(TRITONBACKEND_Backend *backend)
{
    (void)backend;
    return NULL;
}

TRITONBACKEND_ISPEC TRITONSERVER_Error *TRITONBACKEND_ModelInitialize(TRITONBACKEND_Model *model)
{
    const char *name = NULL, *repo = NULL;
    uint64_t version = 0;
    TRITONBACKEND_ArtifactType art;
    EM_RETURN_IF_ERROR(TRITONBACKEND_ModelName(model, &name));
    EM_RETURN_IF_ERROR(TRITONBACKEND_ModelVersion(model, &version));
    EM_RETURN_IF_ERROR(TRITONBACKEND_ModelRepository(model, &art, &repo));
    if (art != TRITONBACKEND_ARTIFACT_FILESYSTEM) {
        return em_errf(TRITONSERVER_ERROR_UNSUPPORTED,
                       "model '%s': the ember backend reads model repositories on a file system",
                       name);
    }
    TRITONSERVER_Message *msg = NULL;
    EM_RETURN_IF_ERROR(TRITONBACKEND_ModelConfig(model, 1, &msg));
    const char *json = NULL;
    size_t json_len = 0;
    TRITONSERVER_Error *err = TRITONSERVER_MessageSerializeToJson(msg, &json, &json_len);
    char jerr[256];
    em_tj *config = err ? NULL : em_tj_parse(json, json_len, jerr, sizeof jerr);
    if (!err && !config) {
        err = em_errf(TRITONSERVER_ERROR_INVALID_ARG, "model '%s': its configuration: %s", name,
                      jerr);
    }
    em_triton_model *m = NULL;
    if (!err && !(m = calloc(1, sizeof *m))) {
        err = TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_UNAVAILABLE, "out of memory");
    }
    if (!err) {
        snprintf(m->name, sizeof m->name, "%s", name);
        err = em_read_params(m, config);
    }
    if (!err) {
        err = em_find_file(m, repo, version, config);
    }
    if (!err) {
        err = em_load(m, config);
    }
    if (!err) {
        err = TRITONBACKEND_ModelSetState(model, m);
    }
    em_tj_free(config);
    TRITONSERVER_Error *e2 = TRITONSERVER_MessageDelete(msg);
    if (e2) {
        TRITONSERVER_ErrorDelete(e2);
    }
    if (err) {
        em_model_free(m);
        return err;
    }
    em_log(TRITONSERVER_LOG_INFO, __LINE__,
           "model '%s' version %llu: %s (%s), %zu inputs, %zu outputs, max_batch_size %lld", name,
           (unsigned long long)version, m->path, ember_model_format(m->model), m->n_in, m->n_out,
           (long long)m->max_batch);
    return NULL;
}

TRITONBACKEND_ISPEC TRITONSERVER_Error *TRITONBACKEND_ModelFinalize(TRITONBACKEND_Model *model)
{
    void *state = NULL;
    EM_RETURN_IF_ERROR(TRITONBACKEND_ModelState(model, &state));
    em_model_free(state);
    return NULL;
}

TRITONBACKEND_ISPEC TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceInitialize(TRITONBACKEND_ModelInstance *instance)
{
    const char *name = NULL;
    TRITONBACKEND_Model *model = NULL;
    TRITONSERVER_InstanceGroupKind kind;
    int32_t device_id = 0;
    void *state = NULL;
    EM_RETURN_IF_ERROR(TRITONBACKEND_ModelInstanceName(instance, &name));
    EM_RETURN_IF_ERROR(TRITONBACKEND_ModelInstanceKind(instance, &kind));
    EM_RETURN_IF_ERROR(TRITONBACKEND_ModelInstanceDeviceId(instance, &device_id));
    EM_RETURN_IF_ERROR(TRITONBACKEND_ModelInstanceModel(instance, &model));
    EM_RETURN_IF_ERROR(TRITONBACKEND_ModelState(model, &state));
    em_triton_model *m = state;
    ember_device dev = m->device >= 0                               ? (ember_device)m->device
                       : kind == TRITONSERVER_INSTANCEGROUPKIND_GPU ? EMBER_DEVICE_CUDA
                                                                    : EMBER_DEVICE_CPU;
    if (dev == EMBER_DEVICE_CUDA && device_id != 0) {
        return em_errf(TRITONSERVER_ERROR_UNSUPPORTED,
                       "instance '%s': ember's sessions run on CUDA device 0 only (the C API has "
                       "no device index); this instance asks for GPU %d",
                       name, (int)device_id);
    }
    em_triton_instance *inst = calloc(1, sizeof *inst);
    if (!inst) {
        return TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_UNAVAILABLE, "out of memory");
    }
    inst->m = m;
    snprintf(inst->name, sizeof inst->name, "%s", name);
    ember_session_options *so = NULL;
    ember_status *st = ember_session_options_create(&so);
    if (!st) {
        ember_session_options_set_threads(so, m->threads);
        ember_session_options_set_precision(so, m->precision);
        ember_session_options_set_device(so, dev);
        st = ember_session_create(m->model, so, &inst->session);
    }
    ember_session_options_destroy(so);
    if (st) {
        free(inst);
        char what[300];
        snprintf(what, sizeof what, "instance '%s'", name);
        return em_from_status(st, what);
    }
    TRITONSERVER_Error *err = TRITONBACKEND_ModelInstanceSetState(instance, inst);
    if (err) {
        ember_session_destroy(inst->session);
        free(inst);
        return err;
    }
    em_log(TRITONSERVER_LOG_INFO, __LINE__, "instance '%s': %s, %d threads", name,
           dev == EMBER_DEVICE_CUDA ? "cuda" : "cpu", ember_session_thread_count(inst->session));
    return NULL;
}

TRITONBACKEND_ISPEC TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceFinalize(TRITONBACKEND_ModelInstance *instance)
{
    void *state = NULL;
    EM_RETURN_IF_ERROR(TRITONBACKEND_ModelInstanceState(instance, &state));
    em_triton_instance *inst = state;
    if (inst) {
        ember_session_destroy(inst->session);
        free(inst);
    }
    return NULL;
}

/* ---- execution ---- */

/* One request's inputs, in the model's input order, and what came of it. */
typedef struct em_job {
    TRITONBACKEND_Request *request;
    TRITONBACKEND_Response *response;
    TRITONSERVER_Error *error; /* set once the request has failed */
    ember_tensor **in;         /* n_in handles (wrapping the request's buffer or a copy) */
    void **copies;             /* n_in: the gathered copy of a multi-buffer input, or NULL */
    ember_tensor **out;        /* n_out: what a run produced for this request, or NULL */
    size_t *want;              /* the outputs the request asks for (all when it names none) */
    uint32_t n_want;
    int64_t batch; /* dim 0 of the inputs when the model batches */
    int group;     /* batching group; -1: runs alone */
} em_job;

static void em_job_clear(em_job *j, size_t n_in, size_t n_out)
{
    for (size_t i = 0; j->in && i < n_in; i++) {
        ember_tensor_destroy(j->in[i]);
        free(j->copies[i]);
    }
    for (size_t i = 0; j->out && i < n_out; i++) {
        ember_tensor_destroy(j->out[i]);
    }
    free(j->in);
    free(j->copies);
    free(j->out);
    free(j->want);
    j->in = j->out = NULL;
    j->copies = NULL;
    j->want = NULL;
}

static size_t em_model_input_index(const em_triton_model *m, const char *name)
{
    for (size_t i = 0; i < m->n_in; i++) {
        if (strcmp(ember_model_input_name(m->model, i), name) == 0) {
            return i;
        }
    }
    return m->n_in;
}

/* Reads `n` bytes of the input's buffers (CPU memory) into one malloc'ed block. */
static TRITONSERVER_Error *em_read_all(const em_triton_model *m, TRITONBACKEND_Input *input,
                                       const char *name, uint64_t n, uint32_t nbuf, char **out)
{
    char *all = malloc(n ? n : 1);
    if (!all) {
        return TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_UNAVAILABLE, "out of memory");
    }
    uint64_t off = 0;
    for (uint32_t b = 0; b < nbuf; b++) {
        const void *buf = NULL;
        uint64_t size = 0;
        TRITONSERVER_MemoryType mt = TRITONSERVER_MEMORY_CPU;
        int64_t mt_id = 0;
        TRITONSERVER_Error *e = TRITONBACKEND_InputBuffer(input, b, &buf, &size, &mt, &mt_id);
        if (!e && mt == TRITONSERVER_MEMORY_GPU) {
            e = em_errf(TRITONSERVER_ERROR_UNSUPPORTED,
                        "model '%s': input '%s' is in GPU memory; the ember backend takes CPU "
                        "inputs",
                        m->name, name);
        }
        if (!e && size > n - off) {
            e = em_errf(TRITONSERVER_ERROR_INVALID_ARG,
                        "model '%s': input '%s': its buffers hold more than its byte size", m->name,
                        name);
        }
        if (e) {
            free(all);
            return e;
        }
        if (size) {
            memcpy(all + off, buf, size);
        }
        off += size;
    }
    if (off != n) {
        free(all);
        return em_errf(TRITONSERVER_ERROR_INVALID_ARG,
                       "model '%s': input '%s': its buffers hold %llu bytes, not %llu", m->name,
                       name, (unsigned long long)off, (unsigned long long)n);
    }
    *out = all;
    return NULL;
}

/* A BYTES input: Triton's layout is, per element, a 4-byte little-endian length and the bytes.
 * Becomes an ember string tensor (each element copied, NUL-terminated; an element holding a NUL
 * byte is cut there, as ember's strings are C strings). */
static TRITONSERVER_Error *em_gather_strings(const em_triton_model *m, em_job *j,
                                             TRITONBACKEND_Input *input, size_t slot,
                                             const char *name, const int64_t *shape, uint32_t rank,
                                             int64_t elems, uint64_t nbytes, uint32_t nbuf)
{
    if ((uint64_t)elems > nbytes / 4) {
        return em_errf(TRITONSERVER_ERROR_INVALID_ARG,
                       "model '%s': input '%s': %llu bytes cannot hold %lld BYTES elements (4 "
                       "length bytes each at least)",
                       m->name, name, (unsigned long long)nbytes, (long long)elems);
    }
    char *all = NULL;
    EM_RETURN_IF_ERROR(em_read_all(m, input, name, nbytes, nbuf, &all));
    const char **strs = malloc((size_t)(elems ? elems : 1) * sizeof *strs);
    char *text = malloc(nbytes + 1);
    TRITONSERVER_Error *err = NULL;
    if (!strs || !text) {
        err = TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_UNAVAILABLE, "out of memory");
    }
    uint64_t off = 0, t = 0;
    for (int64_t i = 0; !err && i < elems; i++) {
        if (nbytes - off < 4) {
            err = em_errf(TRITONSERVER_ERROR_INVALID_ARG,
                          "model '%s': input '%s': BYTES element %lld lacks its length (the "
                          "data end at byte %llu)",
                          m->name, name, (long long)i, (unsigned long long)off);
            break;
        }
        const unsigned char *p = (const unsigned char *)all + off;
        uint64_t len =
            (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
        off += 4;
        if (len > nbytes - off) {
            err = em_errf(TRITONSERVER_ERROR_INVALID_ARG,
                          "model '%s': input '%s': BYTES element %lld of %llu bytes runs past the "
                          "end of the data",
                          m->name, name, (long long)i, (unsigned long long)len);
            break;
        }
        memcpy(text + t, all + off, len);
        strs[i] = text + t;
        t += len;
        text[t++] = '\0';
        off += len;
    }
    if (!err && off != nbytes) {
        err = em_errf(TRITONSERVER_ERROR_INVALID_ARG,
                      "model '%s': input '%s': %llu bytes after its %lld BYTES elements", m->name,
                      name, (unsigned long long)(nbytes - off), (long long)elems);
    }
    if (!err) {
        ember_status *st = ember_tensor_create_strings(shape, (int)rank, strs, &j->in[slot]);
        if (st) {
            char what[600];
            snprintf(what, sizeof what, "model '%s': input '%s'", m->name, name);
            err = em_from_status(st, what);
        }
    }
    free(all);
    free(strs);
    free(text);
    return err;
}

/* The request's input as an ember tensor: its single CPU buffer wrapped, or its buffers
 * gathered into one copy. */
static TRITONSERVER_Error *em_gather_input(const em_triton_model *m, em_job *j,
                                           TRITONBACKEND_Input *input, size_t slot,
                                           const char *name)
{
    TRITONSERVER_DataType tt;
    const int64_t *shape = NULL;
    uint32_t rank = 0, nbuf = 0;
    uint64_t nbytes = 0;
    EM_RETURN_IF_ERROR(
        TRITONBACKEND_InputProperties(input, NULL, &tt, &shape, &rank, &nbytes, &nbuf));
    ember_dtype dt = em_dtype_from_triton(tt);
    if (dt == EMBER_DTYPE_UNDEFINED) {
        return em_errf(TRITONSERVER_ERROR_INVALID_ARG,
                       "model '%s': input '%s': datatype %d is not one ember carries", m->name,
                       name, (int)tt);
    }
    int64_t elems = 1;
    for (uint32_t d = 0; d < rank; d++) {
        if (shape[d] < 0 || (shape[d] > 0 && elems > INT64_MAX / shape[d])) {
            return em_errf(TRITONSERVER_ERROR_INVALID_ARG, "model '%s': input '%s': bad shape",
                           m->name, name);
        }
        elems *= shape[d];
    }
    if (dt == EMBER_DTYPE_STRING) {
        return em_gather_strings(m, j, input, slot, name, shape, rank, elems, nbytes, nbuf);
    }
    uint64_t want = (uint64_t)elems * ember_dtype_size(dt);
    if (nbytes != want) {
        return em_errf(TRITONSERVER_ERROR_INVALID_ARG,
                       "model '%s': input '%s': %llu bytes of data for its shape and datatype, "
                       "which need %llu",
                       m->name, name, (unsigned long long)nbytes, (unsigned long long)want);
    }
    void *data = NULL;
    char *copy = NULL;
    if (nbuf == 1) { /* one CPU buffer of the right alignment: wrapped, not copied */
        const void *buf = NULL;
        uint64_t bsize = 0;
        TRITONSERVER_MemoryType mt = TRITONSERVER_MEMORY_CPU;
        int64_t mt_id = 0;
        EM_RETURN_IF_ERROR(TRITONBACKEND_InputBuffer(input, 0, &buf, &bsize, &mt, &mt_id));
        if (mt != TRITONSERVER_MEMORY_GPU && bsize == want &&
            ((uintptr_t)buf % ember_dtype_size(dt)) == 0) {
            data = (void *)(uintptr_t)buf; /* ember only reads inputs */
        }
    }
    if (!data) {
        EM_RETURN_IF_ERROR(em_read_all(m, input, name, want, nbuf, &copy));
        data = copy;
    }
    ember_status *st = ember_tensor_wrap(dt, shape, (int)rank, data, (size_t)want, &j->in[slot]);
    if (st) {
        free(copy);
        char what[600];
        snprintf(what, sizeof what, "model '%s': input '%s'", m->name, name);
        return em_from_status(st, what);
    }
    j->copies[slot] = copy;
    return NULL;
}

/* The model outputs the request asks for, checked before anything runs (all when it names
 * none; a name asked twice is sent once). */
static TRITONSERVER_Error *em_requested_outputs(const em_triton_model *m, em_job *j)
{
    uint32_t count = 0;
    EM_RETURN_IF_ERROR(TRITONBACKEND_RequestOutputCount(j->request, &count));
    j->n_want = 0;
    if (count == 0) {
        for (size_t o = 0; o < m->n_out; o++) {
            j->want[j->n_want++] = o;
        }
        return NULL;
    }
    for (uint32_t k = 0; k < count; k++) {
        const char *name = NULL;
        EM_RETURN_IF_ERROR(TRITONBACKEND_RequestOutputName(j->request, k, &name));
        size_t o = 0;
        while (o < m->n_out && strcmp(ember_model_output_name(m->model, o), name) != 0) {
            o++;
        }
        if (o == m->n_out) {
            return em_errf(TRITONSERVER_ERROR_INVALID_ARG, "model '%s': no output named '%s'",
                           m->name, name);
        }
        bool seen = false;
        for (uint32_t q = 0; q < j->n_want; q++) {
            seen = seen || j->want[q] == o;
        }
        if (!seen) {
            j->want[j->n_want++] = o;
        }
    }
    return NULL;
}

/* Reads a request's inputs into `j` (j->error set on failure). */
static void em_prepare(const em_triton_model *m, em_job *j)
{
    j->in = calloc(m->n_in ? m->n_in : 1, sizeof *j->in);
    j->copies = calloc(m->n_in ? m->n_in : 1, sizeof *j->copies);
    j->out = calloc(m->n_out ? m->n_out : 1, sizeof *j->out);
    j->want = calloc(m->n_out ? m->n_out : 1, sizeof *j->want);
    j->group = -1;
    if (!j->in || !j->copies || !j->out || !j->want) {
        j->error = TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_UNAVAILABLE, "out of memory");
        return;
    }
    uint32_t count = 0;
    if ((j->error = TRITONBACKEND_RequestInputCount(j->request, &count))) {
        return;
    }
    for (uint32_t k = 0; k < count; k++) {
        TRITONBACKEND_Input *input = NULL;
        const char *name = NULL;
        if ((j->error = TRITONBACKEND_RequestInputByIndex(j->request, k, &input)) ||
            (j->error =
                 TRITONBACKEND_InputProperties(input, &name, NULL, NULL, NULL, NULL, NULL))) {
            return;
        }
        size_t slot = em_model_input_index(m, name);
        if (slot == m->n_in) {
            char list[512] = "";
            for (size_t i = 0; i < m->n_in; i++) {
                size_t len = strlen(list);
                snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                         ember_model_input_name(m->model, i));
            }
            j->error = em_errf(TRITONSERVER_ERROR_INVALID_ARG,
                               "model '%s': no input named '%s'; the model's inputs: %s", m->name,
                               name, list);
            return;
        }
        if (j->in[slot]) {
            j->error = em_errf(TRITONSERVER_ERROR_INVALID_ARG, "model '%s': input '%s' given twice",
                               m->name, name);
            return;
        }
        if ((j->error = em_gather_input(m, j, input, slot, name))) {
            return;
        }
    }
    for (size_t i = 0; i < m->n_in; i++) {
        if (!j->in[i]) {
            j->error =
                em_errf(TRITONSERVER_ERROR_INVALID_ARG, "model '%s': the request lacks input '%s'",
                        m->name, ember_model_input_name(m->model, i));
            return;
        }
    }
    if ((j->error = em_requested_outputs(m, j))) {
        return;
    }
    j->batch = -1;
    if (m->max_batch > 0 && m->n_in > 0) {
        for (size_t i = 0; i < m->n_in; i++) {
            const int64_t *dims = ember_tensor_dims(j->in[i]);
            if (ember_tensor_rank(j->in[i]) < 1 || (i > 0 && dims[0] != j->batch) ||
                ember_tensor_dtype(j->in[i]) == EMBER_DTYPE_STRING) {
                j->batch = -1; /* no common batch dim, or strings: this request runs alone */
                break;
            }
            j->batch = dims[0];
        }
    }
}

/* Whether two prepared requests can be concatenated along dim 0. */
static bool em_batchable(const em_triton_model *m, const em_job *a, const em_job *b)
{
    if (a->batch < 0 || b->batch < 0) {
        return false;
    }
    for (size_t i = 0; i < m->n_in; i++) {
        int r = ember_tensor_rank(a->in[i]);
        if (r != ember_tensor_rank(b->in[i]) ||
            ember_tensor_dtype(a->in[i]) != ember_tensor_dtype(b->in[i]) ||
            memcmp(ember_tensor_dims(a->in[i]) + 1, ember_tensor_dims(b->in[i]) + 1,
                   (size_t)(r - 1) * sizeof(int64_t)) != 0) {
            return false;
        }
    }
    return true;
}

static TRITONSERVER_Error *em_run_one(em_triton_instance *inst, em_job *j)
{
    const em_triton_model *m = inst->m;
    ember_status *st = ember_session_run(inst->session, j->in, m->n_in, j->out, m->n_out);
    if (st) {
        char what[300];
        snprintf(what, sizeof what, "model '%s'", m->name);
        return em_from_status(st, what);
    }
    return NULL;
}

/* Runs the jobs idx[0..n) as one batch; false when that cannot be done (the caller then runs
 * them one by one). On success each job's `out` holds its slice of every output. */
static bool em_run_batch(em_triton_instance *inst, em_job *jobs, const size_t *idx, size_t n)
{
    const em_triton_model *m = inst->m;
    int64_t total = 0;
    for (size_t k = 0; k < n; k++) {
        total += jobs[idx[k]].batch;
    }
    ember_tensor **in = calloc(m->n_in, sizeof *in);
    ember_tensor **out = calloc(m->n_out ? m->n_out : 1, sizeof *out);
    bool ok = in && out;
    for (size_t i = 0; ok && i < m->n_in; i++) {
        const ember_tensor *t0 = jobs[idx[0]].in[i];
        int64_t dims[16];
        int rank = ember_tensor_rank(t0);
        memcpy(dims, ember_tensor_dims(t0), (size_t)rank * sizeof(int64_t));
        dims[0] = total;
        ember_status *st = ember_tensor_create(ember_tensor_dtype(t0), dims, rank, &in[i]);
        if (st) {
            ember_status_destroy(st);
            ok = false;
            break;
        }
        char *dst = ember_tensor_data(in[i]);
        for (size_t k = 0; k < n; k++) {
            ember_tensor *src = jobs[idx[k]].in[i];
            size_t nb = ember_tensor_nbytes(src);
            if (nb) {
                memcpy(dst, ember_tensor_data(src), nb);
            }
            dst += nb;
        }
    }
    if (ok) {
        ember_status *st = ember_session_run(inst->session, in, m->n_in, out, m->n_out);
        if (st) { /* rerun one by one: each request gets its own message */
            em_log(TRITONSERVER_LOG_VERBOSE, __LINE__,
                   "model '%s': a batch of %zu requests failed (%s); running them one by one",
                   m->name, n, ember_status_message(st));
            ember_status_destroy(st);
            ok = false;
        }
    }
    for (size_t o = 0; ok && o < m->n_out; o++) {
        if (ember_tensor_rank(out[o]) < 1 || ember_tensor_dims(out[o])[0] != total ||
            ember_tensor_dtype(out[o]) == EMBER_DTYPE_STRING) {
            ok = false; /* split by rows of bytes: the batch dim first, no string elements */
        }
    }
    for (size_t o = 0; ok && o < m->n_out; o++) {
        int rank = ember_tensor_rank(out[o]);
        int64_t dims[16];
        memcpy(dims, ember_tensor_dims(out[o]), (size_t)rank * sizeof(int64_t));
        size_t row = total ? ember_tensor_nbytes(out[o]) / (size_t)total : 0;
        const char *src = ember_tensor_data(out[o]);
        for (size_t k = 0; ok && k < n; k++) {
            em_job *j = &jobs[idx[k]];
            dims[0] = j->batch;
            ember_status *st =
                ember_tensor_create(ember_tensor_dtype(out[o]), dims, rank, &j->out[o]);
            if (st) {
                ember_status_destroy(st);
                ok = false;
                break;
            }
            size_t nb = row * (size_t)j->batch;
            if (nb) {
                memcpy(ember_tensor_data(j->out[o]), src, nb);
            }
            src += nb;
        }
    }
    if (!ok) {
        for (size_t k = 0; k < n; k++) {
            for (size_t o = 0; o < m->n_out; o++) {
                ember_tensor_destroy(jobs[idx[k]].out[o]);
                jobs[idx[k]].out[o] = NULL;
            }
        }
    }
    for (size_t i = 0; in && i < m->n_in; i++) {
        ember_tensor_destroy(in[i]);
    }
    for (size_t o = 0; out && o < m->n_out; o++) {
        ember_tensor_destroy(out[o]);
    }
    free(in);
    free(out);
    return ok;
}

/* Fills the job's response with the outputs the request asks for. */
static TRITONSERVER_Error *em_respond(const em_triton_model *m, em_job *j)
{
    for (uint32_t k = 0; k < j->n_want; k++) {
        size_t o = j->want[k];
        ember_tensor *t = j->out[o];
        TRITONBACKEND_Output *output = NULL;
        EM_RETURN_IF_ERROR(
            TRITONBACKEND_ResponseOutput(j->response, &output, ember_model_output_name(m->model, o),
                                         em_dtype_to_triton(ember_tensor_dtype(t)),
                                         ember_tensor_dims(t), (uint32_t)ember_tensor_rank(t)));
        bool strings = ember_tensor_dtype(t) == EMBER_DTYPE_STRING;
        int64_t n = ember_tensor_elem_count(t);
        size_t nb = ember_tensor_nbytes(t);
        if (strings) { /* BYTES: a 4-byte little-endian length, then the bytes, per element */
            nb = 0;
            for (int64_t i = 0; i < n; i++) {
                nb += 4 + strlen(ember_tensor_string(t, i));
            }
        }
        void *buf = NULL;
        TRITONSERVER_MemoryType mt = TRITONSERVER_MEMORY_CPU;
        int64_t mt_id = 0;
        EM_RETURN_IF_ERROR(TRITONBACKEND_OutputBuffer(output, &buf, nb, &mt, &mt_id));
        if (mt == TRITONSERVER_MEMORY_GPU) {
            return em_errf(TRITONSERVER_ERROR_UNSUPPORTED,
                           "model '%s': output '%s': the server gave a GPU buffer; the ember "
                           "backend writes CPU memory",
                           m->name, ember_model_output_name(m->model, o));
        }
        if (strings) {
            unsigned char *p = buf;
            for (int64_t i = 0; i < n; i++) {
                const char *str = ember_tensor_string(t, i);
                size_t len = strlen(str);
                p[0] = (unsigned char)(len & 0xFF);
                p[1] = (unsigned char)((len >> 8) & 0xFF);
                p[2] = (unsigned char)((len >> 16) & 0xFF);
                p[3] = (unsigned char)((len >> 24) & 0xFF);
                memcpy(p + 4, str, len);
                p += 4 + len;
            }
        } else if (nb) {
            memcpy(buf, ember_tensor_data(t), nb);
        }
    }
    return NULL;
}

static void em_finish(em_triton_instance *inst, TRITONBACKEND_ModelInstance *instance, em_job *j,
                      uint64_t t[4])
{
    if (j->response) {
        TRITONSERVER_Error *e =
            TRITONBACKEND_ResponseSend(j->response, TRITONSERVER_RESPONSE_COMPLETE_FINAL, j->error);
        if (e) {
            em_log(TRITONSERVER_LOG_ERROR, __LINE__, "model '%s': sending a response: %s",
                   inst->m->name, TRITONSERVER_ErrorMessage(e));
            TRITONSERVER_ErrorDelete(e);
        }
    }
    TRITONSERVER_Error *e = TRITONBACKEND_ModelInstanceReportStatistics(
        instance, j->request, j->error == NULL, t[0], t[1], t[2], t[3]);
    if (e) {
        TRITONSERVER_ErrorDelete(e);
    }
    if (j->error) {
        TRITONSERVER_ErrorDelete(j->error); /* the response carried (its own copy of) it */
        j->error = NULL;
    }
    e = TRITONBACKEND_RequestRelease(j->request, TRITONSERVER_REQUEST_RELEASE_ALL);
    if (e) {
        em_log(TRITONSERVER_LOG_ERROR, __LINE__, "model '%s': releasing a request: %s",
               inst->m->name, TRITONSERVER_ErrorMessage(e));
        TRITONSERVER_ErrorDelete(e);
    }
    em_job_clear(j, inst->m->n_in, inst->m->n_out);
}

TRITONBACKEND_ISPEC TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceExecute(TRITONBACKEND_ModelInstance *instance,
                                   TRITONBACKEND_Request **requests, const uint32_t request_count)
{
    void *state = NULL;
    EM_RETURN_IF_ERROR(TRITONBACKEND_ModelInstanceState(instance, &state));
    em_triton_instance *inst = state;
    const em_triton_model *m = inst->m;
    em_job *jobs = calloc(request_count ? request_count : 1, sizeof *jobs);
    size_t *idx = calloc(request_count ? request_count : 1, sizeof *idx);
    if (!jobs || !idx) {
        free(jobs);
        free(idx);
        /* Ownership of the requests stays with Triton when Execute fails. */
        return TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_UNAVAILABLE, "out of memory");
    }
    uint64_t t[4];
    t[0] = em_now_ns();
    for (uint32_t r = 0; r < request_count; r++) {
        em_job *j = &jobs[r];
        j->request = requests[r];
        j->group = -1;
        j->error = TRITONBACKEND_ResponseNew(&j->response, j->request);
        if (j->error) {
            j->response = NULL; /* no response to send: the request is only released */
            continue;
        }
        em_prepare(m, j);
    }
    t[1] = em_now_ns();
    /* Batching groups: each valid request joins the first earlier group it matches. */
    int groups = 0;
    for (uint32_t r = 0; m->max_batch > 0 && r < request_count; r++) {
        if (jobs[r].error || jobs[r].batch < 0) {
            continue;
        }
        for (uint32_t q = 0; q < r; q++) {
            if (jobs[q].group >= 0 && !jobs[q].error && em_batchable(m, &jobs[q], &jobs[r])) {
                jobs[r].group = jobs[q].group;
                break;
            }
        }
        if (jobs[r].group < 0) {
            jobs[r].group = groups++;
        }
    }
    uint64_t batched = 0;
    for (int g = 0; g < groups; g++) {
        size_t n = 0;
        for (uint32_t r = 0; r < request_count; r++) {
            if (jobs[r].group == g) {
                idx[n++] = r;
            }
        }
        if (n > 1 && em_run_batch(inst, jobs, idx, n)) {
            for (size_t k = 0; k < n; k++) {
                batched += (uint64_t)jobs[idx[k]].batch;
                jobs[idx[k]].group = -2; /* done */
            }
        }
    }
    uint64_t executed = 0;
    for (uint32_t r = 0; r < request_count; r++) {
        em_job *j = &jobs[r];
        if (!j->error && j->group != -2) {
            j->error = em_run_one(inst, j);
        }
        if (!j->error) {
            executed += (uint64_t)(j->batch > 0 ? j->batch : 1);
        }
    }
    t[2] = em_now_ns();
    for (uint32_t r = 0; r < request_count; r++) {
        if (jobs[r].response && !jobs[r].error) {
            jobs[r].error = em_respond(m, &jobs[r]);
        }
    }
    t[3] = em_now_ns();
    for (uint32_t r = 0; r < request_count; r++) {
        em_finish(inst, instance, &jobs[r], t);
    }
    TRITONSERVER_Error *e = TRITONBACKEND_ModelInstanceReportBatchStatistics(
        instance, executed, t[0], t[1], t[2], t[3]);
    if (e) {
        TRITONSERVER_ErrorDelete(e);
    }
    if (batched) {
        em_log(TRITONSERVER_LOG_VERBOSE, __LINE__, "model '%s': %u requests, %llu rows batched",
               m->name, request_count, (unsigned long long)batched);
    }
    free(jobs);
    free(idx);
    return NULL;
}
