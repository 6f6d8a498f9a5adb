/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The quantizer's public side (ember.h section 9b, issue #20): options, calibration on
 * ember's own executor, the calibration cache, finishing into a QDQ ONNX file or a model, the
 * report. The graph rewrite itself is quantization/qdq_insert.c.
 *
 * Calibration: the fp32 model is loaded twice at EMBER_GRAPH_OPT_FOLD (same file, same options,
 * so value names and indices agree): one copy is planned on and rewritten, the other has every
 * tensor the plan needs a range for marked as a graph output, is then optimized as at
 * EMBER_GRAPH_OPT_ALL (outputs are never fused away) and runs in a session, batch by batch,
 * into output tensors bound again batch after batch. The planned graph's names are copied
 * (keep_names) since both copies change. Each observed tensor has an observer: its exact min /
 * max for MinMax, and for the
 * histogram methods (percentile, entropy, MSE) also a collector of quantization/calib.h, whose
 * ranges are computed when they are needed (finishing, saving the cache, the report), not
 * after every batch (entropy's search takes 50-250 ms a tensor).
 */
#include "api/api_internal.h"

#include "core/alloc.h"
#include "core/file_write.h"
#include "core/status.h"
#include "core/thread.h"
#include "loaders/onnx/onnx_write.h"
#include "passes/passes.h"
#include "plan/fold.h"
#include "quantization/calib.h"
#include "quantization/qdq_insert.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define Q_MAX_EXCLUDE 256
#define Q_KEEP_BATCHES 32

struct ember_quantize_options {
    ember_quant_mode mode;
    bool per_channel;
    ember_dtype act_dt;
    bool symmetric;
    ember_calib_method method;
    double percentile;
    int64_t entropy_bins; /* em_calib_params.bins (0: the histogram as it grew) */
    int entropy_levels;
    int n_exclude;
    char *exclude[Q_MAX_EXCLUDE];
};

/* One observed tensor: its exact range, and the histogram collector of the methods that need
 * one (NULL for MinMax). */
typedef struct q_observer {
    double lo, hi;
    int64_t n;
    em_calib *hist;
} q_observer;

/* A float's bits as an int32 ordered as the floats are (finite values; -0 just below +0). */
static int32_t ordered_key(uint32_t b)
{
    return (int32_t)(b ^ ((uint32_t)((int32_t)b >> 31) & 0x7fffffffu));
}

/* false when x holds NaN or Inf. Min / max on ordered_key and an exponent test, all integer
 * operations, so the compiler vectorizes the loop on baseline x86-64 (a float `v < lo ? v :
 * lo` reduction it does not, without fast-math): after the model itself, this runs on every
 * calibration value. */
static bool observer_add(q_observer *ob, const float *x, int64_t n)
{
    int32_t klo = INT32_MAX, khi = INT32_MIN;
    uint32_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        uint32_t b;
        memcpy(&b, x + i, sizeof b);
        bad |= (uint32_t)((b & 0x7f800000u) == 0x7f800000u);
        int32_t k = ordered_key(b);
        klo = k < klo ? k : klo;
        khi = k > khi ? k : khi;
    }
    if (bad) {
        return false;
    }
    if (n > 0) {
        float lo, hi;
        uint32_t blo = (uint32_t)ordered_key((uint32_t)klo);
        uint32_t bhi = (uint32_t)ordered_key((uint32_t)khi);
        memcpy(&lo, &blo, sizeof lo);
        memcpy(&hi, &bhi, sizeof hi);
        ob->lo = lo < ob->lo ? lo : ob->lo;
        ob->hi = hi > ob->hi ? hi : ob->hi;
    }
    ob->n += n;
    return true;
}

static em_qi_range observer_range(const q_observer *ob)
{
    em_qi_range r = {(float)ob->lo, (float)ob->hi};
    return r;
}

struct ember_quantizer {
    ember_model *m;      /* fp32, then rewritten */
    ember_model *cal;    /* fp32 with the observed tensors as outputs, optimized (first batch) */
    ember_session *sess;
    em_threadpool *pool; /* the observers' and the ranges' threads (NULL: serial) */
    ember_tensor **outs; /* cal's outputs, bound again by the next batch of the same shapes */
    size_t n_outs;
    int64_t *in_dims;    /* the input shapes of the batch that made `outs` (EM_MAX_RANK each) */
    int *in_rank;
    /* the planned graph's names: q->m's change when rewritten, cal's when optimized */
    char **vname;        /* per value */
    int *vprod;          /* per value: producer node or -1 */
    char **nname;        /* per node */
    em_op *nop;          /* per node */
    int *nin0;           /* per node: its first input (-1: none) */
    int *nweight;        /* per node: its quantized weight (-1: none) */
    em_qi_opts o;
    ember_quantize_options opts;
    em_qi_plan plan;
    int n_obs;
    int *obs_val;        /* observed value index (in m's graph, = cal's before marking) */
    int *obs_out;        /* its output slot in cal */
    q_observer *obs;     /* per observed value */
    bool *has_range;     /* per value of the planned graph */
    double *w_db;        /* per value: a quantized weight's own round-trip SQNR (NAN: none) */
    em_qi_range *ranges; /* per value of the planned graph */
    size_t n_batches;
    bool stale;          /* histogram observers hold batches their ranges do not reflect yet */
    bool done;           /* the graph is rewritten */
    size_t n_kept;       /* calibration batches kept for the report */
    ember_tensor **kept; /* n_kept * input count */
    size_t n_in;
    char *path;
};

/* ---- options ---- */

ember_status *ember_quantize_options_create(ember_quantize_options **out)
{
    if (out == NULL) {
        return em_api_null_arg("quantize_options_create", "out");
    }
    *out = NULL;
    ember_quantize_options *o = calloc(1, sizeof *o);
    if (o == NULL) {
        *out = NULL;
        return em_status_oom();
    }
    o->mode = EMBER_QUANT_STATIC;
    o->per_channel = true;
    o->act_dt = EMBER_DTYPE_U8;
    o->method = EMBER_CALIB_MINMAX;
    o->percentile = 99.999;
    o->entropy_bins = EM_CALIB_ENTROPY_BINS;
    o->entropy_levels = EM_CALIB_ENTROPY_LEVELS;
    *out = o;
    return NULL;
}

void ember_quantize_options_destroy(ember_quantize_options *o)
{
    if (o == NULL) {
        return;
    }
    for (int i = 0; i < o->n_exclude; i++) {
        free(o->exclude[i]);
    }
    free(o);
}

ember_status *ember_quantize_options_set_mode(ember_quantize_options *o, ember_quant_mode mode)
{
    if (o == NULL) {
        return em_api_null_arg("quantize_options_set_mode", "opts");
    }
    if ((unsigned)mode > EMBER_QUANT_WEIGHT_ONLY) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "quantize_options_set_mode: mode %d is not an "
                             "ember_quant_mode", (int)mode);
    }
    o->mode = mode;
    return NULL;
}

