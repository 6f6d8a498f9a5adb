/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/shape/shape_nn.c (and the pools of shape_nn_base.c): the nn family's shape functions through
 * em_shape_infer_node. ConvTranspose (explicit pads, output_padding, output_shape, SAME_*,
 * VALID, group, symbolic batch, unknown weight shape); Resize (scales, sizes, empty scales of
 * Resize-11, axes, keep_aspect_ratio_policy, unknown values, symbols through scale 1); the
 * data-dependent NonMaxSuppression (count from the data, unknown without it, 0 without
 * max_output_boxes_per_class); GridSample, RoiAlign, MaxUnpool, the global pools and LpPool;
 * and the errors, each naming the node.
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

/* A constant of dtype dt over `data` (kept in *t). */
static em_shape value(em_tensor *t, ember_dtype dt, int rank, const int64_t *dims, const void *data)
{
    return with_value(shp(dt, rank, dims), t, data);
}

#define F32 EMBER_DTYPE_F32
#define I64 EMBER_DTYPE_I64

/* ---- ConvTranspose ------------------------------------------------------------------------- */

static void test_convtranspose(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    em_shape in[2] = {shp(F32, 4, DIMS(2, 3, 5, 4)), shp(F32, 4, DIMS(3, 2, 3, 3))};
    sn_init(&s, EM_OP_CONVTRANSPOSE, "plain", 2, 1);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 2, 2, 7, 6);
    /* strides 3 x 2, pads (1, 2, 1, 0), output_padding (1, 1), dilations (1, 2). */
    sn_init(&s, EM_OP_CONVTRANSPOSE, "attrs", 2, 1);
    sn_ints(&s, "strides", DIMS(3, 2), 2);
    sn_ints(&s, "pads", DIMS(1, 2, 1, 0), 4);
    sn_ints(&s, "output_padding", DIMS(1, 1), 2);
    sn_ints(&s, "dilations", DIMS(1, 2), 2);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 2, 2, 3 * 4 + 1 + 3 - 2, 2 * 3 + 1 + 5 - 2);
    /* output_shape wins; SAME_* give in * stride; VALID ignores pads. */
    sn_init(&s, EM_OP_CONVTRANSPOSE, "oshape", 2, 1);
    sn_ints(&s, "output_shape", DIMS(10, 8), 2);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 2, 2, 10, 8);
    sn_init(&s, EM_OP_CONVTRANSPOSE, "oshape_full", 2, 1);
    sn_ints(&s, "output_shape", DIMS(2, 2, 10, 8), 4);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 2, 2, 10, 8);
    sn_init(&s, EM_OP_CONVTRANSPOSE, "same", 2, 1);
    sn_str(&s, "auto_pad", "SAME_LOWER");
    sn_ints(&s, "strides", DIMS(2, 3), 2);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 2, 2, 10, 12);
    sn_init(&s, EM_OP_CONVTRANSPOSE, "valid", 2, 1);
    sn_str(&s, "auto_pad", "VALID");
    sn_ints(&s, "pads", DIMS(1, 1, 1, 1), 4);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 2, 2, 7, 6);
    /* group 3: W [3, 2, ...] gives 6 output channels. */
    sn_init(&s, EM_OP_CONVTRANSPOSE, "group", 2, 1);
    sn_int(&s, "group", 3);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 2, 6, 7, 6);
}

static void test_convtranspose_symbolic(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    em_shape in[2] = {shp(F32, 3, DIMS(-1, 3, -1)), shp(F32, 3, DIMS(3, 4, 3))};
    in[0].dims[0].sym = 7;
    sn_init(&s, EM_OP_CONVTRANSPOSE, "sym", 2, 1);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, -1, 4, -1);
    assert_int_equal(out[0].dims[0].sym, 7);
    /* Unknown weight rank: unknown output rank. */
    in[1] = shp(F32, -1, NULL);
    infer_ok(&s, in, out);
    assert_int_equal(out[0].rank, -1);
    /* Unknown kernel size: unknown spatial dim unless output_shape says it. */
    in[1] = shp(F32, 3, DIMS(3, 4, -1));
    in[0].dims[2].v = 5;
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, -1, 4, -1);
    sn_ints(&s, "output_shape", DIMS(9), 1);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, -1, 4, 9);
}

