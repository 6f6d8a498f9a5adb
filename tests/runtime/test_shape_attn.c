/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/shape/shape_attn.c: the attn family's shape functions through em_shape_infer_node.
 * Attention (4-D and 3-D, GQA, V head size of its own, past and present, qk_matmul_output,
 * symbolic batch and sequence kept, unknown dims where a past length is unknown) and its errors
 * (mixed ranks, 3-D without head counts, heads that do not divide, head sizes, past without
 * value, nonpad with past); RMSNormalization (scale's dtype, axis range); GroupNormalization;
 * RotaryEmbedding; TensorScatter; SwiGLU (no broadcasting); LinearAttention; CausalConvWithState;
 * and the new math rows (BitwiseAnd broadcasting, CumProd). Each error names the node.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/test_alloc.h"
#include "ir/graph.h"
#include "shape/shape.h"
#include "core/status.h"

#include "test_shape_util.h"

#define F32 EMBER_DTYPE_F32
#define F16 EMBER_DTYPE_F16
#define F64 EMBER_DTYPE_F64
#define I64 EMBER_DTYPE_I64
#define BOOL EMBER_DTYPE_BOOL
#define SYM_B (-2) /* symbol 1 */
#define SYM_S (-3) /* symbol 2 */

static void test_attention_4d(void **state)
{
    (void)state;
    sn s;
    em_shape out[4];
    /* GQA: Q [B, 6, S, 8], K [B, 2, 5, 8], V [B, 2, 5, 3] with a past of 4 in V's dtype f16. */
    em_shape in[7] = {SHP(F32, SYM_B, 6, SYM_S, 8),
                      SHP(F32, SYM_B, 2, 5, 8),
                      SHP(F16, SYM_B, 2, 5, 3),
                      SHP(BOOL, SYM_S, 9),
                      SHP(F32, SYM_B, 2, 4, 8),
                      SHP(F16, SYM_B, 2, 4, 3),
                      absent()};
    sn_init(&s, EM_OP_ATTENTION, "gqa_past", 6, 4);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, SYM_B, 6, SYM_S, 3);
    EXPECT(out[1], F32, SYM_B, 2, 9, 8);
    EXPECT(out[2], F16, SYM_B, 2, 9, 3);
    EXPECT(out[3], F32, SYM_B, 6, SYM_S, 9);
    /* Without a past the total length is K's (its symbol kept); one output only. */
    in[1] = SHP(F32, 2, 3, SYM_S, 4);
    in[2] = SHP(F32, 2, 3, SYM_S, 5);
    in[0] = SHP(F32, 2, 3, 7, 4);
    sn_init(&s, EM_OP_ATTENTION, "plain", 3, 4);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 2, 3, 7, 5);
    EXPECT(out[3], F32, 2, 3, 7, SYM_S);
    /* An unknown past length leaves the total unknown. */
    in[4] = SHP(F32, 2, 3, UNK, 4);
    in[5] = SHP(F32, 2, 3, UNK, 5);
    sn_init(&s, EM_OP_ATTENTION, "past_unknown", 6, 3);
    infer_ok(&s, in, out);
    EXPECT(out[1], F32, 2, 3, UNK, 4);
    EXPECT(out[2], F32, 2, 3, UNK, 5);
    /* Unknown ranks: dtypes only. */
    in[0] = absent();
    in[0].dtype = F32;
    sn_init(&s, EM_OP_ATTENTION, "unranked", 3, 1);
    infer_ok(&s, in, out);
    assert_int_equal(out[0].dtype, F32);
    assert_int_equal(out[0].rank, -1);
}

static void test_attention_3d(void **state)
{
    (void)state;
    sn s;
    em_shape out[4];
    em_shape in[7] = {SHP(F32, 2, 4, 72),
                      SHP(F32, 2, 6, 24),
                      SHP(F32, 2, 6, 30),
                      absent(),
                      SHP(F32, 2, 3, 12, 8),
                      SHP(F32, 2, 3, 12, 10),
                      absent()};
    sn_init(&s, EM_OP_ATTENTION, "gqa_3d", 6, 4);
    sn_int(&s, "q_num_heads", 9);
    sn_int(&s, "kv_num_heads", 3);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 2, 4, 90);
    EXPECT(out[1], F32, 2, 3, 18, 8);
    EXPECT(out[2], F32, 2, 3, 18, 10);
    EXPECT(out[3], F32, 2, 9, 4, 18);
    /* A symbolic hidden size of V leaves Y's last dim unknown. */
    in[2] = SHP(F32, 2, 6, SYM_S);
    sn_init(&s, EM_OP_ATTENTION, "sym_hidden", 3, 1);
    sn_int(&s, "q_num_heads", 9);
    sn_int(&s, "kv_num_heads", 3);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 2, 4, UNK);
}