ember_status *ember_quantize_options_set_per_channel(ember_quantize_options *o, bool on)
{
    if (o == NULL) {
        return em_api_null_arg("quantize_options_set_per_channel", "opts");
    }
    o->per_channel = on;
    return NULL;
}

ember_status *ember_quantize_options_set_activation_type(ember_quantize_options *o, ember_dtype dt)
{
    if (o == NULL) {
        return em_api_null_arg("quantize_options_set_activation_type", "opts");
    }
    if (dt != EMBER_DTYPE_U8 && dt != EMBER_DTYPE_I8) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "quantize_options_set_activation_type: dtype "
                             "%d is neither EMBER_DTYPE_U8 nor EMBER_DTYPE_I8", (int)dt);
    }
    o->act_dt = dt;
    return NULL;
}

ember_status *ember_quantize_options_set_symmetric(ember_quantize_options *o, bool on)
{
    if (o == NULL) {
        return em_api_null_arg("quantize_options_set_symmetric", "opts");
    }
    o->symmetric = on;
    return NULL;
}

ember_status *ember_quantize_options_set_method(ember_quantize_options *o, ember_calib_method m,
                                                double percentile)
{
    if (o == NULL) {
        return em_api_null_arg("quantize_options_set_method", "opts");
    }
    if ((unsigned)m > EMBER_CALIB_MSE) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "quantize_options_set_method: method %d is not "
                             "an ember_calib_method", (int)m);
    }
    if (m == EMBER_CALIB_PERCENTILE && !(percentile > 0.0 && percentile <= 100.0)) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "quantize_options_set_method: percentile %g is "
                             "not in (0, 100]", percentile);
    }
    o->method = m;
    o->percentile = percentile;
    return NULL;
}

ember_status *ember_quantize_options_set_entropy(ember_quantize_options *o, int64_t bins,
                                                 int levels)
{
    if (o == NULL) {
        return em_api_null_arg("quantize_options_set_entropy", "opts");
    }
    if (bins != 0 && (bins < 2 || bins > EM_CALIB_ENTROPY_MAX_BINS)) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "quantize_options_set_entropy: %lld bins is "
                             "not 0 or in [2, %lld]", (long long)bins,
                             (long long)EM_CALIB_ENTROPY_MAX_BINS);
    }
    if (levels < 2 || levels > 65536) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "quantize_options_set_entropy: %d levels is "
                             "not in [2, 65536]", levels);
    }
    o->entropy_bins = bins;
    o->entropy_levels = levels;
    return NULL;
}

ember_status *ember_quantize_options_add_exclude(ember_quantize_options *o, const char *name)
{
    if (o == NULL || name == NULL) {
        return em_api_null_arg("quantize_options_add_exclude", o == NULL ? "opts" : "name");
    }
    if (name[0] == '\0') {
        return em_status_new(EMBER_ERR_INVALID_ARG, "quantize_options_add_exclude: empty name");
    }
    if (o->n_exclude >= Q_MAX_EXCLUDE) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "quantize_options_add_exclude: more than %d "
                             "entries", Q_MAX_EXCLUDE);
    }
    char *c = malloc(strlen(name) + 1);
    if (c == NULL) {
        return em_status_oom();
    }
    strcpy(c, name);
    o->exclude[o->n_exclude++] = c;
    return NULL;
}

/* ---- the quantizer ---- */

static const char *method_name(ember_calib_method m)
{
    static const char *const names[] = {"minmax", "percentile", "entropy", "mse"};
    return names[m];
}

static em_onnx_write_opts write_opts(const ember_model *m)
{
    em_onnx_write_opts o = {0};
    for (size_t i = 0; i < m->n_opsets; i++) {
        const char *d = m->opset_domains[i];
        if (d[0] == '\0' || strcmp(d, "ai.onnx") == 0) {
            o.source_opset = m->opset_versions[i];
        }
    }
    return o;
}

static ember_status *load_fold(const char *path, const ember_model_options *mo, ember_model **out)
{
    ember_model_options tmp = {0};
    if (mo != NULL) {
        tmp = *mo; /* shallow: read during the load only */
    }
    tmp.has_graph_opt = true;
    tmp.graph_opt = EMBER_GRAPH_OPT_FOLD;
    tmp.int8 = EMBER_INT8_OFF;
    ember_status *st = ember_model_load_file(path, &tmp, out);
    if (st == NULL) {
        (*out)->drop_half = false; /* the quantizer reads the weights themselves */
        /* ORT's documented flow runs quant_pre_process first, which folds BatchNormalization
         * and per-channel Adds into the Conv before them (a TorchScript trace keeps them; a
         * Q/DQ pair on the conv output before the BN costs ~1 dB on resnet18) */
        st = em_passes_fold_conv((*out)->g);
        if (st != NULL) {
            ember_model_destroy(*out);
            *out = NULL;
        }
    }
    return st;
}

static void free_outs(ember_tensor **outs, size_t n)
{
    if (outs != NULL) {
        for (size_t i = 0; i < n; i++) {
            ember_tensor_destroy(outs[i]);
        }
        free(outs);
    }
}

static char *dup_str(const char *s)
{
    char *c = malloc(strlen(s) + 1);
    if (c != NULL) {
        strcpy(c, s);
    }
    return c;
}

/* Copies the names of the planned graph g (values, producers, nodes, ops) into q. */
static ember_status *keep_names(ember_quantizer *q, const em_graph *g)
{
    q->vname = calloc((size_t)g->n_values + 1, sizeof *q->vname);
    q->vprod = calloc((size_t)g->n_values + 1, sizeof *q->vprod);
    q->nname = calloc((size_t)g->n_nodes + 1, sizeof *q->nname);
    q->nop = calloc((size_t)g->n_nodes + 1, sizeof *q->nop);
    q->nin0 = calloc((size_t)g->n_nodes + 1, sizeof *q->nin0);
    q->nweight = calloc((size_t)g->n_nodes + 1, sizeof *q->nweight);
    if (!q->vname || !q->vprod || !q->nname || !q->nop || !q->nin0 || !q->nweight) {
        return em_status_oom();
    }
    for (int v = 0; v < g->n_values; v++) {
        q->vprod[v] = g->values[v].producer;
        if ((q->vname[v] = dup_str(g->values[v].name)) == NULL) {
            return em_status_oom();
        }
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const em_node *n = &g->nodes[i];
        q->nop[i] = n->op;
        q->nin0[i] = n->n_in > 0 ? n->in[0] : -1;
        q->nweight[i] = n->n_in > 1 && n->in[1] >= 0 && q->plan.w_axis[n->in[1]] != -1 ? n->in[1]
                                                                                        : -1;
        if ((q->nname[i] = dup_str(g->nodes[i].name)) == NULL) {
            return em_status_oom();
        }
    }
    return NULL;
}

