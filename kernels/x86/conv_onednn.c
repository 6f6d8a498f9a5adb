/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 2-D Conv (NCHW, ONNX semantics: groups, strides, pads, dilations, auto_pad, bias)
 * through the oneDNN 2.6 C API. prepare builds the convolution primitive once for the known
 * shapes; constant weights get oneDNN's preferred layout (format "any") and are reordered
 * once into a buffer the state owns; runtime weights stay plain OIHW / GOIHW. Source and
 * destination stay plain NCHW so that run works on ember's buffers directly. oneDNN's
 * scratchpad is ember's planned scratch (user scratchpad mode), so its size is reported in
 * prepare and no scratchpad is allocated per run.
 *
 * Thread-safety: the engine and primitive are shared, read-only, by concurrent runs; the
 * stream and the memory objects that wrap the run's pointers are per run (created and
 * destroyed in run), because dnnl_memory_set_data_handle on shared memory objects would race
 * between concurrent runs. Those objects are small oneDNN-internal allocations: run makes no
 * ember allocation but does call oneDNN's allocator (TODO(#1): cache per-thread objects).
 * If oneDNN fails at run time (it should not once the primitive exists), run cannot report
 * it and fills the output with NaN so the failure is visible.
 *
 * Threads: Debian's libdnnl 2.6 uses the OpenMP runtime (libgomp), not ember's pool. An
 * OpenMP team beside ember's pool oversubscribes the cores, and libgomp's workers spin after
 * each region: measured here (2 cores, default model, --threads 2) p90 latency went from
 * 0.15 ms to 24 ms. So run limits OpenMP to the calling thread for the duration of the call
 * (omp_set_num_threads is a per-thread setting, restored afterwards): --threads stays the one
 * bound on compute threads. Nothing global is set.
 * First use: oneDNN generates code when a primitive first executes (60-100 ms here), so
 * prepare executes it once on zeroed buffers; that cost lands in planning, not in a run.
 * The entry requires SSE4.2 (oneDNN needs SSE4.1; the bit lets EMBER_ISA_MAX=scalar exclude
 * it). oneDNN does its own ISA dispatch above that.
 */
#include "kernel.h"

#include "alloc.h"
#include "status.h"

#include <math.h>
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>
#include <string.h>

extern const em_kernel_table em_onednn_table;

ember_status *em_conv_f32_prepare__onednn(const em_kinfo *ki, void **state, size_t *scratch_bytes);
void em_conv_f32_release__onednn(const ember_allocator *al, void *state);
void em_conv_f32__onednn(const void *state, const em_tensor *in, em_tensor *out,
                         const em_kctx *ctx);

typedef struct conv_geom {
    int64_t n, c, h, w; /* input */
    int64_t m, kh, kw;  /* output channels, kernel */
    int64_t oh, ow;
    int64_t group;
    int64_t stride[2], dil[2], pad_b[2], pad_e[2];
    bool has_bias;
} conv_geom;

typedef struct onednn_conv {
    dnnl_engine_t engine;
    dnnl_primitive_t prim;
    dnnl_memory_desc_t src_md, wei_md, bias_md, dst_md, scratch_md;
    bool has_bias;
    size_t scratch_bytes;
    void *packed_w; /* weights in the primitive's layout (constant W), else NULL */
    int64_t out_elems;
} onednn_conv;

static ember_status *decline(const em_kinfo *ki, const char *why)
{
    return em_status_new(EMBER_ERR_UNSUPPORTED, "Conv '%s': oneDNN: %s", ki->node->name, why);
}

static ember_status *dnnl_fail(const em_kinfo *ki, const char *what, dnnl_status_t s)
{
    return em_status_new(EMBER_ERR_UNSUPPORTED, "Conv '%s': oneDNN %s: %s", ki->node->name, what,
                         dnnl_status2str(s));
}

