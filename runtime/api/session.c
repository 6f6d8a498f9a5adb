/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Sessions: options, the plan cache, binding inputs and outputs, profiles. The executor that
 * runs a plan is exec/executor.c. A session caches plans per input-shape signature (LRU, capped).
 * Plans pack their weights into the model's pack cache (core/pack.h), so the plans of every
 * session of a model share one copy of each packing.
 * Each plan keeps a free list of run contexts (an arena plus the per-node tensor arrays); a
 * run takes one, or makes one the first time that many runs overlap, so concurrent runs never
 * share an arena and a steady-state run makes no allocation. When a run ends, a plan keeps at
 * most idle_max + (runs then in flight) idle contexts, and once no run is in flight every plan
 * keeps at most idle_max: a burst's extra arenas go back when it ends, while overlapping runs
 * do not free what the next one needs. The session mutex guards the cache, the free lists,
 * the counters and the profile; it is never held while kernels run.
 */
#define _POSIX_C_SOURCE 200809L
#include "api/api_internal.h"

#include "core/alloc.h"
#include "exec/executor.h"
#include "exec/interp.h"
#include "plan/kernel.h"
#include "plan/planner.h"
#include "core/status.h"
#include "core/thread.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Most outputs one run binds (the quantizer's calibration observes every activation it
 * quantizes as an output). */
#define EM_SESSION_MAX_OUTPUTS 4096
/* The same for inputs (a trainer binds every parameter as one); up to 64 without allocating. */
#define EM_SESSION_MAX_INPUTS EM_SESSION_MAX_OUTPUTS

typedef struct plan_entry {
    em_plan *plan;
    em_runctx *free_ctx;
    int n_idle;       /* contexts on free_ctx */
    size_t ctx_bytes; /* what one run context of the plan holds (em_runctx_bytes) */
    int refs;
    bool dead;
    uint64_t last_use;
} plan_entry;

typedef struct prof_event {
    const char *kernel; /* static: kernel names live in the kernel tables */
    int node;
    int thread;
    int64_t run;
    int64_t start, dur;
} prof_event;

struct ember_session {
    const ember_model *m;
    const ember_allocator *al;
    em_threadpool *pool;
    uint64_t isa;
    bool profiling;
    bool interp; /* the graph runs through the interpreter (interp.h), not plans */
    int cache_cap;
    int idle_max; /* idle run contexts a plan keeps once no run is in flight */
    size_t mem_limit; /* most bytes of one activation arena; 0: no limit */
    pthread_mutex_t mu;
    int in_flight; /* runs between taking and giving back a plan */
    int n_ctx;     /* run contexts alive, in use or idle, of every plan (dead ones too) */
    size_t ctx_bytes;
    plan_entry **plans; /* plans_cap slots, grown up to cache_cap as plans are built */
    int n_plans, plans_cap;
    plan_entry *last;
    uint64_t clock;
    int64_t t0;
    int64_t run_seq;
    prof_event *events;
    size_t n_events, cap_events;
};

struct ember_profile {
    const ember_model *m;
    prof_event *events;
    size_t n;
};

/* ---- session options ---- */

ember_status *ember_session_options_create(ember_session_options **out)
{
    if (out == NULL) {
        return em_api_null_arg("session_options_create", "out");
    }
    *out = calloc(1, sizeof **out);
    if (*out == NULL) {
        return em_status_oom();
    }
    (*out)->plan_cache = 8;
    (*out)->idle_contexts = 1;
    return NULL;
}

void ember_session_options_destroy(ember_session_options *o) { free(o); }

void ember_session_options_set_threads(ember_session_options *o, int n)
{
    if (o != NULL) {
        o->threads = n < 0 ? 0 : n;
    }
}

void ember_session_options_set_device(ember_session_options *o, ember_device dev)
{
    if (o != NULL) {
        o->device = dev;
    }
}

void ember_session_options_set_precision(ember_session_options *o, ember_precision p)
{
    if (o != NULL) {
        o->precision = p;
    }
}

void ember_session_options_set_profiling(ember_session_options *o, bool on)
{
    if (o != NULL) {
        o->profiling = on;
    }
}

void ember_session_options_set_plan_cache(ember_session_options *o, int n)
{
    if (o != NULL) {
        o->plan_cache = n < 1 ? 1 : n;
    }
}

void ember_session_options_set_idle_contexts(ember_session_options *o, int n)
{
    if (o != NULL) {
        o->idle_contexts = n < 0 ? 0 : n;
    }
}

void ember_session_options_set_memory_limit(ember_session_options *o, size_t bytes)
{
    if (o != NULL) {
        o->memory_limit = bytes;
    }
}