void ember_quantizer_destroy(ember_quantizer *q)
{
    if (q == NULL) {
        return;
    }
    free_outs(q->outs, q->n_outs);
    ember_session_destroy(q->sess);
    em_threadpool_destroy(q->pool);
    ember_model_destroy(q->cal);
    free(q->in_dims);
    free(q->in_rank);
    for (int v = 0; q->vname != NULL && v < q->plan.n_values; v++) {
        free(q->vname[v]);
    }
    for (int i = 0; q->nname != NULL && i < q->plan.n_nodes; i++) {
        free(q->nname[i]);
    }
    free(q->vname);
    free(q->vprod);
    free(q->nname);
    free(q->nop);
    free(q->nin0);
    free(q->nweight);
    if (q->m != NULL) {
        em_qi_plan_free(q->m->al, &q->plan);
        ember_model_destroy(q->m);
    }
    for (size_t i = 0; i < q->n_kept * q->n_in; i++) {
        ember_tensor_destroy(q->kept[i]);
    }
    free(q->kept);
    free(q->obs_val);
    free(q->obs_out);
    for (int k = 0; q->obs != NULL && k < q->n_obs; k++) {
        em_calib_free(q->obs[k].hist);
    }
    free(q->obs);
    free(q->has_range);
    free(q->w_db);
    free(q->ranges);
    free(q->path);
    for (int i = 0; i < q->opts.n_exclude; i++) {
        free(q->opts.exclude[i]);
    }
    free(q);
}

ember_status *ember_quantizer_create(const char *path, const ember_model_options *mo,
                                     const ember_quantize_options *opts, ember_quantizer **out)
{
    if (out != NULL) {
        *out = NULL;
    }
    if (path == NULL || out == NULL) {
        return em_api_null_arg("quantizer_create", path == NULL ? "path" : "out");
    }
    ember_quantize_options dflt;
    if (opts == NULL) {
        memset(&dflt, 0, sizeof dflt);
        dflt.per_channel = true;
        dflt.act_dt = EMBER_DTYPE_U8;
        opts = &dflt;
    }
    ember_quantizer *q = calloc(1, sizeof *q);
    if (q == NULL) {
        return em_status_oom();
    }
    q->opts = *opts;
    q->opts.n_exclude = 0;
    ember_status *st = NULL;
    for (int i = 0; i < opts->n_exclude && st == NULL; i++) {
        q->opts.exclude[i] = malloc(strlen(opts->exclude[i]) + 1);
        if (q->opts.exclude[i] == NULL) {
            st = em_status_oom();
            break;
        }
        strcpy(q->opts.exclude[i], opts->exclude[i]);
        q->opts.n_exclude++;
    }
    q->path = malloc(strlen(path) + 1);
    if (st == NULL && q->path == NULL) {
        st = em_status_oom();
    }
    if (st == NULL) {
        strcpy(q->path, path);
        st = load_fold(path, mo, &q->m);
    }
    if (st == NULL) {
        q->o.mode = (em_qi_mode)opts->mode;
        q->o.per_channel = opts->per_channel;
        q->o.act_dt = opts->act_dt;
        q->o.act_symmetric = opts->symmetric;
        q->o.opset = (int)write_opts(q->m).source_opset;
        q->o.n_exclude = q->opts.n_exclude;
        q->o.exclude = (const char *const *)q->opts.exclude;
        st = em_qi_plan_make(q->m->g, &q->o, &q->plan);
    }
    if (st == NULL) {
        st = keep_names(q, q->m->g);
    }
    if (st == NULL) {
        /* the calibration copy: same file and options, so indices and names agree */
        st = load_fold(path, mo, &q->cal);
    }
    if (st == NULL && (q->cal->g->n_values != q->plan.n_values ||
                       q->cal->g->n_nodes != q->plan.n_nodes)) {
        st = em_status_new(EMBER_ERR_STATE, "quantize: %s loaded differently the second time", path);
    }
    for (int i = 0; st == NULL && i < q->o.n_exclude; i++) {
        if (!q->plan.exclude_used[i]) {
            st = em_status_new(EMBER_ERR_INVALID_ARG, "quantize: --exclude '%s' matches no node name "
                               "or op type of %s", q->o.exclude[i], path);
        }
    }
    if (st == NULL) {
        int nv = q->plan.n_values;
        q->has_range = calloc((size_t)nv + 1, sizeof *q->has_range);
        q->ranges = calloc((size_t)nv + 1, sizeof *q->ranges);
        q->obs_val = calloc((size_t)nv + 1, sizeof *q->obs_val);
        q->obs_out = calloc((size_t)nv + 1, sizeof *q->obs_out);
        q->obs = calloc((size_t)nv + 1, sizeof *q->obs);
        if (!q->has_range || !q->ranges || !q->obs_val || !q->obs_out || !q->obs) {
            st = em_status_oom();
        }
    }
    if (st == NULL) {
        for (int v = 0; v < q->plan.n_values; v++) {
            if (q->plan.need[v]) {
                q->obs_val[q->n_obs] = v;
                q->obs[q->n_obs].lo = INFINITY;
                q->obs[q->n_obs].hi = -INFINITY;
                if (st == NULL && q->opts.method != EMBER_CALIB_MINMAX) {
                    /* entropy's histogram is rebuilt from the value histogram (2 x base
                     * bins): keep that at least as fine */
                    int64_t base = q->opts.method == EMBER_CALIB_ENTROPY &&
                                           q->opts.entropy_bins > 2 * EM_CALIB_DEFAULT_BINS
                                       ? (q->opts.entropy_bins + 1) / 2
                                       : 0;
                    st = em_calib_new(base, &q->obs[q->n_obs].hist);
                }
                q->n_obs++;
            }
        }
        q->n_in = ember_model_input_count(q->m);
    }
    if (st != NULL) {
        ember_quantizer_destroy(q);
        return st;
    }
    *out = q;
    return NULL;
}

const ember_model *ember_quantizer_model(const ember_quantizer *q)
{
    return q != NULL ? q->m : NULL;
}

size_t ember_quantizer_batch_count(const ember_quantizer *q)
{
    return q != NULL ? q->n_batches : 0;
}

/* Marks values vals[0..n) of model m (loaded at EMBER_GRAPH_OPT_FOLD) as graph outputs and
 * sets slot[k] to the output index that gives vals[k] (-1 - j: it is graph input j, observed
 * on the caller's tensor; -1 - n_inputs: not in the graph), then optimizes m as a model loaded
 * at EMBER_GRAPH_OPT_ALL is (fusions and the blocked conv layout: a graph output is never
 * fused away). On error m may be half rewritten and must be dropped. */