/* Reads an INTS attribute of exactly 2 (or 4 for pads) values; `dflt` when absent. */
static bool read_ints(const em_node *node, const char *name, int64_t n, int64_t dflt, int64_t *v)
{
    const int64_t *p;
    int64_t cnt = em_node_attr_ints(node, name, &p);
    for (int64_t i = 0; i < n; i++) {
        v[i] = cnt < 0 ? dflt : (i < cnt ? p[i] : 0);
    }
    return cnt < 0 || cnt == n;
}

/* Pads from auto_pad (ONNX Conv-11), for spatial axis d. */
static bool auto_pads(const char *mode, int64_t in, int64_t k, conv_geom *g, int d)
{
    int64_t ext = (k - 1) * g->dil[d] + 1;
    if (strcmp(mode, "VALID") == 0) {
        g->pad_b[d] = g->pad_e[d] = 0;
        return true;
    }
    bool upper = strcmp(mode, "SAME_UPPER") == 0;
    if (!upper && strcmp(mode, "SAME_LOWER") != 0) {
        return strcmp(mode, "NOTSET") == 0;
    }
    int64_t out = (in + g->stride[d] - 1) / g->stride[d];
    int64_t total = (out - 1) * g->stride[d] + ext - in;
    total = total < 0 ? 0 : total;
    g->pad_b[d] = upper ? total / 2 : total - total / 2;
    g->pad_e[d] = total - g->pad_b[d];
    return true;
}

static ember_status *parse_geom(const em_kinfo *ki, conv_geom *g)
{
    const em_tensor *x = &ki->in[0], *w = &ki->in[1], *y = &ki->out[0];
    g->has_bias = ki->n_in > 2 && ki->in[2].dtype != EMBER_DTYPE_UNDEFINED;
    if (ki->n_out != 1 || x->dtype != EMBER_DTYPE_F32 || w->dtype != EMBER_DTYPE_F32 ||
        y->dtype != EMBER_DTYPE_F32 || (g->has_bias && ki->in[2].dtype != EMBER_DTYPE_F32)) {
        return decline(ki, "only f32");
    }
    if (x->rank != 4 || w->rank != 4 || y->rank != 4) {
        return decline(ki, "only 2-D convolution");
    }
    g->n = x->dims[0], g->c = x->dims[1], g->h = x->dims[2], g->w = x->dims[3];
    g->m = w->dims[0], g->kh = w->dims[2], g->kw = w->dims[3];
    g->oh = y->dims[2], g->ow = y->dims[3];
    g->group = em_node_attr_int(ki->node, "group", 1);
    int64_t ks[2], pads[4];
    if (!read_ints(ki->node, "strides", 2, 1, g->stride) ||
        !read_ints(ki->node, "dilations", 2, 1, g->dil) ||
        !read_ints(ki->node, "kernel_shape", 2, 0, ks) ||
        !read_ints(ki->node, "pads", 4, 0, pads)) {
        return decline(ki, "attribute length");
    }
    if (em_tensor_numel(x) == 0 || em_tensor_numel(w) == 0 || em_tensor_numel(y) == 0 ||
        g->group < 1 || g->c != w->dims[1] * g->group || g->m % g->group != 0 ||
        y->dims[0] != g->n || y->dims[1] != g->m || (ks[0] != 0 && ks[0] != g->kh) ||
        (ks[1] != 0 && ks[1] != g->kw) ||
        (g->has_bias && (ki->in[2].rank != 1 || ki->in[2].dims[0] != g->m))) {
        return decline(ki, "shapes or group");
    }
    const char *mode = em_node_attr_string(ki->node, "auto_pad", "NOTSET");
    int64_t in_sp[2] = {g->h, g->w}, k_sp[2] = {g->kh, g->kw}, out_sp[2] = {g->oh, g->ow};
    for (int d = 0; d < 2; d++) {
        if (g->stride[d] < 1 || g->dil[d] < 1) {
            return decline(ki, "strides and dilations must be >= 1");
        }
        g->pad_b[d] = pads[d];
        g->pad_e[d] = pads[d + 2];
        if (!auto_pads(mode, in_sp[d], k_sp[d], g, d) || g->pad_b[d] < 0 || g->pad_e[d] < 0) {
            return decline(ki, "auto_pad or pads");
        }
        int64_t ext = (k_sp[d] - 1) * g->dil[d] + 1;
        int64_t span = in_sp[d] + g->pad_b[d] + g->pad_e[d] - ext;
        if (span < 0 || span / g->stride[d] + 1 != out_sp[d]) {
            return decline(ki, "output size does not match the attributes");
        }
    }
    return NULL;
}