ember_status *ember_session_options_set_isa_max(ember_session_options *o, const char *isa)
{
    uint64_t mask;
    if (o == NULL || isa == NULL) {
        return em_api_null_arg("session_options_set_isa_max", o == NULL ? "options" : "isa");
    }
    if (!em_isa_cap_parse(isa, &mask)) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "session_options_set_isa_max: unknown ISA cap '%s' (expected "
                             "scalar, avx2, avx512, neon or native)",
                             isa);
    }
    o->isa_set = true;
    o->isa_cap = mask;
    return NULL;
}

/* ---- plans and run contexts ---- */

/* Moves e's idle contexts beyond `keep` to *drop (freed by the caller outside mu). Caller
 * holds mu. */
static void trim_idle(ember_session *s, plan_entry *e, int64_t keep, em_runctx **drop)
{
    while (e->n_idle > keep) {
        em_runctx *c = e->free_ctx;
        e->free_ctx = c->next;
        e->n_idle--;
        s->n_ctx--;
        s->ctx_bytes -= e->ctx_bytes;
        c->next = *drop;
        *drop = c;
    }
}

static void free_contexts(const ember_allocator *al, em_runctx *c)
{
    while (c != NULL) {
        em_runctx *next = c->next;
        em_runctx_destroy(al, c);
        c = next;
    }
}

/* Frees entry e (no run holds it). Caller holds mu. */
static void entry_destroy(ember_session *s, plan_entry *e)
{
    em_runctx *drop = NULL;
    trim_idle(s, e, 0, &drop);
    free_contexts(s->al, drop);
    em_plan_destroy(e->plan);
    em_free(s->al, e);
}

/* Removes entry i from the cache; destroyed now or by its last user. Caller holds mu. */
static void cache_remove(ember_session *s, int i)
{
    plan_entry *e = s->plans[i];
    s->plans[i] = s->plans[--s->n_plans];
    if (s->last == e) {
        s->last = NULL;
    }
    if (e->refs == 0) {
        entry_destroy(s, e);
    } else {
        e->dead = true;
    }
}

/* Finds or builds the plan for these shapes. Caller holds mu. */
static ember_status *plan_get(ember_session *s, const int64_t *const *shapes, const int *ranks,
                              const void *const *data, int n, plan_entry **out)
{
    for (int i = 0; i < s->n_plans; i++) {
        if (em_plan_matches(s->plans[i]->plan, shapes, ranks, data, n)) {
            *out = s->plans[i];
            s->plans[i]->last_use = ++s->clock;
            return NULL;
        }
    }
    em_plan *p = NULL;
    ember_model *m = (ember_model *)s->m; /* its half weights' bytes may go (api_internal.h) */
    pthread_mutex_lock(&m->plan_mu);
    ember_status *st = em_plan_build_ex(m->g, s->al, s->isa, em_threadpool_size(s->pool),
                                        m->packs, shapes, ranks, data, n, em_model_drop_half, m,
                                        &p);
    pthread_mutex_unlock(&m->plan_mu);
    if (st != NULL) {
        return st;
    }
    /* Building the plan read the weights to pack them (oneDNN's layouts, Winograd's U, GEMM
     * panels): the image pages it touched stay resident beside the packed copies although the
     * plan may never read them again. The image is a read-only private file mapping, so they
     * can all go: a later read (a kernel that reads a weight in place, the next plan's
     * packing) maps them in again from the file, the same bytes. */
    em_storage_drop_pages(s->m->bytes, 0, SIZE_MAX);
    /* The memory limit: checked before any run context maps the plan's arena. */
    if (s->mem_limit > 0 && p->arena_bytes > s->mem_limit) {
        size_t need = p->arena_bytes;
        em_plan_destroy(p);
        return em_status_new(EMBER_ERR_OUT_OF_MEMORY,
                             "memory limit: the plan for these input shapes needs an activation "
                             "arena of %zu bytes, over the limit of %zu bytes",
                             need, s->mem_limit);
    }
    plan_entry *e = em_calloc(s->al, 1, sizeof *e);
    if (e == NULL) {
        em_plan_destroy(p);
        return em_status_oom();
    }
    e->plan = p;
    e->ctx_bytes = em_runctx_bytes(p);
    e->last_use = ++s->clock;
    if (s->n_plans == s->plans_cap && s->plans_cap < s->cache_cap) {
        int cap = s->plans_cap <= s->cache_cap / 2 ? 2 * s->plans_cap : s->cache_cap;
        plan_entry **grown = em_realloc(s->al, s->plans, (size_t)cap * sizeof *grown);
        if (grown == NULL) {
            entry_destroy(s, e);
            return em_status_oom();
        }
        s->plans = grown;
        s->plans_cap = cap;
    }
    if (s->n_plans >= s->cache_cap) {
        int lru = 0;
        for (int i = 1; i < s->n_plans; i++) {
            if (s->plans[i]->last_use < s->plans[lru]->last_use) {
                lru = i;
            }
        }
        cache_remove(s, lru);
    }
    s->plans[s->n_plans++] = e;
    s->last = e;
    em_model_log(s->m, EMBER_LOG_DEBUG, "planned: arena %zu bytes, intermediates %zu bytes",
                 p->arena_bytes, p->naive_bytes);
    for (int i = 0; i < p->n_nodes; i++) {
        em_model_log(s->m, EMBER_LOG_DEBUG, "node %d '%s' (%s): kernel %s", i,
                     p->nodes[i].node->name, em_op_name(p->nodes[i].node->op),
                     p->nodes[i].k->name);
    }
    *out = e;
    return NULL;
}

