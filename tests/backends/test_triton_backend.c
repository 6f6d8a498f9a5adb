/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libtriton_ember.so driven as Triton drives it: this program is the server's side of the
 * TRITONBACKEND API (a stub of the functions the backend calls: backend, model and instance
 * objects, requests with inputs in one or several buffers, responses and their outputs, errors,
 * messages, logging, statistics), loads a model repository written to a temporary directory
 * (the built-in default model saved as <repo>/default/1/model.onnx), and checks outputs against
 * ember's own run of the same model (the public C API, the same libember.so) and the stored
 * tests/data/default_model/expected.npy. Covered: initialisation and the API version check,
 * config.pbtxt parameters and their errors, good requests, per-request errors (wrong shape,
 * wrong datatype, byte size, missing / unknown / repeated input, unknown output) next to a good
 * request in the same Execute call, dynamic batching (requests concatenated along dim 0 and
 * split back), max_batch_size 0 (run one by one), finalisation; every request released once,
 * with one final response. Links the backend and the public library only (one ember in the
 * process); the stub functions are exported from this program (ENABLE_EXPORTS).
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <ember.h>

#include "triton_api.h"

/* ---- the server's side ---- */

#define MAX_IO 8
#define MAX_BUF 4

struct TRITONSERVER_Error {
    TRITONSERVER_Error_Code code;
    char *msg;
};
struct TRITONSERVER_Message {
    const char *json;
};
struct TRITONBACKEND_Backend {
    void *state;
};
struct TRITONBACKEND_Model {
    const char *name;
    uint64_t version;
    const char *repo;
    const char *config;
    void *state;
};
struct TRITONBACKEND_ModelInstance {
    const char *name;
    TRITONSERVER_InstanceGroupKind kind;
    int32_t device;
    TRITONBACKEND_Model *model;
    void *state;
};
struct TRITONBACKEND_Input {
    const char *name;
    TRITONSERVER_DataType dt;
    int64_t shape[8];
    uint32_t rank;
    const void *buf[MAX_BUF];
    uint64_t size[MAX_BUF];
    uint32_t nbuf;
};
struct TRITONBACKEND_Output {
    char name[64];
    TRITONSERVER_DataType dt;
    int64_t shape[8];
    uint32_t rank;
    void *buf;
    uint64_t size;
};
struct TRITONBACKEND_Response {
    TRITONBACKEND_Request *request;
    TRITONBACKEND_Output out[MAX_IO];
    uint32_t n_out;
};
struct TRITONBACKEND_Request {
    TRITONBACKEND_Input in[MAX_IO];
    uint32_t n_in;
    const char *outputs[MAX_IO];
    uint32_t n_outputs;
    int released, sent, stats;
    bool stat_success;
    uint32_t send_flags;
    TRITONBACKEND_Response *response; /* the one sent */
    TRITONSERVER_Error_Code err_code;
    char err[1024]; /* empty: success */
};

static uint32_t g_api_minor = TRITONBACKEND_API_VERSION_MINOR;
static int g_errors_live; /* TRITONSERVER_Error objects not yet deleted */
static char g_log[8192];
static uint64_t g_batch_stats;
/* The server's state that instances share (Triton executes instances on their own threads). */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

TRITONSERVER_Error *TRITONSERVER_ErrorNew(TRITONSERVER_Error_Code code, const char *msg)
{
    TRITONSERVER_Error *e = calloc(1, sizeof *e);
    assert_non_null(e);
    e->code = code;
    e->msg = strdup(msg);
    pthread_mutex_lock(&g_lock);
    g_errors_live++;
    pthread_mutex_unlock(&g_lock);
    return e;
}
void TRITONSERVER_ErrorDelete(TRITONSERVER_Error *e)
{
    if (e) {
        free(e->msg);
        free(e);
        pthread_mutex_lock(&g_lock);
        g_errors_live--;
        pthread_mutex_unlock(&g_lock);
    }
}
TRITONSERVER_Error_Code TRITONSERVER_ErrorCode(TRITONSERVER_Error *e)
{
    return e->code;
}
const char *TRITONSERVER_ErrorMessage(TRITONSERVER_Error *e)
{
    return e->msg;
}
TRITONSERVER_Error *TRITONSERVER_MessageSerializeToJson(TRITONSERVER_Message *m, const char **base,
                                                        size_t *size)
{
    *base = m->json;
    *size = strlen(m->json);
    return NULL;
}
TRITONSERVER_Error *TRITONSERVER_MessageDelete(TRITONSERVER_Message *m)
{
    free(m);
    return NULL;
}
bool TRITONSERVER_LogIsEnabled(TRITONSERVER_LogLevel level)
{
    (void)level;
    return true;
}
TRITONSERVER_Error *TRITONSERVER_LogMessage(TRITONSERVER_LogLevel level, const char *file,
                                            const int line, const char *msg)
{
    (void)level, (void)file, (void)line;
    pthread_mutex_lock(&g_lock);
    size_t n = strlen(g_log);
    snprintf(g_log + n, sizeof g_log - n, "%s\n", msg);
    pthread_mutex_unlock(&g_lock);
    return NULL;
}