/* Weights dims as oneDNN wants them: OIHW, or GOIHW with groups. */
static int weight_dims(const conv_geom *g, dnnl_dims_t d)
{
    if (g->group == 1) {
        d[0] = g->m, d[1] = g->c, d[2] = g->kh, d[3] = g->kw;
        return 4;
    }
    d[0] = g->group, d[1] = g->m / g->group, d[2] = g->c / g->group, d[3] = g->kh, d[4] = g->kw;
    return 5;
}

/* Reorders the user's plain weights into s->wei_md, into a buffer the state owns. */
static ember_status *pack_weights(const em_kinfo *ki, onednn_conv *s,
                                  const dnnl_memory_desc_t *user_md)
{
    ember_status *st = NULL;
    dnnl_memory_t from = NULL, to = NULL;
    dnnl_primitive_desc_t rpd = NULL;
    dnnl_primitive_t reorder = NULL;
    dnnl_stream_t stream = NULL;
    dnnl_status_t r;
    s->packed_w = em_aligned_alloc(ki->al, dnnl_memory_desc_get_size(&s->wei_md));
    if (s->packed_w == NULL) {
        return em_status_oom();
    }
    /* oneDNN takes a non-const handle; the reorder only reads its FROM argument. */
    if ((r = dnnl_memory_create(&from, user_md, s->engine, ki->in[1].data)) != dnnl_success ||
        (r = dnnl_memory_create(&to, &s->wei_md, s->engine, s->packed_w)) != dnnl_success ||
        (r = dnnl_reorder_primitive_desc_create(&rpd, user_md, s->engine, &s->wei_md, s->engine,
                                                NULL)) != dnnl_success ||
        (r = dnnl_primitive_create(&reorder, rpd)) != dnnl_success ||
        (r = dnnl_stream_create(&stream, s->engine, dnnl_stream_default_flags)) != dnnl_success) {
        st = dnnl_fail(ki, "weights reorder setup", r);
        goto done;
    }
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    if ((r = dnnl_primitive_execute(reorder, stream, 2, args)) != dnnl_success ||
        (r = dnnl_stream_wait(stream)) != dnnl_success) {
        st = dnnl_fail(ki, "weights reorder", r);
    }
done:
    dnnl_stream_destroy(stream);
    dnnl_primitive_destroy(reorder);
    dnnl_primitive_desc_destroy(rpd);
    dnnl_memory_destroy(to);
    dnnl_memory_destroy(from);
    return st;
}