/* ---- sessions ---- */

/* The options' values the setters stored unchecked: INVALID_ARG for a value outside its enum
 * or range, UNSUPPORTED for one this version cannot run. */
static ember_status *check_options(const ember_model *m, const ember_session_options *opt)
{
    if ((unsigned)opt->device > EMBER_DEVICE_CUDA) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "session_create: device %d is not an "
                             "ember_device", (int)opt->device);
    }
    if ((unsigned)opt->precision > EMBER_PRECISION_BF16) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "session_create: precision %d is not an "
                             "ember_precision", (int)opt->precision);
    }
    if (opt->threads > EM_MAX_THREADS) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "session_create: %d threads, more than the "
                             "%d a session runs", opt->threads, EM_MAX_THREADS);
    }
    if (opt->device == EMBER_DEVICE_CUDA) {
        return em_status_new(EMBER_ERR_UNSUPPORTED,
                             "device cuda: this version executes on the CPU only");
    }
    if (opt->precision == EMBER_PRECISION_INT8) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "precision int8: a session runs the model's "
                             "own precision; quantize the model (ember_quantize_*) instead");
    }
    ember_dtype half = opt->precision == EMBER_PRECISION_FP16   ? EMBER_DTYPE_F16
                       : opt->precision == EMBER_PRECISION_BF16 ? EMBER_DTYPE_BF16
                                                                : EMBER_DTYPE_UNDEFINED;
    if (half != EMBER_DTYPE_UNDEFINED && m->half_weights != half) {
        const char *name = half == EMBER_DTYPE_F16 ? "fp16" : "bf16";
        return em_status_new(EMBER_ERR_UNSUPPORTED,
                             "precision %s: the model holds its weights in %s; load it with "
                             "ember_model_options_set_precision(EMBER_PRECISION_%s)",
                             name, m->half_weights == EMBER_DTYPE_UNDEFINED
                                       ? "fp32" : em_dtype_name(m->half_weights),
                             half == EMBER_DTYPE_F16 ? "FP16" : "BF16");
    }
    return NULL;
}

ember_status *ember_session_create(const ember_model *model, const ember_session_options *opt,
                                   ember_session **out)
{
    ember_status *st = NULL;
    ember_session *s = NULL;
    if (out == NULL) {
        return em_api_null_arg("session_create", "out");
    }
    *out = NULL;
    if (model == NULL) {
        return em_api_null_arg("session_create", "model");
    }
    ember_session_options dflt = {0};
    dflt.plan_cache = 8;
    dflt.idle_contexts = 1;
    if (opt == NULL) {
        opt = &dflt;
    }
    st = check_options(model, opt);
    if (st != NULL) {
        return st;
    }
    uint64_t isa = em_cpu_features();
    if (opt->isa_set) {
        isa &= opt->isa_cap;
    }
    const char *env = getenv("EMBER_ISA_MAX");
    if (env != NULL && env[0] != '\0') {
        uint64_t cap;
        if (!em_isa_cap_parse(env, &cap)) {
            return em_status_new(EMBER_ERR_INVALID_ARG,
                                 "EMBER_ISA_MAX='%s' is not one of scalar, avx2, avx512, "
                                 "neon, native",
                                 env);
        }
        isa &= cap;
    }
    s = em_calloc(model->al, 1, sizeof *s);
    if (s == NULL) {
        return em_status_oom();
    }
    s->m = model;
    s->al = model->al;
    s->isa = isa;
    s->profiling = opt->profiling;
    s->cache_cap = opt->plan_cache > 0 ? opt->plan_cache : 8;
    s->idle_max = opt->idle_contexts;
    s->mem_limit = opt->memory_limit;
    s->t0 = em_now_ns();
    pthread_mutex_init(&s->mu, NULL);
    s->plans_cap = s->cache_cap < 8 ? s->cache_cap : 8;
    s->plans = em_calloc(s->al, (size_t)s->plans_cap, sizeof *s->plans);
    if (s->plans == NULL) {
        st = em_status_oom();
        goto fail;
    }
    EMBER_TRY(em_threadpool_create(s->al, opt->threads, &s->pool));
    /* Plan now when every input dim is known. */
    const em_graph *g = model->g;
    s->interp = em_graph_needs_interp(g);
    bool known = g->n_inputs <= 64 && !s->interp;
    int64_t dims[64][EM_MAX_RANK];
    const int64_t *shapes[64];
    int ranks[64];
    for (int i = 0; known && i < g->n_inputs; i++) {
        const em_value *v = &g->values[g->inputs[i]];
        known = v->rank >= 0;
        ranks[i] = v->rank;
        shapes[i] = dims[i];
        for (int d = 0; known && d < v->rank; d++) {
            known = v->dims[d].v >= 0;
            dims[i][d] = v->dims[d].v;
        }
    }
    if (known) {
        st = ember_session_prepare(s, shapes, ranks, (size_t)g->n_inputs);
        if (ember_status_code(st) == EMBER_ERR_STATE) { /* keyed inputs: plan at the first run */
            ember_status_destroy(st);
            st = NULL;
        }
        EMBER_TRY(st);
    }
    *out = s;
    return NULL;
fail:
    ember_session_destroy(s);
    return st;
}

