/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ReorderToBlocked / ReorderFromBlocked (ops_nn.def) f32 for 2-D images, [N, C, H, W] <->
 * [N, C/b, H, W, b] with b = 8 or 16 and C a multiple of b, through oneDNN's reorder
 * primitive (nchw <-> nChw16c / nChw8c, JIT-generated). The reference loops cost ~0.9 ns an
 * element (squeezenet1_1's first reorder, 64 x 111 x 111, took 0.69 ms); partial blocks stay
 * with the reference, which zero-fills the lanes past C. Registered in conv_onednn.c's table.
 * As in conv_onednn.c: OpenMP is held to the calling thread around every oneDNN call, the
 * stream and memory objects are per run, and a failed run fills the output with NaN.
 */
#include "plan/kernel.h"

#include "core/alloc.h"
#include "core/status.h"

#include <math.h>
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>

ember_status *em_reorder_f32_prepare__onednn(const em_kinfo *ki, void **state,
                                             size_t *scratch_bytes);
void em_reorder_f32_release__onednn(const ember_allocator *al, void *state);
void em_reorder_f32__onednn(const void *state, const em_tensor *in, em_tensor *out,
                            const em_kctx *ctx);

typedef struct onednn_reorder {
    dnnl_engine_t engine;
    dnnl_primitive_t prim;
    dnnl_memory_desc_t src_md, dst_md;
    int64_t out_elems;
} onednn_reorder;

static ember_status *unsupported(const em_kinfo *ki, const char *why)
{
    return em_status_new(EMBER_ERR_UNSUPPORTED, "%s '%s': oneDNN: %s", em_op_name(ki->node->op),
                         ki->node->name, why);
}

void em_reorder_f32_release__onednn(const ember_allocator *al, void *state)
{
    onednn_reorder *s = state;
    if (s == NULL) {
        return;
    }
    dnnl_primitive_destroy(s->prim);
    dnnl_engine_destroy(s->engine);
    em_free(al, s);
}

static dnnl_status_t build(onednn_reorder *s, const dnnl_dims_t d, bool to_blocked, int64_t b)
{
    dnnl_primitive_desc_t pd = NULL;
    dnnl_memory_desc_t plain, blk;
    dnnl_status_t r;
    if ((r = dnnl_engine_create(&s->engine, dnnl_cpu, 0)) ||
        (r = dnnl_memory_desc_init_by_tag(&plain, 4, d, dnnl_f32, dnnl_nchw)) ||
        (r = dnnl_memory_desc_init_by_tag(&blk, 4, d, dnnl_f32,
                                          b == 16 ? dnnl_nChw16c : dnnl_nChw8c))) {
        return r;
    }
    s->src_md = to_blocked ? plain : blk;
    s->dst_md = to_blocked ? blk : plain;
    if ((r = dnnl_reorder_primitive_desc_create(&pd, &s->src_md, s->engine, &s->dst_md,
                                                s->engine, NULL)) == dnnl_success) {
        r = dnnl_primitive_create(&s->prim, pd);
    }
    dnnl_primitive_desc_destroy(pd);
    return r;
}

ember_status *em_reorder_f32_prepare__onednn(const em_kinfo *ki, void **state,
                                             size_t *scratch_bytes)
{
    *state = NULL;
    *scratch_bytes = 0;
    bool to_blocked = ki->node->op == EM_OP_REORDERTOBLOCKED;
    const em_tensor *plain = to_blocked ? &ki->in[0] : &ki->out[0];
    const em_tensor *blk = to_blocked ? &ki->out[0] : &ki->in[0];
    if (ki->n_in != 1 || ki->n_out != 1 || plain->dtype != EMBER_DTYPE_F32 ||
        blk->dtype != EMBER_DTYPE_F32 || plain->rank != 4 || blk->rank != 5) {
        return unsupported(ki, "only f32 [N, C, H, W]");
    }
    int64_t b = blk->dims[4], c = plain->dims[1];
    if ((b != 8 && b != 16) || c % b != 0 || blk->dims[0] != plain->dims[0] ||
        blk->dims[1] * b != c || blk->dims[2] != plain->dims[2] ||
        blk->dims[3] != plain->dims[3] || em_tensor_numel(plain) == 0) {
        return unsupported(ki, "only whole blocks of 8 or 16 channels");
    }
    onednn_reorder *s = em_calloc(ki->al, 1, sizeof *s);
    if (s == NULL) {
        return em_status_oom();
    }
    s->out_elems = em_tensor_numel(&ki->out[0]);
    dnnl_dims_t d = {plain->dims[0], c, plain->dims[2], plain->dims[3]};
    int omp_prev = omp_get_max_threads();
    omp_set_num_threads(1);
    dnnl_status_t r = build(s, d, to_blocked, b);
    omp_set_num_threads(omp_prev);
    if (r != dnnl_success) {
        em_reorder_f32_release__onednn(ki->al, s);
        return em_status_new(EMBER_ERR_UNSUPPORTED, "%s '%s': oneDNN reorder: %s",
                             em_op_name(ki->node->op), ki->node->name, dnnl_status2str(r));
    }
    *state = s;
    return NULL;
}

void em_reorder_f32__onednn(const void *state, const em_tensor *in, em_tensor *out,
                            const em_kctx *ctx)
{
    (void)ctx;
    const onednn_reorder *s = state;
    dnnl_stream_t stream = NULL;
    dnnl_memory_t from = NULL, to = NULL;
    int omp_prev = omp_get_max_threads();
    omp_set_num_threads(1);
    /* The source handle is only read by a reorder. */
    bool ok = dnnl_stream_create(&stream, s->engine, dnnl_stream_default_flags) == dnnl_success &&
              dnnl_memory_create(&from, &s->src_md, s->engine, in[0].data) == dnnl_success &&
              dnnl_memory_create(&to, &s->dst_md, s->engine, out[0].data) == dnnl_success;
    if (ok) {
        dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
        ok = dnnl_primitive_execute(s->prim, stream, 2, args) == dnnl_success &&
             dnnl_stream_wait(stream) == dnnl_success;
    }
    dnnl_memory_destroy(to);
    dnnl_memory_destroy(from);
    dnnl_stream_destroy(stream);
    omp_set_num_threads(omp_prev);
    if (!ok) {
        float *y = out[0].data;
        for (int64_t i = 0; i < s->out_elems; i++) {
            y[i] = NAN;
        }
    }
}
