/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f32 2-D Conv (NCHW, ONNX semantics: groups, strides, pads, dilations, auto_pad, bias)
 * through the oneDNN 2.6 C API. prepare builds the convolution primitive once for the known
 * shapes; constant weights get oneDNN's preferred layout (format "any") and are reordered
 * once into a pack (core/pack.h) that plans choosing the same layout share: the layout
 * depends on the shapes only through oneDNN's choice, which is in the key; runtime weights
 * stay plain OIHW / GOIHW. Source and
 * destination stay plain NCHW so that run works on ember's buffers directly. oneDNN's
 * scratchpad is ember's planned scratch (user scratchpad mode), so its size is reported in
 * prepare and no scratchpad is allocated per run.
 *
 * Grouped convolutions on the blocked layout whose groups are not whole blocks (resnext50's
 * 4 channels a group) run as j merged groups (ir/fusedconv.h), with block-diagonal weights
 * made in the pack: oneDNN's jit kernel then does j times the arithmetic, yet resnext50's
 * 128-channel 3x3 convs on 56x56 took 1.5 ms instead of 4.3 ms (oneDNN's gemm path on the
 * plain layout, which also needed reorders around it). The zeros between merged groups make
 * an infinite input give NaN in the other groups of its merged group (0 * inf), where the
 * unmerged conv gives finite values there.
 *
 * Thread-safety: the engine and primitive are shared, read-only, by concurrent runs. Each
 * slice keeps one stream and one set of buffer-less memory objects made in prepare; a run
 * takes them with an atomic flag and points them at its buffers (dnnl_memory_set_data_handle),
 * so the usual run allocates nothing. A concurrent run that finds them taken makes its own
 * for the call (small oneDNN-internal allocations). Creating them per call cost ~5% of
 * efficientnet_b0's run time.
 * If oneDNN fails at run time (it should not once the primitive exists), run cannot report
 * it and fills the output with NaN so the failure is visible.
 *
 * Threads: Debian's libdnnl 2.6 uses the OpenMP runtime (libgomp), not ember's pool. An
 * OpenMP team beside ember's pool oversubscribes the cores, and libgomp's workers spin after
 * each region: measured here (2 cores, default model, --threads 2) p90 latency went from
 * 0.15 ms to 24 ms. So run limits OpenMP to the calling thread for the duration of the call
 * (omp_set_num_threads is a per-thread setting, restored afterwards): --threads stays the one
 * bound on compute threads. Nothing global is set. prepare does the same around primitive
 * creation and the weights reorder: oneDNN sizes a primitive's work split for the
 * OpenMP thread count at creation, and a team of OMP_NUM_THREADS (or one per core when unset)
 * that spins after the reorder made loading 4-7x slower at 2 threads (efficientnet_b0 690 ms
 * -> 100-180 ms, densenet121 5.1 s in a busy bench).
 * First use: oneDNN 2.6 generates its JIT code when the primitive is created (in prepare).
 * Executing every primitive once in prepare on zeroed buffers (as round 1 did) left the first
 * run's time unchanged on the quiet VM (resnet50 first run 71-85 ms either way, median 66)
 * and cost a whole inference of load (resnet50 +70-185 ms, densenet121 +45, squeezenet +10),
 * so it was dropped.
 * The entry requires SSE4.2 (oneDNN needs SSE4.1; the bit lets EMBER_ISA_MAX=scalar exclude
 * it). oneDNN does its own ISA dispatch above that.
 */
#include "plan/kernel.h"

#include "core/alloc.h"
#include "ir/fusedconv.h"
#ifdef EMBER_HAVE_X86
#include "x86.h"
#endif
#include "core/status.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>
#include <string.h>

extern const em_kernel_table em_onednn_table;

ember_status *em_conv_f32_prepare__onednn(const em_kinfo *ki, void **state, size_t *scratch_bytes);
void em_conv_f32_release__onednn(const ember_allocator *al, void *state);
void em_conv_f32__onednn(const void *state, const em_tensor *in, em_tensor *out,
                         const em_kctx *ctx);

#define MAX_SLICES 8
#define N_BINDS 6 /* src, weights, dst, bias, Z (binary post-op), scratchpad */

typedef struct conv_geom {
    int64_t n, c, h, w; /* input (c: real channels, also when blocked) */
    int64_t m, kh, kw;  /* output channels, kernel */
    int64_t oh, ow;
    int64_t group; /* after merging: the node's count / merge */
    int64_t merge; /* groups merged into one (ir/fusedconv.h), 1: none */
    int64_t stride[2], dil[2], pad_b[2], pad_e[2];
    int64_t block; /* 0: plain NCHW; 8 or 16: X, Z, Y channel-blocked */
    bool plain_x;  /* blocked, but X plain NCHW (FusedConv plain_input) */
    bool has_bias, has_z;
    em_conv_epilogue epi;
} conv_geom;

/* One primitive over output channels [m0, m0 + m) (groups [m0 / (M/G), ...) when grouped). */
typedef struct conv_slice {
    dnnl_primitive_t prim;
    dnnl_memory_desc_t src_md, wei_md, bias_md, dst_md, scratch_md;
    size_t src_off, wei_off, dst_off, bias_off; /* in floats from the tensors' starts */
    size_t scratch_off, scratch_bytes, dst_bytes;
    em_pack *pack;        /* weights in the primitive's layout (constant W), else NULL */
    const void *packed_w; /* its bytes */
    /* Where oneDNN has only its reference loops for X plain onto a blocked Y (alexnet's
     * 11x11 stride-4 first conv: 14 s a run), the primitive writes a plain destination
     * (dst_md, oneDNN's gemm path) at plain_off in the scratch, and `reorder` puts it into
     * Y's blocks (blk_md); NULL otherwise. */
    dnnl_primitive_t reorder;
    dnnl_memory_desc_t blk_md;
    size_t plain_off;
    /* A stream and memory objects (one per bind slot, no buffer until run) for one run at a
     * time, taken with `busy`; a concurrent run of the same node makes its own. */
    atomic_bool busy;
    dnnl_stream_t stream;
    dnnl_memory_t mem[N_BINDS];
    dnnl_memory_t blk_mem; /* the reorder's destination (with `reorder`) */
} conv_slice;