static void test_convtranspose_errors(void **state)
{
    (void)state;
    sn s;
    em_shape in[2] = {shp(F32, 4, DIMS(1, 3, 5, 5)), shp(F32, 4, DIMS(3, 2, 3, 3))};
    em_shape bad_rank[2] = {shp(F32, 2, DIMS(1, 3)), shp(F32, 2, DIMS(3, 2))};
    em_shape bad_w[2] = {shp(F32, 4, DIMS(1, 3, 5, 5)), shp(F32, 3, DIMS(3, 2, 3))};
    em_shape bad_c[2] = {shp(F32, 4, DIMS(1, 4, 5, 5)), shp(F32, 4, DIMS(3, 2, 3, 3))};
    sn_init(&s, EM_OP_CONVTRANSPOSE, "ct_rank", 2, 1);
    infer_err(&s, bad_rank);
    sn_init(&s, EM_OP_CONVTRANSPOSE, "ct_w_rank", 2, 1);
    infer_err(&s, bad_w);
    sn_init(&s, EM_OP_CONVTRANSPOSE, "ct_channels", 2, 1);
    infer_err(&s, bad_c);
    sn_init(&s, EM_OP_CONVTRANSPOSE, "ct_group", 2, 1);
    sn_int(&s, "group", 2);
    infer_err(&s, in);
    sn_init(&s, EM_OP_CONVTRANSPOSE, "ct_strides", 2, 1);
    sn_ints(&s, "strides", DIMS(1, 0), 2);
    infer_err(&s, in);
    sn_init(&s, EM_OP_CONVTRANSPOSE, "ct_oshape_len", 2, 1);
    sn_ints(&s, "output_shape", DIMS(1, 2, 3), 3);
    infer_err(&s, in);
    sn_init(&s, EM_OP_CONVTRANSPOSE, "ct_kernel_shape", 2, 1);
    sn_ints(&s, "kernel_shape", DIMS(2, 3), 2);
    infer_err(&s, in);
    sn_init(&s, EM_OP_CONVTRANSPOSE, "ct_pads_too_big", 2, 1);
    sn_ints(&s, "pads", DIMS(5, 5, 5, 5), 4);
    infer_err(&s, in);
}

/* ---- Resize -------------------------------------------------------------------------------- */

static void test_resize(void **state)
{
    (void)state;
    sn s;
    em_tensor tv, tv2;
    em_shape out[1];
    em_shape x = shp(F32, 4, DIMS(-1, 3, 4, 10));
    x.dims[0].sym = 3;
    static const float sc[4] = {1.0f, 1.0f, 2.0f, 0.7f};
    /* Scales: floor(in * scale) in float: 10 * 0.7f is 7 (6.99999988 in double). */
    sn_init(&s, EM_OP_RESIZE, "scales", 3, 1);
    em_shape in[4] = {x, absent(), value(&tv, F32, 1, DIMS(4), sc), absent()};
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, -1, 3, 8, 7);
    assert_int_equal(out[0].dims[0].sym, 3);
    /* Sizes, with an empty scales (Resize-11). */
    static const int64_t sz[4] = {2, 3, 5, 1};
    sn_init(&s, EM_OP_RESIZE, "sizes", 4, 1);
    in[2] = value(&tv2, F32, 1, DIMS(0), NULL);
    in[3] = value(&tv, I64, 1, DIMS(4), sz);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 2, 3, 5, 1);
    /* Axes [3, 2] with two sizes. */
    static const int64_t sz2[2] = {5, 6};
    sn_init(&s, EM_OP_RESIZE, "axes", 4, 1);
    sn_ints(&s, "axes", DIMS(3, -2), 2);
    in[2] = absent();
    in[3] = value(&tv, I64, 1, DIMS(2), sz2);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, -1, 3, 6, 5);
    /* keep_aspect_ratio_policy: the smaller (larger) scale for every listed axis. */
    static const int64_t sz3[2] = {7, 8};
    em_shape x2 = shp(F32, 4, DIMS(1, 1, 4, 6));
    em_shape in2[4] = {x2, absent(), absent(), value(&tv, I64, 1, DIMS(2), sz3)};
    sn_init(&s, EM_OP_RESIZE, "not_larger", 4, 1);
    sn_ints(&s, "axes", DIMS(2, 3), 2);
    sn_str(&s, "keep_aspect_ratio_policy", "not_larger");
    infer_ok(&s, in2, out);
    EXPECT(out[0], F32, 1, 1, 5, 8);
    sn_init(&s, EM_OP_RESIZE, "not_smaller", 4, 1);
    sn_ints(&s, "axes", DIMS(2, 3), 2);
    sn_str(&s, "keep_aspect_ratio_policy", "not_smaller");
    infer_ok(&s, in2, out);
    EXPECT(out[0], F32, 1, 1, 7, 11);
    /* Values not known: the rank stays, the resized dims are unknown. */
    sn_init(&s, EM_OP_RESIZE, "unknown", 3, 1);
    sn_ints(&s, "axes", DIMS(2), 1);
    em_shape in3[3] = {x, absent(), shp(F32, 1, DIMS(1))};
    infer_ok(&s, in3, out);
    EXPECT(out[0], F32, -1, 3, -1, 10);
}