/* Removes every plan from the cache (each destroyed now or by its last run). */
static void drop_plans(ember_session *s)
{
    pthread_mutex_lock(&s->mu);
    while (s->n_plans > 0) {
        cache_remove(s, s->n_plans - 1);
    }
    pthread_mutex_unlock(&s->mu);
}

void ember_session_release_plans(ember_session *s)
{
    if (s != NULL) {
        drop_plans(s);
        em_heap_trim();
    }
}

void ember_session_destroy(ember_session *s)
{
    if (s == NULL) {
        return;
    }
    if (s->plans != NULL) {
        drop_plans(s);
    }
    em_threadpool_destroy(s->pool);
    pthread_mutex_destroy(&s->mu);
    em_free(s->al, s->plans);
    em_free(s->al, s->events);
    em_free(s->al, s);
    em_heap_trim();
}

int ember_session_thread_count(const ember_session *s)
{
    return s != NULL ? em_threadpool_size(s->pool) : 0;
}

/* The arguments of ember_session_prepare: one shape per model input, each of a rank the
 * planner holds and with its dims given. */
static ember_status *check_prepare(const ember_session *s, const int64_t *const *shapes,
                                   const int *ranks, size_t n_inputs)
{
    static const char fn[] = "session_prepare";
    if (s == NULL) {
        return em_api_null_arg(fn, "session");
    }
    const em_graph *g = s->m->g;
    if (n_inputs != (size_t)g->n_inputs) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "%s: model has %d inputs, %zu were given", fn,
                             g->n_inputs, n_inputs);
    }
    if (n_inputs > 0 && (shapes == NULL || ranks == NULL)) {
        return em_api_null_arg(fn, shapes == NULL ? "shapes" : "ranks");
    }
    for (size_t i = 0; i < n_inputs; i++) {
        const char *name = g->values[g->inputs[i]].name;
        if (ranks[i] < 0 || ranks[i] > EMBER_MAX_RANK) {
            return em_status_new(EMBER_ERR_INVALID_ARG,
                                 "%s: input %zu '%s': rank %d is out of range 0..%d", fn, i, name,
                                 ranks[i], EMBER_MAX_RANK);
        }
        if (shapes[i] == NULL && ranks[i] > 0) {
            return em_status_new(EMBER_ERR_INVALID_ARG,
                                 "%s: input %zu '%s': NULL shape with rank %d", fn, i, name,
                                 ranks[i]);
        }
    }
    return NULL;
}

ember_status *ember_session_prepare(ember_session *s, const int64_t *const *shapes,
                                    const int *ranks, size_t n_inputs)
{
    plan_entry *e;
    ember_status *st = check_prepare(s, shapes, ranks, n_inputs);
    if (st != NULL) {
        return st;
    }
    if (s->interp) {
        return em_status_new(EMBER_ERR_STATE,
                             "this model is interpreted node by node (control flow, sequences "
                             "or data-dependent shapes): it has no plan to prepare");
    }
    pthread_mutex_lock(&s->mu);
    st = plan_get(s, shapes, ranks, NULL, (int)n_inputs, &e);
    if (st == NULL) {
        s->last = e;
    }
    pthread_mutex_unlock(&s->mu);
    return st;
}

ember_status *ember_session_memory_info(const ember_session *s, size_t *arena, size_t *naive)
{
    ember_session *ms = (ember_session *)s; /* the mutex is not part of the logical state */
    ember_status *st = NULL;
    if (s == NULL) {
        return em_api_null_arg("session_memory_info", "session");
    }
    pthread_mutex_lock(&ms->mu);
    if (s->last == NULL) {
        st = em_status_new(EMBER_ERR_STATE, "session has no plan yet: run or prepare first");
    } else {
        if (arena != NULL) {
            *arena = s->last->plan->arena_bytes;
        }
        if (naive != NULL) {
            *naive = s->last->plan->naive_bytes;
        }
    }
    pthread_mutex_unlock(&ms->mu);
    return st;
}

