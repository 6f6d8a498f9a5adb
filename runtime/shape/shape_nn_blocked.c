/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape functions of BlockedPool, BlockedAffine, BlockedLayerNorm and BlockedSE (ops_nn.def,
 * blocked.h): X is [N, ceil(C/b), H, W, b] with C the `channels` attribute. BlockedPool's H and
 * W come from the plain pool's shape function; the others keep X's shape.
 */
#include "ir/blocked.h"
#include "ir/fusedconv.h"
#include "shape/shape.h"

#include "core/status.h"

#define KNOWN(d) ((d).v >= 0)

/* X (input 0) is f32 [N, ceil(C/b), H, W, b] (or of unknown rank); C from `channels`. */
static ember_status *check_x(const em_node *n, const em_shape *x, int64_t *c)
{
    *c = em_node_attr_int(n, "channels", -1);
    if (*c < 1) {
        return em_shape_bad(n, "'channels' must be given and >= 1");
    }
    if (x->dtype != EMBER_DTYPE_F32 && x->dtype != EMBER_DTYPE_UNDEFINED) {
        return em_shape_bad(n, "input 0 must be f32");
    }
    if (x->rank < 0) {
        return NULL;
    }
    int64_t b = x->rank == 5 && KNOWN(x->dims[4]) ? x->dims[4].v : -1;
    if (x->rank != 5 || (KNOWN(x->dims[4]) && b < 1) ||
        (b > 0 && KNOWN(x->dims[1]) && x->dims[1].v != (*c + b - 1) / b)) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): input 0 must be [N, ceil(%lld/b), H, W, b]", n->name,
                             em_op_name(n->op), (long long)*c);
    }
    return NULL;
}

static void copy_shape(const em_shape *in, em_shape *out)
{
    *out = *in;
    out->value = NULL;
}

ember_status *em_shape_blockedpool(const em_node *n, const em_shape *in, em_shape *out)
{
    int64_t c;
    ember_status *st = check_x(n, &in[0], &c);
    em_op op = em_blocked_pool_op(n);
    if (st == NULL && op == EM_OP_COUNT) {
        st = em_shape_bad(n, "'pool' must be MaxPool, AveragePool, GlobalMaxPool or "
                             "GlobalAveragePool");
    }
    if (st != NULL || in[0].rank < 0) {
        return st;
    }
    em_shape plain = in[0], y = {0};
    plain.rank = 4;
    plain.dims[1] = em_dim_known(c);
    y.rank = -1;
    em_node as_pool = *n; /* the plain op's shape function reads the same attributes */
    as_pool.op = op;
    as_pool.n_out = 1;
    if ((st = em_shape_pool(&as_pool, &plain, &y)) != NULL) {
        return st;
    }
    copy_shape(&in[0], out);
    out->dims[2] = y.dims[2];
    out->dims[3] = y.dims[3];
    return NULL;
}

ember_status *em_shape_blockedaffine(const em_node *n, const em_shape *in, em_shape *out)
{
    int64_t c;
    em_conv_epilogue e;
    ember_status *st = check_x(n, &in[0], &c);
    if (st == NULL && !em_conv_epilogue_parse(n, &e)) {
        st = em_shape_bad(n, "'activation' or 'activation_params' is not one FusedConv takes");
    }
    if (st != NULL) {
        return st;
    }
    const em_shape *x = &in[0];
    int64_t nb = x->rank == 5 && KNOWN(x->dims[0]) ? x->dims[0].v : -1;
    int64_t b = x->rank == 5 && KNOWN(x->dims[4]) ? x->dims[4].v : -1;
    for (int i = 1; i < n->n_in && i < 3; i++) {
        const em_shape *p = &in[i];
        int64_t d[EM_MAX_RANK];
        em_chan_operand op;
        if (p->dtype == EMBER_DTYPE_UNDEFINED || p->rank < 0) {
            continue;
        }
        for (int k = 0; k < p->rank; k++) {
            d[k] = p->dims[k].v;
        }
        if (p->dtype != EMBER_DTYPE_F32 || !em_chan_operand_parse(p->rank, d, nb, c, b, &op)) {
            return em_status_new(EMBER_ERR_INVALID_MODEL,
                                 "node '%s' (%s): input %d must be f32 per-channel: [C], "
                                 "[C, 1, 1], [N or 1, C, 1, 1] or [N or 1, C/b, 1, 1, b]",
                                 n->name, em_op_name(n->op), i);
        }
    }
    copy_shape(x, out);
    return NULL;
}