static void test_attention_errors(void **state)
{
    (void)state;
    sn s;
    em_shape in4[7] = {SHP(F32, 1, 4, 3, 8),
                       SHP(F32, 1, 2, 5, 8),
                       SHP(F32, 1, 2, 5, 8),
                       absent(),
                       absent(),
                       absent(),
                       absent()};
    em_shape in3[7] = {SHP(F32, 1, 3, 12),
                       SHP(F32, 1, 5, 12),
                       SHP(F32, 1, 5, 12),
                       absent(),
                       absent(),
                       absent(),
                       absent()};
    em_shape in[7];

    memcpy(in, in4, sizeof in);
    in[1] = SHP(F32, 1, 5, 8);
    sn_init(&s, EM_OP_ATTENTION, "mixed_ranks", 3, 1);
    infer_err(&s, in);
    sn_init(&s, EM_OP_ATTENTION, "no_heads_3d", 3, 1);
    infer_err(&s, in3);
    sn_init(&s, EM_OP_ATTENTION, "hidden_not_divisible", 3, 1);
    sn_int(&s, "q_num_heads", 5);
    sn_int(&s, "kv_num_heads", 2);
    infer_err(&s, in3);
    memcpy(in, in4, sizeof in);
    in[1] = SHP(F32, 1, 3, 5, 8);
    in[2] = SHP(F32, 1, 3, 5, 8);
    sn_init(&s, EM_OP_ATTENTION, "heads_4_over_3", 3, 1);
    infer_err(&s, in);
    memcpy(in, in4, sizeof in);
    in[1] = SHP(F32, 1, 2, 5, 7);
    sn_init(&s, EM_OP_ATTENTION, "head_size", 3, 1);
    infer_err(&s, in);
    memcpy(in, in4, sizeof in);
    in[4] = SHP(F32, 1, 2, 3, 8);
    sn_init(&s, EM_OP_ATTENTION, "past_key_alone", 5, 1);
    infer_err(&s, in);
    in[5] = SHP(F32, 1, 2, 3, 8);
    in[6] = SHP(I64, 1);
    sn_init(&s, EM_OP_ATTENTION, "nonpad_with_past", 7, 1);
    infer_err(&s, in);
    memcpy(in, in4, sizeof in);
    in[3] = SHP(F32, 1, 1, 1, 3, 5);
    sn_init(&s, EM_OP_ATTENTION, "mask_rank5", 4, 1);
    infer_err(&s, in);
}

static void test_norms_and_rotary(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    em_shape rin[2] = {SHP(F32, SYM_B, 3, 5), SHP(F64, 5)};
    sn_init(&s, EM_OP_RMSNORMALIZATION, "rms", 2, 1);
    infer_ok(&s, rin, out);
    EXPECT(out[0], F64, SYM_B, 3, 5); /* Y has the scale's dtype */
    sn_init(&s, EM_OP_RMSNORMALIZATION, "rms_axis", 2, 1);
    sn_int(&s, "axis", -4);
    infer_err(&s, rin);

    em_shape gin[3] = {SHP(F32, 2, 6, 4, 4), SHP(F32, 6), SHP(F32, 6)};
    sn_init(&s, EM_OP_GROUPNORMALIZATION, "gn", 3, 1);
    sn_int(&s, "num_groups", 3);
    infer_ok(&s, gin, out);
    EXPECT(out[0], F32, 2, 6, 4, 4);
    sn_init(&s, EM_OP_GROUPNORMALIZATION, "gn_divide", 3, 1);
    sn_int(&s, "num_groups", 4);
    infer_err(&s, gin);
    sn_init(&s, EM_OP_GROUPNORMALIZATION, "gn_missing", 3, 1);
    infer_err(&s, gin);
    gin[1] = SHP(F32, 3);
    sn_init(&s, EM_OP_GROUPNORMALIZATION, "gn_per_group", 3, 1);
    sn_int(&s, "num_groups", 3);
    infer_err(&s, gin);

    em_shape ropein[4] = {SHP(F16, 2, 5, 32), SHP(F16, 50, 4), SHP(F16, 50, 4), SHP(I64, 2, 5)};
    sn_init(&s, EM_OP_ROTARYEMBEDDING, "rope_3d", 4, 1);
    sn_int(&s, "num_heads", 4);
    infer_ok(&s, ropein, out);
    EXPECT(out[0], F16, 2, 5, 32);
    sn_init(&s, EM_OP_ROTARYEMBEDDING, "rope_3d_no_heads", 4, 1);
    infer_err(&s, ropein);
    sn_init(&s, EM_OP_ROTARYEMBEDDING, "rope_heads_divide", 4, 1);
    sn_int(&s, "num_heads", 5);
    infer_err(&s, ropein);
    ropein[3] = SHP(EMBER_DTYPE_I32, 2, 5);
    sn_init(&s, EM_OP_ROTARYEMBEDDING, "rope_pos_dtype", 4, 1);
    sn_int(&s, "num_heads", 4);
    infer_err(&s, ropein);
}

