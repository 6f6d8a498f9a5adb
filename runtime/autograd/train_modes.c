/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Train-mode semantics of the training graph (trainer.h), chosen by the trainer's options.
 *
 * BatchNormalization in train mode: the node gets training_mode = 1, so it normalizes by the
 * batch mean and the biased batch variance over N and the spatial axes (as PyTorch does), and
 * its gradient rule is the full one through the batch statistics (grad_rules_nn.c). The running
 * statistics are model state, updated by the trainer after each step with PyTorch's rule
 *     running_mean = (1 - m) running_mean + m batch_mean
 *     running_var  = (1 - m) running_var  + m batch_var n / (n - 1)    (n = N x spatial size)
 * where m, PyTorch's momentum, is the weight of the BATCH value. ONNX's `momentum` attribute is
 * the weight of the OLD value (running = momentum running + (1 - momentum) batch, with the
 * biased variance), so m = 1 - momentum: torch.onnx exports PyTorch's 0.1 as 0.9, and the
 * TorchScript lowering sets the attribute the same way. The node's own running outputs cannot
 * give PyTorch's update (they take the biased variance), so its momentum is set to 0, which
 * makes outputs 1 and 2 the batch mean and biased variance; they become outputs of the training
 * graph with Size(X) (= n C), and the trainer applies the formula in double.
 *
 * Dropout in train mode: training_mode becomes a constant true and each node gets the `seed`
 * attribute (the trainer's seed plus the node's position), so runs are reproducible; the
 * kernel draws a new mask at each run (its Philox counter advances), and the gradient rule
 * (grad_rules_random.c) adds the mask output, which the forward writes and the backward reads.
 */
#include "autograd/trainer.h"

#include "autograd/grad_internal.h"
#include "core/alloc.h"
#include "core/status.h"

#include <stdio.h>
#include <string.h>

/* The node's attribute `name` (replaced in place when present: em_node_set_* append, and the
 * first of two equal names would win). */
static ember_status *set_attr(em_graph *g, int ni, const char *name, em_attr_type type,
                              int64_t i, float f)
{
    em_node *n = &g->nodes[ni];
    for (int a = 0; a < n->n_attrs; a++) {
        if (strcmp(n->attrs[a].name, name) == 0 && n->attrs[a].type == type) {
            n->attrs[a].i = i;
            n->attrs[a].f = f;
            return NULL;
        }
        if (strcmp(n->attrs[a].name, name) == 0) {
            return em_status_new(EMBER_ERR_INVALID_MODEL, "trainer: node '%s' (%s): attribute "
                                 "'%s' has the wrong type", n->name, em_op_name(n->op), name);
        }
    }
    return type == EM_ATTR_INT ? em_node_set_int(g, ni, name, i)
                               : em_node_set_float(g, ni, name, f);
}

static bool f32_initializer(const em_graph *g, int v)
{
    return v >= 0 && g->values[v].kind == EM_VAL_INITIALIZER &&
           g->values[v].dtype == EMBER_DTYPE_F32 && g->values[v].rank == 1;
}

static ember_status *bn_train(em_graph *g, int ni, em_train_graph *tg)
{
    const em_node *n = &g->nodes[ni];
    if (n->n_in < 5 || !f32_initializer(g, n->in[3]) || !f32_initializer(g, n->in[4])) {
        return em_status_new(EMBER_ERR_UNSUPPORTED,
                             "trainer: node '%s' (BatchNormalization): its running mean and "
                             "variance are not f32 initializers, so train mode cannot update "
                             "them (use frozen BatchNormalization)", n->name);
    }
    if (n->n_out > 1) {
        return em_status_new(EMBER_ERR_UNSUPPORTED,
                             "trainer: node '%s' (BatchNormalization) already has running "
                             "statistics outputs: train mode is not supported there", n->name);
    }
    int k = tg->n_bn++; /* counted first: em_train_graph_free frees what is set */
    tg->bn_node[k] = ni;
    tg->bn_momentum[k] = 1.0 - (double)em_node_attr_float(n, "momentum", 0.9f);
    for (int s = 0; s < 2; s++) {
        tg->bn_stat[2 * k + s] = em_strdup(g->al, g->values[n->in[3 + s]].name);
        if (tg->bn_stat[2 * k + s] == NULL) {
            return em_status_oom();
        }
    }
    EM_RETURN_IF_ERROR(set_attr(g, ni, "training_mode", EM_ATTR_INT, 1, 0.0f));
    return set_attr(g, ni, "momentum", EM_ATTR_FLOAT, 0, 0.0f);
}

