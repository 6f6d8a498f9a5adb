/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Transpose and Reshape pairs (runtime/passes/passes_cancel.c) on x [2, 3, 4]: inverse perms
 * cancel (also the default, reversed perm twice), other perms compose into one Transpose, a
 * pair whose result is a graph output becomes one Transpose of x, a first Transpose with
 * another reader stays (and so does the second unless they cancel); a Reshape back to x's
 * shape cancels, another target reshapes x directly, and a target with a 0 (a dim copied from
 * the first Reshape's output) keeps both. And Shape of a value of known dims
 * (runtime/passes/passes.c) becomes a constant (with start / end), so what is computed from it
 * folds, also when the value's dims are known only once an earlier target folded (nodes are
 * inferred again while folding). A Slice that keeps x's shape with steps of 1 (ends past the
 * end, or steps given as 1) goes; one reversing an axis (step -1, same shape), one that cuts,
 * and one that is a graph output stay. An Expand of s = Exp(x[:, :, 0:1]) to x's shape (a
 * constant, or Shape(x)) goes when every reader broadcasts anyway: Div(x, e), Sub(e, x), two
 * readers, an Expand that also adds a leading axis ([3, 4] -> [2, 3, 4]); it stays when it
 * widens the result (Mul(e, s): the other operand is smaller), when it is a graph output,
 * when a reader does not broadcast (MatMul, or Concat beside a Div), when one reader reads it
 * twice (Mul(e, e)), and when x's first dim is a symbol. Outputs are compared bit for bit with
 * the original.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "test_autograd_util.h"
#include "test_passes_util.h"

enum {
    T_INVERSE,
    T_COMPOSE,
    T_OUTPUT,
    T_SHARED_INVERSE,
    T_SHARED_COMPOSE,
    T_DEFAULT_PERM,
    R_BACK,
    R_OTHER,
    R_ZERO,
    S_WHOLE,
    S_SLICED,
    S_CHAIN,
    L_WHOLE,
    L_WHOLE_STEPS,
    L_REVERSED,
    L_PART,
    L_OUTPUT,
};

enum {
    E_DIV,
    E_SHAPE_OF,
    E_FIRST,
    E_TWO,
    E_LEAD,
    E_WIDEN,
    E_OUTPUT,
    E_MATMUL,
    E_CONCAT,
    E_TWICE,
    E_SYMBOL,
};

static const int64_t xd[3] = {2, 3, 4};

static int transpose(em_graph *g, int x, const int64_t *perm, const char *name)
{
    int v = tp_op2(g, EM_OP_TRANSPOSE, x, -1, name);
    if (perm != NULL) {
        OK(em_node_set_ints(g, g->n_nodes - 1, "perm", perm, 3));
    }
    return v;
}

static int reshape(em_graph *g, int x, const int64_t *dims, int n, const char *name)
{
    char sn[64];
    snprintf(sn, sizeof sn, "%s/shape", name);
    return tp_op2(g, EM_OP_RESHAPE, x, tp_ints(g, sn, dims, n), name);
}