ember_status *ember_session_memory_stat(const ember_session *s, ember_memory_stat stat,
                                        size_t *value)
{
    static const char fn[] = "session_memory_stat";
    ember_session *ms = (ember_session *)s; /* the mutex is not part of the logical state */
    if (value == NULL) {
        return em_api_null_arg(fn, "value");
    }
    *value = 0;
    if (s == NULL) {
        return em_api_null_arg(fn, "session");
    }
    if ((unsigned)stat > EMBER_MEMORY_RUN_CONTEXT_BYTES) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "%s: stat %d is not an ember_memory_stat",
                             fn, (int)stat);
    }
    size_t v = 0;
    pthread_mutex_lock(&ms->mu);
    switch (stat) {
    case EMBER_MEMORY_PLANS: v = (size_t)s->n_plans; break;
    case EMBER_MEMORY_PLAN_ARENA_BYTES:
        for (int i = 0; i < s->n_plans; i++) {
            v += s->plans[i]->plan->arena_bytes;
        }
        break;
    case EMBER_MEMORY_PACKED_WEIGHT_BYTES: /* the plans' own, then the model's shared ones */
        for (int i = 0; i < s->n_plans; i++) {
            v += em_pack_cache_bytes(s->plans[i]->plan->packs, NULL);
        }
        break;
    case EMBER_MEMORY_RUN_CONTEXTS: v = (size_t)s->n_ctx; break;
    case EMBER_MEMORY_IDLE_RUN_CONTEXTS:
        for (int i = 0; i < s->n_plans; i++) {
            v += (size_t)s->plans[i]->n_idle;
        }
        break;
    case EMBER_MEMORY_RUN_CONTEXT_BYTES: v = s->ctx_bytes; break;
    }
    pthread_mutex_unlock(&ms->mu);
    if (stat == EMBER_MEMORY_PACKED_WEIGHT_BYTES) {
        v += em_pack_cache_bytes(s->m->packs, NULL);
    }
    *value = v;
    return NULL;
}

ember_status *ember_session_plan_text(const ember_session *s, char **text)
{
    ember_session *ms = (ember_session *)s;
    ember_status *st;
    if (text == NULL) {
        return em_api_null_arg("session_plan_text", "text");
    }
    *text = NULL;
    if (s == NULL) {
        return em_api_null_arg("session_plan_text", "session");
    }
    pthread_mutex_lock(&ms->mu);
    if (s->last == NULL) {
        st = em_status_new(EMBER_ERR_STATE, "session has no plan yet: run or prepare first");
    } else {
        st = em_plan_to_text(s->last->plan, text);
    }
    pthread_mutex_unlock(&ms->mu);
    return st;
}

/* ---- running ---- */

static ember_status *check_inputs(const ember_session *s, ember_tensor *const *inputs, size_t n,
                                  const int64_t **shapes, int *ranks, const void **data)
{
    const em_graph *g = s->m->g;
    if (n != (size_t)g->n_inputs) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "model has %d inputs, %zu were given",
                             g->n_inputs, n);
    }
    for (size_t i = 0; i < n; i++) {
        const em_value *v = &g->values[g->inputs[i]];
        if (inputs[i] == NULL) {
            return em_status_new(EMBER_ERR_INVALID_ARG, "input %zu '%s' is NULL", i, v->name);
        }
        if (inputs[i]->kind != EMBER_VALUE_TENSOR) {
            return em_status_new(EMBER_ERR_INVALID_ARG, "input %zu '%s': a tensor is needed, "
                                 "not a sequence or an empty optional", i, v->name);
        }
        if (inputs[i]->t.dtype != v->dtype) {
            return em_status_new(EMBER_ERR_INVALID_ARG, "input %zu '%s': dtype %s, expected %s",
                                 i, v->name, em_dtype_name(inputs[i]->t.dtype),
                                 em_dtype_name(v->dtype));
        }
        shapes[i] = inputs[i]->t.dims;
        ranks[i] = inputs[i]->t.rank;
        data[i] = inputs[i]->t.data;
    }
    return NULL;
}

/* Binds (or creates) the output tensors. created[i] marks tensors made here. */
static ember_status *bind_outputs(const ember_session *s, const em_plan *p, em_runctx *c,
                                  ember_tensor **outputs, bool *created)
{
    const em_graph *g = s->m->g;
    for (int i = 0; i < g->n_outputs; i++) {
        int v = g->outputs[i];
        const em_plan_value *pv = &p->vals[v];
        if (outputs[i] == NULL) {
            ember_status *st = em_tensor_new_owned(s->al, pv->t.dtype, pv->t.dims, pv->t.rank,
                                                   &outputs[i]);
            if (st != NULL) {
                return st;
            }
            created[i] = true;
        } else if (outputs[i]->t.dtype != pv->t.dtype ||
                   !em_tensor_same_shape(&outputs[i]->t, &pv->t)) {
            char want[160], got[160];
            em_tensor_shape_str(&pv->t, want, sizeof want);
            em_tensor_shape_str(&outputs[i]->t, got, sizeof got);
            return em_status_new(EMBER_ERR_INVALID_ARG, "output %d '%s': bound tensor is %s, "
                                 "the model produces %s", i, g->values[v].name, got, want);
        }
        if (pv->loc == EM_LOC_OUTPUT && pv->index == i) {
            c->vdata[v] = outputs[i]->t.data;
        }
    }
    return NULL;
}