/* Creates the primitive (and packs constant weights) for geometry g. */
static ember_status *build(const em_kinfo *ki, const conv_geom *g, onednn_conv *s)
{
    ember_status *st = NULL;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_memory_desc_t user_wmd, any_wmd;
    dnnl_convolution_desc_t cd;
    dnnl_dims_t src_d = {g->n, g->c, g->h, g->w}, dst_d = {g->n, g->m, g->oh, g->ow};
    dnnl_dims_t bias_d = {g->m}, wd, strides = {g->stride[0], g->stride[1]};
    dnnl_dims_t dil = {g->dil[0] - 1, g->dil[1] - 1}; /* oneDNN counts dilation from 0 */
    dnnl_dims_t pl = {g->pad_b[0], g->pad_b[1]}, pr = {g->pad_e[0], g->pad_e[1]};
    int wr = weight_dims(g, wd);
    bool const_w = ki->in[1].data != NULL;
    dnnl_status_t r;
    if ((r = dnnl_engine_create(&s->engine, dnnl_cpu, 0)) != dnnl_success ||
        (r = dnnl_memory_desc_init_by_tag(&s->src_md, 4, src_d, dnnl_f32, dnnl_nchw)) ||
        (r = dnnl_memory_desc_init_by_tag(&s->dst_md, 4, dst_d, dnnl_f32, dnnl_nchw)) ||
        (r = dnnl_memory_desc_init_by_tag(&s->bias_md, 1, bias_d, dnnl_f32, dnnl_x)) ||
        (r = dnnl_memory_desc_init_by_tag(&user_wmd, wr, wd, dnnl_f32,
                                          wr == 4 ? dnnl_oihw : dnnl_goihw)) ||
        (r = dnnl_memory_desc_init_by_tag(&any_wmd, wr, wd, dnnl_f32, dnnl_format_tag_any)) ||
        (r = dnnl_dilated_convolution_forward_desc_init(
             &cd, dnnl_forward_inference, dnnl_convolution_direct, &s->src_md,
             const_w ? &any_wmd : &user_wmd, g->has_bias ? &s->bias_md : NULL, &s->dst_md, strides,
             dil, pl, pr)) ||
        (r = dnnl_primitive_attr_create(&attr)) ||
        (r = dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user)) ||
        (r = dnnl_primitive_desc_create(&pd, &cd, attr, s->engine, NULL)) ||
        (r = dnnl_primitive_create(&s->prim, pd))) {
        st = dnnl_fail(ki, "convolution setup", r);
        goto done;
    }
    s->wei_md = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    s->scratch_md = *dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    s->scratch_bytes = dnnl_memory_desc_get_size(&s->scratch_md);
    if (const_w) {
        st = pack_weights(ki, s, &user_wmd);
    }
done:
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_attr_destroy(attr);
    return st;
}

void em_conv_f32_release__onednn(const ember_allocator *al, void *state)
{
    onednn_conv *s = state;
    if (s == NULL) {
        return;
    }
    dnnl_primitive_destroy(s->prim);
    dnnl_engine_destroy(s->engine);
    em_aligned_free(al, s->packed_w);
    em_free(al, s);
}

/* Runs the primitive once on zeroed buffers of the planned shapes, so that oneDNN's code
 * generation happens here. Constant inputs keep their data. */
static ember_status *warm_up(const em_kinfo *ki, const onednn_conv *s)
{
    em_tensor in[3], out[1] = {ki->out[0]};
    void *bufs[5] = {NULL, NULL, NULL, NULL, NULL};
    ember_status *st = NULL;
    int nb = 0;
    for (int i = 0; i < ki->n_in && i < 3; i++) {
        in[i] = ki->in[i];
        if (in[i].data == NULL && in[i].dtype != EMBER_DTYPE_UNDEFINED) {
            in[i].data = bufs[nb++] = em_aligned_alloc(ki->al, em_tensor_nbytes(&in[i]));
            if (in[i].data == NULL) {
                st = em_status_oom();
                goto done;
            }
            memset(in[i].data, 0, em_tensor_nbytes(&in[i]));
        }
    }
    out[0].data = bufs[nb++] = em_aligned_alloc(ki->al, em_tensor_nbytes(&out[0]));
    em_kctx ctx = {NULL, NULL};
    if (s->scratch_bytes > 0) {
        ctx.scratch = bufs[nb++] = em_aligned_alloc(ki->al, s->scratch_bytes);
    }
    if (out[0].data == NULL || (s->scratch_bytes > 0 && ctx.scratch == NULL)) {
        st = em_status_oom();
        goto done;
    }
    em_conv_f32__onednn(s, in, out, &ctx);
    if (s->out_elems > 0 && isnan(((const float *)out[0].data)[0])) {
        st = em_status_new(EMBER_ERR_UNSUPPORTED, "Conv '%s': oneDNN could not execute",
                           ki->node->name);
    }
done:
    for (int i = 0; i < nb; i++) {
        em_aligned_free(ki->al, bufs[i]);
    }
    return st;
}