static ember_status *observe_values(ember_model *m, const int *vals, int n, int *slot)
{
    em_graph *g = m->g;
    ember_status *st = NULL;
    for (int k = 0; st == NULL && k < n; k++) {
        int v = vals[k];
        slot[k] = -1 - g->n_inputs;
        if (v < 0 || v >= g->n_values) {
            continue;
        }
        if (g->values[v].kind == EM_VAL_INPUT) {
            for (int j = 0; j < g->n_inputs; j++) {
                if (g->inputs[j] == v) {
                    slot[k] = -1 - j;
                }
            }
        } else if (g->values[v].is_output) {
            for (int j = 0; j < g->n_outputs; j++) {
                if (g->outputs[j] == v) {
                    slot[k] = j;
                    break;
                }
            }
        } else {
            slot[k] = g->n_outputs;
            st = em_graph_mark_output(g, v);
        }
    }
    if (st == NULL) {
        em_passes_options po = em_passes_level(EMBER_GRAPH_OPT_ALL);
        po.eval = em_plan_eval_const;
        st = em_passes_run(g, &po);
    }
    if (st == NULL) {
        st = em_graph_drop_unused_image(g, m->bytes);
    }
    if (st == NULL) {
        m->graph_opt = EMBER_GRAPH_OPT_ALL;
    }
    return st;
}

/* The calibration model and its session, at the first batch: the observed tensors marked as
 * outputs, then the ALL passes (resnet18 runs 1.3-1.5x faster than at FOLD, where its convs
 * take oneDNN's plain-layout im2col path). */
static ember_status *calib_model(ember_quantizer *q)
{
    if (q->sess != NULL) {
        return NULL;
    }
    if (q->cal == NULL) {
        return em_status_new(EMBER_ERR_STATE, "quantize: the calibration model of %s failed to "
                             "build before", q->path);
    }
    if (q->pool == NULL && em_cpu_count() > 1) {
        EM_RETURN_IF_ERROR(em_threadpool_create(NULL, 0, &q->pool));
    }
    ember_status *st = observe_values(q->cal, q->obs_val, q->n_obs, q->obs_out);
    if (st == NULL) {
        ember_session_options *so = NULL;
        st = ember_session_options_create(&so);
        if (st == NULL) {
            st = ember_session_create(q->cal, so, &q->sess);
        }
        ember_session_options_destroy(so);
    }
    if (st != NULL) { /* a graph the passes failed on may be half rewritten */
        ember_model_destroy(q->cal);
        q->cal = NULL;
    }
    return st;
}

/* The output tensors of the next calibration run: those of the previous batch (no allocation,
 * no page faults: resnet18's 33 observed tensors are 20 MB a batch) when its inputs had the
 * same shapes, new ones otherwise. */
static ember_status *bind_outputs(ember_quantizer *q, ember_tensor *const *inputs)
{
    if (q->outs == NULL) {
        q->n_outs = ember_model_output_count(q->cal);
        q->outs = calloc(q->n_outs + 1, sizeof *q->outs);
        q->in_dims = calloc(q->n_in * EM_MAX_RANK + 1, sizeof *q->in_dims);
        q->in_rank = calloc(q->n_in + 1, sizeof *q->in_rank);
        if (q->outs == NULL || q->in_dims == NULL || q->in_rank == NULL) {
            return em_status_oom();
        }
        for (size_t i = 0; i < q->n_in; i++) {
            q->in_rank[i] = -1;
        }
    }
    bool same = true;
    for (size_t i = 0; i < q->n_in; i++) {
        int r = ember_tensor_rank(inputs[i]);
        const int64_t *d = ember_tensor_dims(inputs[i]);
        if (r != q->in_rank[i] || (r > 0 && memcmp(d, q->in_dims + i * EM_MAX_RANK,
                                                   (size_t)r * sizeof *d) != 0)) {
            same = false;
            q->in_rank[i] = r;
            if (r > 0) {
                memcpy(q->in_dims + i * EM_MAX_RANK, d, (size_t)r * sizeof *d);
            }
        }
    }
    for (size_t j = 0; !same && j < q->n_outs; j++) {
        ember_tensor_destroy(q->outs[j]);
        q->outs[j] = NULL;
    }
    return NULL;
}

/* The producer of value v of the planned graph, for messages. */
static const char *producer_of(const ember_quantizer *q, int v, const char **op)
{
    int p = q->vprod[v];
    *op = p >= 0 ? em_op_name(q->nop[p]) : "graph input";
    return p >= 0 ? q->nname[p] : q->vname[v];
}

/* The observers of one batch, one tensor per task item (independent collectors). */
typedef struct obs_task {
    ember_quantizer *q;
    ember_tensor *const *inputs;
    bool *bad;          /* per observer: NaN or Inf seen */
    ember_status **st;  /* per observer: em_calib_add's error */
} obs_task;

static void observe_range(void *arg, int64_t begin, int64_t end)
{
    obs_task *a = arg;
    ember_quantizer *q = a->q;
    for (int64_t k = begin; k < end; k++) {
        ember_tensor *t = q->obs_out[k] >= 0 ? q->outs[q->obs_out[k]]
                                             : a->inputs[-1 - q->obs_out[k]];
        if (ember_tensor_dtype(t) != EMBER_DTYPE_F32) {
            continue;
        }
        if (!observer_add(&q->obs[k], ember_tensor_data(t), ember_tensor_elem_count(t))) {
            a->bad[k] = true;
        } else if (q->obs[k].hist != NULL) {
            a->st[k] = em_calib_add(q->obs[k].hist, ember_tensor_data(t),
                                    (size_t)ember_tensor_elem_count(t));
        }
    }
}

/* Adds the batch's observed tensors (q->outs, or the inputs) to their observers, the tensors
 * spread over q->pool's threads; the first failing tensor in order names the error. */
static ember_status *observe(ember_quantizer *q, ember_tensor *const *inputs)
{
    bool *bad = calloc((size_t)q->n_obs + 1, sizeof *bad);
    ember_status **sts = calloc((size_t)q->n_obs + 1, sizeof *sts);
    if (bad == NULL || sts == NULL) {
        free(bad);
        free(sts);
        return em_status_oom();
    }
    obs_task a = {q, inputs, bad, sts};
    em_parallel_for(q->pool, q->n_obs, 1, observe_range, &a);
    ember_status *st = NULL;
    for (int k = 0; k < q->n_obs; k++) {
        int v = q->obs_val[k];
        if (st == NULL && bad[k]) {
            const char *op, *node = producer_of(q, v, &op);
            st = em_status_new(EMBER_ERR_INVALID_MODEL, "quantize: tensor '%s' (output of %s node "
                               "'%s') holds NaN or Inf in calibration batch %zu",
                               q->vname[v], op, node, q->n_batches + 1);
        } else if (st == NULL && sts[k] != NULL) {
            st = sts[k];
            sts[k] = NULL;
        }
        ember_status_destroy(sts[k]);
        q->stale = q->stale || q->obs[k].hist != NULL;
    }
    free(bad);
    free(sts);
    return st;
}

