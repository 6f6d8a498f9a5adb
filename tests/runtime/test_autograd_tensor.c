/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/autograd/grad_rules_tensor.c: the tensor family's rules against central finite
 * differences (test_autograd_util.h), f64: Identity, the views, Transpose, Expand, Concat, Split,
 * Slice (negative and clamped bounds, steps), Gather (repeated and negative indices),
 * GatherElements, and the ops that only move elements (GatherND, Tile, Pad in three modes,
 * DepthToSpace, SpaceToDepth, ReverseSequence, Trilu, and the nn family's CenterCropPad, which
 * shares their rule), with known and symbolic dims.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_autograd_util.h"

#define F64 EMBER_DTYPE_F64
#define IN2(a, b) {2, {a, b}, {a, b}, AG_ANY, false}
#define IN3(a, b, c) {3, {a, b, c}, {a, b, c}, AG_ANY, false}
#define IN4(a, b, c, d) {4, {a, b, c, d}, {a, b, c, d}, AG_ANY, false}
#define SYM3(a, b, c) {3, {-1, b, -1}, {a, b, c}, AG_ANY, false}

/* Every case squares its result first, so that the gradient depends on the values routed. */
static int sq(em_graph *g, int v) { return ag_op2(g, EM_OP_MUL, v, v); }

static int b_identity(em_graph *g, const int *x) { return ag_op1(g, EM_OP_IDENTITY, x[0]); }

static int b_reshape(em_graph *g, const int *x)
{
    const int64_t s[3] = {3, -1, 2};
    return sq(g, ag_op2(g, EM_OP_RESHAPE, x[0], ag_i64(g, s, 3)));
}

static int b_flatten(em_graph *g, const int *x)
{
    int y = ag_op1(g, EM_OP_FLATTEN, x[0]);
    ag_int(g, y, "axis", 2);
    return sq(g, y);
}

static int b_squeeze_unsqueeze(em_graph *g, const int *x)
{
    const int64_t a[1] = {1}, b[2] = {0, 3};
    int s = ag_op2(g, EM_OP_SQUEEZE, x[0], ag_i64(g, a, 1));
    return sq(g, ag_op2(g, EM_OP_UNSQUEEZE, s, ag_i64(g, b, 2)));
}

static int b_transpose(em_graph *g, const int *x)
{
    const int64_t perm[3] = {2, 0, 1};
    int y = ag_op1(g, EM_OP_TRANSPOSE, x[0]);
    ag_ints(g, y, "perm", perm, 3);
    return sq(g, y);
}

static int b_transpose_default(em_graph *g, const int *x)
{
    return sq(g, ag_op1(g, EM_OP_TRANSPOSE, x[0]));
}

static int b_expand(em_graph *g, const int *x)
{
    const int64_t s[3] = {2, 3, 4};
    return sq(g, ag_op2(g, EM_OP_EXPAND, x[0], ag_i64(g, s, 3)));
}

static int b_concat(em_graph *g, const int *x)
{
    int y = ag_op3(g, EM_OP_CONCAT, x[0], x[1], x[0]);
    ag_int(g, y, "axis", -2);
    return sq(g, y);
}

/* Split into three, the middle output unused. */
static int b_split(em_graph *g, const int *x)
{
    const int64_t sizes[3] = {1, 2, 2};
    const char *outs[3] = {"s0", "s1", "s2"};
    const int in[2] = {x[0], ag_i64(g, sizes, 3)};
    int ni;
    OK(em_graph_add_node(g, EM_OP_SPLIT, "split", in, 2, outs, 3, &ni));
    OK(em_node_set_int(g, ni, "axis", 1));
    int a = g->nodes[ni].out[0], c = g->nodes[ni].out[2];
    return ag_op2(g, EM_OP_ADD, sq(g, a), c);
}

