/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Einsum -> Transpose / Reshape / MatMul / Mul / ReduceSum (runtime/passes/passes_einsum.c):
 * equations of one and two inputs (batch, contracted, free and summed labels, several labels
 * per group, outputs in another order, maxvit's spaced capitals, implicit outputs, "..." with
 * broadcasting, a dot product into a scalar, outer and elementwise products) on x and a random
 * constant w (or x twice), each compared with the unoptimised graph, whose Einsum runs on the
 * reference kernel; the expected op counts prove which arrangement the pass chose (e.g. no
 * Transpose where the operands' layouts already fit). Symbolic dims (TorchScript's) where the
 * Reshapes can copy or infer them. Diagonals (a label repeated within an input), three inputs,
 * Reshape targets with two unknown dims and labels whose dims are not known equal must stay
 * Einsum.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "test_autograd_util.h"
#include "test_passes_util.h"

#include <stdio.h>

typedef struct ein_case {
    const char *eq;
    int xr, wr; /* wr 0: one input; -1: x twice; -2: x, w, w (three inputs) */
    int64_t xd[6], wd[6];
    int einsum, matmul, mul, transpose, reducesum; /* op counts after the passes */
    const char *names[6]; /* symbolic dims of x (a TorchScript model's, unknown at load) */
} ein_case;

static const ein_case cases[] = {
    /* plain and batched products: no Transpose */
    {"ij,jk->ik", 2, 2, {5, 7}, {7, 3}, 0, 1, 0, 0, 0, {NULL}},
    {"bij,bjk->bik", 3, 3, {2, 5, 7}, {2, 7, 3}, 0, 1, 0, 0, 0, {NULL}},
    {"ij,jk", 2, 2, {5, 7}, {7, 3}, 0, 1, 0, 0, 0, {NULL}},
    /* q k^T: one Transpose of k */
    {"bhid,bhjd->bhij", 4, 4, {2, 3, 5, 4}, {2, 3, 6, 4}, 0, 1, 0, 1, 0, {NULL}},
    {"B G H I D, B G H J D -> B G H I J", 5, 5, {1, 2, 3, 5, 4}, {1, 2, 3, 6, 4}, 0, 1, 0, 1, 0,
     {NULL}},
    {"B G H I J, B G H J D -> B G H I D", 5, 5, {1, 2, 3, 5, 6}, {1, 2, 3, 6, 4}, 0, 1, 0, 0, 0,
     {NULL}},
    /* output wants N before M: the operands swap, no Transpose */
    {"ij,jk->ki", 2, 2, {5, 7}, {7, 3}, 0, 1, 0, 1, 0, {NULL}},
    {"ji,kj->ik", 2, 2, {7, 5}, {3, 7}, 0, 1, 0, 1, 0, {NULL}},
    /* several labels per group, batch labels apart */
    {"abcd,cdbe->bae", 4, 4, {2, 3, 4, 5}, {4, 5, 3, 2}, 0, 1, 0, 2, 0, {NULL}},
    {"bmk,knb->bmn", 3, 3, {3, 4, 5}, {5, 2, 3}, 0, 1, 0, 1, 0, {NULL}},
    {"xaby,ycx->cab", 4, 3, {2, 3, 4, 5}, {5, 6, 2}, 0, 1, 0, 2, 0, {NULL}},
    /* summed labels: a ReduceSum first */
    {"ij,jk->k", 2, 2, {5, 7}, {7, 3}, 0, 1, 0, 0, 1, {NULL}},
    {"ijl,jk->i", 3, 2, {5, 7, 2}, {7, 3}, 0, 1, 0, 0, 2, {NULL}},
    /* a dot product into a scalar; outer and elementwise products */
    {"i,i->", 1, 1, {7}, {7}, 0, 1, 0, 0, 0, {NULL}},
    {"i,j->ij", 1, 1, {5}, {3}, 0, 0, 1, 0, 0, {NULL}},
    {"ij,ij->ij", 2, -1, {5, 3}, {5, 3}, 0, 0, 1, 0, 0, {NULL}},
    {"bi,bj->bji", 2, 2, {4, 5}, {4, 3}, 0, 0, 1, 0, 0, {NULL}},
    /* "..." with broadcasting */
    {"...ij,...jk->...ik", 3, 3, {2, 5, 7}, {2, 7, 3}, 0, 1, 0, 0, 0, {NULL}},
    /* w and y moved (MatMul's own broadcasting is not used) */
    {"...ij,...jk->...ik", 4, 3, {2, 1, 5, 7}, {4, 7, 3}, 0, 1, 0, 2, 0, {NULL}},
    {"...ij,...jk->...ik", 4, 4, {3, 1, 5, 7}, {3, 4, 7, 3}, 0, 1, 0, 2, 0, {NULL}},
    {"i...,i...->...", 3, 3, {4, 2, 3}, {4, 2, 3}, 0, 1, 0, 2, 0, {NULL}},
    {"bi...,bj...", 3, 3, {2, 4, 3}, {2, 5, 3}, 0, 1, 0, 2, 0, {NULL}},
    /* one input: permutations and sums */
    {"ij->ji", 2, 0, {5, 7}, {0}, 0, 0, 0, 1, 0, {NULL}},
    {"ijk->kj", 3, 0, {5, 7, 3}, {0}, 0, 0, 0, 1, 1, {NULL}},
    {"ij->i", 2, 0, {5, 7}, {0}, 0, 0, 0, 0, 1, {NULL}},
    {"...ij->...ji", 4, 0, {2, 3, 5, 7}, {0}, 0, 0, 0, 1, 0, {NULL}},
    {"ab->ab", 2, 0, {5, 7}, {0}, 0, 0, 0, 0, 0, {NULL}},
    /* left to the reference: diagonals, three inputs */
    {"ii->i", 2, 0, {5, 5}, {0}, 1, 0, 0, 0, 0, {NULL}},
    {"iij,jk->ik", 3, 2, {4, 4, 7}, {7, 3}, 1, 0, 0, 0, 0, {NULL}},
    {"ij,jk,kl->il", 2, -2, {5, 7}, {7, 7}, 1, 0, 0, 0, 0, {NULL}},
    /* symbolic dims: each label's dims one symbol; Reshapes copy them (0) or infer one (-1) */
    {"bhid,bhjd->bhij", 4, -1, {2, 3, 5, 4}, {0}, 0, 1, 0, 1, 0, {"B"}},
    {"B G H I D, B G H J D -> B G H I J", 5, -1, {2, 3, 2, 5, 4}, {0}, 0, 1, 0, 1, 0,
     {"B", "G"}},
    {"bid,bjd->bij", 3, -1, {2, 5, 4}, {0}, 0, 1, 0, 1, 0, {"B", "S"}},
    {"bsd,bsd->bd", 3, -1, {2, 5, 4}, {0}, 0, 1, 0, 2, 0, {"B", "S"}},
    {"abc,abc->c", 3, -1, {2, 5, 4}, {0}, 0, 1, 0, 2, 0, {"A", "B", "C"}},
    {"abk,kc->abc", 3, 2, {2, 3, 4}, {4, 3}, 0, 1, 0, 0, 0, {NULL, "B"}},
    {"bij,bjk->bik", 3, 3, {2, 5, 7}, {2, 7, 3}, 0, 1, 0, 0, 0, {"B"}}, /* B stands for 2 */
    /* ... but not when a target needs two unknown dims, nor when a "..." dim is a symbol that
     * may be 1 where the other's is not */
    {"abk,kc->abc", 3, 2, {2, 3, 4}, {4, 3}, 1, 0, 0, 0, 0, {"A", "B"}},
    {"...ij,...jk->...ik", 3, 3, {2, 5, 7}, {2, 7, 3}, 1, 0, 0, 0, 0, {"B"}},
};