/* A copy of t (for the report). */
static ember_status *keep_copy(const ember_tensor *t, ember_tensor **out)
{
    ember_tensor *c = NULL;
    ember_tensor *src = (ember_tensor *)t;
    ember_status *st = ember_tensor_create(ember_tensor_dtype(t), ember_tensor_dims(t),
                                           ember_tensor_rank(t), &c);
    if (st == NULL) {
        memcpy(ember_tensor_data(c), ember_tensor_data(src), ember_tensor_nbytes(t));
    }
    *out = c;
    return st;
}

ember_status *ember_quantizer_add_batch(ember_quantizer *q, ember_tensor *const *inputs,
                                        size_t n_inputs)
{
    if (q == NULL || (inputs == NULL && n_inputs > 0)) {
        return em_api_null_arg("quantizer_add_batch", q == NULL ? "quantizer" : "inputs");
    }
    if (q->o.mode != EM_QI_STATIC) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "quantizer_add_batch: only static mode is "
                             "calibrated (dynamic and weight-only need no data)");
    }
    if (q->done) {
        return em_status_new(EMBER_ERR_STATE, "quantizer_add_batch: the model was already written");
    }
    if (n_inputs != q->n_in) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "quantizer_add_batch: %zu inputs given, the "
                             "model has %zu", n_inputs, q->n_in);
    }
    for (size_t i = 0; i < n_inputs; i++) {
        if (inputs[i] == NULL) {
            return em_status_new(EMBER_ERR_INVALID_ARG, "quantizer_add_batch: NULL input %zu", i);
        }
    }
    EM_RETURN_IF_ERROR(calib_model(q));
    EM_RETURN_IF_ERROR(bind_outputs(q, inputs));
    ember_tensor **outs = q->outs;
    bool bound = outs[0] != NULL;
    ember_status *st = ember_session_run(q->sess, inputs, n_inputs, outs, q->n_outs);
    if (st != NULL && bound) { /* e.g. an output whose shape depends on the values: new ones */
        ember_status_destroy(st);
        for (size_t j = 0; j < q->n_outs; j++) {
            ember_tensor_destroy(outs[j]);
            outs[j] = NULL;
        }
        st = ember_session_run(q->sess, inputs, n_inputs, outs, q->n_outs);
    }
    if (st == NULL) {
        st = observe(q, inputs);
    }
    if (st != NULL) {
        return st;
    }
    for (int k = 0; k < q->n_obs; k++) {
        if (q->obs[k].n > 0) {
            q->ranges[q->obs_val[k]] = observer_range(&q->obs[k]);
            q->has_range[q->obs_val[k]] = true;
        }
    }
    if (q->n_kept < Q_KEEP_BATCHES) {
        ember_tensor **k = realloc(q->kept, sizeof *k * (q->n_kept + 1) * (q->n_in + 1));
        if (k == NULL) {
            return em_status_oom();
        }
        q->kept = k;
        for (size_t i = 0; i < q->n_in; i++) {
            st = keep_copy(inputs[i], &k[q->n_kept * q->n_in + i]);
            if (st != NULL) {
                for (size_t j = 0; j < i; j++) {
                    ember_tensor_destroy(k[q->n_kept * q->n_in + j]);
                }
                return st;
            }
        }
        q->n_kept++;
    }
    q->n_batches++;
    return NULL;
}

/* Histogram ranges of observers [begin, end), one tensor per item. */
typedef struct range_task {
    ember_quantizer *q;
    em_calib_method m;
    const em_calib_params *p;
    ember_status **st; /* per observer */
} range_task;

static void range_range(void *arg, int64_t begin, int64_t end)
{
    range_task *a = arg;
    ember_quantizer *q = a->q;
    for (int64_t k = begin; k < end; k++) {
        const q_observer *ob = &q->obs[k];
        if (ob->hist == NULL || em_calib_count(ob->hist) == 0) {
            continue;
        }
        float lo, hi;
        a->st[k] = em_calib_range(ob->hist, a->m, a->p, &lo, &hi);
        if (a->st[k] == NULL) {
            q->ranges[q->obs_val[k]].lo = lo;
            q->ranges[q->obs_val[k]].hi = hi;
        }
    }
}

/* The ranges of the histogram observers by the options' method (MinMax's are kept current
 * by every batch), the tensors spread over q->pool's threads (entropy's search takes 50-250
 * ms a tensor). */
static ember_status *refresh_ranges(ember_quantizer *q)
{
    if (!q->stale) {
        return NULL;
    }
    em_calib_params p;
    em_calib_method m = q->opts.method == EMBER_CALIB_PERCENTILE ? EM_CALIB_PERCENTILE
                        : q->opts.method == EMBER_CALIB_ENTROPY  ? EM_CALIB_ENTROPY
                                                                 : EM_CALIB_MSE;
    em_calib_params_init(&p, m);
    p.percentile = q->opts.percentile;
    if (m == EM_CALIB_ENTROPY) {
        p.bins = q->opts.entropy_bins;
        p.levels = q->opts.entropy_levels;
    }
    ember_status **sts = calloc((size_t)q->n_obs + 1, sizeof *sts);
    if (sts == NULL) {
        return em_status_oom();
    }
    range_task a = {q, m, &p, sts};
    em_parallel_for(q->pool, q->n_obs, 1, range_range, &a);
    ember_status *st = NULL;
    for (int k = 0; k < q->n_obs; k++) {
        if (st == NULL && sts[k] != NULL) {
            st = em_status_wrap(sts[k], "quantize: tensor '%s'", q->vname[q->obs_val[k]]);
        } else {
            ember_status_destroy(sts[k]);
        }
    }
    free(sts);
    if (st == NULL) {
        q->stale = false;
    }
    return st;
}

/* ---- calibration cache ---- */

#define Q_CACHE_MAGIC "ember-calibration 1"

