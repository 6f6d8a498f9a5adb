/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/shape/shape_ml.c: ArrayFeatureExtractor (last dim replaced by the index count, 1-D X as
 * [1, n], symbols kept), LabelEncoder (X's shape, the values' dtype) and TreeEnsemble
 * ([N, n_targets]), with their errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_shape_util.h"

static void test_array_feature_extractor(void **state)
{
    (void)state;
    sn s;
    em_shape in[2], out[1];
    sn_init(&s, EM_OP_ARRAYFEATUREEXTRACTOR, "afe", 2, 1);
    in[0] = SHP(EMBER_DTYPE_F32, -2, 3, 7); /* [N, 3, 7] with N symbolic */
    in[1] = SHP(EMBER_DTYPE_I64, 1, 4);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, -2, 3, 4);
    in[0] = SHP(EMBER_DTYPE_I32, 5);
    in[1] = SHP(EMBER_DTYPE_I64, 2);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I32, 1, 2);
    in[1] = SHP(EMBER_DTYPE_I32, 2);
    infer_err(&s, in);
    in[0] = shp(EMBER_DTYPE_F32, 0, NULL); /* a scalar X has no feature axis */
    in[1] = SHP(EMBER_DTYPE_I64, 2);
    infer_err(&s, in);
}

static void test_label_encoder(void **state)
{
    (void)state;
    sn s;
    em_shape in[1], out[1];
    in[0] = SHP(EMBER_DTYPE_I64, -3, 5);
    sn_init(&s, EM_OP_LABELENCODER, "le", 1, 1);
    sn_ints(&s, "keys_int64s", DIMS(1, 2), 2);
    sn_ints(&s, "values_int64s", DIMS(3, 4), 2);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I64, -3, 5);
    sn_init(&s, EM_OP_LABELENCODER, "le", 1, 1);
    sn_ints(&s, "keys_int64s", DIMS(1, 2), 2);
    sn_attr(&s, "values_floats", EM_ATTR_FLOATS);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F32, -3, 5);
    sn_init(&s, EM_OP_LABELENCODER, "le", 1, 1);
    sn_ints(&s, "keys_int64s", DIMS(1, 2), 2);
    em_attr *vt = sn_attr(&s, "values_tensor", EM_ATTR_TENSOR);
    vt->t.dtype = EMBER_DTYPE_I16;
    vt->t.rank = 1;
    vt->t.dims[0] = 2;
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_I16, -3, 5);
    sn_init(&s, EM_OP_LABELENCODER, "le", 1, 1);
    sn_ints(&s, "keys_int64s", DIMS(1, 2), 2);
    infer_err(&s, in); /* no values */
}

static void test_tree_ensemble(void **state)
{
    (void)state;
    sn s;
    em_shape in[1], out[1];
    sn_init(&s, EM_OP_TREEENSEMBLE, "trees", 1, 1);
    sn_int(&s, "n_targets", 3);
    in[0] = SHP(EMBER_DTYPE_F64, -2, 6);
    infer_ok(&s, in, out);
    EXPECT(out[0], EMBER_DTYPE_F64, -2, 3);
    in[0] = SHP(EMBER_DTYPE_I64, 4, 6);
    infer_err(&s, in);
    in[0] = SHP(EMBER_DTYPE_F32, 4, 6, 1);
    infer_err(&s, in);
    sn_init(&s, EM_OP_TREEENSEMBLE, "trees", 1, 1); /* no n_targets */
    in[0] = SHP(EMBER_DTYPE_F32, 4, 6);
    infer_err(&s, in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_array_feature_extractor),
        cmocka_unit_test(test_label_encoder),
        cmocka_unit_test(test_tree_ensemble),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
