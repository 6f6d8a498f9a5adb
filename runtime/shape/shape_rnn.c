/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape function of the rnn family (RNN-22, GRU-22, LSTM-22). X is [seq, batch, input]
 * (layout 0) or [batch, seq, input] (layout 1); W [dirs, G*hidden, input], R [dirs, G*hidden,
 * hidden] with G = 1 (RNN), 3 (GRU), 4 (LSTM) and dirs = 2 for "bidirectional", else 1.
 * Outputs, all of X's dtype:
 *   Y          layout 0: [seq, dirs, batch, hidden]   layout 1: [batch, seq, dirs, hidden]
 *   Y_h, Y_c   layout 0: [dirs, batch, hidden]        layout 1: [batch, dirs, hidden]
 * hidden is the hidden_size attribute, or R's last dim when the attribute is absent.
 */
#include "shape/shape.h"

#include "core/status.h"

#include <stdint.h>
#include <string.h>

#define KNOWN(d) ((d).v >= 0)

static int gates_of(em_op op)
{
    return op == EM_OP_LSTM ? 4 : op == EM_OP_GRU ? 3 : 1;
}

static ember_status *rank3(const em_node *n, const em_shape *s, const char *what)
{
    if (s->rank >= 0 && s->rank != 3) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "node '%s' (%s): %s has rank %d, expected 3",
                             n->name, em_op_name(n->op), what, s->rank);
    }
    return NULL;
}

/* Dim d of s, or unknown when s's rank is unknown. */
static em_dim dim_of(const em_shape *s, int d)
{
    return s->rank > d ? s->dims[d] : em_dim_unknown();
}

/* A known dim that must equal `want` (when both are known). */
static ember_status *agree(const em_node *n, em_dim got, int64_t want, const char *what)
{
    if (KNOWN(got) && want >= 0 && got.v != want) {
        return em_status_new(EMBER_ERR_INVALID_MODEL, "node '%s' (%s): %s is %lld, expected %lld",
                             n->name, em_op_name(n->op), what, (long long)got.v, (long long)want);
    }
    return NULL;
}

/* Reads direction, layout and hidden_size; checks the ranks and dims of X, W and R. */
static ember_status *parse(const em_node *n, const em_shape *in, int *dirs, int *layout,
                           em_dim *hidden)
{
    ember_status *st = NULL;
    const char *dir = em_node_attr_string(n, "direction", "forward");
    int g = gates_of(n->op);
    if (strcmp(dir, "forward") != 0 && strcmp(dir, "reverse") != 0 &&
        strcmp(dir, "bidirectional") != 0) {
        return em_shape_bad(n, "attribute 'direction' must be \"forward\", \"reverse\" or "
                               "\"bidirectional\"");
    }
    *dirs = strcmp(dir, "bidirectional") == 0 ? 2 : 1;
    int64_t lay = em_node_attr_int(n, "layout", 0);
    if (lay != 0 && lay != 1) {
        return em_shape_bad(n, "attribute 'layout' must be 0 or 1");
    }
    *layout = (int)lay;
    if ((st = rank3(n, &in[0], "input 0 (X)")) != NULL ||
        (st = rank3(n, &in[1], "input 1 (W)")) != NULL ||
        (st = rank3(n, &in[2], "input 2 (R)")) != NULL) {
        return st;
    }
    int64_t hs = em_node_attr_int(n, "hidden_size", -1);
    if (em_node_attr(n, "hidden_size") != NULL && hs < 1) {
        return em_shape_bad(n, "attribute 'hidden_size' must be >= 1");
    }
    *hidden = hs >= 1 ? em_dim_known(hs) : dim_of(&in[2], 2);
    int64_t h = KNOWN(*hidden) ? hidden->v : -1;
    if ((st = agree(n, dim_of(&in[1], 0), *dirs, "input 1 (W) dim 0")) != NULL ||
        (st = agree(n, dim_of(&in[2], 0), *dirs, "input 2 (R) dim 0")) != NULL ||
        (st = agree(n, dim_of(&in[1], 1), h >= 0 ? g * h : -1, "input 1 (W) dim 1")) != NULL ||
        (st = agree(n, dim_of(&in[2], 1), h >= 0 ? g * h : -1, "input 2 (R) dim 1")) != NULL ||
        (st = agree(n, dim_of(&in[2], 2), h, "input 2 (R) dim 2")) != NULL) {
        return st;
    }
    em_dim xin = dim_of(&in[0], 2);
    return agree(n, dim_of(&in[1], 2), KNOWN(xin) ? xin.v : -1, "input 1 (W) dim 2");
}

ember_status *em_shape_rnn(const em_node *n, const em_shape *in, em_shape *out)
{
    int dirs = 1, layout = 0;
    em_dim hidden;
    ember_status *st = parse(n, in, &dirs, &layout, &hidden);
    if (st != NULL) {
        return st;
    }
    em_dim seq = dim_of(&in[0], layout == 0 ? 0 : 1);
    em_dim batch = dim_of(&in[0], layout == 0 ? 1 : 0);
    em_dim nd = em_dim_known(dirs);
    for (int o = 0; o < n->n_out; o++) {
        em_shape *s = &out[o];
        s->dtype = in[0].dtype;
        if (o == 0) {
            s->rank = 4;
            s->dims[0] = layout == 0 ? seq : batch;
            s->dims[1] = layout == 0 ? nd : seq;
            s->dims[2] = layout == 0 ? batch : nd;
            s->dims[3] = hidden;
        } else {
            s->rank = 3;
            s->dims[0] = layout == 0 ? nd : batch;
            s->dims[1] = layout == 0 ? batch : nd;
            s->dims[2] = hidden;
        }
    }
    return NULL;
}