ember_status *ember_quantizer_save_calibration(const ember_quantizer *q, const char *path)
{
    if (q == NULL || path == NULL) {
        return em_api_null_arg("quantizer_save_calibration", q == NULL ? "quantizer" : "path");
    }
    /* the ranges are a cache of the observers, brought up to date here: the quantizer is the
     * caller's object, const only in that its calibration does not change */
    EM_RETURN_IF_ERROR(refresh_ranges((ember_quantizer *)q));
    em_strbuf sb;
    em_strbuf_init(&sb, NULL);
    em_strbuf_printf(&sb, "%s %s\n", Q_CACHE_MAGIC, method_name(q->opts.method));
    for (int v = 0; v < q->plan.n_values; v++) {
        if (!q->has_range[v]) {
            continue;
        }
        const char *name = q->vname[v];
        if (strpbrk(name, "\n\r") != NULL) {
            em_strbuf_free(&sb);
            return em_status_new(EMBER_ERR_UNSUPPORTED, "quantizer_save_calibration: tensor name "
                                 "'%s' holds a line break", name);
        }
        em_strbuf_printf(&sb, "range %a %a %s\n", (double)q->ranges[v].lo, (double)q->ranges[v].hi,
                         name);
    }
    if (sb.failed) {
        em_strbuf_free(&sb);
        return em_status_oom();
    }
    ember_status *st = em_write_file_atomic(path, sb.data != NULL ? sb.data : "", sb.len);
    em_strbuf_free(&sb);
    return st;
}

ember_status *ember_quantizer_load_calibration(ember_quantizer *q, const char *path)
{
    if (q == NULL || path == NULL) {
        return em_api_null_arg("quantizer_load_calibration", q == NULL ? "quantizer" : "path");
    }
    if (q->done) {
        return em_status_new(EMBER_ERR_STATE, "quantizer_load_calibration: the model was already "
                             "written");
    }
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return em_status_new(EMBER_ERR_IO, "calibration cache %s: cannot open", path);
    }
    char line[4096];
    ember_status *st = NULL;
    int ln = 0;
    while (st == NULL && fgets(line, sizeof line, f) != NULL) {
        ln++;
        size_t len = strlen(line);
        if (len > 0 && line[len - 1] == '\n') {
            line[--len] = '\0';
        } else if (!feof(f)) {
            st = em_status_new(EMBER_ERR_INVALID_MODEL, "calibration cache %s:%d: line too long",
                               path, ln);
            break;
        }
        if (ln == 1) {
            if (strncmp(line, Q_CACHE_MAGIC, strlen(Q_CACHE_MAGIC)) != 0) {
                st = em_status_new(EMBER_ERR_INVALID_MODEL, "calibration cache %s: not an ember "
                                   "calibration file (first line '%s', expected '%s ...')", path,
                                   line, Q_CACHE_MAGIC);
            }
            continue;
        }
        char *e1 = NULL, *e2 = NULL;
        if (strncmp(line, "range ", 6) != 0) {
            st = em_status_new(EMBER_ERR_INVALID_MODEL, "calibration cache %s:%d: expected "
                               "'range LO HI NAME'", path, ln);
            break;
        }
        float lo = strtof(line + 6, &e1);
        float hi = e1 != NULL ? strtof(e1, &e2) : 0.0f;
        if (e1 == line + 6 || e2 == e1 || e2 == NULL || *e2 != ' ' || !isfinite(lo) ||
            !isfinite(hi) || lo > hi) {
            st = em_status_new(EMBER_ERR_INVALID_MODEL, "calibration cache %s:%d: bad range", path,
                               ln);
            break;
        }
        int v = 0;
        while (v < q->plan.n_values && strcmp(q->vname[v], e2 + 1) != 0) {
            v++;
        }
        if (v >= q->plan.n_values) {
            continue; /* a tensor of another quantization of the model: harmless */
        }
        q->ranges[v].lo = lo;
        q->ranges[v].hi = hi;
        q->has_range[v] = true;
    }
    if (st == NULL && ln == 0) {
        st = em_status_new(EMBER_ERR_INVALID_MODEL, "calibration cache %s: empty file", path);
    }
    if (st == NULL) {
        q->stale = false; /* the cache's ranges replace what the batches so far gave */
    }
    fclose(f);
    return st;
}

/* ---- finishing ---- */

static ember_status *finish(ember_quantizer *q)
{
    if (q->done) {
        return NULL;
    }
    EM_RETURN_IF_ERROR(refresh_ranges(q));
    if (q->w_db == NULL) {
        q->w_db = calloc((size_t)q->plan.n_values + 1, sizeof *q->w_db);
    }
    if (q->w_db == NULL) {
        return em_status_oom();
    }
    for (int v = 0; v < q->plan.n_values; v++) { /* for the report, before the rewrite */
        EM_RETURN_IF_ERROR(em_qi_weight_sqnr(q->m->g, &q->plan, v, &q->w_db[v]));
    }
    for (int v = 0; q->o.mode == EM_QI_STATIC && v < q->plan.n_values; v++) {
        if (q->plan.need[v] && !q->has_range[v]) {
            return em_status_new(EMBER_ERR_STATE, "quantize: no calibration range for tensor '%s' "
                                 "(%s): add calibration batches or load a calibration cache",
                                 q->vname[v],
                                 q->n_batches == 0 ? "no batch was added" : "not in the cache");
        }
    }
    ember_status *st = em_qi_apply(q->m->g, &q->o, &q->plan, q->ranges);
    if (st == NULL) {
        q->done = true;
    }
    return st;
}

ember_status *ember_quantizer_save_onnx(ember_quantizer *q, const char *path)
{
    if (q == NULL || path == NULL) {
        return em_api_null_arg("quantizer_save_onnx", q == NULL ? "quantizer" : "path");
    }
    EM_RETURN_IF_ERROR(finish(q));
    em_onnx_write_opts o = write_opts(q->m);
    return em_onnx_write_file(q->m->g, path, &o);
}

static ember_status *qdq_model(ember_quantizer *q, const ember_model_options *mo, bool int8,
                               ember_model **out)
{
    EM_RETURN_IF_ERROR(finish(q));
    em_onnx_write_opts o = write_opts(q->m);
    em_pbuf buf = {0};
    ember_status *st = em_onnx_write_buf(q->m->g, &o, &buf);
    if (st == NULL) {
        ember_model_options tmp = {0};
        if (mo != NULL) {
            tmp = *mo;
        } else {
            tmp.int8 = int8 ? EMBER_INT8_ON : EMBER_INT8_OFF;
        }
        st = ember_model_load_memory(buf.p, buf.n, 0, &tmp, out);
    }
    em_pbuf_free(&buf);
    return st;
}

ember_status *ember_quantizer_load_model(ember_quantizer *q, const ember_model_options *mo,
                                         ember_model **out)
{
    if (out != NULL) {
        *out = NULL;
    }
    if (q == NULL || out == NULL) {
        return em_api_null_arg("quantizer_load_model", q == NULL ? "quantizer" : "out");
    }
    return qdq_model(q, mo, true, out);
}

/* ---- the report ---- */