static int slice(em_graph *g, int x, const int64_t *st, const int64_t *en, const int64_t *ax,
                 const int64_t *sp, int n)
{
    const int in[5] = {x, ag_i64(g, st, n), ag_i64(g, en, n), ag_i64(g, ax, n), ag_i64(g, sp, n)};
    return sq(g, ag_node(g, EM_OP_SLICE, in, 5));
}

static int b_slice(em_graph *g, const int *x)
{
    const int64_t st[2] = {1, -1}, en[2] = {100, 0}, ax[2] = {0, 2}, sp[2] = {1, -2};
    return slice(g, x[0], st, en, ax, sp, 2);
}

static int b_slice_step(em_graph *g, const int *x)
{
    const int64_t st[1] = {0}, en[1] = {-1}, ax[1] = {-1}, sp[1] = {3};
    return slice(g, x[0], st, en, ax, sp, 1);
}

static int b_gather(em_graph *g, const int *x)
{
    const int64_t idx[5] = {2, 0, -1, 2, 1};
    int y = ag_op2(g, EM_OP_GATHER, x[0], ag_i64(g, idx, 5));
    ag_int(g, y, "axis", 1);
    return sq(g, y);
}

static int b_gather_2d(em_graph *g, const int *x)
{
    const int64_t idx[4] = {1, 1, 0, 3};
    char name[8] = "idx";
    int iv;
    OK(em_graph_add_initializer_copy(g, name, EMBER_DTYPE_I64, 2, (int64_t[]){2, 2}, idx, &iv));
    return sq(g, ag_op2(g, EM_OP_GATHER, x[0], iv));
}

static int b_gatherelements(em_graph *g, const int *x)
{
    const int64_t idx[8] = {0, 2, 2, 1, 1, 1, 0, 2};
    int iv;
    OK(em_graph_add_initializer_copy(g, "idx", EMBER_DTYPE_I64, 2, (int64_t[]){2, 4}, idx, &iv));
    int y = ag_op2(g, EM_OP_GATHERELEMENTS, x[0], iv);
    ag_int(g, y, "axis", 0);
    return sq(g, y);
}

static int b_gathernd(em_graph *g, const int *x)
{
    const int64_t idx[6] = {1, 0, 0, 2, 1, 0};
    int iv;
    OK(em_graph_add_initializer_copy(g, "idx", EMBER_DTYPE_I64, 2, (int64_t[]){3, 2}, idx, &iv));
    return sq(g, ag_op2(g, EM_OP_GATHERND, x[0], iv));
}

static int b_tile(em_graph *g, const int *x)
{
    const int64_t reps[2] = {2, 3};
    return sq(g, ag_op2(g, EM_OP_TILE, x[0], ag_i64(g, reps, 2)));
}

static int pad(em_graph *g, int x, const char *mode)
{
    const int64_t pads[4] = {1, 2, 0, 2};
    const double v = 0.5;
    int y = ag_op3(g, EM_OP_PAD, x, ag_i64(g, pads, 4), ag_const(g, ag_dt(g), 0, NULL, &v));
    ag_string(g, y, "mode", mode);
    return sq(g, y);
}

static int b_pad_constant(em_graph *g, const int *x) { return pad(g, x[0], "constant"); }
static int b_pad_reflect(em_graph *g, const int *x) { return pad(g, x[0], "reflect"); }
static int b_pad_edge(em_graph *g, const int *x) { return pad(g, x[0], "edge"); }

static int b_d2s(em_graph *g, const int *x)
{
    int y = ag_op1(g, EM_OP_DEPTHTOSPACE, x[0]);
    ag_int(g, y, "blocksize", 2);
    ag_string(g, y, "mode", "CRD");
    return sq(g, y);
}

static int b_s2d(em_graph *g, const int *x)
{
    int y = ag_op1(g, EM_OP_SPACETODEPTH, x[0]);
    ag_int(g, y, "blocksize", 2);
    return sq(g, y);
}