/* Outputs that are inputs, constants or repeated values are copied, not computed in place. */
static void copy_passthrough(const ember_session *s, const em_plan *p, em_runctx *c,
                             ember_tensor **outputs)
{
    const em_graph *g = s->m->g;
    for (int i = 0; i < g->n_outputs; i++) {
        int v = g->outputs[i];
        const em_plan_value *pv = &p->vals[v];
        if (!(pv->loc == EM_LOC_OUTPUT && pv->index == i) && pv->bytes > 0) {
            memcpy(outputs[i]->t.data, c->vdata[v], pv->bytes);
        }
    }
}

static void record_profile(ember_session *s, const em_plan *p, const em_runctx *c, int64_t seq)
{
    size_t need = s->n_events + (size_t)p->n_nodes;
    if (need > s->cap_events) {
        size_t cap = s->cap_events ? s->cap_events * 2 : 1024;
        while (cap < need) {
            cap *= 2;
        }
        prof_event *ev = em_realloc(s->al, s->events, cap * sizeof *ev);
        if (ev == NULL) {
            return; /* profiling is best effort: drop this run's events */
        }
        s->events = ev;
        s->cap_events = cap;
    }
    int tid = em_thread_id();
    for (int ni = 0; ni < p->n_nodes; ni++) {
        if (p->nodes[ni].folded || p->nodes[ni].in_place) {
            continue;
        }
        prof_event *e = &s->events[s->n_events++];
        e->kernel = p->nodes[ni].k->name;
        e->node = ni;
        e->thread = tid;
        e->run = seq;
        e->start = c->ev[2 * ni];
        e->dur = c->ev[2 * ni + 1];
    }
}

static bool kind_fits(const em_value *v, const ember_tensor *t)
{
    bool opt = v->vt == EM_VT_OPTIONAL || v->vt == EM_VT_OPTIONAL_SEQUENCE;
    bool seq = v->vt == EM_VT_SEQUENCE || v->vt == EM_VT_OPTIONAL_SEQUENCE;
    switch (t->kind) {
    case EMBER_VALUE_NONE: return opt;
    case EMBER_VALUE_SEQUENCE: return seq;
    default: return !seq;
    }
}

/* Copies value v into output slot `o` (created when NULL, else a bound tensor of its shape). */
static ember_status *interp_output(const ember_session *s, int i, const em_rv *v,
                                   ember_tensor **o, bool *created)
{
    const em_value *gv = &s->m->g->values[s->m->g->outputs[i]];
    if (*o == NULL) {
        ember_status *st = em_api_value_from_rv(s->al, v, o);
        *created = st == NULL;
        return st;
    }
    if (v->kind != EM_RV_TENSOR || (*o)->kind != EMBER_VALUE_TENSOR ||
        (*o)->t.dtype != v->t.dtype || !em_tensor_same_shape(&(*o)->t, &v->t)) {
        char want[160], got[160];
        em_tensor_shape_str(&v->t, want, sizeof want);
        em_tensor_shape_str(&(*o)->t, got, sizeof got);
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "output %d '%s': the bound slot (%s) does not fit the value the "
                             "model produced (%s; sequences and empty optionals need a NULL "
                             "slot)", i, gv->name, got, v->kind == EM_RV_TENSOR ? want : "not "
                             "a tensor");
    }
    if (v->t.dtype == EMBER_DTYPE_STRING) {
        return em_api_tensor_set_strings(*o, &v->t); /* the slot owns copies */
    }
    if ((*o)->nbytes > 0) {
        memcpy((*o)->t.data, v->t.data, (*o)->nbytes);
    }
    return NULL;
}