static double sqnr_db(double sig, double noise)
{
    if (noise <= 0.0) {
        return INFINITY;
    }
    return 10.0 * log10(sig / noise);
}

/* Runs `m` on the kept batches; outs[b * n_out + j]. */
static ember_status *run_kept(ember_quantizer *q, const ember_model *m, ember_tensor ***outs,
                              size_t *n_out)
{
    ember_session *s = NULL;
    ember_session_options *so = NULL;
    ember_status *st = ember_session_options_create(&so);
    if (st == NULL) {
        st = ember_session_create(m, so, &s);
    }
    ember_session_options_destroy(so);
    *n_out = ember_model_output_count(m);
    *outs = calloc(q->n_kept * *n_out + 1, sizeof **outs);
    if (st == NULL && *outs == NULL) {
        st = em_status_oom();
    }
    for (size_t b = 0; st == NULL && b < q->n_kept; b++) {
        st = ember_session_run(s, q->kept + b * q->n_in, q->n_in, *outs + b * *n_out, *n_out);
    }
    ember_session_destroy(s);
    return st;
}

static int64_t argmax_of(const float *x, int64_t n)
{
    int64_t a = 0;
    for (int64_t i = 1; i < n; i++) {
        a = x[i] > x[a] ? i : a;
    }
    return a;
}

/* The value of the QDQ model qg (loaded from q's rewritten graph) that consumers of observed
 * value v read: the output of the DequantizeLinear after v's QuantizeLinear in q->m's graph,
 * by name; -1 when there is none. */
static int dq_value(const ember_quantizer *q, const em_graph *qg, int v)
{
    const em_graph *g = q->m->g;
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].op != EM_OP_QUANTIZELINEAR || g->nodes[i].in[0] != v) {
            continue;
        }
        int qv = g->nodes[i].out[0];
        for (int j = 0; j < g->n_nodes; j++) {
            if (g->nodes[j].op == EM_OP_DEQUANTIZELINEAR && g->nodes[j].in[0] == qv) {
                return em_graph_find_value(qg, g->values[g->nodes[j].out[0]].name);
            }
        }
    }
    return -1;
}

/* SQNR accumulators: sum x^2 and sum (x - y)^2 of float tensors a (fp32) and c. */
static void sqnr_add(const ember_tensor *a, const ember_tensor *c, double *sig, double *noise)
{
    if (a == NULL || c == NULL || ember_tensor_dtype(a) != EMBER_DTYPE_F32 ||
        ember_tensor_dtype(c) != EMBER_DTYPE_F32 ||
        ember_tensor_elem_count(a) != ember_tensor_elem_count(c)) {
        return;
    }
    const float *x = ember_tensor_data((ember_tensor *)a);
    const float *y = ember_tensor_data((ember_tensor *)c);
    for (int64_t i = 0; i < ember_tensor_elem_count(a); i++) {
        double d = (double)x[i] - y[i];
        *sig += (double)x[i] * x[i];
        *noise += d * d;
    }
}

/* The node whose weight and output quantization made observed value v: its producer, or the
 * producer's producer when the producer is a Relu / Clip folded into the Q/DQ; -1: none. */
static int maker_of(const ember_quantizer *q, int v)
{
    int p = q->vprod[v];
    if (p >= 0 && q->plan.removed[p] && q->nin0[p] >= 0) {
        p = q->vprod[q->nin0[p]];
    }
    return p;
}

/* The QDQ model against the fp32 model on the kept batches: per output SQNR and argmax
 * agreement (rows along the last axis); per observed tensor the SQNR of its own Q/DQ round
 * trip and of its producer's weight round trip on fp32 values (alone), and of the tensor as
 * its readers see it inside the QDQ model (accumulated). */