static void build(em_graph *g, int x, int v)
{
    static const int64_t p102[3] = {1, 0, 2}, p120[3] = {1, 2, 0};
    static const int64_t s64[2] = {6, 4}, s234[3] = {2, 3, 4}, s38[2] = {3, 8}, s0m[2] = {0, -1};
    int y, t1 = -1;
    if (v >= L_WHOLE) {
        static const int64_t zero[1] = {0}, big[1] = {INT64_MAX}, two[1] = {2}, one[1] = {1};
        static const int64_t last[1] = {-1}, small[1] = {INT64_MIN}, back[1] = {-1};
        bool rev = v == L_REVERSED;
        int in[5] = {x, tp_ints(g, "starts", rev ? last : zero, 1),
                     tp_ints(g, "ends", rev ? small : v == L_PART ? two : big, 1),
                     tp_ints(g, "axes", one, 1),
                     v == L_WHOLE_STEPS ? tp_ints(g, "steps", one, 1)
                     : rev              ? tp_ints(g, "steps", back, 1)
                                        : -1};
        y = tp_op(g, EM_OP_SLICE, in, in[4] >= 0 ? 5 : 4, "sl");
        if (v == L_OUTPUT) {
            OK(em_graph_mark_output(g, y));
        }
    } else if (v == S_WHOLE || v == S_SLICED) {
        int sh = tp_op2(g, EM_OP_SHAPE, tp_op2(g, EM_OP_NEG, x, -1, "nx"), -1, "sh");
        if (v == S_SLICED) { /* [-1] ++ Shape(x)[1:] */
            static const int64_t m1[1] = {-1};
            OK(em_node_set_int(g, g->n_nodes - 1, "start", 1));
            sh = tp_op2(g, EM_OP_CONCAT, tp_ints(g, "m1", m1, 1), sh, "target");
            OK(em_node_set_int(g, g->n_nodes - 1, "axis", 0));
        }
        y = tp_op2(g, EM_OP_RESHAPE, x, sh, "r");
    } else if (v == S_CHAIN) {
        /* r1 = x reshaped to [-1] ++ Shape(x)[2:]: its dims are known only once that target
         * folds, and only then does Shape(r1) fold */
        static const int64_t m1[1] = {-1};
        int sh = tp_op2(g, EM_OP_SHAPE, tp_op2(g, EM_OP_NEG, x, -1, "nx"), -1, "sh");
        OK(em_node_set_int(g, g->n_nodes - 1, "start", 2));
        sh = tp_op2(g, EM_OP_CONCAT, tp_ints(g, "m1", m1, 1), sh, "target");
        OK(em_node_set_int(g, g->n_nodes - 1, "axis", 0));
        int r1 = tp_op2(g, EM_OP_RESHAPE, x, sh, "r1");
        int s2 = tp_op2(g, EM_OP_SHAPE, tp_op2(g, EM_OP_NEG, r1, -1, "nr1"), -1, "s2");
        y = tp_op2(g, EM_OP_RESHAPE, tp_op2(g, EM_OP_NEG, x, -1, "nx2"), s2, "r2");
    } else if (v <= T_DEFAULT_PERM) {
        bool compose = v == T_COMPOSE || v == T_SHARED_COMPOSE, dflt = v == T_DEFAULT_PERM;
        t1 = transpose(g, x, dflt ? NULL : compose ? p120 : p102, "t1");
        y = transpose(g, t1, dflt ? NULL : p102, "t2");
    } else {
        int r1 = reshape(g, x, s64, 2, "r1");
        y = v == R_BACK    ? reshape(g, r1, s234, 3, "r2")
            : v == R_OTHER ? reshape(g, r1, s38, 2, "r2")
                           : reshape(g, r1, s0m, 2, "r2");
    }
    if (v != T_OUTPUT) {
        y = tp_op2(g, EM_OP_RELU, y, -1, "y");
    }
    OK(em_graph_mark_output(g, y));
    if (v == T_SHARED_INVERSE || v == T_SHARED_COMPOSE) {
        OK(em_graph_mark_output(g, tp_op2(g, EM_OP_NEG, t1, -1, "n")));
    }
}

/* Exp(x[:, :, 0:1]) ([2, 3, 1]), or Exp(x[0:1]) reshaped to [3, 4] when `lead`. */
static int expand_source(em_graph *g, int x, bool lead)
{
    static const int64_t zero[1] = {0}, one[1] = {1}, two[1] = {2}, s34[2] = {3, 4};
    int in[4] = {x, tp_ints(g, "e/starts", zero, 1), tp_ints(g, "e/ends", one, 1),
                 tp_ints(g, "e/axes", lead ? zero : two, 1)};
    int s = tp_op2(g, EM_OP_EXP, tp_op(g, EM_OP_SLICE, in, 4, "e/sl"), -1, "e/s");
    return lead ? reshape(g, s, s34, 2, "e/r") : s;
}