ember_status *em_shape_blockedlayernorm(const em_node *n, const em_shape *in, em_shape *out)
{
    int64_t c;
    ember_status *st = check_x(n, &in[0], &c);
    if (st != NULL) {
        return st;
    }
    for (int i = 1; i < n->n_in && i < 3; i++) {
        const em_shape *p = &in[i];
        if (i == 2 && p->dtype == EMBER_DTYPE_UNDEFINED) {
            continue;
        }
        if ((p->dtype != EMBER_DTYPE_F32 && p->dtype != EMBER_DTYPE_UNDEFINED) ||
            (p->rank >= 0 && (p->rank != 1 || (KNOWN(p->dims[0]) && p->dims[0].v != c)))) {
            return em_status_new(EMBER_ERR_INVALID_MODEL,
                                 "node '%s' (%s): input %d must be f32 [%lld]", n->name,
                                 em_op_name(n->op), i, (long long)c);
        }
    }
    copy_shape(&in[0], out);
    return NULL;
}

/* Input i of BlockedSE is absent or f32 of the dims d[0..rank) (-1: any R; the known R in *r). */
static bool se_operand(const em_shape *p, int rank, const int64_t *d, int64_t *r)
{
    if (p->dtype == EMBER_DTYPE_UNDEFINED || p->rank < 0) {
        return true;
    }
    if (p->dtype != EMBER_DTYPE_F32 || p->rank != rank) {
        return false;
    }
    for (int k = 0; k < rank; k++) {
        int64_t want = d[k] < 0 ? *r : d[k];
        if (KNOWN(p->dims[k]) && want >= 0 && p->dims[k].v != want) {
            return false;
        }
        if (d[k] < 0 && KNOWN(p->dims[k])) {
            *r = p->dims[k].v;
        }
    }
    return true;
}

ember_status *em_shape_blockedse(const em_node *n, const em_shape *in, em_shape *out)
{
    int64_t c, r = -1;
    em_conv_epilogue e;
    ember_status *st = check_x(n, &in[0], &c);
    if (st == NULL && (!em_conv_epilogue_parse(n, &e) ||
                       !em_conv_epilogue_parse_attrs(n, "gate", "gate_params", &e))) {
        st = em_shape_bad(n, "'activation' and 'gate' (and their params) must be ones FusedConv "
                             "takes");
    }
    if (st != NULL) {
        return st;
    }
    const int64_t w1[4] = {-1, c, 1, 1}, w2[4] = {c, -1, 1, 1}, b1[1] = {-1}, b2[1] = {c};
    bool ok = in[1].dtype != EMBER_DTYPE_UNDEFINED && in[2].dtype != EMBER_DTYPE_UNDEFINED &&
              se_operand(&in[1], 4, w1, &r) && se_operand(&in[2], 4, w2, &r) &&
              (n->n_in < 4 || se_operand(&in[3], 1, b1, &r)) &&
              (n->n_in < 5 || se_operand(&in[4], 1, b2, &r));
    if (!ok) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): W1 must be f32 [R, %lld, 1, 1], W2 [%lld, R, 1, 1], "
                             "B1 [R], B2 [%lld]",
                             n->name, em_op_name(n->op), (long long)c, (long long)c, (long long)c);
    }
    copy_shape(&in[0], out);
    return NULL;
}