typedef struct onednn_conv {
    dnnl_engine_t engine;
    int n_slices;
    conv_slice sl[MAX_SLICES];
    bool has_bias, has_z;
    bool z_sum; /* Z through a sum post-op (copied into Y first) rather than binary add */
    /* Sigmoid, Tanh, SiLU and Gelu run after the primitive, on each slice's output, with
     * ember's vector math: oneDNN 2.6's eltwise post-ops for them cost ~0.57 ns an element
     * here, more than the whole depthwise convolution (32 x 112 x 112, 3x3: 94 us, 320 us with
     * swish), while a separate pass over the output costs ~0.3 ns an element (x86.h); Gelu's
     * erf form after the primitive beat the gelu_erf post-op on convnext_tiny too (NOTES.md).
     * More slices, so that each slice's output would still be in L2 for that pass, measured no
     * faster: the pass is bound by its arithmetic, not by memory. */
    em_conv_act own_act;
    void (*act_fn)(em_conv_act act, float *y, size_t n);
    size_t scratch_bytes;
    int64_t out_elems;
} onednn_conv;

static ember_status *decline(const em_kinfo *ki, const char *why)
{
    return em_status_new(EMBER_ERR_UNSUPPORTED, "%s '%s': oneDNN: %s", em_op_name(ki->node->op),
                         ki->node->name, why);
}