static void test_resize_errors(void **state)
{
    (void)state;
    sn s;
    em_tensor t1, t2;
    static const float sc[4] = {1, 1, 2, 2}, neg[4] = {1, 1, -2, 2};
    static const int64_t sz[4] = {1, 1, 4, 4}, szneg[4] = {1, 1, -4, 4};
    em_shape x = shp(F32, 4, DIMS(1, 1, 2, 2));
    em_shape neither[4] = {x, absent(), absent(), absent()};
    sn_init(&s, EM_OP_RESIZE, "rz_neither", 4, 1);
    infer_err(&s, neither);
    em_shape both[4] = {x, absent(), value(&t1, F32, 1, DIMS(4), sc),
                        value(&t2, I64, 1, DIMS(4), sz)};
    sn_init(&s, EM_OP_RESIZE, "rz_both", 4, 1);
    infer_err(&s, both);
    em_shape short_scales[3] = {x, absent(), value(&t1, F32, 1, DIMS(3), sc)};
    sn_init(&s, EM_OP_RESIZE, "rz_scales_len", 3, 1);
    infer_err(&s, short_scales);
    em_shape neg_scales[3] = {x, absent(), value(&t1, F32, 1, DIMS(4), neg)};
    sn_init(&s, EM_OP_RESIZE, "rz_scales_neg", 3, 1);
    infer_err(&s, neg_scales);
    em_shape neg_sizes[4] = {x, absent(), absent(), value(&t2, I64, 1, DIMS(4), szneg)};
    sn_init(&s, EM_OP_RESIZE, "rz_sizes_neg", 4, 1);
    infer_err(&s, neg_sizes);
    em_shape f_sizes[4] = {x, absent(), absent(), value(&t2, F32, 1, DIMS(4), sc)};
    sn_init(&s, EM_OP_RESIZE, "rz_sizes_dtype", 4, 1);
    infer_err(&s, f_sizes);
    em_shape ok[3] = {x, absent(), value(&t1, F32, 1, DIMS(4), sc)};
    sn_init(&s, EM_OP_RESIZE, "rz_axes_range", 3, 1);
    sn_ints(&s, "axes", DIMS(0, 1, 2, 4), 4);
    infer_err(&s, ok);
    sn_init(&s, EM_OP_RESIZE, "rz_axes_repeat", 3, 1);
    sn_ints(&s, "axes", DIMS(0, 1, 2, -2), 4);
    infer_err(&s, ok);
    em_shape sizes[4] = {x, absent(), absent(), value(&t2, I64, 1, DIMS(4), sz)};
    sn_init(&s, EM_OP_RESIZE, "rz_policy", 4, 1);
    sn_str(&s, "keep_aspect_ratio_policy", "fit");
    infer_err(&s, sizes);
}