static ember_status *report_sqnr(ember_quantizer *q, em_strbuf *sb)
{
    ember_model *qm = NULL;
    ember_tensor **fo = NULL, **qo = NULL;
    size_t nf = 0, nq = 0;
    int *qval = calloc((size_t)q->n_obs + 1, sizeof *qval);
    int *qslot = calloc((size_t)q->n_obs + 1, sizeof *qslot);
    double *accs = calloc((size_t)q->n_obs + 1, sizeof *accs);
    ember_model_options fold = {0};
    fold.has_graph_opt = true;
    fold.graph_opt = EMBER_GRAPH_OPT_FOLD;
    fold.int8 = EMBER_INT8_OFF;
    ember_status *st = qval == NULL || qslot == NULL || accs == NULL ? em_status_oom() : NULL;
    if (st == NULL) {
        st = qdq_model(q, &fold, false, &qm);
    }
    for (int k = 0; st == NULL && k < q->n_obs; k++) {
        qval[k] = dq_value(q, qm->g, q->obs_val[k]);
    }
    if (st == NULL) {
        st = observe_values(qm, qval, q->n_obs, qslot);
    }
    if (st == NULL) {
        st = calib_model(q);
    }
    if (st == NULL) {
        st = run_kept(q, q->cal, &fo, &nf);
    }
    if (st == NULL) {
        st = run_kept(q, qm, &qo, &nq);
    }
    size_t n_out = st == NULL ? (size_t)q->m->g->n_outputs : 0;
    for (size_t j = 0; st == NULL && j < n_out; j++) {
        double sig = 0, noise = 0;
        int64_t rows = 0, agree = 0;
        for (size_t b = 0; b < q->n_kept; b++) {
            ember_tensor *a = fo[b * nf + j], *c = qo[b * nq + j];
            if (ember_tensor_dtype(a) != EMBER_DTYPE_F32 || ember_tensor_dtype(c) != EMBER_DTYPE_F32 ||
                ember_tensor_elem_count(a) != ember_tensor_elem_count(c)) {
                continue;
            }
            sqnr_add(a, c, &sig, &noise);
            const float *x = ember_tensor_data(a), *y = ember_tensor_data(c);
            int64_t n = ember_tensor_elem_count(a);
            int r = ember_tensor_rank(a);
            int64_t last = r > 0 ? ember_tensor_dims(a)[r - 1] : 1;
            for (int64_t o = 0; last > 0 && o + last <= n; o += last) {
                rows++;
                agree += argmax_of(x + o, last) == argmax_of(y + o, last);
            }
        }
        em_strbuf_printf(sb, "output %s: SQNR %.2f dB, argmax agreement %lld / %lld on %zu "
                         "calibration batches\n", ember_model_output_name(qm, j),
                         sqnr_db(sig, noise), (long long)agree, (long long)rows, q->n_kept);
    }
    if (st == NULL) {
        em_strbuf_printf(sb, "per quantized tensor, SQNR against fp32 on the calibration batches: "
                         "alone = its own Q/DQ round trip and its producer's weight round trip, "
                         "on fp32 values; accumulated = the tensor as its readers see it in the "
                         "quantized model (every quantization up to here)\n");
    }
    int lo_alone = -1;
    double lo_alone_db = INFINITY;
    for (int k = 0; st == NULL && k < q->n_obs; k++) {
        int v = q->obs_val[k];
        int qmin, qmax, zp;
        float s;
        em_qi_qrange(q->o.act_dt, q->o.act_symmetric, &qmin, &qmax);
        em_qi_scale_zp(q->ranges[v].lo, q->ranges[v].hi, qmin, qmax, q->o.act_symmetric, &s, &zp);
        double sig = 0, noise = 0, asig = 0, anoise = 0;
        for (size_t b = 0; b < q->n_kept; b++) {
            ember_tensor *a = q->obs_out[k] >= 0 ? fo[b * nf + q->obs_out[k]]
                                                  : q->kept[b * q->n_in + (size_t)(-1 - q->obs_out[k])];
            if (ember_tensor_dtype(a) != EMBER_DTYPE_F32) {
                continue;
            }
            const float *x = ember_tensor_data(a);
            for (int64_t i = 0; i < ember_tensor_elem_count(a); i++) {
                float r = nearbyintf(x[i] / s) + (float)zp;
                r = r < (float)qmin ? (float)qmin : r > (float)qmax ? (float)qmax : r;
                double d = ((double)r - zp) * s;
                sig += (double)x[i] * x[i];
                noise += ((double)x[i] - d) * ((double)x[i] - d);
            }
            if (qval[k] >= 0 && qslot[k] >= 0) {
                sqnr_add(a, qo[b * nq + (size_t)qslot[k]], &asig, &anoise);
            }
        }
        double own = sqnr_db(sig, noise), acc = qslot[k] >= 0 ? sqnr_db(asig, anoise) : own;
        int p = maker_of(q, v), w = p >= 0 ? q->nweight[p] : -1;
        double wdb = w >= 0 && q->w_db != NULL ? q->w_db[w] : NAN;
        const char *op, *node = producer_of(q, v, &op);
        em_strbuf_printf(sb, "  tensor %s (%s %s): range [%g, %g], scale %g, zero point %d; "
                         "SQNR alone: output %.2f dB", q->vname[v], op, node,
                         (double)q->ranges[v].lo, (double)q->ranges[v].hi, (double)s, zp, own);
        if (!isnan(wdb)) {
            em_strbuf_printf(sb, ", weight %s (%s %s) %.2f dB", q->vname[w], em_op_name(q->nop[p]),
                             q->nname[p], wdb);
        }
        em_strbuf_printf(sb, "; accumulated %.2f dB\n", acc);
        double alone = !isnan(wdb) && wdb < own ? wdb : own;
        if (lo_alone < 0 || alone < lo_alone_db) {
            lo_alone = k;
            lo_alone_db = alone;
        }
        accs[k] = acc;
    }
    /* the largest fall of the accumulated SQNR from a node's (observed) input to its output */
    int drop = -1, drop_from = -1;
    for (int k = 0; st == NULL && k < q->n_obs; k++) {
        int p = maker_of(q, q->obs_val[k]), in = p >= 0 ? q->nin0[p] : -1;
        while (in >= 0 && q->plan.share[in] >= 0) {
            in = q->plan.share[in];
        }
        for (int j = 0; in >= 0 && j < q->n_obs; j++) {
            if (q->obs_val[j] == in &&
                (drop < 0 || accs[j] - accs[k] > accs[drop_from] - accs[drop])) {
                drop = k;
                drop_from = j;
            }
        }
    }
    if (st == NULL && lo_alone >= 0) {
        const char *op, *node = producer_of(q, q->obs_val[lo_alone], &op);
        em_strbuf_printf(sb, "lowest SQNR alone: %.2f dB, tensor %s (%s %s)\n", lo_alone_db,
                         q->vname[q->obs_val[lo_alone]], op, node);
    }
    if (st == NULL && drop >= 0) {
        const char *op, *node = producer_of(q, q->obs_val[drop], &op);
        em_strbuf_printf(sb, "largest SQNR drop: tensor %s (%s %s), accumulated %.2f dB, %.2f dB "
                         "below its input %s\n", q->vname[q->obs_val[drop]], op, node, accs[drop],
                         accs[drop_from] - accs[drop], q->vname[q->obs_val[drop_from]]);
    }
    free_outs(fo, q->n_kept * nf);
    free_outs(qo, q->n_kept * nq);
    ember_model_destroy(qm);
    free(qval);
    free(qslot);
    free(accs);
    return st;
}

ember_status *ember_quantizer_report(ember_quantizer *q, bool sqnr, char **text)
{
    if (text != NULL) {
        *text = NULL;
    }
    if (q == NULL || text == NULL) {
        return em_api_null_arg("quantizer_report", q == NULL ? "quantizer" : "text");
    }
    static const char *const modes[] = {"static", "dynamic", "weight-only"};
    em_strbuf sb;
    em_strbuf_init(&sb, NULL);
    int nq = 0, nrm = 0, nw = 0;
    for (int i = 0; i < q->plan.n_nodes; i++) {
        nq += q->plan.quant[i];
        nrm += q->plan.removed[i];
    }
    for (int v = 0; v < q->plan.n_values; v++) {
        nw += q->plan.w_axis[v] != -1;
    }
    em_strbuf_printf(&sb, "quantize %s: mode %s, %s weights, %s %s activations, method %s, %zu "
                     "calibration batches\n", q->path, modes[q->o.mode],
                     q->o.per_channel ? "per-channel" : "per-tensor",
                     q->o.act_dt == EMBER_DTYPE_U8 ? "u8" : "s8",
                     q->o.act_symmetric ? "symmetric" : "asymmetric", method_name(q->opts.method),
                     q->n_batches);
    em_strbuf_printf(&sb, "%d of %d nodes quantized (%d Relu / Clip folded into their producer's "
                     "Q/DQ), %d weights int8, %d activation tensors calibrated\n", nq,
                     q->plan.n_nodes, nrm, nw, q->n_obs);
    for (int i = 0; i < q->plan.n_nodes; i++) {
        if (q->plan.why[i] != NULL) {
            em_strbuf_printf(&sb, "  fp32: %s node '%s': %s\n", em_op_name(q->nop[i]),
                             q->nname[i], q->plan.why[i]);
        }
    }
    ember_status *st = NULL;
    if (sqnr && q->o.mode == EM_QI_STATIC && q->n_kept > 0) {
        st = report_sqnr(q, &sb);
    }
    if (st == NULL && sb.failed) {
        st = em_status_oom();
    }
    if (st == NULL) {
        *text = em_strbuf_take(&sb);
    }
    em_strbuf_free(&sb);
    return st;
}