static void test_scatter_and_swiglu(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    em_shape tin[3] = {SHP(F32, 2, 3, 8, 4), SHP(F32, 2, 3, 2, 4), SHP(I64, 2)};
    sn_init(&s, EM_OP_TENSORSCATTER, "ts", 3, 1);
    infer_ok(&s, tin, out);
    EXPECT(out[0], F32, 2, 3, 8, 4);
    sn_init(&s, EM_OP_TENSORSCATTER, "ts_axis0", 3, 1);
    sn_int(&s, "axis", 0);
    infer_err(&s, tin);
    sn_init(&s, EM_OP_TENSORSCATTER, "ts_longer", 3, 1);
    sn_int(&s, "axis", 1);
    tin[1] = SHP(F32, 2, 4, 8, 4);
    infer_err(&s, tin);

    em_shape gin[2] = {SHP(F32, UNK, 4), SHP(F32, 3, 4)};
    sn_init(&s, EM_OP_SWIGLU, "swiglu", 2, 1);
    infer_ok(&s, gin, out);
    EXPECT(out[0], F32, 3, 4); /* B's known dim fills A's unknown one */
    gin[1] = SHP(F32, 1, 4);
    gin[0] = SHP(F32, 3, 4);
    sn_init(&s, EM_OP_SWIGLU, "swiglu_bcast", 2, 1);
    infer_err(&s, gin);
}

static void test_linear_and_conv(void **state)
{
    (void)state;
    sn s;
    em_shape out[2];
    em_shape lin[6] = {SHP(F16, SYM_B, SYM_S, 64), SHP(F16, SYM_B, SYM_S, 32),
                       SHP(F16, SYM_B, SYM_S, 40), SHP(F32, SYM_B, 4, 8, 10),
                       SHP(F16, SYM_B, SYM_S, 32), SHP(F16, SYM_B, SYM_S, 4)};
    sn_init(&s, EM_OP_LINEARATTENTION, "la", 6, 2);
    sn_int(&s, "q_num_heads", 8);
    sn_int(&s, "kv_num_heads", 4);
    infer_ok(&s, lin, out);
    EXPECT(out[0], F16, SYM_B, SYM_S, 80);
    EXPECT(out[1], F32, SYM_B, 4, 8, 10); /* past_state's dtype */
    sn_init(&s, EM_OP_LINEARATTENTION, "la_no_past", 3, 2);
    sn_int(&s, "q_num_heads", 8);
    sn_int(&s, "kv_num_heads", 4);
    infer_ok(&s, lin, out);
    assert_int_equal(out[1].dtype, F16);
    sn_init(&s, EM_OP_LINEARATTENTION, "la_heads", 3, 2);
    sn_int(&s, "q_num_heads", 6);
    sn_int(&s, "kv_num_heads", 4);
    infer_err(&s, lin);
    sn_init(&s, EM_OP_LINEARATTENTION, "la_dk", 3, 2);
    sn_int(&s, "q_num_heads", 4);
    sn_int(&s, "kv_num_heads", 4);
    infer_err(&s, lin); /* query's Dk 16, key's 8 */

    em_shape cin[4] = {SHP(F32, 2, 4, SYM_S), SHP(F32, 4, 1, 5), SHP(F32, 4), absent()};
    sn_init(&s, EM_OP_CAUSALCONVWITHSTATE, "cc", 3, 2);
    infer_ok(&s, cin, out);
    EXPECT(out[0], F32, 2, 4, SYM_S);
    EXPECT(out[1], F32, 2, 4, 4);
    cin[1] = SHP(F32, 3, 1, 5);
    sn_init(&s, EM_OP_CAUSALCONVWITHSTATE, "cc_channels", 3, 2);
    infer_err(&s, cin);
}

static void test_math_rows(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    em_shape bin[2] = {SHP(EMBER_DTYPE_U8, 3, 1, 5), SHP(EMBER_DTYPE_U8, 4, 1)};
    sn_init(&s, EM_OP_BITWISEAND, "and", 2, 1);
    infer_ok(&s, bin, out);
    EXPECT(out[0], EMBER_DTYPE_U8, 3, 4, 5);
    em_tensor t;
    int64_t axis = 1;
    em_shape cin[2] = {SHP(F32, SYM_B, 7), int_value(I64, &t, &axis)};
    sn_init(&s, EM_OP_CUMPROD, "cumprod", 2, 1);
    infer_ok(&s, cin, out);
    EXPECT(out[0], F32, SYM_B, 7);
    cin[1] = shp(F32, 0, NULL);
    sn_init(&s, EM_OP_CUMPROD, "cumprod_axis_dtype", 2, 1);
    infer_err(&s, cin);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attention_4d),       cmocka_unit_test(test_attention_3d),
        cmocka_unit_test(test_attention_errors),   cmocka_unit_test(test_norms_and_rotary),
        cmocka_unit_test(test_scatter_and_swiglu), cmocka_unit_test(test_linear_and_conv),
        cmocka_unit_test(test_math_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