/* ---- NonMaxSuppression (data-dependent) and RoiAlign ------------------------------------------
 */

static const float nms_boxes[24] = {0.0f, 0.0f,  1.0f, 1.0f,  0.0f, 0.1f,   1.0f, 1.1f,
                                    0.0f, -0.1f, 1.0f, 0.9f,  0.0f, 10.0f,  1.0f, 11.0f,
                                    0.0f, 10.1f, 1.0f, 11.1f, 0.0f, 100.0f, 1.0f, 101.0f};
static const float nms_scores[6] = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f};

static void test_nms(void **state)
{
    (void)state;
    sn s;
    em_tensor tb, ts, tm, ti, tsc;
    em_shape out[1];
    static const int64_t max3 = 3, max2 = 2;
    static const float iou = 0.5f, score = 0.0f, score4 = 0.4f;
    em_shape in[5] = {value(&tb, F32, 3, DIMS(1, 6, 4), nms_boxes),
                      value(&ts, F32, 3, DIMS(1, 1, 6), nms_scores),
                      value(&tm, I64, 1, DIMS(1), &max3), value(&ti, F32, 1, DIMS(1), &iou),
                      value(&tsc, F32, 1, DIMS(1), &score)};
    /* ONNX's suppress_by_IOU: 3 boxes; with score_threshold 0.4: 2; at most 2 per class: 2. */
    sn_init(&s, EM_OP_NONMAXSUPPRESSION, "nms", 5, 1);
    infer_ok(&s, in, out);
    EXPECT(out[0], I64, 3, 3);
    in[4] = value(&tsc, F32, 0, NULL, &score4);
    infer_ok(&s, in, out);
    EXPECT(out[0], I64, 2, 3);
    in[2] = value(&tm, I64, 1, DIMS(1), &max2);
    in[4] = absent();
    sn_init(&s, EM_OP_NONMAXSUPPRESSION, "nms4", 4, 1);
    infer_ok(&s, in, out);
    EXPECT(out[0], I64, 2, 3);
    /* A value not known (scores at run time): the count is unknown. */
    in[1] = shp(F32, 3, DIMS(1, 1, 6));
    infer_ok(&s, in, out);
    EXPECT(out[0], I64, -1, 3);
    /* No max_output_boxes_per_class: nothing is selected, whatever the data. */
    sn_init(&s, EM_OP_NONMAXSUPPRESSION, "nms2", 2, 1);
    infer_ok(&s, in, out);
    EXPECT(out[0], I64, 0, 3);
}

static void test_nms_errors(void **state)
{
    (void)state;
    sn s;
    em_tensor tb, ts, tm;
    static const float fmax3 = 3.0f;
    em_shape rank2[2] = {shp(F32, 2, DIMS(6, 4)), shp(F32, 3, DIMS(1, 1, 6))};
    sn_init(&s, EM_OP_NONMAXSUPPRESSION, "nms_rank", 2, 1);
    infer_err(&s, rank2);
    em_shape box5[2] = {shp(F32, 3, DIMS(1, 6, 5)), shp(F32, 3, DIMS(1, 1, 6))};
    sn_init(&s, EM_OP_NONMAXSUPPRESSION, "nms_box5", 2, 1);
    infer_err(&s, box5);
    em_shape mismatch[2] = {shp(F32, 3, DIMS(1, 6, 4)), shp(F32, 3, DIMS(1, 1, 7))};
    sn_init(&s, EM_OP_NONMAXSUPPRESSION, "nms_mismatch", 2, 1);
    infer_err(&s, mismatch);
    em_shape ok[2] = {shp(F32, 3, DIMS(1, 6, 4)), shp(F32, 3, DIMS(1, 1, 6))};
    sn_init(&s, EM_OP_NONMAXSUPPRESSION, "nms_cpb", 2, 1);
    sn_int(&s, "center_point_box", 2);
    infer_err(&s, ok);
    em_shape fmax[3] = {value(&tb, F32, 3, DIMS(1, 6, 4), nms_boxes),
                        value(&ts, F32, 3, DIMS(1, 1, 6), nms_scores),
                        value(&tm, F32, 1, DIMS(1), &fmax3)};
    sn_init(&s, EM_OP_NONMAXSUPPRESSION, "nms_max_dtype", 3, 1);
    infer_err(&s, fmax);
}