/* A run through the interpreter: no plan, values allocated as the graph runs. */
static ember_status *run_interp(ember_session *s, ember_tensor *const *inputs, size_t n_inputs,
                                ember_tensor **outputs, bool *created)
{
    const em_graph *g = s->m->g;
    if (n_inputs != (size_t)g->n_inputs) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "model has %d inputs, %zu were given",
                             g->n_inputs, n_inputs);
    }
    em_rv *in = em_calloc(s->al, n_inputs + 1, sizeof *in);
    em_rv *out = em_calloc(s->al, (size_t)g->n_outputs + 1, sizeof *out);
    ember_status *st = in == NULL || out == NULL ? em_status_oom() : NULL;
    for (size_t i = 0; i < n_inputs && st == NULL; i++) {
        const em_value *v = &g->values[g->inputs[i]];
        static const char *const vt_names[] = {"tensor", "sequence of tensors",
                                               "optional tensor", "optional sequence"};
        if (inputs[i] == NULL || !kind_fits(v, inputs[i])) {
            st = em_status_new(EMBER_ERR_INVALID_ARG, "input %zu '%s': %s%s", i, v->name,
                               inputs[i] == NULL ? "is NULL" : "the model takes a ",
                               inputs[i] == NULL ? "" : vt_names[v->vt & 3]);
        } else if (inputs[i]->kind != EMBER_VALUE_NONE && inputs[i]->t.dtype != v->dtype &&
                   !(inputs[i]->kind == EMBER_VALUE_SEQUENCE && inputs[i]->n_items == 0)) {
            st = em_status_new(EMBER_ERR_INVALID_ARG, "input %zu '%s': dtype %s, expected %s",
                               i, v->name, em_dtype_name(inputs[i]->t.dtype),
                               em_dtype_name(v->dtype));
        } else {
            st = em_api_value_to_rv(s->al, inputs[i], &in[i]);
        }
    }
    if (st == NULL) {
        em_interp it = {s->al, s->isa, s->pool};
        st = em_interp_run(&it, g, in, out);
    }
    for (int i = 0; i < g->n_outputs && st == NULL; i++) {
        st = interp_output(s, i, &out[i], &outputs[i], &created[i]);
    }
    for (size_t i = 0; in != NULL && i < n_inputs; i++) {
        em_rv_clear(s->al, &in[i]);
    }
    for (int i = 0; out != NULL && i < g->n_outputs; i++) {
        em_rv_clear(s->al, &out[i]);
    }
    em_free(s->al, in);
    em_free(s->al, out);
    return st;
}

/* ember_session_run with scratch arrays shapes / data / ranks of n_inputs entries. */
static ember_status *session_run(ember_session *s, ember_tensor *const *inputs, size_t n_inputs,
                                 ember_tensor **outputs, size_t n_outputs, const int64_t **shapes,
                                 const void **data, int *ranks)
{
    bool created[EM_SESSION_MAX_OUTPUTS]; /* cleared once the count is checked */
    plan_entry *e = NULL;
    em_runctx *c = NULL;
    ember_status *st = NULL;
    if (s == NULL) {
        return em_api_null_arg("session_run", "session");
    }
    const em_graph *g = s->m->g;
    if (n_inputs != (size_t)g->n_inputs) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "session_run: model has %d inputs, %zu were given", g->n_inputs,
                             n_inputs);
    }
    if (n_outputs != (size_t)g->n_outputs) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "session_run: model has %d outputs, %zu slots were given",
                             g->n_outputs, n_outputs);
    }
    if ((n_inputs > 0 && inputs == NULL) || outputs == NULL) {
        return em_api_null_arg("session_run", outputs == NULL ? "outputs" : "inputs");
    }
    if (g->n_inputs > EM_SESSION_MAX_INPUTS || g->n_outputs > EM_SESSION_MAX_OUTPUTS) {
        return em_status_new(EMBER_ERR_UNSUPPORTED, "session_run: the model has %d inputs and %d "
                             "outputs; this version runs at most %d of each",
                             g->n_inputs, g->n_outputs, EM_SESSION_MAX_OUTPUTS);
    }
    memset(created, 0, sizeof created[0] * (size_t)g->n_outputs);
    if (s->interp) {
        st = run_interp(s, inputs, n_inputs, outputs, created);
        for (int i = 0; st != NULL && i < g->n_outputs; i++) {
            if (created[i]) {
                ember_tensor_destroy(outputs[i]);
                outputs[i] = NULL;
            }
        }
        return st;
    }
    st = check_inputs(s, inputs, n_inputs, shapes, ranks, data);
    if (st != NULL) {
        return st; /* nothing taken yet */
    }

    pthread_mutex_lock(&s->mu);
    st = plan_get(s, shapes, ranks, data, (int)n_inputs, &e);
    bool new_ctx = false;
    if (st == NULL) {
        e->refs++;
        s->in_flight++;
        c = e->free_ctx;
        if (c != NULL) {
            e->free_ctx = c->next;
            e->n_idle--;
        } else { /* counted now, so that a report during the run sees it */
            new_ctx = true;
            s->n_ctx++;
            s->ctx_bytes += e->ctx_bytes;
        }
    }
    int64_t seq = s->run_seq++;
    pthread_mutex_unlock(&s->mu);
    if (st != NULL) {
        return st;
    }
    const em_plan *p = e->plan;
    if (new_ctx) {
        EMBER_TRY(em_runctx_new(s->al, p, &c));
    }
    for (size_t i = 0; i < n_inputs; i++) {
        c->vdata[g->inputs[i]] = inputs[i]->t.data;
    }
    EMBER_TRY(bind_outputs(s, p, c, outputs, created));
    em_exec_run(p, c, s->pool, s->profiling, s->t0);
    copy_passthrough(s, p, c, outputs);
