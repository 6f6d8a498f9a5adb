/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/shape/shape_rnn.c: RNN, GRU and LSTM shapes through em_shape_infer_node: Y, Y_h and Y_c
 * for layouts 0 and 1, forward / reverse / bidirectional, hidden from the hidden_size
 * attribute or from R, unknown ranks and dims (unknown outputs, never errors), symbolic seq
 * and batch dims kept, fewer outputs, and the errors (each naming the node).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_shape_util.h"

/* An f32 shape of rank 3 (dims of -1 unknown), or of unknown rank when rank < 0. */
static em_shape shp3(int rank, int64_t d0, int64_t d1, int64_t d2)
{
    return shp(EMBER_DTYPE_F32, rank < 0 ? -1 : rank, (int64_t[]){d0, d1, d2});
}

static int gates_of(em_op op)
{
    return op == EM_OP_LSTM ? 4 : op == EM_OP_GRU ? 3 : 1;
}

static void test_layouts_and_directions(void **state)
{
    (void)state;
    static const em_op ops[3] = {EM_OP_RNN, EM_OP_GRU, EM_OP_LSTM};
    static const char *const dirs[3] = {NULL, "reverse", "bidirectional"};
    for (int oi = 0; oi < 3; oi++) {
        for (int di = 0; di < 3; di++) {
            for (int layout = 0; layout < 2; layout++) {
                const int64_t g = gates_of(ops[oi]), nd = di == 2 ? 2 : 1;
                const int n_out = ops[oi] == EM_OP_LSTM ? 3 : 2;
                sn s;
                em_shape out[3];
                sn_init(&s, ops[oi], "rnn", 3, n_out);
                sn_int(&s, "hidden_size", 3);
                sn_int(&s, "layout", layout);
                if (dirs[di] != NULL) {
                    sn_str(&s, "direction", dirs[di]);
                }
                em_shape in[3] = {layout ? shp3(3, 2, 5, 4) : shp3(3, 5, 2, 4),
                                  shp3(3, nd, g * 3, 4), shp3(3, nd, g * 3, 3)};
                infer_ok(&s, in, out);
                if (layout == 0) {
                    expect(&out[0], EMBER_DTYPE_F32, 4, (int64_t[]){5, nd, 2, 3});
                } else {
                    expect(&out[0], EMBER_DTYPE_F32, 4, (int64_t[]){2, 5, nd, 3});
                }
                for (int o = 1; o < n_out; o++) {
                    expect(&out[o], EMBER_DTYPE_F32, 3,
                           layout ? (int64_t[]){2, nd, 3} : (int64_t[]){nd, 2, 3});
                }
            }
        }
    }
}

static void test_hidden_and_unknowns(void **state)
{
    (void)state;
    sn s;
    em_shape out[3];
    /* hidden from R without the attribute; Y only */
    sn_init(&s, EM_OP_GRU, "gru_no_attr", 3, 1);
    em_shape in[3] = {shp3(3, 7, 1, 2), shp3(3, 1, 15, 2), shp3(3, 1, 15, 5)};
    infer_ok(&s, in, out);
    expect(&out[0], EMBER_DTYPE_F32, 4, (int64_t[]){7, 1, 1, 5});
    /* R of unknown rank and no attribute: hidden unknown */
    in[2] = shp3(-1, 0, 0, 0);
    infer_ok(&s, in, out);
    expect(&out[0], EMBER_DTYPE_F32, 4, (int64_t[]){7, 1, 1, -1});
    /* X of unknown rank: seq and batch unknown; a symbolic batch is kept */
    sn_init(&s, EM_OP_LSTM, "lstm_unknown_x", 3, 3);
    sn_int(&s, "hidden_size", 4);
    in[0] = shp3(-1, 0, 0, 0);
    in[1] = shp3(3, 1, 16, 3);
    in[2] = shp3(3, 1, 16, 4);
    infer_ok(&s, in, out);
    expect(&out[0], EMBER_DTYPE_F32, 4, (int64_t[]){-1, 1, -1, 4});
    expect(&out[2], EMBER_DTYPE_F32, 3, (int64_t[]){1, -1, 4});
    in[0] = shp3(3, 6, -1, 3);
    in[0].dims[1].sym = 2;
    infer_ok(&s, in, out);
    expect(&out[0], EMBER_DTYPE_F32, 4, (int64_t[]){6, 1, -1, 4});
    assert_int_equal(out[0].dims[2].sym, 2);
    assert_int_equal(out[1].dims[1].sym, 2);
}

static void test_errors(void **state)
{
    (void)state;
    struct {
        const char *name;
        em_op op;
        const char *dir;
        int64_t layout, hidden;
        em_shape x, w, r;
    } cases[] = {
        {"direction", EM_OP_RNN, "both", 0, 3, shp3(3, 5, 2, 4), shp3(3, 1, 3, 4),
         shp3(3, 1, 3, 3)},
        {"layout", EM_OP_RNN, NULL, 2, 3, shp3(3, 5, 2, 4), shp3(3, 1, 3, 4), shp3(3, 1, 3, 3)},
        {"x_rank", EM_OP_GRU, NULL, 0, 3, shp3(2, 5, 2, 0), shp3(3, 1, 9, 4), shp3(3, 1, 9, 3)},
        {"w_rank", EM_OP_GRU, NULL, 0, 3, shp3(3, 5, 2, 4), shp3(2, 9, 4, 0), shp3(3, 1, 9, 3)},
        {"w_dirs", EM_OP_LSTM, "bidirectional", 0, 3, shp3(3, 5, 2, 4), shp3(3, 1, 12, 4),
         shp3(3, 2, 12, 3)},
        {"w_rows", EM_OP_LSTM, NULL, 0, 3, shp3(3, 5, 2, 4), shp3(3, 1, 9, 4), shp3(3, 1, 12, 3)},
        {"r_cols", EM_OP_RNN, NULL, 0, 3, shp3(3, 5, 2, 4), shp3(3, 1, 3, 4), shp3(3, 1, 3, 4)},
        {"w_input", EM_OP_RNN, NULL, 0, 3, shp3(3, 5, 2, 4), shp3(3, 1, 3, 5), shp3(3, 1, 3, 3)},
        {"hidden_zero", EM_OP_RNN, NULL, 0, 0, shp3(3, 5, 2, 4), shp3(3, 1, 3, 4),
         shp3(3, 1, 3, 3)},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sn s;
        sn_init(&s, cases[i].op, cases[i].name, 3, 2);
        sn_int(&s, "hidden_size", cases[i].hidden);
        sn_int(&s, "layout", cases[i].layout);
        if (cases[i].dir != NULL) {
            sn_str(&s, "direction", cases[i].dir);
        }
        em_shape in[3] = {cases[i].x, cases[i].w, cases[i].r};
        infer_err(&s, in);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts_and_directions),
        cmocka_unit_test(test_hidden_and_unknowns),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