/* Through the graph: constant boxes and scores make the row count known at load time. */
static void test_nms_graph(void **state)
{
    (void)state;
    em_graph *g = NULL;
    int b, sc, m, node;
    static const int64_t bd[3] = {1, 6, 4}, sd[3] = {1, 1, 6}, md = 1, max3 = 3;
    assert_null(em_graph_new(test_allocator(), &g));
    assert_null(em_graph_add_initializer_copy(g, "boxes", F32, 3, bd, nms_boxes, &b));
    assert_null(em_graph_add_initializer_copy(g, "scores", F32, 3, sd, nms_scores, &sc));
    assert_null(em_graph_add_initializer_copy(g, "max", I64, 1, &md, &max3, &m));
    const int in[3] = {b, sc, m};
    const char *const outs[1] = {"selected"};
    assert_null(em_graph_add_node(g, EM_OP_NONMAXSUPPRESSION, "nms", in, 3, outs, 1, &node));
    assert_null(em_graph_infer_shapes(g));
    const em_value *v = &g->values[em_graph_find_value(g, "selected")];
    assert_int_equal(v->dtype, I64);
    assert_int_equal(v->rank, 2);
    /* iou_threshold absent is 0: every overlapping box is suppressed. */
    assert_int_equal(v->dims[0].v, 3);
    assert_int_equal(v->dims[1].v, 3);
    em_graph_destroy(g);
}

static void test_roialign(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    em_shape in[3] = {shp(F32, 4, DIMS(2, 5, 10, 10)), shp(F32, 2, DIMS(-1, 4)),
                      shp(I64, 1, DIMS(-1))};
    in[1].dims[0].sym = 9;
    sn_init(&s, EM_OP_ROIALIGN, "roi", 3, 1);
    sn_int(&s, "output_height", 3);
    sn_int(&s, "output_width", 7);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, -1, 5, 3, 7);
    assert_int_equal(out[0].dims[0].sym, 9);
    sn_init(&s, EM_OP_ROIALIGN, "roi_default", 3, 1);
    in[2] = shp(I64, 1, DIMS(4));
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 4, 5, 1, 1);
    em_shape bad[3] = {shp(F32, 3, DIMS(2, 5, 10)), shp(F32, 2, DIMS(4, 4)), shp(I64, 1, DIMS(4))};
    sn_init(&s, EM_OP_ROIALIGN, "roi_rank", 3, 1);
    infer_err(&s, bad);
    em_shape len[3] = {shp(F32, 4, DIMS(2, 5, 10, 10)), shp(F32, 2, DIMS(4, 4)),
                       shp(I64, 1, DIMS(3))};
    sn_init(&s, EM_OP_ROIALIGN, "roi_len", 3, 1);
    infer_err(&s, len);
    sn_init(&s, EM_OP_ROIALIGN, "roi_out0", 3, 1);
    sn_int(&s, "output_width", 0);
    infer_err(&s, in);
}

/* ---- GridSample, MaxUnpool, the pools ----------------------------------------------------------
 */