static ember_status *dnnl_fail(const em_kinfo *ki, const char *what, dnnl_status_t s)
{
    return em_status_new(EMBER_ERR_UNSUPPORTED, "%s '%s': oneDNN %s: %s",
                         em_op_name(ki->node->op), ki->node->name, what, dnnl_status2str(s));
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

/* Dtypes, ranks, layout and epilogue of a Conv / FusedConv node. */
static ember_status *parse_kind(const em_kinfo *ki, conv_geom *g)
{
    const em_tensor *x = &ki->in[0], *w = &ki->in[1], *y = &ki->out[0];
    bool fused = ki->node->op == EM_OP_FUSEDCONV;
    g->has_bias = ki->n_in > 2 && ki->in[2].dtype != EMBER_DTYPE_UNDEFINED;
    g->has_z = fused && ki->n_in > 3 && ki->in[3].dtype != EMBER_DTYPE_UNDEFINED;
    g->block = fused ? em_node_attr_int(ki->node, "blocked", 0) : 0;
    g->plain_x = g->block > 0 && em_node_attr_int(ki->node, "plain_input", 0) != 0;
    if (ki->n_out != 1 || x->dtype != EMBER_DTYPE_F32 || w->dtype != EMBER_DTYPE_F32 ||
        y->dtype != EMBER_DTYPE_F32 || (g->has_bias && ki->in[2].dtype != EMBER_DTYPE_F32) ||
        (g->has_z && ki->in[3].dtype != EMBER_DTYPE_F32)) {
        return decline(ki, "only f32");
    }
    if (!em_conv_epilogue_parse(ki->node, &g->epi)) {
        return decline(ki, "activation");
    }
    int yr = g->block > 0 ? 5 : 4, xr = g->plain_x ? 4 : yr;
    if (x->rank != xr || w->rank != 4 || y->rank != yr || (g->has_z && ki->in[3].rank != yr)) {
        return decline(ki, "only 2-D convolution");
    }
    if (g->block != 0 && g->block != 8 && g->block != 16) {
        return decline(ki, "channel block other than 8 or 16");
    }
    if (g->block > 0 && ((!g->plain_x && x->dims[4] != g->block) || y->dims[4] != g->block)) {
        return decline(ki, "blocked shapes");
    }
    return NULL;
}

static ember_status *parse_geom(const em_kinfo *ki, conv_geom *g)
{
    ember_status *st = parse_kind(ki, g);
    if (st != NULL) {
        return st;
    }
    const em_tensor *x = &ki->in[0], *w = &ki->in[1], *y = &ki->out[0];
    g->group = em_node_attr_int(ki->node, "group", 1);
    g->n = x->dims[0], g->h = x->dims[2], g->w = x->dims[3];
    g->m = w->dims[0], g->kh = w->dims[2], g->kw = w->dims[3];
    g->c = g->block > 0 ? w->dims[1] * g->group : x->dims[1];
    g->oh = y->dims[2], g->ow = y->dims[3];
    int64_t ks[2], pads[4];
    if (!read_ints(ki->node, "strides", 2, 1, g->stride) ||
        !read_ints(ki->node, "dilations", 2, 1, g->dil) ||
        !read_ints(ki->node, "kernel_shape", 2, 0, ks) ||
        !read_ints(ki->node, "pads", 4, 0, pads)) {
        return decline(ki, "attribute length");
    }
    int64_t cb = g->block > 0 && !g->plain_x ? (g->c + g->block - 1) / g->block : g->c;
    int64_t mb = g->block > 0 ? (g->m + g->block - 1) / g->block : g->m;
    bool z_ok = !g->has_z || em_tensor_same_shape(&ki->in[3], y);
    if (em_tensor_numel(x) == 0 || em_tensor_numel(w) == 0 || em_tensor_numel(y) == 0 ||
        g->group < 1 || g->c != w->dims[1] * g->group || g->m % g->group != 0 ||
        x->dims[1] != cb || y->dims[0] != g->n || y->dims[1] != mb || !z_ok ||
        (ks[0] != 0 && ks[0] != g->kh) || (ks[1] != 0 && ks[1] != g->kw) ||
        (g->has_bias && (ki->in[2].rank != 1 || ki->in[2].dims[0] != g->m))) {
        return decline(ki, "shapes or group");
    }
    g->merge = 1;
    int64_t cg = w->dims[1], mg = g->m / g->group;
    if (g->block > 0 && g->group > 1 && !(cg == 1 && mg == 1) && ki->in[1].data != NULL) {
        /* Groups that are not whole blocks run merged, with block-diagonal weights made once
         * in the pack, so only with constant weights; otherwise (and where no merge fits)
         * oneDNN picks its own implementation (its gemm or reference loops). */
        int64_t j = em_conv_group_merge(g->group, cg, mg, g->block);
        if (j > 1) {
            g->merge = j;
            g->group /= j;
        }
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

/* Splits the output channels over the pool: slices of whole channel blocks (whole groups
 * when grouped, each slice's first channels, in and out, aligned to blocks); batch 1 only,
 * where a slice of channels is one contiguous piece of X, Z and Y. Slices differ by at most
 * one step (a block, or the fewest groups that span whole blocks on both sides), so odd
 * counts split too (regnet_y_400mf's 13 and 55 groups of 8, shufflenet's 116 depthwise
 * channels ran on one thread when slices had to be equal). Writes the slices' first output
 * channels (and an end); returns the count. */
static int plan_slices(const conv_geom *g, int n_threads, int64_t *m0)
{
    int64_t unit = g->block > 0 ? g->block : 8, mg = g->m / g->group, cg = g->c / g->group;
    int n = n_threads < MAX_SLICES ? n_threads : MAX_SLICES;
    m0[0] = 0;
    if (g->n != 1 || n < 2) {
        m0[1] = g->m;
        return 1;
    }
    /* step: output channels a slice boundary moves by (a block, or whole groups whose in and
     * out channels are both whole blocks) */
    int64_t step = unit;
    if (g->group > 1) {
        int64_t q = 1;
        while (q < g->group && ((q * mg) % unit != 0 || (q * cg) % unit != 0)) {
            q++;
        }
        step = q * mg;
    }
    int64_t steps = (g->m + step - 1) / step;
    n = steps < n ? (int)steps : n;
    for (int k = 0; k <= n; k++) {
        int64_t e = steps * k / n * step;
        m0[k] = e < g->m ? e : g->m;
    }
    return n;
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

/* What a slice's packed weights depend on besides the weights: where the slice starts in
 * them and the layout oneDNN chose (its dims and format). */
typedef struct pack_key {
    size_t wei_off;
    dnnl_memory_desc_t md;
} pack_key;

static bool pack_key_eq(const void *a, const void *b)
{
    const pack_key *x = a, *y = b;
    return x->wei_off == y->wei_off && dnnl_memory_desc_equal(&x->md, &y->md) != 0;
}

typedef struct pack_job {
    const em_kinfo *ki;
    dnnl_engine_t engine;
    const dnnl_memory_desc_t *user_md, *wei_md;
    const float *w; /* the slice's first weight, in the node's own (unmerged) weights */
    int64_t merge;  /* > 1: w's groups are merged (conv_geom) into user_md's wider ones */
    int64_t m0, m, cg, mg, khw; /* the slice's output channels [m0, m0 + m) of the node's;
                                 * unmerged group widths; kh * kw */
} pack_job;

/* The block-diagonal weights of merged groups: output channel o of a merged group reads the
 * input channels of its own original group (j->w's cg), zero elsewhere. */
static float *merged_weights(const pack_job *j)
{
    int64_t wide = j->merge * j->cg, row = wide * j->khw, span = j->cg * j->khw;
    float *d = em_calloc(j->ki->al, (size_t)(j->m * row), sizeof *d);
    for (int64_t o = 0; d != NULL && o < j->m; o++) {
        int64_t part = (j->m0 + o) % (j->merge * j->mg) / j->mg; /* in its merged group */
        memcpy(d + o * row + part * span, j->w + o * span, sizeof *d * (size_t)span);
    }
    return d;
}

/* Reorders the user's plain weights (job->w) into job->wei_md at dst (em_pack_fill_fn). */
static ember_status *reorder_weights(void *ctx, void *dst)
{
    const pack_job *j = ctx;
    const em_kinfo *ki = j->ki;
    dnnl_engine_t engine = j->engine;
    const dnnl_memory_desc_t *user_md = j->user_md;
    ember_status *st = NULL;
    dnnl_memory_t from = NULL, to = NULL;
    dnnl_primitive_desc_t rpd = NULL;
    dnnl_primitive_t reorder = NULL;
    dnnl_stream_t stream = NULL;
    dnnl_status_t r;
    float *wide = j->merge > 1 ? merged_weights(j) : NULL;
    if (j->merge > 1 && wide == NULL) {
        return em_status_oom();
    }
    /* oneDNN takes a non-const handle; the reorder only reads its FROM argument. */
    void *from_data = wide != NULL ? (void *)wide : (void *)j->w;
    if ((r = dnnl_memory_create(&from, user_md, engine, from_data)) != dnnl_success ||
        (r = dnnl_memory_create(&to, j->wei_md, engine, dst)) != dnnl_success ||
        (r = dnnl_reorder_primitive_desc_create(&rpd, user_md, engine, j->wei_md, engine,
                                                NULL)) != dnnl_success ||
        (r = dnnl_primitive_create(&reorder, rpd)) != dnnl_success ||
        (r = dnnl_stream_create(&stream, engine, dnnl_stream_default_flags)) != dnnl_success) {
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
    em_free(ki->al, wide);
    return st;
}

/* A slice's packed weights -> its part of the plain weights (em_pack_unpack_fn: the model
 * drops a half weight once packed, and a later plan that needs W widens it from here): the
 * reorder back, wei_md to user_md, at dst + off floats. */
typedef struct unpack_ctx {
    dnnl_memory_desc_t user_md, wei_md;
    size_t off;
} unpack_ctx;

static void unpack_weights(const void *ctx, const void *data, void *dst)
{
    const unpack_ctx *u = ctx;
    dnnl_engine_t engine = NULL;
    dnnl_memory_t from = NULL, to = NULL;
    dnnl_primitive_desc_t rpd = NULL;
    dnnl_primitive_t reorder = NULL;
    dnnl_stream_t stream = NULL;
    /* oneDNN takes a non-const handle; the reorder only reads its FROM argument. */
    if (dnnl_engine_create(&engine, dnnl_cpu, 0) == dnnl_success &&
        dnnl_memory_create(&from, &u->wei_md, engine, (void *)data) == dnnl_success &&
        dnnl_memory_create(&to, &u->user_md, engine, (float *)dst + u->off) == dnnl_success &&
        dnnl_reorder_primitive_desc_create(&rpd, &u->wei_md, engine, &u->user_md, engine,
                                           NULL) == dnnl_success &&
        dnnl_primitive_create(&reorder, rpd) == dnnl_success &&
        dnnl_stream_create(&stream, engine, dnnl_stream_default_flags) == dnnl_success) {
        int omp_prev = omp_get_max_threads();
        omp_set_num_threads(1);
        dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
        if (dnnl_primitive_execute(reorder, stream, 2, args) == dnnl_success) {
            (void)dnnl_stream_wait(stream);
        }
        omp_set_num_threads(omp_prev);
    }
    dnnl_stream_destroy(stream);
    dnnl_primitive_destroy(reorder);
    dnnl_primitive_desc_destroy(rpd);
    dnnl_memory_destroy(to);
    dnnl_memory_destroy(from);
    dnnl_engine_destroy(engine);
}

/* Slice sl's weights in its primitive's layout, from the pack cache (em_pack_get). */
static ember_status *pack_weights(const em_kinfo *ki, dnnl_engine_t engine, const conv_geom *full,
                                  int64_t m, conv_slice *sl, const dnnl_memory_desc_t *user_md)
{
    const float *w = ki->in[1].data;
    int64_t cg = full->c / full->group / full->merge, khw = full->kh * full->kw;
    int64_t mg = full->m / full->group / full->merge, m0 = (int64_t)sl->bias_off;
    pack_key key;
    memset(&key, 0, sizeof key);
    key.wei_off = sl->wei_off;
    key.md = sl->wei_md;
    em_pack_key k = {"onednn conv weights", NULL, &key, sizeof key, pack_key_eq};
    em_pack_cache *cache = em_kinfo_pack_at(ki, 1, &k.src);
    pack_job job = {ki, engine, user_md, &sl->wei_md, w + m0 * cg * khw, full->merge, m0, m,
                    cg, mg, khw};
    ember_status *st = em_pack_get(cache, ki->al, &k, dnnl_memory_desc_get_size(&sl->wei_md),
                                   reorder_weights, &job, &sl->pack);
    /* merged groups hold zeros beside the weights; a strided user_md, bytes between */
    if (st == NULL && full->merge == 1 &&
        dnnl_memory_desc_get_size(user_md) == sizeof(float) * (size_t)(m * cg * khw)) {
        const unpack_ctx u = {*user_md, sl->wei_md, (size_t)(m0 * cg * khw)};
        st = em_pack_set_unpack(sl->pack, unpack_weights, &u, sizeof u, sizeof(float) * u.off,
                                sizeof(float) * (size_t)(m * cg * khw));
    }
    sl->packed_w = em_pack_data(sl->pack);
    return st;
}

/* The epilogue as oneDNN post-ops: Z (binary add, or sum when `sum`), then the activation. */
static dnnl_status_t post_ops(const conv_geom *g, bool sum, const dnnl_memory_desc_t *z_md,
                              dnnl_primitive_attr_t attr)
{
    dnnl_post_ops_t po = NULL;
    dnnl_status_t r = dnnl_post_ops_create(&po);
    const float *p = g->epi.p;
    if (r == dnnl_success && g->has_z) {
        r = sum ? dnnl_post_ops_append_sum(po, 1.0f)
                : dnnl_post_ops_append_binary(po, dnnl_binary_add, z_md);
    }
    float lo = isinf(p[0]) ? -FLT_MAX : p[0], hi = isinf(p[1]) ? FLT_MAX : p[1];
    struct {
        dnnl_alg_kind_t alg;
        float a, b;
    } e[2] = {{dnnl_alg_kind_undef, 0, 0}, {dnnl_alg_kind_undef, 0, 0}};
    switch (g->epi.act) {
    case EM_ACT_RELU: e[0].alg = dnnl_eltwise_relu; break;
    case EM_ACT_LEAKYRELU: e[0].alg = dnnl_eltwise_relu, e[0].a = p[0]; break;
    case EM_ACT_CLIP: e[0].alg = dnnl_eltwise_clip_v2, e[0].a = lo, e[0].b = hi; break;
    case EM_ACT_HARDSIGMOID:
        e[0].alg = dnnl_eltwise_linear, e[0].a = p[0], e[0].b = p[1];
        e[1].alg = dnnl_eltwise_clip_v2, e[1].a = 0.0f, e[1].b = 1.0f;
        break;
    case EM_ACT_HARDSWISH: e[0].alg = dnnl_eltwise_hardswish; break;
    case EM_ACT_SIGMOID: e[0].alg = dnnl_eltwise_logistic; break;
    case EM_ACT_TANH: e[0].alg = dnnl_eltwise_tanh; break;
    case EM_ACT_SILU: e[0].alg = dnnl_eltwise_swish, e[0].a = 1.0f; break;
    case EM_ACT_GELU: e[0].alg = dnnl_eltwise_gelu_erf; break;
    case EM_ACT_GELU_TANH: e[0].alg = dnnl_eltwise_gelu_tanh; break;
    case EM_ACT_NONE: break;
    }
    for (int i = 0; i < 2 && r == dnnl_success && e[i].alg != dnnl_alg_kind_undef; i++) {
        r = dnnl_post_ops_append_eltwise(po, 1.0f, e[i].alg, e[i].a, e[i].b);
    }
    if (r == dnnl_success) {
        r = dnnl_primitive_attr_set_post_ops(attr, po);
    }
    dnnl_post_ops_destroy(po);
    return r;
}

/* Winograd (oneDNN's F(4x4,3x3) / F(2x2,3x3) AVX-512 kernels, f32): for 3x3 stride-1
 * undilated ungrouped convs with constant weights on nChw16c. Measured here at batch 1 (one
 * thread): 1.7-2.5x faster than the direct kernel on every such conv of resnet18/50,
 * densenet121 and squeezenet1_1 (resnet18's 3x3 convs 2.0 ms -> 0.9-1.2 ms); oneDNN's own
 * `auto` choice keeps direct at batch 1. Its outputs agree with the direct ones to ~1e-6
 * relative on those nets. Creation falls back to direct where oneDNN declines.
 * Load cost: oneDNN's Winograd weights reorder is slow, ~20 ns a weight, while the gain per
 * run grows with the output plane: on 7x7 outputs (resnet's layer4, 2.4 M weights each) it
 * saved 0.6 ms a run for 53 ms of load per conv, so outputs under 14x14 stay direct (resnet18
 * load 290 -> ~130 ms for ~1.8 ms of run time). */
static bool winograd_fits(const conv_geom *g, bool const_w)
{
    return const_w && g->block == 16 && !g->plain_x && g->group == 1 && g->kh == 3 &&
           g->kw == 3 && g->stride[0] == 1 && g->stride[1] == 1 && g->dil[0] == 1 &&
           g->dil[1] == 1 && g->oh * g->ow >= 14 * 14;
}

/* The primitive descriptor of slice geometry g with algorithm alg (Z as binary add or, when
 * oneDNN has no binary post-op for it, as a sum post-op: s->z_sum is then set). */
static dnnl_status_t make_pd(const conv_geom *g, dnnl_alg_kind_t alg, onednn_conv *s,
                             conv_slice *sl, const dnnl_memory_desc_t *wmd,
                             dnnl_primitive_desc_t *pd)
{
    dnnl_convolution_desc_t cd;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_dims_t strides = {g->stride[0], g->stride[1]};
    dnnl_dims_t dil = {g->dil[0] - 1, g->dil[1] - 1}; /* oneDNN counts dilation from 0 */
    dnnl_dims_t pl = {g->pad_b[0], g->pad_b[1]}, pr = {g->pad_e[0], g->pad_e[1]};
    dnnl_status_t r;
    if ((r = dnnl_dilated_convolution_forward_desc_init(
             &cd, dnnl_forward_inference, alg, &sl->src_md, wmd,
             g->has_bias ? &sl->bias_md : NULL, &sl->dst_md, strides, dil, pl, pr)) ||
        (r = dnnl_primitive_attr_create(&attr)) ||
        (r = dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user)) ||
        (r = post_ops(g, s->z_sum, &sl->dst_md, attr))) {
        dnnl_primitive_attr_destroy(attr);
        return r;
    }
    r = dnnl_primitive_desc_create(pd, &cd, attr, s->engine, NULL);
    if (r == dnnl_unimplemented && g->has_z && !s->z_sum) {
        if ((r = post_ops(g, true, &sl->dst_md, attr)) == dnnl_success) {
            r = dnnl_primitive_desc_create(pd, &cd, attr, s->engine, NULL);
            s->z_sum = r == dnnl_success; /* Z goes through Y and a sum post-op */
        }
    }
    dnnl_primitive_attr_destroy(attr);
    return r;
}

/* oneDNN chose its reference implementation for pd. */
static bool onednn_ref_impl(const_dnnl_primitive_desc_t pd)
{
    const char *impl = NULL;
    return dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, (void *)&impl) ==
               dnnl_success &&
           impl != NULL && strncmp(impl, "ref", 3) == 0;
}

/* X plain onto a blocked Y, without Z, where oneDNN gave *pd its reference loops: *pd
 * becomes the primitive onto a plain destination when oneDNN has a better one for it, and
 * sl->reorder the reorder into Y's blocks (see conv_slice). */
static dnnl_status_t plain_destination(const conv_geom *g, onednn_conv *s, conv_slice *sl,
                                       const dnnl_memory_desc_t *wmd, dnnl_primitive_desc_t *pd)
{
    dnnl_primitive_desc_t plain = NULL, rpd = NULL;
    dnnl_dims_t dst_d = {g->n, g->m, g->oh, g->ow};
    if (!g->plain_x || g->has_z || !onednn_ref_impl(*pd)) {
        return dnnl_success;
    }
    sl->blk_md = sl->dst_md;
    dnnl_status_t r = dnnl_memory_desc_init_by_tag(&sl->dst_md, 4, dst_d, dnnl_f32, dnnl_nchw);
    if (r == dnnl_success) {
        r = make_pd(g, dnnl_convolution_direct, s, sl, wmd, &plain);
    }
    if (r != dnnl_success || onednn_ref_impl(plain)) { /* no better: the reference loops */
        dnnl_primitive_desc_destroy(plain);
        sl->dst_md = sl->blk_md;
        return dnnl_success;
    }
    if ((r = dnnl_reorder_primitive_desc_create(&rpd, &sl->dst_md, s->engine, &sl->blk_md,
                                                s->engine, NULL)) == dnnl_success &&
        (r = dnnl_primitive_create(&sl->reorder, rpd)) == dnnl_success) {
        dnnl_primitive_desc_destroy(*pd);
        *pd = plain;
        plain = NULL;
    }
    dnnl_primitive_desc_destroy(rpd);
    dnnl_primitive_desc_destroy(plain);
    return r;
}

/* Creates slice sl's primitive for output channels [m0, m1) (and packs constant weights). */
static ember_status *build_slice(const em_kinfo *ki, const conv_geom *full, int64_t m0,
                                 int64_t m1, onednn_conv *s, conv_slice *sl)
{
    ember_status *st = NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_memory_desc_t user_wmd, any_wmd;
    conv_geom g = *full;
    int64_t mg = full->m / full->group, cg = full->c / full->group;
    if (full->group > 1) {
        g.group = (m1 - m0) / mg;
        g.c = g.group * cg;
    }
    g.m = m1 - m0;
    sl->src_off = (size_t)(full->group > 1 ? m0 / mg * cg * g.h * g.w : 0);
    sl->dst_off = (size_t)(m0 * g.oh * g.ow);
    sl->wei_off = (size_t)(m0 * cg * g.kh * g.kw);
    sl->bias_off = (size_t)m0;
    dnnl_format_tag_t tag =
        g.block == 16 ? dnnl_nChw16c : (g.block == 8 ? dnnl_nChw8c : dnnl_nchw);
    dnnl_format_tag_t src_tag = g.plain_x ? dnnl_nchw : tag;
    dnnl_dims_t src_d = {g.n, g.c, g.h, g.w}, dst_d = {g.n, g.m, g.oh, g.ow};
    dnnl_dims_t bias_d = {g.m}, wd;
    int wr = weight_dims(&g, wd);
    bool const_w = ki->in[1].data != NULL;
    dnnl_status_t r;
    if ((r = dnnl_memory_desc_init_by_tag(&sl->src_md, 4, src_d, dnnl_f32, src_tag)) ||
        (r = dnnl_memory_desc_init_by_tag(&sl->dst_md, 4, dst_d, dnnl_f32, tag)) ||
        (r = dnnl_memory_desc_init_by_tag(&sl->bias_md, 1, bias_d, dnnl_f32, dnnl_x)) ||
        (r = dnnl_memory_desc_init_by_tag(&user_wmd, wr, wd, dnnl_f32,
                                          wr == 4 ? dnnl_oihw : dnnl_goihw)) ||
        (r = dnnl_memory_desc_init_by_tag(&any_wmd, wr, wd, dnnl_f32, dnnl_format_tag_any))) {
        return dnnl_fail(ki, "convolution setup", r);
    }
    const dnnl_memory_desc_t *wmd = const_w ? &any_wmd : &user_wmd;
    r = dnnl_unimplemented;
    if (winograd_fits(&g, const_w)) {
        r = make_pd(&g, dnnl_convolution_winograd, s, sl, wmd, &pd);
    }
    if (r != dnnl_success) {
        r = make_pd(&g, dnnl_convolution_direct, s, sl, wmd, &pd);
    }
    if (r == dnnl_success) {
        r = plain_destination(&g, s, sl, wmd, &pd);
    }
    if (r != dnnl_success || (r = dnnl_primitive_create(&sl->prim, pd)) != dnnl_success) {
        st = dnnl_fail(ki, "convolution setup", r);
        goto done;
    }
    sl->wei_md = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    sl->scratch_md = *dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    sl->scratch_bytes = dnnl_memory_desc_get_size(&sl->scratch_md);
    sl->dst_bytes = dnnl_memory_desc_get_size(sl->reorder != NULL ? &sl->blk_md : &sl->dst_md);
    if (const_w) {
        st = pack_weights(ki, s->engine, full, g.m, sl, &user_wmd);
    }
done:
    dnnl_primitive_desc_destroy(pd);
    return st;
}

/* The memory descriptors of slice sl's bind slots, in the order of N_BINDS. */
static void bind_mds(const conv_slice *sl, const dnnl_memory_desc_t *md[N_BINDS])
{
    md[0] = &sl->src_md, md[1] = &sl->wei_md, md[2] = &sl->dst_md, md[3] = &sl->bias_md;
    md[4] = &sl->dst_md, md[5] = &sl->scratch_md;
}

/* Creates slice k's cached stream and buffer-less memory objects (prepare). */
static ember_status *make_cache(const em_kinfo *ki, onednn_conv *s, int k)
{
    conv_slice *sl = &s->sl[k];
    const dnnl_memory_desc_t *md[N_BINDS];
    bind_mds(sl, md);
    dnnl_status_t r = dnnl_stream_create(&sl->stream, s->engine, dnnl_stream_default_flags);
    for (int i = 0; i < N_BINDS && r == dnnl_success; i++) {
        if (dnnl_memory_desc_get_size(md[i]) > 0) { /* no scratchpad: an empty descriptor */
            r = dnnl_memory_create(&sl->mem[i], md[i], s->engine, DNNL_MEMORY_NONE);
        }
    }
    if (r == dnnl_success && sl->reorder != NULL) {
        r = dnnl_memory_create(&sl->blk_mem, &sl->blk_md, s->engine, DNNL_MEMORY_NONE);
    }
    return r == dnnl_success ? NULL : dnnl_fail(ki, "stream and memory objects", r);
}

static ember_status *build(const em_kinfo *ki, const conv_geom *g, onednn_conv *s)
{
    int64_t m0[MAX_SLICES + 1];
    dnnl_status_t r = dnnl_engine_create(&s->engine, dnnl_cpu, 0);
    if (r != dnnl_success) {
        return dnnl_fail(ki, "engine", r);
    }
    s->n_slices = plan_slices(g, ki->n_threads, m0);
    size_t off = 0;
    for (int k = 0; k < s->n_slices; k++) {
        bool sum_before = s->z_sum;
        ember_status *st = build_slice(ki, g, m0[k], m0[k + 1], s, &s->sl[k]);
        if (st != NULL) {
            return st;
        }
        if (s->z_sum != sum_before && k > 0) {
            return decline(ki, "residual post-op differs between slices");
        }
        if ((st = make_cache(ki, s, k)) != NULL) {
            return st;
        }
        s->sl[k].scratch_off = off;
        off += (s->sl[k].scratch_bytes + EM_ALIGN - 1) / EM_ALIGN * EM_ALIGN;
        if (s->sl[k].reorder != NULL) {
            s->sl[k].plain_off = off;
            off += (dnnl_memory_desc_get_size(&s->sl[k].dst_md) + EM_ALIGN - 1) / EM_ALIGN *
                   EM_ALIGN;
        }
    }
    s->scratch_bytes = off;
    return NULL;
}

/* Takes Sigmoid, Tanh, SiLU and Gelu out of the post-ops when an x86 unit can run them (see
 * onednn_conv); not on blocked outputs with padded channels, whose padding would leave 0. */
static void own_activation(const em_kinfo *ki, conv_geom *g, onednn_conv *s)
{
    em_conv_act a = g->epi.act;
    if ((a != EM_ACT_SIGMOID && a != EM_ACT_TANH && a != EM_ACT_SILU && a != EM_ACT_GELU &&
         a != EM_ACT_GELU_TANH) ||
        (g->block > 0 && g->m % g->block != 0)) {
        return;
    }
#ifdef EMBER_HAVE_X86
    if ((ki->isa & EM_ISA_AVX512_SET) == EM_ISA_AVX512_SET) {
        s->act_fn = em_conv_act_f32__avx512;
    } else if ((ki->isa & EM_ISA_AVX2_SET) == EM_ISA_AVX2_SET) {
        s->act_fn = em_conv_act_f32__avx2;
    }
#else
    (void)ki;
#endif
    if (s->act_fn != NULL) {
        s->own_act = a;
        g->epi.act = EM_ACT_NONE;
    }
}

void em_conv_f32_release__onednn(const ember_allocator *al, void *state)
{
    onednn_conv *s = state;
    if (s == NULL) {
        return;
    }
    for (int k = 0; k < MAX_SLICES; k++) {
        for (int i = 0; i < N_BINDS; i++) {
            dnnl_memory_destroy(s->sl[k].mem[i]);
        }
        dnnl_memory_destroy(s->sl[k].blk_mem);
        dnnl_stream_destroy(s->sl[k].stream);
        dnnl_primitive_destroy(s->sl[k].reorder);
        dnnl_primitive_destroy(s->sl[k].prim);
        em_pack_release(s->sl[k].pack);
    }
    dnnl_engine_destroy(s->engine);
    em_free(al, s);
}

ember_status *em_conv_f32_prepare__onednn(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    conv_geom g = {0};
    ember_status *st = parse_geom(ki, &g);
    if (st != NULL) {
        return st;
    }
    onednn_conv *s = em_calloc(ki->al, 1, sizeof *s);
    if (s == NULL) {
        return em_status_oom();
    }
    s->has_bias = g.has_bias;
    s->has_z = g.has_z;
    own_activation(ki, &g, s);
    s->out_elems = em_tensor_numel(&ki->out[0]);
    /* oneDNN sizes its kernels for omp_get_max_threads() at creation and runs the weights
     * reorder on an OpenMP team: both held to this thread, as in run (see the header). */
    int omp_prev = omp_get_max_threads();
    omp_set_num_threads(1);
    st = build(ki, &g, s);
    omp_set_num_threads(omp_prev);
    if (st != NULL) {
        em_conv_f32_release__onednn(ki->al, s);
        return st;
    }
    bool packed = ki->in[1].data != NULL;
    for (int k = 0; k < s->n_slices; k++) {
        packed = packed && s->sl[k].packed_w != NULL;
    }
    if (packed) { /* run reads the slices' packs, never W */
        em_kinfo_mark_packed(ki, 1);
    }
    *state = s;
    *scratch_bytes = s->scratch_bytes;
    return NULL;
}

typedef struct conv_run {
    const onednn_conv *s;
    const em_tensor *in;
    em_tensor *out;
    char *scratch;
    bool ok[MAX_SLICES];
} conv_run;

/* Executes slice k on this thread, with OpenMP held to this thread (see the header). */
static bool run_slice(const conv_run *j, int k)
{
    const onednn_conv *s = j->s;
    const conv_slice *sl = &s->sl[k];
    float *y = (float *)j->out[0].data + sl->dst_off;
    if (s->has_z && s->z_sum) {
        memcpy(y, (const float *)j->in[3].data + sl->dst_off, sl->dst_bytes);
    }
    /* The source, weights and Z handles are only read by a forward convolution. */
    static const int arg[N_BINDS] = {DNNL_ARG_SRC,  DNNL_ARG_WEIGHTS,
                                     DNNL_ARG_DST,  DNNL_ARG_BIAS,
                                     DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
                                     DNNL_ARG_SCRATCHPAD};
    void *data[N_BINDS] = {
        (float *)j->in[0].data + sl->src_off,
        sl->packed_w != NULL ? (void *)sl->packed_w : (float *)j->in[1].data + sl->wei_off,
        sl->reorder != NULL ? (void *)(j->scratch + sl->plain_off) : (void *)y,
        s->has_bias ? (float *)j->in[2].data + sl->bias_off : NULL,
        s->has_z && !s->z_sum ? (float *)j->in[3].data + sl->dst_off : NULL,
        sl->scratch_bytes > 0 ? j->scratch + sl->scratch_off : NULL};
    const dnnl_memory_desc_t *md[N_BINDS];
    bind_mds(sl, md);
    /* The cache is the one mutable part of the shared state: `busy` hands it to one run. */
    conv_slice *cache = (conv_slice *)sl;
    bool cached = cache->stream != NULL && !atomic_exchange(&cache->busy, true);
    dnnl_stream_t stream = cached ? sl->stream : NULL;
    dnnl_memory_t own[N_BINDS] = {NULL, NULL, NULL, NULL, NULL, NULL};
    dnnl_exec_arg_t args[N_BINDS];
    int n = 0;
    int omp_prev = omp_get_max_threads();
    omp_set_num_threads(1);
    bool ok = cached || dnnl_stream_create(&stream, s->engine, dnnl_stream_default_flags) ==
                            dnnl_success;
    for (int i = 0; i < N_BINDS && ok; i++) {
        if (data[i] == NULL) {
            continue;
        }
        dnnl_memory_t m = sl->mem[i];
        ok = cached ? dnnl_memory_set_data_handle(m, data[i]) == dnnl_success
                    : dnnl_memory_create(&own[i], md[i], s->engine, data[i]) == dnnl_success;
        args[n++] = (dnnl_exec_arg_t){arg[i], cached ? m : own[i]};
    }
    ok = ok && dnnl_primitive_execute(sl->prim, stream, n, args) == dnnl_success;
    dnnl_memory_t blk = cached ? sl->blk_mem : NULL;
    if (ok && sl->reorder != NULL) { /* the plain destination into Y's blocks */
        ok = cached ? dnnl_memory_set_data_handle(blk, y) == dnnl_success
                    : dnnl_memory_create(&blk, &sl->blk_md, s->engine, y) == dnnl_success;
        dnnl_exec_arg_t rargs[2] = {{DNNL_ARG_FROM, cached ? sl->mem[2] : own[2]},
                                    {DNNL_ARG_TO, blk}};
        ok = ok && dnnl_primitive_execute(sl->reorder, stream, 2, rargs) == dnnl_success;
    }
    ok = ok && dnnl_stream_wait(stream) == dnnl_success;
    if (!cached) {
        dnnl_memory_destroy(blk);
    }
    if (ok && s->act_fn != NULL) {
        s->act_fn(s->own_act, y, sl->dst_bytes / sizeof(float));
    }
    for (int i = 0; i < N_BINDS; i++) {
        dnnl_memory_destroy(own[i]);
    }
    if (cached) {
        atomic_store(&cache->busy, false);
    } else {
        dnnl_stream_destroy(stream);
    }
    omp_set_num_threads(omp_prev);
    return ok;
}

static void slice_task(void *arg, int64_t begin, int64_t end)
{
    conv_run *j = arg;
    for (int64_t k = begin; k < end; k++) {
        j->ok[k] = run_slice(j, (int)k);
    }
}

void em_conv_f32__onednn(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const onednn_conv *s = state;
    conv_run j = {s, in, out, ctx != NULL ? ctx->scratch : NULL, {false}};
    if (s->n_slices == 1) {
        j.ok[0] = run_slice(&j, 0);
    } else {
        em_parallel_for(ctx != NULL ? ctx->pool : NULL, s->n_slices, 1, slice_task, &j);
    }
    for (int k = 0; k < s->n_slices; k++) {
        if (!j.ok[k]) {
            float *y = out[0].data;
            for (int64_t i = 0; i < s->out_elems; i++) {
                y[i] = NAN;
            }
            return;
        }
    }
}

/* layout_onednn.c */
ember_status *em_reorder_f32_prepare__onednn(const em_kinfo *ki, void **state,
                                             size_t *scratch_bytes);
void em_reorder_f32_release__onednn(const ember_allocator *al, void *state);
void em_reorder_f32__onednn(const void *state, const em_tensor *in, em_tensor *out,
                            const em_kctx *ctx);

/* clang-format off */
static const em_kernel onednn_kernels[] = {
    {"em_conv_f32__onednn", EM_OP_CONV, EMBER_DTYPE_F32, EM_DEV_CPU, EM_ISA_SSE42, 25,
     em_conv_f32_prepare__onednn, em_conv_f32_release__onednn, em_conv_f32__onednn},
    {"em_fusedconv_f32__onednn", EM_OP_FUSEDCONV, EMBER_DTYPE_F32, EM_DEV_CPU, EM_ISA_SSE42, 25,
     em_conv_f32_prepare__onednn, em_conv_f32_release__onednn, em_conv_f32__onednn},
    {"em_toblocked_f32__onednn", EM_OP_REORDERTOBLOCKED, EMBER_DTYPE_F32, EM_DEV_CPU, EM_ISA_SSE42,
     25, em_reorder_f32_prepare__onednn, em_reorder_f32_release__onednn, em_reorder_f32__onednn},
    {"em_fromblocked_f32__onednn", EM_OP_REORDERFROMBLOCKED, EMBER_DTYPE_F32, EM_DEV_CPU,
     EM_ISA_SSE42, 25, em_reorder_f32_prepare__onednn, em_reorder_f32_release__onednn,
     em_reorder_f32__onednn},
};
/* clang-format on */

/* oneDNN keeps every primitive it creates in a process-wide cache (1024 entries by default),
 * holding each one's generated code after ember has destroyed it: under input-shape churn that
 * was most of the growth (include/ember.h, section 7). ember keeps its own primitives in its
 * plans, so the cache only saves the code generation of a plan built again with the same
 * shapes (another session, a plan evicted and rebuilt): a small cache keeps that. The
 * capacity is left as it is when the environment (ONEDNN_PRIMITIVE_CACHE_CAPACITY, or its
 * older name DNNL_...) or the program has set it. */
#define ONEDNN_DEFAULT_CACHE 1024
static void onednn_init(void)
{
    int cap = 0;
    if (getenv("ONEDNN_PRIMITIVE_CACHE_CAPACITY") == NULL &&
        getenv("DNNL_PRIMITIVE_CACHE_CAPACITY") == NULL &&
        dnnl_get_primitive_cache_capacity(&cap) == dnnl_success && cap == ONEDNN_DEFAULT_CACHE) {
        (void)dnnl_set_primitive_cache_capacity(EMBER_ONEDNN_PRIMITIVE_CACHE);
    }
}

const em_kernel_table em_onednn_table = {"onednn", onednn_kernels,
                                         sizeof onednn_kernels / sizeof onednn_kernels[0],
                                         onednn_init};
