/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Calibration: the range [lo, hi] of one tensor's values over a calibration set, chosen by one
 * of four methods, for the quantizer to turn into a scale and zero point.
 *
 * A collector (em_calib) takes the tensor's values batch by batch (em_calib_add) and keeps, in
 * memory bounded by its bin count and independent of the number of samples:
 *   - the exact min and max, and the sums of each batch's min and max (moving average);
 *   - a histogram of the values, on bins symmetric around 0 that cover [-T, T] with T the
 *     largest |x| so far: ONNX Runtime's HistogramCollector.collect_value (entropy, asymmetric
 *     percentile) and the histogram mse searches;
 *   - a histogram of |x|, from the first batch's smallest |x| to the largest so far: ORT's
 *     collect_absolute_value (symmetric percentile, ORT's default for percentile).
 * Both grow as ORT's do when a batch goes past them: bins of the same width are added at the
 * ends, so counts never move between bins. Where ORT would keep adding bins without limit (one
 * huge outlier), ember merges neighbouring pairs of bins once a histogram would hold more than
 * EM_CALIB_CAP times its starting count: memory stays bounded (by default 2 * 2048 + 2048 bins
 * of 8 bytes to start, eight times that at most), counts stay exact, and the width doubles. A
 * coarser histogram limits entropy most: its narrowest window is `levels` bins wide.
 *
 * em_calib_range then picks the range:
 *   minmax      the exact min and max (ORT's MinMaxCalibrater); with moving_average, the mean of
 *               each batch's min and max (what ORT's moving_average gives within one
 *               calibration: nanmean over the batches' ReduceMin / ReduceMax); with symmetric,
 *               (-amax, amax).
 *   percentile  ORT's compute_percentile: symmetric on the |x| histogram (-e, e) with e the left
 *               edge of the bin where the cumulative distribution reaches `percentile`; else the
 *               value histogram cut by (100 - percentile) / 2 on each side; clipped to the min
 *               and max.
 *   entropy     ORT's EntropyCalibrater: get_entropy_threshold (TensorRT's KL-divergence search
 *               as MXNet wrote it) on the histogram quantize_static makes, `bins` bins over
 *               [-T, T] (T the largest |x|) of all calibration values at once (one collect;
 *               ORT's defaults num_bins = num_quantized_bins = 128). For each window of 2i + 1
 *               bins around 0, the KL divergence between the clipped distribution and its
 *               quantization to `levels` bins; the window of least divergence, clipped to the
 *               min and max. With bins == levels there is one window: the min and max. ember
 *               rebuilds that histogram from its finer value histogram (exact when the edges
 *               line up: one batch, power-of-two bins; otherwise a fine bin that straddles a
 *               coarse edge is split in proportion). bins = 0 searches the value histogram as
 *               it grew batch by batch instead (ORT's merge_histogram, which ORT reaches only
 *               with CalibStridedMinMax; with 2 x 2048 bins and 256 levels, TensorRT's scale).
 *   mse         PyTorch HistogramObserver's _non_linear_param_search (caffe2's norm
 *               minimization): the value histogram's occupied bins, shrunk from the side holding
 *               less mass while the L2 error of quantizing to `levels` steps falls.
 * Every range has lo <= hi; callers widen it to hold 0 when they make a zero point.
 *
 * Not thread-safe per collector: give each thread its own and em_calib_merge them.
 */
#ifndef EMBER_QUANTIZATION_CALIB_H
#define EMBER_QUANTIZATION_CALIB_H

#include "ember.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* X(enumerator, name): the methods, in the order of the issue's --method list. */
#define EM_CALIB_METHODS(X)                                                                        \
    X(EM_CALIB_MINMAX, "minmax")                                                                   \
    X(EM_CALIB_PERCENTILE, "percentile")                                                           \
    X(EM_CALIB_ENTROPY, "entropy")                                                                 \
    X(EM_CALIB_MSE, "mse")

typedef enum em_calib_method {
#define EM_CALIB_ENUM_(e, name) e,
    EM_CALIB_METHODS(EM_CALIB_ENUM_)
#undef EM_CALIB_ENUM_
        EM_CALIB_METHOD_COUNT
} em_calib_method;

/* The method's name ("minmax", ...), or "?" for a value outside the enum. */
const char *em_calib_method_name(em_calib_method m);
/* The method named `name`; an error listing the names for any other string (or NULL). */
ember_status *em_calib_method_parse(const char *name, em_calib_method *out);

/* The choices of em_calib_range; em_calib_params_init fills ORT's defaults for each method. */
typedef struct em_calib_params {
    bool symmetric;      /* minmax: (-amax, amax) (default off); percentile: on the |x|
                          * histogram (default on, as ORT's PercentileCalibrater) */
    bool moving_average; /* minmax: the mean of the batches' min and max (default off) */
    double percentile;   /* percentile: in (0, 100] (default 99.999) */
    int levels;          /* entropy: quantized bins (ORT's num_quantized_bins, default 128); mse:
                          * the steps of the integer type (PyTorch's dst_nbins, default 256) */
    int64_t bins;        /* entropy: the bins over [-T, T] the search runs on (ORT's num_bins,
                          * default 128); 0: the collector's own value histogram as it grew */
} em_calib_params;

/* ORT's EntropyCalibrater defaults (num_bins, num_quantized_bins). */
#define EM_CALIB_ENTROPY_BINS 128
#define EM_CALIB_ENTROPY_LEVELS 128
/* The largest entropy `bins` (a histogram of 2^21 doubles: 16 MB while the range is chosen). */
#define EM_CALIB_ENTROPY_MAX_BINS ((int64_t)1 << 21)

void em_calib_params_init(em_calib_params *p, em_calib_method m);

typedef struct em_calib em_calib;

/* The default base bin count: ORT's PercentileCalibrater's num_bins. */
#define EM_CALIB_DEFAULT_BINS 2048
/* A histogram holds at most EM_CALIB_CAP times its starting bins (allocated as it grows). */
#define EM_CALIB_CAP 8

/*
 * A collector whose |x| histogram starts with `bins` bins and whose value histogram starts with
 * 2 * bins (so each side of 0 has the resolution of the |x| one); each histogram stays within
 * EM_CALIB_CAP times its starting count. bins = 0 takes EM_CALIB_DEFAULT_BINS; otherwise
 * 8 <= bins <= 2^20.
 */
ember_status *em_calib_new(int64_t bins, em_calib **out);
void em_calib_free(em_calib *c);

/*
 * Adds one batch of n values. A NaN or infinite value is an error naming its index (wrap it to
 * name the tensor); the collector is then left as it was. n = 0 adds nothing (an empty tensor
 * in one batch is no reason to stop a calibration).
 */
ember_status *em_calib_add(em_calib *c, const float *x, size_t n);

/* Adds everything `src` collected to `dst` (src is unchanged). The min, max and batch sums are
 * exact; histogram counts are moved onto dst's bins in proportion to the overlap of each source
 * bin, so they are exact where the bins line up and otherwise spread within one bin. */
ember_status *em_calib_merge(em_calib *dst, const em_calib *src);

/* Values and batches added so far. */
uint64_t em_calib_count(const em_calib *c);
uint64_t em_calib_batches(const em_calib *c);

/* The range chosen by method m; an error for an empty collector, an unknown method or a
 * parameter out of range. p = NULL takes em_calib_params_init's defaults for m. */
ember_status *em_calib_range(const em_calib *c, em_calib_method m, const em_calib_params *p,
                             float *lo, float *hi);

#endif