static void test_gridsample(void **state)
{
    (void)state;
    sn s;
    em_shape out[1];
    em_shape in[2] = {shp(F32, 5, DIMS(2, 3, 4, 5, 6)),
                      shp(EMBER_DTYPE_F64, 5, DIMS(-1, -1, 8, 9, 3))};
    in[1].dims[1].sym = 4;
    sn_init(&s, EM_OP_GRIDSAMPLE, "gs", 2, 1);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 2, 3, -1, 8, 9);
    assert_int_equal(out[0].dims[2].sym, 4);
    em_shape last[2] = {shp(F32, 4, DIMS(1, 3, 4, 5)), shp(F32, 4, DIMS(1, 6, 6, 3))};
    sn_init(&s, EM_OP_GRIDSAMPLE, "gs_last", 2, 1);
    infer_err(&s, last);
    em_shape rank[2] = {shp(F32, 4, DIMS(1, 3, 4, 5)), shp(F32, 3, DIMS(1, 6, 2))};
    sn_init(&s, EM_OP_GRIDSAMPLE, "gs_rank", 2, 1);
    infer_err(&s, rank);
    em_shape batch[2] = {shp(F32, 4, DIMS(2, 3, 4, 5)), shp(F32, 4, DIMS(3, 6, 6, 2))};
    sn_init(&s, EM_OP_GRIDSAMPLE, "gs_batch", 2, 1);
    infer_err(&s, batch);
}

static void test_maxunpool(void **state)
{
    (void)state;
    sn s;
    em_tensor tv;
    em_shape out[1];
    em_shape in[3] = {shp(F32, 4, DIMS(1, 2, 3, 4)), shp(I64, 4, DIMS(1, 2, 3, 4)), absent()};
    sn_init(&s, EM_OP_MAXUNPOOL, "unpool", 2, 1);
    sn_ints(&s, "kernel_shape", DIMS(3, 2), 2);
    sn_ints(&s, "strides", DIMS(2, 2), 2);
    sn_ints(&s, "pads", DIMS(1, 0, 0, 1), 4);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 1, 2, 2 * 2 + 3 - 1, 3 * 2 + 2 - 1);
    static const int64_t os[4] = {1, 2, 7, 9};
    in[2] = value(&tv, I64, 1, DIMS(4), os);
    sn_init(&s, EM_OP_MAXUNPOOL, "unpool_os", 3, 1);
    sn_ints(&s, "kernel_shape", DIMS(2, 2), 2);
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 1, 2, 7, 9);
    in[2] = shp(I64, 1, DIMS(4));
    infer_ok(&s, in, out);
    EXPECT(out[0], F32, 1, 2, -1, -1);
    sn_init(&s, EM_OP_MAXUNPOOL, "unpool_no_kernel", 2, 1);
    infer_err(&s, in);
    static const int64_t bad[4] = {1, 3, 7, 9};
    in[2] = value(&tv, I64, 1, DIMS(4), bad);
    sn_init(&s, EM_OP_MAXUNPOOL, "unpool_os_channels", 3, 1);
    sn_ints(&s, "kernel_shape", DIMS(2, 2), 2);
    infer_err(&s, in);
}

static void test_pools(void **state)
{
    (void)state;
    sn s;
    em_shape out[2];
    em_shape x = shp(EMBER_DTYPE_F16, 4, DIMS(-1, 3, 9, 8));
    x.dims[0].sym = 2;
    static const em_op globals[3] = {EM_OP_GLOBALMAXPOOL, EM_OP_GLOBALLPPOOL,
                                     EM_OP_GLOBALAVERAGEPOOL};
    for (int i = 0; i < 3; i++) {
        sn_init(&s, globals[i], "global", 1, 1);
        infer_ok(&s, &x, out);
        EXPECT(out[0], EMBER_DTYPE_F16, -1, 3, 1, 1);
        assert_int_equal(out[0].dims[0].sym, 2);
    }
    /* LpPool-18 with dilations and ceil_mode. */
    sn_init(&s, EM_OP_LPPOOL, "lp", 1, 1);
    sn_ints(&s, "kernel_shape", DIMS(2, 3), 2);
    sn_ints(&s, "strides", DIMS(2, 2), 2);
    sn_ints(&s, "dilations", DIMS(2, 1), 2);
    sn_int(&s, "ceil_mode", 1);
    infer_ok(&s, &x, out);
    EXPECT(out[0], EMBER_DTYPE_F16, -1, 3, 4, 4);
    /* MaxPool's Indices output: Y's shape, int64. */
    sn_init(&s, EM_OP_MAXPOOL, "mp_indices", 1, 2);
    sn_ints(&s, "kernel_shape", DIMS(3, 3), 2);
    infer_ok(&s, &x, out);
    EXPECT(out[0], EMBER_DTYPE_F16, -1, 3, 7, 6);
    EXPECT(out[1], I64, -1, 3, 7, 6);
    sn_init(&s, EM_OP_LPPOOL, "lp_no_kernel", 1, 1);
    infer_err(&s, &x);
}