#define N_CASES ((int)(sizeof cases / sizeof cases[0]))

static void build(em_graph *g, int x, int variant)
{
    const ein_case *k = &cases[variant];
    int in[3] = {x, -1, -1}, n_in = 1, ni;
    if (k->wr > 0 || k->wr == -2) {
        in[1] = tp_init_f32(g, "w", k->wr > 0 ? k->wr : 2, k->wd, 7, -1.0f, 1.0f);
        n_in = 2;
    } else if (k->wr == -1) {
        in[1] = x;
        n_in = 2;
    }
    if (k->wr == -2) {
        in[2] = in[1];
        n_in = 3;
    }
    const char *outs[1] = {"y"};
    OK(em_graph_add_node(g, EM_OP_EINSUM, "ein", in, n_in, outs, 1, &ni));
    OK(em_node_set_string(g, ni, "equation", k->eq));
    int y = g->nodes[ni].out[0];
    OK(em_graph_mark_output(g, y));
    /* the same product read by a later node, not only as a graph output */
    OK(em_graph_mark_output(g, tp_op2(g, EM_OP_NEG, y, -1, "ny")));
}

static void test_einsum(void **state)
{
    (void)state;
    for (int v = 0; v < N_CASES; v++) {
        const ein_case *k = &cases[v];
        const tp_count want[] = {{EM_OP_EINSUM, k->einsum},
                                 {EM_OP_MATMUL, k->matmul},
                                 {EM_OP_MUL, k->mul},
                                 {EM_OP_TRANSPOSE, k->transpose},
                                 {EM_OP_REDUCESUM, k->reducesum}};
        print_message("%s\n", k->eq);
        tp_check_fused_named(build, v, k->xr, k->xd, k->names, want, 5, 1e-5, 1e-5);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_einsum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
