/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape functions of the internal ops the graph passes make (ops_nn.def): FusedConv (Conv's
 * shapes; channel-blocked when its `blocked` attribute is > 0), FusedGemm (Gemm's shapes, an
 * activation fusedgemm.h knows) and the reorders between the plain [N, C, spatial...] layout
 * and the blocked [N, ceil(C/b), spatial..., b] one.
 */
#include "shape/shape.h"

#include "ir/fusedgemm.h"

#include "core/status.h"

#define KNOWN(d) ((d).v >= 0)

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* The blocked form of a plain shape p: [N, ceil(C/b), spatial..., b]. */
static void to_blocked(const em_shape *p, int64_t b, em_shape *out)
{
    out->dtype = p->dtype;
    out->rank = p->rank < 0 ? -1 : p->rank + 1;
    if (p->rank < 0) {
        return;
    }
    out->dims[0] = p->dims[0];
    out->dims[1] = KNOWN(p->dims[1]) ? em_dim_known(ceil_div(p->dims[1].v, b)) : em_dim_unknown();
    for (int d = 2; d < p->rank; d++) {
        out->dims[d] = p->dims[d];
    }
    out->dims[p->rank] = em_dim_known(b);
}

/* The plain form of a blocked shape s holding c channels. */
static void from_blocked(const em_shape *s, int64_t c, em_shape *out)
{
    out->dtype = s->dtype;
    out->rank = s->rank < 0 ? -1 : s->rank - 1;
    if (s->rank < 0) {
        return;
    }
    out->dims[0] = s->dims[0];
    out->dims[1] = em_dim_known(c);
    for (int d = 2; d < s->rank - 1; d++) {
        out->dims[d] = s->dims[d];
    }
}

static ember_status *check_blocked(const em_node *n, const em_shape *s, int idx, int64_t b,
                                   int64_t c)
{
    if (s->rank < 0) {
        return NULL;
    }
    if (s->rank < 4 || s->rank > EM_MAX_RANK || (KNOWN(s->dims[s->rank - 1]) &&
                                                 s->dims[s->rank - 1].v != b)) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): input %d must be channel-blocked [N, C/%lld, "
                             "spatial..., %lld]",
                             n->name, em_op_name(n->op), idx, (long long)b, (long long)b);
    }
    if (c >= 0 && KNOWN(s->dims[1]) && s->dims[1].v != ceil_div(c, b)) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): input %d has %lld channel blocks, expected %lld "
                             "for %lld channels",
                             n->name, em_op_name(n->op), idx, (long long)s->dims[1].v,
                             (long long)ceil_div(c, b), (long long)c);
    }
    return NULL;
}

ember_status *em_shape_toblocked(const em_node *n, const em_shape *in, em_shape *out)
{
    int64_t b = em_node_attr_int(n, "block", 16);
    if (b < 1) {
        return em_shape_bad(n, "'block' must be >= 1");
    }
    if (in[0].rank >= 0 && (in[0].rank < 3 || in[0].rank >= EM_MAX_RANK)) {
        return em_shape_bad(n, "input must be [N, C, spatial...]");
    }
    to_blocked(&in[0], b, out);
    return NULL;
}

ember_status *em_shape_fromblocked(const em_node *n, const em_shape *in, em_shape *out)
{
    int64_t c = em_node_attr_int(n, "channels", -1);
    if (c < 0) {
        return em_shape_bad(n, "'channels' must be given and >= 0");
    }
    int64_t b = in[0].rank > 0 && KNOWN(in[0].dims[in[0].rank - 1]) ? in[0].dims[in[0].rank - 1].v
                                                                  : 1;
    ember_status *st = check_blocked(n, &in[0], 0, b, c);
    if (st == NULL) {
        from_blocked(&in[0], c, out);
    }
    return st;
}

ember_status *em_shape_fusedgemm(const em_node *n, const em_shape *in, em_shape *out)
{
    em_gemm_epilogue e;
    if (!em_gemm_epilogue_parse(n, &e)) {
        return em_shape_bad(n, "'activation' or 'activation_params' is not one FusedGemm takes");
    }
    return em_shape_gemm(n, in, out);
}

ember_status *em_shape_fusedconv(const em_node *n, const em_shape *in, em_shape *out)
{
    int64_t b = em_node_attr_int(n, "blocked", 0);
    if (b <= 0) {
        return em_shape_conv(n, in, out);
    }
    const em_shape *w = &in[1];
    int64_t group = em_node_attr_int(n, "group", 1);
    if (w->rank >= 0 && w->rank != 4) {
        return em_shape_bad(n, "blocked FusedConv takes a 2-D convolution weight [M, C/g, kH, kW]");
    }
    int64_t c = w->rank == 4 && KNOWN(w->dims[1]) ? w->dims[1].v * group : -1;
    bool plain_x = em_node_attr_int(n, "plain_input", 0) != 0;
    ember_status *st = plain_x ? NULL : check_blocked(n, &in[0], 0, b, c);
    if (plain_x && in[0].rank >= 0 && in[0].rank != 4) {
        return em_shape_bad(n, "FusedConv with plain_input takes X [N, C, H, W]");
    }
    if (st != NULL || (!plain_x && in[0].rank >= 0 && in[0].rank != 5)) {
        return st != NULL ? st : em_shape_bad(n, "blocked FusedConv takes X [N, C/b, H, W, b]");
    }
    em_shape plain[2] = {in[0], in[1]};
    em_shape y = {0};
    y.rank = -1;
    if (!plain_x && in[0].rank == 5) {
        from_blocked(&in[0], c, &plain[0]);
        if (c < 0) {
            plain[0].dims[1] = em_dim_unknown();
        }
    }
    if ((st = em_shape_conv(n, plain, &y)) != NULL) {
        return st;
    }
    to_blocked(&y, b, out);
    if (n->n_in > 3 && in[3].dtype != EMBER_DTYPE_UNDEFINED) {
        int64_t m = w->rank == 4 && KNOWN(w->dims[0]) ? w->dims[0].v : -1;
        st = check_blocked(n, &in[3], 3, b, m);
    }
    return st;
}