ember_status *em_conv_f32_prepare__onednn(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    conv_geom g;
    ember_status *st = parse_geom(ki, &g);
    if (st != NULL) {
        return st;
    }
    onednn_conv *s = em_calloc(ki->al, 1, sizeof *s);
    if (s == NULL) {
        return em_status_oom();
    }
    s->has_bias = g.has_bias;
    s->out_elems = em_tensor_numel(&ki->out[0]);
    st = build(ki, &g, s);
    if (st != NULL) {
        em_conv_f32_release__onednn(ki->al, s);
        return st;
    }
    st = warm_up(ki, s);
    if (st != NULL) {
        em_conv_f32_release__onednn(ki->al, s);
        return st;
    }
    *state = s;
    *scratch_bytes = s->scratch_bytes;
    return NULL;
}

void em_conv_f32__onednn(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const onednn_conv *s = state;
    dnnl_stream_t stream = NULL;
    dnnl_memory_t mem[5] = {NULL, NULL, NULL, NULL, NULL};
    dnnl_exec_arg_t args[5];
    int n = 0;
    int omp_prev = omp_get_max_threads();
    omp_set_num_threads(1); /* this thread only, for this call: see the header */
    bool ok = dnnl_stream_create(&stream, s->engine, dnnl_stream_default_flags) == dnnl_success;
    /* The source and weights handles are only read by a forward convolution. */
    struct {
        int arg;
        const dnnl_memory_desc_t *md;
        void *data;
    } bind[5] = {{DNNL_ARG_SRC, &s->src_md, in[0].data},
                 {DNNL_ARG_WEIGHTS, &s->wei_md, s->packed_w != NULL ? s->packed_w : in[1].data},
                 {DNNL_ARG_DST, &s->dst_md, out[0].data},
                 {DNNL_ARG_BIAS, &s->bias_md, s->has_bias ? in[2].data : NULL},
                 {DNNL_ARG_SCRATCHPAD, &s->scratch_md, s->scratch_bytes ? ctx->scratch : NULL}};
    for (int i = 0; i < 5 && ok; i++) {
        if (bind[i].data == NULL) {
            continue;
        }
        ok = dnnl_memory_create(&mem[n], bind[i].md, s->engine, bind[i].data) == dnnl_success;
        args[n] = (dnnl_exec_arg_t){bind[i].arg, mem[n]};
        n += ok;
    }
    ok = ok && dnnl_primitive_execute(s->prim, stream, n, args) == dnnl_success &&
         dnnl_stream_wait(stream) == dnnl_success;
    for (int i = 0; i < n; i++) {
        dnnl_memory_destroy(mem[i]);
    }
    dnnl_stream_destroy(stream);
    omp_set_num_threads(omp_prev);
    if (!ok) {
        float *y = out[0].data;
        for (int64_t i = 0; i < s->out_elems; i++) {
            y[i] = NAN;
        }
    }
}

/* clang-format off */
static const em_kernel onednn_kernels[] = {
    {"em_conv_f32__onednn", EM_OP_CONV, EMBER_DTYPE_F32, EM_DEV_CPU, EM_ISA_SSE42, 25,
     em_conv_f32_prepare__onednn, em_conv_f32_release__onednn, em_conv_f32__onednn},
};
/* clang-format on */

const em_kernel_table em_onednn_table = {"onednn", onednn_kernels,
                                         sizeof onednn_kernels / sizeof onednn_kernels[0]};