static int b_revseq(em_graph *g, const int *x)
{
    const int64_t lens[3] = {2, 4, 1};
    int y = ag_op2(g, EM_OP_REVERSESEQUENCE, x[0], ag_i64(g, lens, 3));
    ag_int(g, y, "batch_axis", 1);
    ag_int(g, y, "time_axis", 0);
    return sq(g, y);
}

static int b_trilu(em_graph *g, const int *x)
{
    const int64_t k = 1;
    return sq(g, ag_op2(g, EM_OP_TRILU, x[0], ag_i64(g, &k, -1)));
}

static int b_centercroppad(em_graph *g, const int *x)
{
    const int64_t shape[2] = {2, 5};
    return sq(g, ag_op2(g, EM_OP_CENTERCROPPAD, x[0], ag_i64(g, shape, 2)));
}

static const ag_case cases[] = {
    {"identity", F64, 1, {IN2(2, 3)}, b_identity, 0, 0, 0},
    {"reshape", F64, 1, {IN3(2, 3, 2)}, b_reshape, 0, 0, 0},
    {"flatten", F64, 1, {IN4(2, 1, 3, 2)}, b_flatten, 0, 0, 0},
    {"squeeze unsqueeze", F64, 1, {IN3(3, 1, 2)}, b_squeeze_unsqueeze, 0, 0, 0},
    {"transpose", F64, 1, {IN3(2, 3, 4)}, b_transpose, 0, 0, 0},
    {"transpose default", F64, 1, {IN3(2, 1, 3)}, b_transpose_default, 0, 0, 0},
    {"expand", F64, 1, {IN2(3, 1)}, b_expand, 0, 0, 0},
    {"concat", F64, 2, {IN3(2, 1, 3), IN3(2, 2, 3)}, b_concat, 0, 0, 0},
    {"concat symbolic", F64, 2, {SYM3(2, 3, 2), SYM3(2, 3, 2)}, b_concat, 0, 0, 0},
    {"split", F64, 1, {IN2(2, 5)}, b_split, 0, 0, 0},
    {"slice negative step", F64, 1, {IN3(3, 2, 5)}, b_slice, 0, 0, 0},
    {"slice step", F64, 1, {IN2(2, 8)}, b_slice_step, 0, 0, 0},
    {"slice symbolic", F64, 1, {SYM3(3, 2, 5)}, b_slice, 0, 0, 0},
    {"gather repeated", F64, 1, {IN3(2, 3, 2)}, b_gather, 0, 0, 0},
    {"gather 2-d indices", F64, 1, {IN2(4, 3)}, b_gather_2d, 0, 0, 0},
    {"gatherelements", F64, 1, {IN2(3, 4)}, b_gatherelements, 0, 0, 0},
    {"gathernd", F64, 1, {IN3(2, 3, 2)}, b_gathernd, 0, 0, 0},
    {"tile", F64, 1, {IN2(2, 3)}, b_tile, 0, 0, 0},
    {"pad constant", F64, 1, {IN2(3, 3)}, b_pad_constant, 0, 0, 0},
    {"pad reflect", F64, 1, {IN2(3, 3)}, b_pad_reflect, 0, 0, 0},
    {"pad edge", F64, 1, {IN2(3, 3)}, b_pad_edge, 0, 0, 0},
    {"depthtospace", F64, 1, {IN4(1, 8, 2, 3)}, b_d2s, 0, 0, 0},
    {"spacetodepth", F64, 1, {IN4(2, 1, 4, 2)}, b_s2d, 0, 0, 0},
    {"reversesequence", F64, 1, {IN3(4, 3, 2)}, b_revseq, 0, 0, 0},
    {"trilu", F64, 1, {IN3(2, 3, 4)}, b_trilu, 0, 0, 0},
    {"centercroppad", F64, 1, {IN2(4, 3)}, b_centercroppad, 0, 0, 0},
};

static void test_rules(void **state)
{
    (void)state;
    ag_check_all(cases, sizeof cases / sizeof cases[0], 2000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