/* Dropout node ni with training_mode the constant `on` (added as input 2 when absent). */
static ember_status *dropout_train(em_graph *g, int ni, int on, int64_t seed)
{
    em_node *n = &g->nodes[ni];
    if (n->n_in < 3) {
        int *in = em_realloc(g->al, n->in, sizeof(int) * 3);
        if (in == NULL) {
            return em_status_oom();
        }
        for (int i = n->n_in; i < 3; i++) {
            in[i] = -1;
        }
        n->in = in;
        n->n_in = 3;
    }
    n->in[2] = on;
    /* Dropout's seed is an int attribute; a float one (the random generators') keys alike */
    em_attr_type type = EM_ATTR_INT;
    for (int a = 0; a < n->n_attrs; a++) {
        if (strcmp(n->attrs[a].name, "seed") == 0) {
            type = n->attrs[a].type;
        }
    }
    return set_attr(g, ni, "seed", type, seed, (float)seed);
}

ember_status *em_train_set_modes(em_graph *g, const em_train_spec *s, em_train_graph *tg)
{
    int n_bn = 0, on = -1;
    for (int ni = 0; ni < g->n_nodes; ni++) {
        n_bn += g->nodes[ni].op == EM_OP_BATCHNORM;
    }
    if (s->bn_train && n_bn > 0) {
        tg->bn_node = em_calloc(g->al, (size_t)n_bn, sizeof(int));
        tg->bn_momentum = em_calloc(g->al, (size_t)n_bn, sizeof(double));
        tg->bn_stat = em_calloc(g->al, 2 * (size_t)n_bn, sizeof(char *));
        if (tg->bn_node == NULL || tg->bn_momentum == NULL || tg->bn_stat == NULL) {
            return em_status_oom();
        }
    }
    int64_t k_drop = 0;
    for (int ni = 0; ni < g->n_nodes; ni++) {
        em_op op = g->nodes[ni].op;
        if (op == EM_OP_BATCHNORM && s->bn_train) {
            EM_RETURN_IF_ERROR(bn_train(g, ni, tg));
        } else if (op == EM_OP_DROPOUT && s->dropout_train) {
            if (on < 0) {
                const unsigned char one = 1;
                EM_RETURN_IF_ERROR(em_graph_add_initializer_copy(g, "ember.train/dropout_on",
                                                                 EMBER_DTYPE_BOOL, 0, NULL,
                                                                 &one, &on));
            }
            /* per-node keys from one seed; the int attribute keeps 63 bits */
            int64_t seed = (int64_t)((s->seed + (uint64_t)k_drop++) & 0x7fffffffffffffffull);
            EM_RETURN_IF_ERROR(dropout_train(g, ni, on, seed));
            tg->n_dropout++;
        }
    }
    return NULL;
}

ember_status *em_train_mode_outputs(em_graph *g, em_train_graph *tg)
{
    em_gctx c;
    memset(&c, 0, sizeof c);
    c.g = g;
    snprintf(c.prefix, sizeof c.prefix, "%s", "ember.bn");
    for (int k = 0; k < tg->n_bn && c.st == NULL; k++) {
        int ni = tg->bn_node[k];
        c.node = ni;
        int64_t ch = g->values[g->nodes[ni].in[3]].dims[0].v;
        for (int o = 1; o < 3 && c.st == NULL; o++) {
            int v = em_gx_forward_output(&c, o, EMBER_DTYPE_F32);
            if (v >= 0) {
                em_value *x = &g->values[v];
                x->rank = 1;
                x->dims[0].v = ch;
                x->dims[0].sym = 0;
                em_gx_error(&c, em_graph_mark_output(g, v));
            }
        }
        c.node = -1;
        int size = em_gx_op1(&c, EM_OP_SIZE, g->nodes[ni].in[0]);
        if (size >= 0) {
            em_gx_error(&c, em_graph_mark_output(g, size));
        }
    }
    return c.st;
}