TRITONSERVER_Error *TRITONBACKEND_ApiVersion(uint32_t *major, uint32_t *minor)
{
    *major = TRITONBACKEND_API_VERSION_MAJOR;
    *minor = g_api_minor;
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_BackendName(TRITONBACKEND_Backend *b, const char **name)
{
    (void)b;
    *name = "ember";
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_ModelName(TRITONBACKEND_Model *m, const char **name)
{
    *name = m->name;
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_ModelVersion(TRITONBACKEND_Model *m, uint64_t *v)
{
    *v = m->version;
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_ModelRepository(TRITONBACKEND_Model *m,
                                                  TRITONBACKEND_ArtifactType *t,
                                                  const char **location)
{
    *t = TRITONBACKEND_ARTIFACT_FILESYSTEM;
    *location = m->repo;
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_ModelConfig(TRITONBACKEND_Model *m, const uint32_t version,
                                              TRITONSERVER_Message **out)
{
    assert_int_equal(version, 1);
    *out = calloc(1, sizeof **out);
    (*out)->json = m->config;
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_ModelState(TRITONBACKEND_Model *m, void **s)
{
    *s = m->state;
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_ModelSetState(TRITONBACKEND_Model *m, void *s)
{
    m->state = s;
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_ModelInstanceName(TRITONBACKEND_ModelInstance *i,
                                                    const char **name)
{
    *name = i->name;
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_ModelInstanceKind(TRITONBACKEND_ModelInstance *i,
                                                    TRITONSERVER_InstanceGroupKind *k)
{
    *k = i->kind;
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_ModelInstanceDeviceId(TRITONBACKEND_ModelInstance *i, int32_t *d)
{
    *d = i->device;
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_ModelInstanceModel(TRITONBACKEND_ModelInstance *i,
                                                     TRITONBACKEND_Model **m)
{
    *m = i->model;
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_ModelInstanceState(TRITONBACKEND_ModelInstance *i, void **s)
{
    *s = i->state;
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_ModelInstanceSetState(TRITONBACKEND_ModelInstance *i, void *s)
{
    i->state = s;
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_ModelInstanceReportStatistics(
    TRITONBACKEND_ModelInstance *i, TRITONBACKEND_Request *r, const bool success, const uint64_t t0,
    const uint64_t t1, const uint64_t t2, const uint64_t t3)
{
    (void)i;
    assert_int_equal(r->released, 0); /* before the request is released */
    if (success) {
        assert_true(t0 > 0 && t0 <= t1 && t1 <= t2 && t2 <= t3);
    }
    r->stats++;
    r->stat_success = success;
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_ModelInstanceReportBatchStatistics(
    TRITONBACKEND_ModelInstance *i, const uint64_t batch, const uint64_t t0, const uint64_t t1,
    const uint64_t t2, const uint64_t t3)
{
    (void)i;
    assert_true(t0 <= t1 && t1 <= t2 && t2 <= t3);
    pthread_mutex_lock(&g_lock);
    g_batch_stats += batch;
    pthread_mutex_unlock(&g_lock);
    return NULL;
}

TRITONSERVER_Error *TRITONBACKEND_RequestId(TRITONBACKEND_Request *r, const char **id)
{
    (void)r;
    *id = "";
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_RequestInputCount(TRITONBACKEND_Request *r, uint32_t *n)
{
    assert_int_equal(r->released, 0);
    *n = r->n_in;
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_RequestInputByIndex(TRITONBACKEND_Request *r, const uint32_t k,
                                                      TRITONBACKEND_Input **in)
{
    if (k >= r->n_in) {
        return TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_INVALID_ARG, "input index out of range");
    }
    *in = &r->in[k];
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_RequestOutputCount(TRITONBACKEND_Request *r, uint32_t *n)
{
    *n = r->n_outputs;
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_RequestOutputName(TRITONBACKEND_Request *r, const uint32_t k,
                                                    const char **name)
{
    if (k >= r->n_outputs) {
        return TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_INVALID_ARG, "output index out of range");
    }
    *name = r->outputs[k];
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_RequestRelease(TRITONBACKEND_Request *r, uint32_t flags)
{
    assert_int_equal(flags, TRITONSERVER_REQUEST_RELEASE_ALL);
    r->released++;
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_InputProperties(TRITONBACKEND_Input *in, const char **name,
                                                  TRITONSERVER_DataType *dt, const int64_t **shape,
                                                  uint32_t *rank, uint64_t *size, uint32_t *nbuf)
{
    if (name) {
        *name = in->name;
    }
    if (dt) {
        *dt = in->dt;
    }
    if (shape) {
        *shape = in->shape;
    }
    if (rank) {
        *rank = in->rank;
    }
    if (size) {
        *size = 0;
        for (uint32_t b = 0; b < in->nbuf; b++) {
            *size += in->size[b];
        }
    }
    if (nbuf) {
        *nbuf = in->nbuf;
    }
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_InputBuffer(TRITONBACKEND_Input *in, const uint32_t k,
                                              const void **buf, uint64_t *size,
                                              TRITONSERVER_MemoryType *mt, int64_t *mt_id)
{
    assert_true(k < in->nbuf);
    *buf = in->buf[k];
    *size = in->size[k];
    *mt = TRITONSERVER_MEMORY_CPU;
    *mt_id = 0;
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_ResponseNew(TRITONBACKEND_Response **out,
                                              TRITONBACKEND_Request *r)
{
    assert_int_equal(r->released, 0);
    *out = calloc(1, sizeof **out);
    (*out)->request = r;
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_ResponseDelete(TRITONBACKEND_Response *resp)
{
    for (uint32_t o = 0; o < resp->n_out; o++) {
        free(resp->out[o].buf);
    }
    free(resp);
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_ResponseOutput(TRITONBACKEND_Response *resp,
                                                 TRITONBACKEND_Output **out, const char *name,
                                                 const TRITONSERVER_DataType dt,
                                                 const int64_t *shape, const uint32_t rank)
{
    assert_true(resp->n_out < MAX_IO && rank <= 8);
    TRITONBACKEND_Output *o = &resp->out[resp->n_out++];
    snprintf(o->name, sizeof o->name, "%s", name);
    o->dt = dt;
    o->rank = rank;
    memcpy(o->shape, shape, rank * sizeof *shape);
    *out = o;
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_OutputBuffer(TRITONBACKEND_Output *o, void **buf,
                                               const uint64_t size, TRITONSERVER_MemoryType *mt,
                                               int64_t *mt_id)
{
    assert_null(o->buf);
    o->buf = malloc(size ? size : 1);
    o->size = size;
    *buf = o->buf;
    *mt = TRITONSERVER_MEMORY_CPU;
    *mt_id = 0;
    return NULL;
}
TRITONSERVER_Error *TRITONBACKEND_ResponseSend(TRITONBACKEND_Response *resp, const uint32_t flags,
                                               TRITONSERVER_Error *err)
{
    TRITONBACKEND_Request *r = resp->request;
    assert_int_equal(r->released, 0);
    r->sent++;
    r->send_flags = flags;
    r->response = resp; /* the server owns it now; the test frees it */
    if (err) {
        r->err_code = err->code;
        snprintf(r->err, sizeof r->err, "%s", err->msg);
    }
    return NULL;
}

/* ---- fixtures ---- */

typedef struct {
    char dir[64];  /* the repository */
    char mdir[96]; /* <repo>/default */
    char path[160];
    ember_tensor *x, *expected; /* tests/data/default_model: [3,1,28,28] and [3,10] */
    TRITONBACKEND_Backend backend;
    TRITONBACKEND_Model model;
    TRITONBACKEND_ModelInstance instance;
} fixture;

static char *data_path(const char *rel)
{
    static char buf[1024];
    const char *root = getenv("EMBER_TEST_DATA");
    snprintf(buf, sizeof buf, "%s/%s", root ? root : "tests/data", rel);
    return buf;
}

static void ok(ember_status *st)
{
    if (st) {
        fail_msg("%s", ember_status_message(st));
    }
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/ember_triton_XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->mdir, sizeof f->mdir, "%s/default", f->dir);
    assert_int_equal(mkdir(f->mdir, 0755), 0);
    char vdir[128];
    snprintf(vdir, sizeof vdir, "%s/1", f->mdir);
    assert_int_equal(mkdir(vdir, 0755), 0);
    snprintf(f->path, sizeof f->path, "%s/model.onnx", vdir);
    ember_model_options *mo = NULL;
    ember_model *m = NULL;
    ok(ember_model_options_create(&mo));
    ok(ember_model_options_set_graph_optimization(mo, EMBER_GRAPH_OPT_FOLD));
    ok(ember_model_load_builtin("default", mo, &m));
    ok(ember_model_save_onnx(m, f->path));
    ember_model_destroy(m);
    ember_model_options_destroy(mo);
    ok(ember_tensor_load_npy(data_path("default_model/input.npy"), &f->x));
    ok(ember_tensor_load_npy(data_path("default_model/expected.npy"), &f->expected));
    f->model = (TRITONBACKEND_Model){"default", 1, f->mdir, NULL, NULL};
    f->instance = (TRITONBACKEND_ModelInstance){"default_0", TRITONSERVER_INSTANCEGROUPKIND_CPU, 0,
                                                &f->model, NULL};
    g_api_minor = TRITONBACKEND_API_VERSION_MINOR;
    g_log[0] = '\0';
    g_batch_stats = 0;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    unlink(f->path);
    char p[128];
    snprintf(p, sizeof p, "%s/1", f->mdir);
    rmdir(p);
    rmdir(f->mdir);
    rmdir(f->dir);
    ember_tensor_destroy(f->x);
    ember_tensor_destroy(f->expected);
    free(f);
    assert_int_equal(g_errors_live, 0); /* every TRITONSERVER_Error deleted */
    return 0;
}

static void expect_ok(TRITONSERVER_Error *e)
{
    if (e) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", e->msg);
        TRITONSERVER_ErrorDelete(e);
        fail_msg("%s", msg);
    }
}

/* The error's code and that its message holds `part`; deletes it. */
static void expect_err(TRITONSERVER_Error *e, TRITONSERVER_Error_Code code, const char *part)
{
    assert_non_null(e);
    if (!strstr(e->msg, part)) {
        fail_msg("message '%s' lacks '%s'", e->msg, part);
    }
    assert_int_equal(e->code, code);
    TRITONSERVER_ErrorDelete(e);
}

static void load(fixture *f, const char *config)
{
    f->model.config = config;
    expect_ok(TRITONBACKEND_Initialize(&f->backend));
    expect_ok(TRITONBACKEND_ModelInitialize(&f->model));
    expect_ok(TRITONBACKEND_ModelInstanceInitialize(&f->instance));
}

static void unload(fixture *f)
{
    expect_ok(TRITONBACKEND_ModelInstanceFinalize(&f->instance));
    expect_ok(TRITONBACKEND_ModelFinalize(&f->model));
    expect_ok(TRITONBACKEND_Finalize(&f->backend));
}

/* A request of rows [r0, r0 + n) of the input, its data split into `nbuf` buffers. */
static void request_rows(TRITONBACKEND_Request *r, const fixture *f, int64_t r0, int64_t n,
                         uint32_t nbuf)
{
    memset(r, 0, sizeof *r);
    TRITONBACKEND_Input *in = &r->in[r->n_in++];
    in->name = "input";
    in->dt = TRITONSERVER_TYPE_FP32;
    in->rank = 4;
    int64_t shape[4] = {n, 1, 28, 28};
    memcpy(in->shape, shape, sizeof shape);
    const char *data = (const char *)ember_tensor_data(f->x) + r0 * 784 * 4;
    uint64_t total = (uint64_t)n * 784 * 4, off = 0;
    for (uint32_t b = 0; b < nbuf; b++) {
        uint64_t size = b + 1 < nbuf ? (total / nbuf) & ~(uint64_t)3 : total - off;
        in->buf[b] = data + off;
        in->size[b] = size;
        off += size;
    }
    in->nbuf = nbuf;
}

/* ember's own result for rows [r0, r0 + n), one thread, through the public API. */
static ember_tensor *reference(const fixture *f, int64_t r0, int64_t n)
{
    ember_model *m = NULL;
    ember_session_options *so = NULL;
    ember_session *s = NULL;
    ember_tensor *in = NULL, *out = NULL;
    ok(ember_model_load_file(f->path, NULL, &m));
    ok(ember_session_options_create(&so));
    ember_session_options_set_threads(so, 1);
    ok(ember_session_create(m, so, &s));
    int64_t dims[4] = {n, 1, 28, 28};
    ok(ember_tensor_wrap(EMBER_DTYPE_F32, dims, 4, (char *)ember_tensor_data(f->x) + r0 * 784 * 4,
                         (size_t)n * 784 * 4, &in));
    ok(ember_session_run(s, &in, 1, &out, 1));
    ember_tensor_destroy(in);
    ember_session_destroy(s);
    ember_session_options_destroy(so);
    ember_model_destroy(m);
    return out;
}

/* The request succeeded with one output "probs" [n, 10] equal to `want` (bit for bit when
 * `exact`, else within 1e-5 relative) and to expected.npy's rows within 1e-4. */
static void expect_probs(const fixture *f, const TRITONBACKEND_Request *r, int64_t r0, int64_t n,
                         const ember_tensor *want, bool exact)
{
    if (r->err[0]) {
        fail_msg("request failed: %s", r->err);
    }
    assert_int_equal(r->sent, 1);
    assert_int_equal(r->released, 1);
    assert_int_equal(r->send_flags, TRITONSERVER_RESPONSE_COMPLETE_FINAL);
    assert_int_equal(r->stats, 1);
    assert_true(r->stat_success);
    const TRITONBACKEND_Response *resp = r->response;
    assert_int_equal(resp->n_out, 1);
    const TRITONBACKEND_Output *o = &resp->out[0];
    assert_string_equal(o->name, "probs");
    assert_int_equal(o->dt, TRITONSERVER_TYPE_FP32);
    assert_int_equal(o->rank, 2);
    assert_int_equal(o->shape[0], n);
    assert_int_equal(o->shape[1], 10);
    assert_int_equal(o->size, (uint64_t)n * 40);
    const float *got = o->buf;
    const float *w = ember_tensor_data((ember_tensor *)want);
    const float *e = (const float *)ember_tensor_data(f->expected) + r0 * 10;
    for (int64_t i = 0; i < n * 10; i++) {
        if (exact) {
            assert_memory_equal(&got[i], &w[i], sizeof(float));
        } else if (fabsf(got[i] - w[i]) > 1e-5f * fabsf(w[i])) {
            fail_msg("probs[%lld] = %.9g, ember alone %.9g", (long long)i, got[i], w[i]);
        }
        if (fabsf(got[i] - e[i]) > 1e-4f * fabsf(e[i])) {
            fail_msg("probs[%lld] = %.9g, expected.npy %.9g", (long long)i, got[i], e[i]);
        }
    }
}

static void expect_failed(const TRITONBACKEND_Request *r, TRITONSERVER_Error_Code code,
                          const char *part)
{
    assert_int_equal(r->sent, 1);
    assert_int_equal(r->released, 1);
    assert_int_equal(r->stats, 1);
    assert_false(r->stat_success);
    assert_int_equal(r->response->n_out, 0);
    if (!strstr(r->err, part)) {
        fail_msg("error '%s' lacks '%s'", r->err, part);
    }
    assert_int_equal(r->err_code, code);
}

static void free_responses(TRITONBACKEND_Request *rs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (rs[i].response) {
            expect_ok(TRITONBACKEND_ResponseDelete(rs[i].response));
            rs[i].response = NULL;
        }
    }
}

static const char *const CONFIG_BATCH =
    "{\"name\": \"default\", \"backend\": \"ember\", \"max_batch_size\": 8,"
    " \"input\": [{\"name\": \"input\", \"data_type\": \"TYPE_FP32\", \"dims\": [1, 28, 28]}],"
    " \"output\": [{\"name\": \"probs\", \"data_type\": \"TYPE_FP32\", \"dims\": [10]}],"
    " \"parameters\": {\"threads\": {\"string_value\": \"1\"},"
    " \"precision\": {\"string_value\": \"fp32\"}}, \"dynamic_batching\": {}}";

/* ---- tests ---- */

static void test_good_request(void **state)
{
    fixture *f = *state;
    load(f, CONFIG_BATCH);
    assert_non_null(strstr(g_log, "model 'default' version 1"));
    assert_non_null(strstr(g_log, "1 threads"));
    TRITONBACKEND_Request r;
    request_rows(&r, f, 0, 3, 1);
    TRITONBACKEND_Request *rp = &r;
    expect_ok(TRITONBACKEND_ModelInstanceExecute(&f->instance, &rp, 1));
    ember_tensor *want = reference(f, 0, 3);
    expect_probs(f, &r, 0, 3, want, true);
    assert_int_equal(g_batch_stats, 3);
    free_responses(&r, 1);
    /* the same data in three buffers (gathered into one copy), output asked for by name */
    request_rows(&r, f, 0, 3, 3);
    r.outputs[0] = "probs";
    r.n_outputs = 1;
    expect_ok(TRITONBACKEND_ModelInstanceExecute(&f->instance, &rp, 1));
    expect_probs(f, &r, 0, 3, want, true);
    free_responses(&r, 1);
    ember_tensor_destroy(want);
    unload(f);
}

static void test_bad_requests_fail_alone(void **state)
{
    fixture *f = *state;
    load(f, CONFIG_BATCH);
    enum { N = 12 };
    TRITONBACKEND_Request rs[N];
    for (int i = 0; i < N; i++) {
        request_rows(&rs[i], f, 0, 1, 1);
    }
    rs[0].in[0].shape[3] = 27; /* wrong shape, data sized to match */
    rs[0].in[0].size[0] = 28 * 27 * 4;
    rs[1].in[0].dt = TRITONSERVER_TYPE_FP64; /* wrong datatype */
    rs[1].in[0].size[0] = 784 * 8;
    double *d64 = calloc(784, sizeof *d64);
    rs[1].in[0].buf[0] = d64;
    rs[2].n_in = 0;              /* missing input */
    rs[3].in[0].name = "image";  /* unknown input */
    rs[4].in[0].size[0] = 100;   /* byte size does not fit the shape */
    rs[5].outputs[0] = "logits"; /* unknown output */
    rs[5].n_outputs = 1;
    rs[6].in[1] = rs[6].in[0]; /* input given twice */
    rs[6].n_in = 2;
    rs[7].in[0].dt = (TRITONSERVER_DataType)99; /* a type the backend does not carry */
    /* rs[8]: a good request in the same Execute call */
    request_rows(&rs[9], f, 0, 2, 1); /* rs[0]'s shape with 2 rows: batched with it, that run */
    rs[9].in[0].shape[3] = 27;        /* fails, and each is run again alone for its message */
    rs[9].in[0].size[0] = 2 * 28 * 27 * 4;
    static const char abc[] = "\3\0\0\0abc";
    request_rows(&rs[10], f, 0, 1, 1); /* BYTES, well formed, for an FP32 input */
    rs[10].in[0].dt = TRITONSERVER_TYPE_BYTES;
    rs[10].in[0].rank = 1;
    rs[10].in[0].shape[0] = 1;
    rs[10].in[0].buf[0] = abc;
    rs[10].in[0].size[0] = 7;
    request_rows(&rs[11], f, 0, 1, 1); /* BYTES whose first length runs past the data */
    rs[11].in[0].dt = TRITONSERVER_TYPE_BYTES;
    rs[11].in[0].rank = 1;
    rs[11].in[0].shape[0] = 1;
    rs[11].in[0].size[0] = 6;
    TRITONBACKEND_Request *rp[N];
    for (int i = 0; i < N; i++) {
        rp[i] = &rs[i];
    }
    expect_ok(TRITONBACKEND_ModelInstanceExecute(&f->instance, rp, N));
    expect_failed(&rs[0], TRITONSERVER_ERROR_INVALID_ARG,
                  "model 'default': input 0 'input': dim 3 is 27, expected 28");
    expect_failed(&rs[1], TRITONSERVER_ERROR_INVALID_ARG,
                  "model 'default': input 0 'input': dtype f64, expected f32");
    expect_failed(&rs[2], TRITONSERVER_ERROR_INVALID_ARG,
                  "model 'default': the request lacks input 'input'");
    expect_failed(&rs[3], TRITONSERVER_ERROR_INVALID_ARG,
                  "model 'default': no input named 'image'; the model's inputs: input");
    expect_failed(&rs[4], TRITONSERVER_ERROR_INVALID_ARG,
                  "model 'default': input 'input': 100 bytes of data for its shape and "
                  "datatype, which need 3136");
    expect_failed(&rs[5], TRITONSERVER_ERROR_INVALID_ARG,
                  "model 'default': no output named 'logits'");
    expect_failed(&rs[6], TRITONSERVER_ERROR_INVALID_ARG,
                  "model 'default': input 'input' given twice");
    expect_failed(&rs[7], TRITONSERVER_ERROR_INVALID_ARG, "datatype 99 is not one ember carries");
    expect_failed(&rs[10], TRITONSERVER_ERROR_INVALID_ARG, "input 0 'input': dtype string");
    expect_failed(&rs[11], TRITONSERVER_ERROR_INVALID_ARG,
                  "model 'default': input 'input': BYTES element 0 of ");
    expect_failed(&rs[9], TRITONSERVER_ERROR_INVALID_ARG,
                  "model 'default': input 0 'input': dim 3 is 27, expected 28");
    assert_null(strstr(g_log, "batched"));
    assert_non_null(strstr(g_log, "model 'default': a batch of 2 requests failed (input 0 "
                                  "'input': dim 3 is 27, expected 28); running them one by one"));
    ember_tensor *want = reference(f, 0, 1);
    expect_probs(f, &rs[8], 0, 1, want, true); /* alone: the others failed before running */
    ember_tensor_destroy(want);
    free_responses(rs, N);
    free(d64);
    unload(f);
}

static void test_dynamic_batching(void **state)
{
    fixture *f = *state;
    load(f, CONFIG_BATCH);
    /* rows 0, 1-2, 0-2 and 2 (in two buffers): one run of 7 rows, split back */
    TRITONBACKEND_Request rs[4];
    request_rows(&rs[0], f, 0, 1, 1);
    request_rows(&rs[1], f, 1, 2, 1);
    request_rows(&rs[2], f, 0, 3, 1);
    request_rows(&rs[3], f, 2, 1, 2);
    TRITONBACKEND_Request *rp[4] = {&rs[0], &rs[1], &rs[2], &rs[3]};
    expect_ok(TRITONBACKEND_ModelInstanceExecute(&f->instance, rp, 4));
    assert_non_null(strstr(g_log, "model 'default': 4 requests, 7 rows batched"));
    assert_int_equal(g_batch_stats, 7);
    const int64_t r0[4] = {0, 1, 0, 2}, n[4] = {1, 2, 3, 1};
    for (int i = 0; i < 4; i++) {
        /* a batch of 7 is another plan than each alone: equal within rounding */
        ember_tensor *want = reference(f, r0[i], n[i]);
        expect_probs(f, &rs[i], r0[i], n[i], want, false);
        ember_tensor_destroy(want);
    }
    free_responses(rs, 4);
    unload(f);
}

static void test_no_batching_runs_each_request(void **state)
{
    fixture *f = *state;
    /* max_batch_size 0: shapes are the full ones and requests run one by one */
    load(f, "{\"max_batch_size\": 0, \"parameters\": {\"threads\": {\"string_value\": \"1\"}}}");
    TRITONBACKEND_Request rs[2];
    request_rows(&rs[0], f, 0, 2, 1);
    request_rows(&rs[1], f, 2, 1, 1);
    TRITONBACKEND_Request *rp[2] = {&rs[0], &rs[1]};
    expect_ok(TRITONBACKEND_ModelInstanceExecute(&f->instance, rp, 2));
    assert_null(strstr(g_log, "batched"));
    for (int i = 0; i < 2; i++) {
        ember_tensor *want = reference(f, i ? 2 : 0, i ? 1 : 2);
        expect_probs(f, &rs[i], i ? 2 : 0, i ? 1 : 2, want, true);
        ember_tensor_destroy(want);
    }
    free_responses(rs, 2);
    unload(f);
}

static void test_config_errors(void **state)
{
    fixture *f = *state;
    expect_ok(TRITONBACKEND_Initialize(&f->backend));
    static const struct {
        const char *config;
        TRITONSERVER_Error_Code code;
        const char *part;
    } cases[] = {
        {"{\"parameters\": {\"threads\": {\"string_value\": \"two\"}}}",
         TRITONSERVER_ERROR_INVALID_ARG,
         "model 'default': config.pbtxt parameter threads 'two' is not a number from 0 to 1024"},
        {"{\"parameters\": {\"precision\": {\"string_value\": \"int8\"}}}",
         TRITONSERVER_ERROR_INVALID_ARG, "parameter precision 'int8': expected fp32, fp16 or bf16"},
        {"{\"parameters\": {\"device\": {\"string_value\": \"tpu\"}}}",
         TRITONSERVER_ERROR_INVALID_ARG, "parameter device 'tpu': expected cpu or cuda"},
        {"{\"input\": [{\"name\": \"image\", \"data_type\": \"TYPE_FP32\"}]}",
         TRITONSERVER_ERROR_INVALID_ARG, "config.pbtxt input 'image' is not an input of"},
        {"{\"input\": [{\"name\": \"input\", \"data_type\": \"TYPE_INT64\"}]}",
         TRITONSERVER_ERROR_INVALID_ARG,
         "config.pbtxt input 'input' has data_type TYPE_INT64, the model's is TYPE_FP32"},
        {"{\"default_model_filename\": \"other.onnx\"}", TRITONSERVER_ERROR_NOT_FOUND,
         "/1/other.onnx (default_model_filename) does not exist"},
        {"{\"max_batch_size\": 8,", TRITONSERVER_ERROR_INVALID_ARG,
         "model 'default': its configuration: JSON: expected a member name at byte 21"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        f->model.config = cases[i].config;
        f->model.state = NULL;
        expect_err(TRITONBACKEND_ModelInitialize(&f->model), cases[i].code, cases[i].part);
        assert_null(f->model.state);
    }
    /* no model file in the version folder */
    f->model.config = "{}";
    f->model.version = 2;
    expect_err(TRITONBACKEND_ModelInitialize(&f->model), TRITONSERVER_ERROR_NOT_FOUND,
               "no model.onnx, model.pt or model.pt2 in");
    /* a file that is not a model: ember's message names it */
    f->model.version = 1;
    f->model.config = "{\"default_model_filename\": \"junk.onnx\"}";
    char junk[192];
    snprintf(junk, sizeof junk, "%s/1/junk.onnx", f->mdir);
    FILE *fp = fopen(junk, "wb");
    assert_non_null(fp);
    fputs("not a model", fp);
    fclose(fp);
    TRITONSERVER_Error *e = TRITONBACKEND_ModelInitialize(&f->model);
    unlink(junk);
    expect_err(e, TRITONSERVER_ERROR_INVALID_ARG, "model 'default': ");
    /* an instance on a GPU other than 0: the C API has no device index */
    f->model.config = "{}";
    expect_ok(TRITONBACKEND_ModelInitialize(&f->model));
    f->instance.kind = TRITONSERVER_INSTANCEGROUPKIND_GPU;
    f->instance.device = 1;
    expect_err(TRITONBACKEND_ModelInstanceInitialize(&f->instance), TRITONSERVER_ERROR_UNSUPPORTED,
               "instance 'default_0': ember's sessions run on CUDA device 0 only");
    assert_null(f->instance.state);
    expect_ok(TRITONBACKEND_ModelFinalize(&f->model));
    expect_ok(TRITONBACKEND_Finalize(&f->backend));
}

/* Triton's BYTES layout of a string tensor: per element a 4-byte little-endian length, then
 * the bytes. Returns a malloc'ed buffer and its size. */
static char *to_bytes(const ember_tensor *t, uint64_t *size)
{
    int64_t n = ember_tensor_elem_count(t);
    uint64_t total = 0;
    for (int64_t i = 0; i < n; i++) {
        total += 4 + strlen(ember_tensor_string(t, i));
    }
    unsigned char *buf = malloc(total ? total : 1), *p = buf;
    for (int64_t i = 0; i < n; i++) {
        const char *s = ember_tensor_string(t, i);
        uint32_t len = (uint32_t)strlen(s);
        p[0] = (unsigned char)len, p[1] = (unsigned char)(len >> 8);
        p[2] = (unsigned char)(len >> 16), p[3] = (unsigned char)(len >> 24);
        memcpy(p + 4, s, len);
        p += 4 + len;
    }
    *size = total;
    return (char *)buf;
}

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
        assert_int_equal(fwrite(buf, 1, n, out), n);
    }
    fclose(in);
    fclose(out);
}

static void test_strings_in_and_out(void **state)
{
    fixture *f = *state;
    /* <repo>/text/1/model.onnx: tests/data/onnx/text.onnx, two string inputs and five outputs
     * (four string, one f32) */
    char tdir[96], vdir[128], path[160];
    snprintf(tdir, sizeof tdir, "%s/text", f->dir);
    snprintf(vdir, sizeof vdir, "%s/1", tdir);
    snprintf(path, sizeof path, "%s/model.onnx", vdir);
    assert_int_equal(mkdir(tdir, 0755), 0);
    assert_int_equal(mkdir(vdir, 0755), 0);
    copy_file(data_path("onnx/text.onnx"), path);
    TRITONBACKEND_Model model = {
        "text", 1, tdir,
        "{\"max_batch_size\": 4, \"input\": [{\"name\": \"x\", \"data_type\": \"TYPE_STRING\"}]}",
        NULL};
    TRITONBACKEND_ModelInstance inst = {"text_0", TRITONSERVER_INSTANCEGROUPKIND_CPU, 0, &model,
                                        NULL};
    expect_ok(TRITONBACKEND_Initialize(&f->backend));
    expect_ok(TRITONBACKEND_ModelInitialize(&model));
    expect_ok(TRITONBACKEND_ModelInstanceInitialize(&inst));

    ember_tensor *x[2];
    char *bytes[2];
    TRITONBACKEND_Request rs[2];
    memset(rs, 0, sizeof rs);
    for (int i = 0; i < 2; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "onnx/text.in%d.npy", i);
        ok(ember_tensor_load_npy(data_path(rel), &x[i]));
        assert_int_equal(ember_tensor_dtype(x[i]), EMBER_DTYPE_STRING);
        uint64_t size = 0;
        bytes[i] = to_bytes(x[i], &size);
        for (int r = 0; r < 2; r++) { /* the same request twice: strings never batch */
            TRITONBACKEND_Input *in = &rs[r].in[rs[r].n_in++];
            in->name = i ? "n" : "x";
            in->dt = TRITONSERVER_TYPE_BYTES;
            in->rank = (uint32_t)ember_tensor_rank(x[i]);
            memcpy(in->shape, ember_tensor_dims(x[i]), in->rank * sizeof(int64_t));
            in->buf[0] = bytes[i];
            in->size[0] = size;
            in->nbuf = 1;
        }
    }
    TRITONBACKEND_Request *rp[2] = {&rs[0], &rs[1]};
    expect_ok(TRITONBACKEND_ModelInstanceExecute(&inst, rp, 2));
    assert_null(strstr(g_log, "batched"));
    for (int r = 0; r < 2; r++) {
        if (rs[r].err[0]) {
            fail_msg("request failed: %s", rs[r].err);
        }
        assert_int_equal(rs[r].sent, 1);
        assert_int_equal(rs[r].released, 1);
        const TRITONBACKEND_Response *resp = rs[r].response;
        assert_int_equal(resp->n_out, 5);
        for (uint32_t o = 0; o < 5; o++) {
            char rel[64];
            snprintf(rel, sizeof rel, "onnx/text.out%u.npy", o);
            ember_tensor *want = NULL;
            ok(ember_tensor_load_npy(data_path(rel), &want));
            const TRITONBACKEND_Output *out = &resp->out[o];
            int64_t n = ember_tensor_elem_count(want);
            assert_int_equal(out->rank, (uint32_t)ember_tensor_rank(want));
            for (uint32_t d = 0; d < out->rank; d++) {
                assert_int_equal(out->shape[d], ember_tensor_dims(want)[d]);
            }
            if (ember_tensor_dtype(want) == EMBER_DTYPE_STRING) {
                assert_int_equal(out->dt, TRITONSERVER_TYPE_BYTES);
                const unsigned char *p = out->buf, *end = p + out->size;
                for (int64_t k = 0; k < n; k++) {
                    assert_true(end - p >= 4);
                    uint32_t len = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
                    const char *w = ember_tensor_string(want, k);
                    assert_int_equal(len, strlen(w));
                    assert_memory_equal(p + 4, w, len);
                    p += 4 + len;
                }
                assert_ptr_equal(p, end);
            } else {
                assert_int_equal(out->dt, TRITONSERVER_TYPE_FP32);
                assert_int_equal(out->size, (uint64_t)n * 4);
                const float *got = out->buf, *w = ember_tensor_data(want);
                for (int64_t k = 0; k < n; k++) {
                    if (!(got[k] == w[k] || fabsf(got[k] - w[k]) <= 1e-6f * fabsf(w[k]))) {
                        fail_msg("%s[%lld] = %.9g, expected %.9g", out->name, (long long)k, got[k],
                                 w[k]);
                    }
                }
            }
            ember_tensor_destroy(want);
        }
    }
    free_responses(rs, 2);
    for (int i = 0; i < 2; i++) {
        ember_tensor_destroy(x[i]);
        free(bytes[i]);
    }
    expect_ok(TRITONBACKEND_ModelInstanceFinalize(&inst));
    expect_ok(TRITONBACKEND_ModelFinalize(&model));
    expect_ok(TRITONBACKEND_Finalize(&f->backend));
    unlink(path);
    rmdir(vdir);
    rmdir(tdir);
}

typedef struct {
    const fixture *f;
    TRITONBACKEND_ModelInstance *instance;
    const ember_tensor *want;
    int failures;
} worker_arg;

/* Runs 20 single requests of rows 0-2 on its instance; counts results that differ. */
static void *worker(void *p)
{
    worker_arg *a = p;
    for (int it = 0; it < 20; it++) {
        TRITONBACKEND_Request r;
        request_rows(&r, a->f, 0, 3, 1);
        TRITONBACKEND_Request *rp = &r;
        TRITONSERVER_Error *e = TRITONBACKEND_ModelInstanceExecute(a->instance, &rp, 1);
        if (e || r.err[0] || r.sent != 1 || r.released != 1 || r.response->n_out != 1 ||
            r.response->out[0].size != 120 ||
            memcmp(r.response->out[0].buf, ember_tensor_data((ember_tensor *)a->want), 120) != 0) {
            a->failures++;
        }
        TRITONSERVER_ErrorDelete(e);
        if (r.response) {
            TRITONSERVER_ErrorDelete(TRITONBACKEND_ResponseDelete(r.response));
        }
    }
    return NULL;
}

static void test_instances_run_concurrently(void **state)
{
    fixture *f = *state;
    /* two instances of one model (instance_group count 2), executing at once on two threads,
     * as Triton does; each has its own session over the one ember model */
    load(f, "{\"max_batch_size\": 8, \"parameters\": {\"threads\": {\"string_value\": \"1\"}}}");
    TRITONBACKEND_ModelInstance second = {"default_1", TRITONSERVER_INSTANCEGROUPKIND_CPU, 0,
                                          &f->model, NULL};
    expect_ok(TRITONBACKEND_ModelInstanceInitialize(&second));
    ember_tensor *want = reference(f, 0, 3);
    worker_arg args[2] = {{f, &f->instance, want, 0}, {f, &second, want, 0}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        assert_int_equal(pthread_create(&th[i], NULL, worker, &args[i]), 0);
    }
    for (int i = 0; i < 2; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_int_equal(args[i].failures, 0);
    }
    ember_tensor_destroy(want);
    expect_ok(TRITONBACKEND_ModelInstanceFinalize(&second));
    unload(f);
}

static void test_api_version_check(void **state)
{
    fixture *f = *state;
    g_api_minor = TRITONBACKEND_API_VERSION_MINOR - 1;
    expect_err(TRITONBACKEND_Initialize(&f->backend), TRITONSERVER_ERROR_UNSUPPORTED,
               "this backend was built for 1.");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_good_request, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_requests_fail_alone, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dynamic_batching, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_batching_runs_each_request, setup, teardown),
        cmocka_unit_test_setup_teardown(test_config_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_strings_in_and_out, setup, teardown),
        cmocka_unit_test_setup_teardown(test_instances_run_concurrently, setup, teardown),
        cmocka_unit_test_setup_teardown(test_api_version_check, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