fail:
    if (st != NULL) {
        for (int i = 0; i < g->n_outputs; i++) {
            if (created[i]) {
                ember_tensor_destroy(outputs[i]);
                outputs[i] = NULL;
            }
        }
    }
    em_runctx *drop = NULL;
    pthread_mutex_lock(&s->mu);
    if (c != NULL) {
        if (st == NULL && s->profiling) {
            record_profile(s, p, c, seq);
        }
        c->next = e->free_ctx;
        e->free_ctx = c;
        e->n_idle++;
    } else if (new_ctx) { /* its creation failed */
        s->n_ctx--;
        s->ctx_bytes -= e->ctx_bytes;
    }
    s->in_flight--;
    if (--e->refs == 0 && e->dead) {
        entry_destroy(s, e);
    } else {
        trim_idle(s, e, (int64_t)s->idle_max + s->in_flight, &drop);
    }
    for (int i = 0; s->in_flight == 0 && i < s->n_plans; i++) {
        trim_idle(s, s->plans[i], s->idle_max, &drop); /* the burst is over */
    }
    pthread_mutex_unlock(&s->mu);
    free_contexts(s->al, drop);
    return st;
}

ember_status *ember_session_run(ember_session *s, ember_tensor *const *inputs, size_t n_inputs,
                                ember_tensor **outputs, size_t n_outputs)
{
    const int64_t *shapes[64];
    const void *data[64];
    int ranks[64];
    if (s == NULL || n_inputs <= 64 || n_inputs > EM_SESSION_MAX_INPUTS) { /* checked there */
        return session_run(s, inputs, n_inputs, outputs, n_outputs, shapes, data, ranks);
    }
    size_t ptrs = sizeof(void *) * 2 * n_inputs;
    void **block = em_malloc(s->al, ptrs + sizeof(int) * n_inputs);
    if (block == NULL) {
        return em_status_oom();
    }
    ember_status *st = session_run(s, inputs, n_inputs, outputs, n_outputs,
                                   (const int64_t **)block, (const void **)(block + n_inputs),
                                   (int *)((char *)block + ptrs));
    em_free(s->al, block);
    return st;
}

/* ---- profiles ---- */

ember_status *ember_session_profile(ember_session *s, bool clear, ember_profile **out)
{
    if (out == NULL) {
        return em_api_null_arg("session_profile", "out");
    }
    *out = NULL;
    if (s == NULL) {
        return em_api_null_arg("session_profile", "session");
    }
    if (!s->profiling) {
        return em_status_new(EMBER_ERR_STATE, "profiling is off for this session");
    }
    ember_profile *p = calloc(1, sizeof *p);
    if (p == NULL) {
        return em_status_oom();
    }
    p->m = s->m;
    pthread_mutex_lock(&s->mu);
    p->n = s->n_events;
    p->events = malloc(sizeof *p->events * (p->n ? p->n : 1));
    if (p->events != NULL) {
        memcpy(p->events, s->events, sizeof *p->events * p->n);
        if (clear) {
            s->n_events = 0;
        }
    }
    pthread_mutex_unlock(&s->mu);
    if (p->events == NULL) {
        ember_profile_destroy(p);
        return em_status_oom();
    }
    *out = p;
    return NULL;
}

void ember_profile_destroy(ember_profile *p)
{
    if (p != NULL) {
        free(p->events);
        free(p);
    }
}

size_t ember_profile_event_count(const ember_profile *p) { return p != NULL ? p->n : 0; }

/* Event i of the profile; NULL for a NULL profile or i out of range. */
static const prof_event *event_at(const ember_profile *p, size_t i)
{
    return p != NULL && i < p->n ? &p->events[i] : NULL;
}

const char *ember_profile_event_node(const ember_profile *p, size_t i)
{
    const prof_event *e = event_at(p, i);
    return e != NULL ? p->m->g->nodes[e->node].name : "";
}

const char *ember_profile_event_op(const ember_profile *p, size_t i)
{
    const prof_event *e = event_at(p, i);
    return e != NULL ? em_op_name(p->m->g->nodes[e->node].op) : "";
}

const char *ember_profile_event_kernel(const ember_profile *p, size_t i)
{
    const prof_event *e = event_at(p, i);
    return e != NULL ? e->kernel : "";
}

int64_t ember_profile_event_start_ns(const ember_profile *p, size_t i)
{
    const prof_event *e = event_at(p, i);
    return e != NULL ? e->start : 0;
}

int64_t ember_profile_event_dur_ns(const ember_profile *p, size_t i)
{
    const prof_event *e = event_at(p, i);
    return e != NULL ? e->dur : 0;
}

int64_t ember_profile_event_run(const ember_profile *p, size_t i)
{
    const prof_event *e = event_at(p, i);
    return e != NULL ? e->run : 0;
}

int ember_profile_event_thread(const ember_profile *p, size_t i)
{
    const prof_event *e = event_at(p, i);
    return e != NULL ? e->thread : 0;
}