/* ---- Col2Im, CenterCropPad, AffineGrid, DeformConv ---------------------------------------------
 */

static void test_newer_ops(void **state)
{
    (void)state;
    sn s;
    em_tensor t1, t2;
    em_shape out[1];
    static const int64_t img[2] = {5, 6}, blk[2] = {2, 3}, sz[4] = {2, 3, 7, 9};
    em_shape c2i[3] = {shp(F32, 3, DIMS(2, 12, 20)), value(&t1, I64, 1, DIMS(2), img),
                       value(&t2, I64, 1, DIMS(2), blk)};
    sn_init(&s, EM_OP_COL2IM, "col2im", 3, 1);
    infer_ok(&s, c2i, out);
    EXPECT(out[0], F32, 2, 2, 5, 6);
    c2i[2] = shp(I64, 1, DIMS(2)); /* block_shape unknown: C unknown */
    infer_ok(&s, c2i, out);
    EXPECT(out[0], F32, 2, -1, 5, 6);
    c2i[0] = shp(F32, 3, DIMS(2, 13, 20));
    c2i[2] = value(&t2, I64, 1, DIMS(2), blk);
    sn_init(&s, EM_OP_COL2IM, "col2im_channels", 3, 1);
    infer_err(&s, c2i);
    /* CenterCropPad on axes [-1, 0]. */
    static const int64_t sh[2] = {4, 7};
    em_shape ccp[2] = {shp(EMBER_DTYPE_U8, 3, DIMS(5, -1, 9)), value(&t1, I64, 1, DIMS(2), sh)};
    ccp[0].dims[1].sym = 5;
    sn_init(&s, EM_OP_CENTERCROPPAD, "ccp", 2, 1);
    sn_ints(&s, "axes", DIMS(-1, 0), 2);
    infer_ok(&s, ccp, out);
    EXPECT(out[0], EMBER_DTYPE_U8, 7, -1, 4);
    assert_int_equal(out[0].dims[1].sym, 5);
    sn_init(&s, EM_OP_CENTERCROPPAD, "ccp_len", 2, 1);
    infer_err(&s, ccp);
    /* AffineGrid: [N, H, W, 2] from size; theta must match. */
    em_shape ag[2] = {shp(F32, 3, DIMS(2, 2, 3)), value(&t1, I64, 1, DIMS(4), sz)};
    sn_init(&s, EM_OP_AFFINEGRID, "affine", 2, 1);
    infer_ok(&s, ag, out);
    EXPECT(out[0], F32, 2, 7, 9, 2);
    ag[1] = shp(I64, 1, DIMS(5));
    sn_init(&s, EM_OP_AFFINEGRID, "affine_theta", 2, 1);
    infer_err(&s, ag);
    /* DeformConv: the convolution's output size. */
    em_shape dc[3] = {shp(F32, 4, DIMS(1, 4, 7, 8)), shp(F32, 4, DIMS(6, 2, 3, 3)),
                      shp(F32, 4, DIMS(1, 18, -1, -1))};
    sn_init(&s, EM_OP_DEFORMCONV, "deform", 3, 1);
    sn_int(&s, "group", 2);
    sn_ints(&s, "strides", DIMS(2, 1), 2);
    sn_ints(&s, "pads", DIMS(1, 1, 1, 1), 4);
    infer_ok(&s, dc, out);
    EXPECT(out[0], F32, 1, 6, 4, 8);
    dc[2] = shp(F32, 4, DIMS(1, 18, 5, 8));
    infer_err(&s, dc);
    sn_init(&s, EM_OP_DEFORMCONV, "deform_group", 3, 1);
    infer_err(&s, dc);
}