static void build_expand(em_graph *g, int x, int v)
{
    int s = expand_source(g, x, v == E_LEAD);
    int shape = v == E_SHAPE_OF || v == E_SYMBOL ? tp_op2(g, EM_OP_SHAPE, x, -1, "e/shape")
                                                 : tp_ints(g, "e/shape", xd, 3);
    int e = tp_op2(g, EM_OP_EXPAND, s, shape, "e"), y;
    if (v == E_FIRST) {
        y = tp_op2(g, EM_OP_SUB, e, x, "y");
    } else if (v == E_TWO) {
        y = tp_op2(g, EM_OP_ADD, tp_op2(g, EM_OP_DIV, x, e, "q"), tp_op2(g, EM_OP_MUL, e, x, "p"),
                   "y");
    } else if (v == E_WIDEN) {
        y = tp_op2(g, EM_OP_MUL, e, s, "y");
    } else if (v == E_MATMUL) {
        static const int64_t w45[2] = {4, 5};
        y = tp_op2(g, EM_OP_MATMUL, e, tp_init_f32(g, "w", 2, w45, 7, -1.0f, 1.0f), "y");
    } else if (v == E_CONCAT) {
        int q = tp_op2(g, EM_OP_DIV, x, e, "q");
        y = tp_op2(g, EM_OP_CONCAT, q, e, "y");
        OK(em_node_set_int(g, g->n_nodes - 1, "axis", 2));
    } else if (v == E_TWICE) {
        y = tp_op2(g, EM_OP_MUL, e, e, "y");
    } else {
        y = tp_op2(g, v == E_LEAD ? EM_OP_MUL : EM_OP_DIV, x, e, "y");
    }
    OK(em_graph_mark_output(g, y));
    if (v == E_OUTPUT) {
        OK(em_graph_mark_output(g, e));
    }
}

static void check_expand(int v, int n)
{
    static const char *const names[3] = {"N", NULL, NULL};
    const tp_count want[] = {{EM_OP_EXPAND, n}};
    tp_check_fused_named(build_expand, v, 3, xd, v == E_SYMBOL ? names : NULL, want, 1, 0.0,
                         0.0);
}

static void test_expand_broadcast(void **state)
{
    (void)state;
    check_expand(E_DIV, 0);
    check_expand(E_SHAPE_OF, 0);
    check_expand(E_FIRST, 0);
    check_expand(E_TWO, 0);
    check_expand(E_LEAD, 0);
    check_expand(E_WIDEN, 1);
    check_expand(E_OUTPUT, 1);
    check_expand(E_MATMUL, 1);
    check_expand(E_CONCAT, 1);
    check_expand(E_TWICE, 1);
    check_expand(E_SYMBOL, 1);
}

static void check(int v, em_op op, int n)
{
    const tp_count want[] = {{op, n}};
    tp_check_fused(build, v, 3, xd, want, 1, 0.0, 0.0);
}

static void test_transpose_pairs(void **state)
{
    (void)state;
    check(T_INVERSE, EM_OP_TRANSPOSE, 0);
    check(T_DEFAULT_PERM, EM_OP_TRANSPOSE, 0);
    check(T_COMPOSE, EM_OP_TRANSPOSE, 1);
    check(T_OUTPUT, EM_OP_TRANSPOSE, 1);
    check(T_SHARED_INVERSE, EM_OP_TRANSPOSE, 1);
    check(T_SHARED_COMPOSE, EM_OP_TRANSPOSE, 2);
}

static void test_reshape_pairs(void **state)
{
    (void)state;
    check(R_BACK, EM_OP_RESHAPE, 0);
    check(R_OTHER, EM_OP_RESHAPE, 1);
    check(R_ZERO, EM_OP_RESHAPE, 2);
}

static void test_whole_slice(void **state)
{
    (void)state;
    check(L_WHOLE, EM_OP_SLICE, 0);
    check(L_WHOLE_STEPS, EM_OP_SLICE, 0);
    check(L_REVERSED, EM_OP_SLICE, 1);
    check(L_PART, EM_OP_SLICE, 1);
    check(L_OUTPUT, EM_OP_SLICE, 1);
}

static void test_static_shape(void **state)
{
    (void)state;
    const tp_count want[] = {{EM_OP_SHAPE, 0}, {EM_OP_CONCAT, 0}, {EM_OP_NEG, 0}};
    tp_check_fused(build, S_WHOLE, 3, xd, want, 3, 0.0, 0.0);
    tp_check_fused(build, S_SLICED, 3, xd, want, 3, 0.0, 0.0);
    const tp_count chain[] = {{EM_OP_SHAPE, 0}, {EM_OP_CONCAT, 0}};
    tp_check_fused(build, S_CHAIN, 3, xd, chain, 2, 0.0, 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transpose_pairs),
        cmocka_unit_test(test_reshape_pairs),
        cmocka_unit_test(test_static_shape),
        cmocka_unit_test(test_whole_slice),
        cmocka_unit_test(test_expand_broadcast),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