/* Attributes and dims near INT64_MAX: each window rule reports the node instead of wrapping
 * (UBSan found the Conv and MaxUnpool sums by fuzzing). */
static void test_window_overflow(void **state)
{
    (void)state;
    sn s;
    em_shape out[2];
    const int64_t big = INT64_MAX;
    em_shape x = shp(F32, 4, DIMS(1, 3, 8, 8)), huge = shp(F32, 4, DIMS(1, 3, big, 8));
    em_shape conv[2] = {x, shp(F32, 4, DIMS(4, 3, 3, 3))};
    sn_init(&s, EM_OP_CONV, "conv_pads", 2, 1);
    sn_ints(&s, "pads", DIMS(big, 0, big, 0), 4);
    infer_err(&s, conv);
    sn_init(&s, EM_OP_CONV, "conv_dilation", 2, 1);
    sn_ints(&s, "dilations", DIMS(big, 1), 2);
    infer_err(&s, conv);
    conv[0] = huge;
    sn_init(&s, EM_OP_CONV, "conv_huge_input", 2, 1);
    sn_ints(&s, "pads", DIMS(2, 0, 2, 0), 4);
    infer_err(&s, conv);
    /* ceil_mode on a dim near the top: the last-window check must not wrap either. */
    em_shape top = shp(F32, 3, DIMS(1, 1, big - 4));
    sn_init(&s, EM_OP_MAXPOOL, "mp_ceil_top", 1, 1);
    sn_ints(&s, "kernel_shape", DIMS(2), 1);
    sn_ints(&s, "strides", DIMS(3), 1);
    sn_int(&s, "ceil_mode", 1);
    infer_ok(&s, &top, out);
    EXPECT(out[0], F32, 1, 1, (big - 6) / 3 + 1); /* the ceil window would start past the end */
    sn_init(&s, EM_OP_MAXPOOL, "mp_kernel", 1, 1);
    sn_ints(&s, "kernel_shape", DIMS(big, 2), 2);
    sn_ints(&s, "dilations", DIMS(2, 1), 2);
    infer_err(&s, &x);
    em_shape ct[2] = {x, shp(F32, 4, DIMS(3, 2, 3, 3))};
    sn_init(&s, EM_OP_CONVTRANSPOSE, "ct_strides_big", 2, 1);
    sn_ints(&s, "strides", DIMS(big, 1), 2);
    infer_err(&s, ct);
    sn_init(&s, EM_OP_CONVTRANSPOSE, "ct_pads_low", 2, 1);
    sn_ints(&s, "pads", DIMS(INT64_MIN, INT64_MIN, 0, 0), 4);
    infer_err(&s, ct);
    em_shape up[2] = {x, shp(I64, 4, DIMS(1, 3, 8, 8))};
    sn_init(&s, EM_OP_MAXUNPOOL, "unpool_big", 2, 1);
    sn_ints(&s, "kernel_shape", DIMS(2, 2), 2);
    sn_ints(&s, "strides", DIMS(big, 2), 2);
    infer_err(&s, up);
    sn_init(&s, EM_OP_MAXUNPOOL, "unpool_kernel_big", 2, 1);
    sn_ints(&s, "kernel_shape", DIMS(big, 2), 2);
    sn_ints(&s, "strides", DIMS(2, 2), 2);
    infer_err(&s, up);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_convtranspose),
        cmocka_unit_test(test_convtranspose_symbolic),
        cmocka_unit_test(test_convtranspose_errors),
        cmocka_unit_test(test_resize),
        cmocka_unit_test(test_resize_errors),
        cmocka_unit_test(test_nms),
        cmocka_unit_test(test_nms_errors),
        cmocka_unit_test(test_nms_graph),
        cmocka_unit_test(test_roialign),
        cmocka_unit_test(test_gridsample),
        cmocka_unit_test(test_maxunpool),
        cmocka_unit_test(test_pools),
        cmocka_unit_test(test_newer_ops),
        cmocka_unit_test(test_window_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
