/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Calibration range methods (quantization/calib.c) against their references: ONNX Runtime's
 * MinMaxCalibrater and HistogramCollector, and PyTorch's HistogramObserver, on the data sets of
 * tests/data/calib (written with their ranges by tools/gen_calib_fixtures.py). Then merging,
 * bounded growth past the cap, and bad input.
 *
 * Tolerances:
 *   minmax, symmetric minmax   exact (the same float32 min / max)
 *   moving-average minmax      1e-6 relative (ORT averages in float32, ember in double)
 *   percentile, entropy        1e-5 of the largest |x| (a bin is 1/256 of it): ember's
 *                              histograms are ORT's, the same first edge, width and growth, so
 *                              the same bin is chosen and only the edge's value differs: ORT's
 *                              edges are float32 (numpy's linspace, cast), and when its |x|
 *                              histogram grows it takes the width from two float32 edges and
 *                              extends by np.arange, so its new edges drift (up to 6e-6 of the
 *                              largest |x| here, heavy pct_sym_*_b); ember's are lo + j w in
 *                              double. Row by row, ORT's |x|
 *                              histogram drops values below its first row's smallest |x| and
 *                              ember keeps them: a few of 8192, which moved no cut here. Where
 *                              ORT returns an inverted range (constant data: lo = the value, hi
 *                              = the left edge of its bin, just below it), ember returns lo = hi.
 *                              Entropy is compared with ORT's code run with its KL divergence
 *                              in float64 (entropy64_ in expected.txt), as ember computes it: in
 *                              ORT's float32 the KL curve's flat minimum is decided by rounding
 *                              and moved the choice by up to 26 bins on these sets (heavy_1:
 *                              116.0 against 136.5), so ORT's own entropy_ lines are kept in
 *                              expected.txt for reference but not asserted. The entropyort
 *                              lines are ORT's EntropyCalibrater as quantize_static runs it (one
 *                              collect of all rows, ORT's 128 / 128 and finer histograms):
 *                              ember's collector of the quantizer's default bins, fed all rows
 *                              at once or row by row with the largest |x| first (its histogram
 *                              then refines ORT's bins exactly), gives ORT's range to 1e-5 of
 *                              max |x|; at 128 / 128 (one window) ORT's float32 lines too.
 *   mse                        one of PyTorch's bins ((max - min) / BINS): PyTorch's histogram
 *                              is BINS bins on exactly [min, max]; ember searches its value
 *                              histogram (2 * BINS bins on [-T, T], T = max |x|) restricted to
 *                              its occupied bins, so the candidate edges are offset from
 *                              PyTorch's (measured: within 0.2 of a PyTorch bin on these sets).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/rng.h"
#include "common/test_ok.h"
#include "common/test_data.h"

#include "core/tensor.h"
#include "loaders/npy/npy.h"
#include "quantization/calib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BINS 256  /* tools/gen_calib_fixtures.py's BINS */
#define LEVELS 256 /* and its LEVELS */

typedef struct dataset {
    float *x;
    int64_t rows, n;
} dataset;

static dataset load_case(const char *name)
{
    char rel[128];
    snprintf(rel, sizeof rel, "%s.npy", name);
    const char *path = test_data_path("calib/", rel);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fail_msg("cannot open %s", path);
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)len);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    em_tensor t;
    em_storage *stg = NULL;
    OK(em_npy_read(buf, (size_t)len, path, NULL, &t, &stg));
    free(buf);
    assert_int_equal(t.dtype, EMBER_DTYPE_F32);
    assert_int_equal(t.rank, 2);
    dataset d = {malloc((size_t)(t.dims[0] * t.dims[1]) * sizeof(float)), t.dims[0], t.dims[1]};
    memcpy(d.x, em_storage_data(stg), (size_t)(d.rows * d.n) * sizeof(float));
    em_storage_release(stg);
    return d;
}

/* A collector of `bins` (0: the default) fed the rows of d in `order` (NULL: 0, 1, ...) one by
 * one, or all at once. */
static em_calib *collect_bins(const dataset *d, bool one_batch, const int *order, int64_t bins)
{
    em_calib *c = NULL;
    OK(em_calib_new(bins, &c));
    if (one_batch) {
        OK(em_calib_add(c, d->x, (size_t)(d->rows * d->n)));
    } else {
        for (int64_t r = 0; r < d->rows; r++) {
            int64_t row = order != NULL ? order[r] : r;
            OK(em_calib_add(c, d->x + row * d->n, (size_t)d->n));
        }
    }
    assert_int_equal(em_calib_count(c), (uint64_t)(d->rows * d->n));
    return c;
}

static em_calib *collect(const dataset *d, bool one_batch, const int *order)
{
    return collect_bins(d, one_batch, order, BINS);
}

/* The method and params of an expected.txt key; one_batch from its _1 / _b suffix. False for
 * ORT's own entropy_ lines (float32 KL sums), which the header explains we do not assert. */
static bool parse_key(const char *key, em_calib_method *m, em_calib_params *p, bool *one_batch,
                      double *tol_bins, int64_t *coll_bins)
{
    size_t len = strlen(key);
    *one_batch = len > 2 && strcmp(key + len - 2, "_1") == 0;
    *tol_bins = 0;
    *coll_bins = BINS;
    *m = EM_CALIB_MINMAX;
    em_calib_params_init(p, *m);
    if (strncmp(key, "minmax", 6) == 0) {
        *m = EM_CALIB_MINMAX;
        em_calib_params_init(p, *m);
        p->moving_average = strcmp(key, "minmax_ma") == 0;
        p->symmetric = strcmp(key, "minmax_sym") == 0;
        *one_batch = false; /* ORT's MinMaxCalibrater ran one row per inference */
        *tol_bins = 0;
    } else if (strncmp(key, "pct_", 4) == 0) {
        *m = EM_CALIB_PERCENTILE;
        em_calib_params_init(p, *m);
        p->symmetric = strncmp(key, "pct_sym_", 8) == 0;
        p->percentile = strtod(key + (p->symmetric ? 8 : 9), NULL);
    } else if (strncmp(key, "entropy_", 8) == 0) {
        return false;
    } else if (strncmp(key, "entropy64_", 10) == 0) {
        /* ORT's collector with the test's BINS, fed as ember is: its histogram as it grew */
        *m = EM_CALIB_ENTROPY;
        em_calib_params_init(p, *m);
        p->bins = 0;
        p->levels = LEVELS;
    } else if (strncmp(key, "entropyort", 10) == 0) {
        /* quantize_static's one collect of everything: the quantizer's collector (default
         * bins) rebuilding ORT's histogram, fed at once (exact) or row by row (rebinned); ORT's
         * float32 KL only where there is a single window to choose (bins == levels) */
        bool f64 = strncmp(key, "entropyort64_", 13) == 0;
        long long nb = 0, nq = 0;
        if (sscanf(key + (f64 ? 13 : 11), "%lld_%lld", &nb, &nq) != 2) {
            fail_msg("expected.txt: bad key %s", key);
        }
        if (!f64 && nb != nq) {
            return false;
        }
        *m = EM_CALIB_ENTROPY;
        em_calib_params_init(p, *m);
        p->bins = nb;
        p->levels = (int)nq;
        *coll_bins = 0;
    } else if (strncmp(key, "mse", 3) == 0) {
        *m = EM_CALIB_MSE;
        em_calib_params_init(p, *m);
        *tol_bins = 1;
    } else {
        fail_msg("expected.txt: unknown key %s", key);
    }
    return true;
}

/* Prints a mismatch and counts it (each test fails at its end, after listing them all). */
static int mismatches;

static void check_range(const char *what, float lo, float hi, double rlo, double rhi, double tol)
{
    if (!(fabs(lo - rlo) <= tol && fabs(hi - rhi) <= tol) || !(lo <= hi)) {
        print_error("%s: ember [%.9g, %.9g], reference [%.9g, %.9g], tolerance %.3g\n", what, lo,
                    hi, rlo, rhi, tol);
        mismatches++;
    }
}

static void expect_no_mismatch(void)
{
    int n = mismatches;
    mismatches = 0;
    assert_int_equal(n, 0);
}

static void test_against_references(void **state)
{
    (void)state;
    const char *path = test_data_path("calib/", "expected.txt");
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fail_msg("cannot open %s", path);
    }
    char line[512], name[64], key[64], loaded[64] = "";
    int inverted = 0;
    dataset d = {NULL, 0, 0};
    int checked = 0;
    bool seen[EM_CALIB_METHOD_COUNT] = {false};
    while (fgets(line, sizeof line, f) != NULL) {
        double rlo, rhi, bin;
        if (line[0] == '#') {
            continue;
        }
        if (sscanf(line, "%63s %63s %lf %lf %lf", name, key, &rlo, &rhi, &bin) != 5) {
            fail_msg("%s: bad line '%s'", path, line);
        }
        if (strcmp(name, loaded) != 0) {
            free(d.x);
            d = load_case(name);
            snprintf(loaded, sizeof loaded, "%s", name);
        }
        em_calib_method m;
        em_calib_params p;
        bool one;
        double tol_bins;
        int64_t coll_bins;
        if (!parse_key(key, &m, &p, &one, &tol_bins, &coll_bins)) {
            continue;
        }
        /* entropyort row by row: the row holding the largest |x| first, so the collector's
         * value histogram never grows and its bins refine ORT's one-collect bins (the rebuilt
         * histogram is then exact; when it grows, bins straddling ORT's edges are split in
         * proportion: an approximation, test_entropy_rebinned) */
        int order[64];
        bool first_amax = strncmp(key, "entropyort", 10) == 0 && !one && d.rows <= 64;
        for (int64_t r = 0; first_amax && r < d.rows; r++) {
            order[r] = (int)r;
        }
        for (int64_t i = 0, best = 0; first_amax && i < d.rows * d.n; i++) {
            if (fabsf(d.x[i]) > fabsf(d.x[best])) {
                best = i;
                order[0] = (int)(i / d.n);
            }
        }
        if (first_amax && order[0] != 0) {
            order[order[0]] = 0;
        }
        em_calib *c = collect_bins(&d, one, first_amax ? order : NULL, coll_bins);
        float lo, hi;
        OK(em_calib_range(c, m, &p, &lo, &hi));
        double amax = 0;
        for (int64_t i = 0; i < d.rows * d.n; i++) {
            amax = fmax(amax, fabs(d.x[i]));
        }
        double tol = m == EM_CALIB_MSE ? tol_bins * bin : 1e-5 * amax;
        if (m == EM_CALIB_MINMAX) {
            tol = strcmp(key, "minmax_ma") == 0 ? 1e-6 * fmax(fabs(rlo), fabs(rhi)) : 0;
        }
        if (rlo > rhi) {
            rhi = rlo; /* ORT's inverted range (see the top of the file) */
            inverted++;
        }
        char what[160];
        snprintf(what, sizeof what, "%s %s", name, key);
        check_range(what, lo, hi, rlo, rhi, tol);
        em_calib_free(c);
        seen[m] = true;
        checked++;
    }
    fclose(f);
    free(d.x);
    assert_true(checked >= 100);
    assert_true(inverted <= 6); /* const's asymmetric percentiles */
    expect_no_mismatch();
    for (int m = 0; m < EM_CALIB_METHOD_COUNT; m++) {
        assert_true(seen[m]);
    }
}

/* One huge outlier arriving last makes ember's histograms grow past their cap (ORT's would need
 * ~10^8 bins), so they merge bin pairs: the ranges stay within two of ORT's one-batch bins.
 * Entropy is left out here: on the re-binned histogram (about twice as fine as ORT's one-batch
 * one) the KL search may as well keep or cut the outlier; it is only checked to stay inside. */
static void test_growth_past_cap(void **state)
{
    (void)state;
    dataset d = load_case("huge"); /* the outlier is in row 0 */
    int order[] = {1, 2, 3, 0};
    em_calib *late = collect(&d, false, order), *first = collect(&d, true, NULL);
    const struct {
        em_calib_method m;
        bool sym;
        double pct, rlo, rhi, bin;
    } cases[] = {
        /* huge ... _1 lines of expected.txt */
        {EM_CALIB_PERCENTILE, false, 99.0, -3.810990810394287, 0.0, 3906.25},
        {EM_CALIB_PERCENTILE, false, 99.999, -3.810990810394287, 996093.75, 3906.25},
        {EM_CALIB_PERCENTILE, true, 99.9, -3.503841071506031e-05, 3.503841071506031e-05, 3906.25},
        {EM_CALIB_MSE, false, 0, -3.810990810394287, 996093.75, 3906.264892578125},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        em_calib_params p;
        em_calib_params_init(&p, cases[i].m);
        p.symmetric = cases[i].sym;
        if (cases[i].pct > 0) {
            p.percentile = cases[i].pct;
        }
        float lo, hi, lo1, hi1;
        OK(em_calib_range(late, cases[i].m, &p, &lo, &hi));
        OK(em_calib_range(first, cases[i].m, &p, &lo1, &hi1));
        check_range(em_calib_method_name(cases[i].m), lo, hi, cases[i].rlo, cases[i].rhi,
                    2 * cases[i].bin);
        check_range(em_calib_method_name(cases[i].m), lo1, hi1, cases[i].rlo, cases[i].rhi,
                    cases[i].bin);
    }
    float lo, hi;
    OK(em_calib_range(late, EM_CALIB_MINMAX, NULL, &lo, &hi));
    assert_true(lo == -3.810990810394287f && hi == 1.0e6f);
    OK(em_calib_range(late, EM_CALIB_ENTROPY, NULL, &lo, &hi));
    assert_true(lo >= -3.810990810394287f && hi <= 1.0e6f && lo < 0 && hi > 0);
    expect_no_mismatch();
    em_calib_free(late);
    em_calib_free(first);

    /* zeros first (the value histogram has no width yet), then data: 0 stays on the centre */
    em_calib *c = NULL;
    OK(em_calib_new(BINS, &c));
    float zeros[64] = {0};
    OK(em_calib_add(c, zeros, 64));
    OK(em_calib_range(c, EM_CALIB_ENTROPY, NULL, &lo, &hi));
    assert_true(lo == 0 && hi == 0);
    OK(em_calib_add(c, d.x + d.n, (size_t)d.n));
    OK(em_calib_range(c, EM_CALIB_MINMAX, NULL, &lo, &hi));
    assert_true(lo < 0 && hi > 0);
    OK(em_calib_range(c, EM_CALIB_PERCENTILE, NULL, &lo, &hi));
    assert_true(lo < 0 && hi > 0);
    em_calib_free(c);
    free(d.x);
}

/* Row by row in their own order, the value histogram grows and ORT's one-collect histogram is
 * rebuilt approximately. With ORT's defaults (bins == levels: one window) the range is still
 * exactly the min and max; with a real search it stays a range inside [min, max] holding 0
 * (on flat KL curves it can land far from ORT's choice: outliers at 512 / 128, 30.98 against
 * ORT's 20.16). */
static void test_entropy_rebinned(void **state)
{
    (void)state;
    const char *names[] = {"relu", "gauss", "heavy", "outliers", "huge"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        dataset d = load_case(names[i]);
        em_calib *c = collect_bins(&d, false, NULL, 0);
        float lo, hi, mlo, mhi;
        OK(em_calib_range(c, EM_CALIB_MINMAX, NULL, &mlo, &mhi));
        OK(em_calib_range(c, EM_CALIB_ENTROPY, NULL, &lo, &hi));
        assert_true(lo == mlo && hi == mhi);
        em_calib_params p;
        em_calib_params_init(&p, EM_CALIB_ENTROPY);
        const int64_t bins[] = {512, 2048, 4096, 8192};
        for (size_t b = 0; b < sizeof bins / sizeof bins[0]; b++) {
            p.bins = bins[b];
            OK(em_calib_range(c, EM_CALIB_ENTROPY, &p, &lo, &hi));
            assert_true(mlo <= lo && lo <= 0 && 0 <= hi && hi <= mhi && lo < hi);
        }
        em_calib_free(c);
        free(d.x);
    }
}

/* Normal(mu, sigma) by Box-Muller on the tests' deterministic generator. */
static void fill_normal(test_rng *r, float *x, size_t n, float mu, float sigma)
{
    for (size_t i = 0; i < n; i++) {
        double u = (test_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
        double v = (test_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
        x[i] = mu + sigma * (float)(sqrt(-2 * log(1 - u)) * cos(6.283185307179586 * v));
    }
}

/* Values of x[0, n) outside [lo, hi]. */
static long outside(const float *x, size_t n, float lo, float hi)
{
    long k = 0;
    for (size_t i = 0; i < n; i++) {
        k += x[i] < lo || x[i] > hi;
    }
    return k;
}

/* Two collectors fed half the batches each, merged, against one fed them all: min, max and the
 * moving average exactly; the histogram methods clip the same data within 0.01% of it (20 of
 * 200000 values). Merging spreads each source bin over the destination bins it overlaps, so a
 * count can move within one source bin; in a sparse tail that moves a percentile's crossing to
 * the neighbouring sample, which may be several bins away, and the greedy L2 search may stop a
 * step earlier or later: what stays put is how much of the data the range cuts off. */
static void test_merge(void **state)
{
    (void)state;
    enum { ROWS = 4, N = 50000 };
    float *x = malloc(sizeof(float) * ROWS * N);
    assert_non_null(x);
    for (int k = 0; k < 4; k++) {
        test_rng r = {(uint64_t)k + 1};
        for (int row = 0; row < ROWS; row++) { /* rows of growing spread, so the halves differ */
            float *y = x + row * N;
            fill_normal(&r, y, N, k == 1 ? 0.0f : 0.25f, 1.0f + 0.3f * (float)row);
            for (int i = 0; i < N; i++) {
                y[i] = k == 1                   ? fmaxf(y[i], 0)
                       : k == 2 && i % 997 == 0 ? 30 * y[i]
                       : k == 3                 ? 0
                                                : y[i];
            }
        }
        em_calib *all = NULL, *a = NULL, *b = NULL, *e = NULL;
        OK(em_calib_new(BINS, &all));
        OK(em_calib_new(BINS, &a));
        OK(em_calib_new(BINS, &b));
        OK(em_calib_new(BINS, &e));
        OK(em_calib_merge(e, a)); /* empty into empty */
        for (int row = 0; row < ROWS; row++) {
            OK(em_calib_add(all, x + row * N, N));
            OK(em_calib_add(row < ROWS / 2 ? a : b, x + row * N, N));
        }
        OK(em_calib_merge(e, a)); /* into an empty one: a copy */
        OK(em_calib_merge(e, b));
        assert_int_equal(em_calib_count(e), em_calib_count(all));
        assert_int_equal(em_calib_batches(e), ROWS);
        for (int m = 0; m < EM_CALIB_METHOD_COUNT; m++) {
            for (int variant = 0; variant < 2; variant++) {
                em_calib_params p;
                em_calib_params_init(&p, (em_calib_method)m);
                p.symmetric ^= variant; /* percentile on both histograms */
                p.moving_average = variant;
                float lo, hi, rlo, rhi;
                OK(em_calib_range(e, (em_calib_method)m, &p, &lo, &hi));
                OK(em_calib_range(all, (em_calib_method)m, &p, &rlo, &rhi));
                char what[96];
                snprintf(what, sizeof what, "merge data %d %s variant %d", k,
                         em_calib_method_name((em_calib_method)m), variant);
                if (m == EM_CALIB_MINMAX) {
                    check_range(what, lo, hi, rlo, rhi, 1e-6 * fmax(fabs(rlo), fabs(rhi)));
                    continue;
                }
                long cut = outside(x, ROWS * N, lo, hi), rcut = outside(x, ROWS * N, rlo, rhi);
                if (labs(cut - rcut) > ROWS * N / 10000 || !(lo <= hi)) {
                    print_error("%s: [%.9g, %.9g] cuts %ld values, [%.9g, %.9g] %ld\n", what, lo,
                                hi, cut, rlo, rhi, rcut);
                    mismatches++;
                }
            }
        }
        em_calib_free(all);
        em_calib_free(a);
        em_calib_free(b);
        em_calib_free(e);
    }
    free(x);
    expect_no_mismatch();
    em_calib *u = NULL, *v = NULL;
    OK(em_calib_new(64, &u));
    OK(em_calib_new(128, &v));
    float one = 1;
    OK(em_calib_add(v, &one, 1));
    EXPECT_ERR(em_calib_merge(u, v), EMBER_ERR_INVALID_ARG, "64", "128");
    EXPECT_ERR(em_calib_merge(v, v), EMBER_ERR_INVALID_ARG, "itself");
    em_calib_free(u);
    em_calib_free(v);
}

/* Extreme values: denormals, FLT_MAX, growth from 1e-40 to 3e38 in one step (the histograms
 * halve their bins dozens of times), single values, mixed signs: every method gives a finite
 * lo <= hi inside [min, max] (minmax symmetric aside), for several bin counts and after a
 * merge. */
static void test_extremes(void **state)
{
    (void)state;
    const float big = 3.4e38f, tiny = 1e-40f;
    const float batches[][4] = {
        {tiny, -tiny, 0, tiny}, {0, 0, 0, 0},       {1, -1, 0.5f, 2},        {big, -big, 0, 1},
        {tiny, 1e-30f, 0, 0},   {-big, -1, -2, -3}, {1e-38f, 2e-38f, 0, -0}, {7, 7, 7, 7},
    };
    const int nbatch = (int)(sizeof batches / sizeof batches[0]);
    const int64_t bins_list[] = {8, 9, 64, 2048};
    for (size_t bi = 0; bi < sizeof bins_list / sizeof bins_list[0]; bi++) {
        for (int first = 0; first < nbatch; first++) { /* every batch once as the first */
            em_calib *c = NULL, *d = NULL;
            OK(em_calib_new(bins_list[bi], &c));
            OK(em_calib_new(bins_list[bi], &d));
            float mn = INFINITY, mx = -INFINITY;
            for (int k = 0; k < nbatch; k++) {
                const float *b = batches[(first + k) % nbatch];
                OK(em_calib_add(k % 2 ? c : d, b, 4));
                for (int i = 0; i < 4; i++) {
                    mn = fminf(mn, b[i]);
                    mx = fmaxf(mx, b[i]);
                }
                for (int m = 0; m < EM_CALIB_METHOD_COUNT; m++) {
                    float lo, hi;
                    OK(em_calib_range(k % 2 ? c : d, (em_calib_method)m, NULL, &lo, &hi));
                    assert_true(isfinite(lo) && isfinite(hi) && lo <= hi);
                }
            }
            OK(em_calib_merge(c, d));
            for (int m = 0; m < EM_CALIB_METHOD_COUNT; m++) {
                float lo, hi;
                OK(em_calib_range(c, (em_calib_method)m, NULL, &lo, &hi));
                if (!(isfinite(lo) && isfinite(hi) && lo <= hi && lo >= mn && hi <= mx)) {
                    fail_msg("bins %lld, first batch %d, %s: [%g, %g] outside [%g, %g]",
                             (long long)bins_list[bi], first,
                             em_calib_method_name((em_calib_method)m), lo, hi, mn, mx);
                }
            }
            assert_int_equal(em_calib_count(c), 4 * nbatch);
            em_calib_free(c);
            em_calib_free(d);
        }
    }
}

static void test_bad_input(void **state)
{
    (void)state;
    em_calib *c = (em_calib *)1;
    EXPECT_ERR(em_calib_new(4, &c), EMBER_ERR_INVALID_ARG, "bins 4");
    assert_null(c);
    EXPECT_ERR(em_calib_new(-1, &c), EMBER_ERR_INVALID_ARG, "bins -1");
    OK(em_calib_new(0, &c));
    float lo, hi;
    EXPECT_ERR(em_calib_range(c, EM_CALIB_MINMAX, NULL, &lo, &hi), EMBER_ERR_STATE,
               "no values were collected");
    OK(em_calib_add(c, NULL, 0)); /* an empty batch adds nothing */
    assert_int_equal(em_calib_batches(c), 0);
    EXPECT_ERR(em_calib_add(c, NULL, 3), EMBER_ERR_INVALID_ARG, "NULL");

    float ok[4] = {-1, 0.5f, 2, 3};
    OK(em_calib_add(c, ok, 4));
    float bad[4] = {1, 2, NAN, 4};
    EXPECT_ERR(em_calib_add(c, bad, 4), EMBER_ERR_INVALID_ARG, "value 2 of 4 is NaN");
    bad[2] = INFINITY;
    EXPECT_ERR(em_calib_add(c, bad, 4), EMBER_ERR_INVALID_ARG, "value 2 of 4 is +inf");
    bad[0] = -INFINITY;
    EXPECT_ERR(em_calib_add(c, bad, 4), EMBER_ERR_INVALID_ARG, "value 0 of 4 is -inf");
    /* the failed batches left nothing behind */
    assert_int_equal(em_calib_count(c), 4);
    assert_int_equal(em_calib_batches(c), 1);
    OK(em_calib_range(c, EM_CALIB_MINMAX, NULL, &lo, &hi));
    assert_true(lo == -1 && hi == 3);

    em_calib_params p;
    em_calib_params_init(&p, EM_CALIB_PERCENTILE);
    assert_true(p.symmetric && p.percentile == 99.999 && p.levels == 256);
    const double bad_pct[] = {0, -1, 100.0001, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad_pct / sizeof bad_pct[0]; i++) {
        p.percentile = bad_pct[i];
        EXPECT_ERR(em_calib_range(c, EM_CALIB_PERCENTILE, &p, &lo, &hi), EMBER_ERR_INVALID_ARG,
                   "percentile", "out of range (0, 100]");
    }
    p.percentile = 100;
    OK(em_calib_range(c, EM_CALIB_PERCENTILE, &p, &lo, &hi));
    assert_true(lo >= -1 && hi <= 3 && lo < hi);
    em_calib_params_init(&p, EM_CALIB_ENTROPY);
    assert_false(p.symmetric);
    assert_true(p.levels == 128 && p.bins == 128); /* ORT's EntropyCalibrater defaults */
    p.bins = 1;
    EXPECT_ERR(em_calib_range(c, EM_CALIB_ENTROPY, &p, &lo, &hi), EMBER_ERR_INVALID_ARG, "entropy",
               "1 histogram bins");
    p.bins = EM_CALIB_ENTROPY_MAX_BINS + 1;
    EXPECT_ERR(em_calib_range(c, EM_CALIB_ENTROPY, &p, &lo, &hi), EMBER_ERR_INVALID_ARG,
               "2097153 histogram bins");
    p.bins = 0;
    p.levels = 1;
    EXPECT_ERR(em_calib_range(c, EM_CALIB_ENTROPY, &p, &lo, &hi), EMBER_ERR_INVALID_ARG, "entropy",
               "1 quantization levels");
    EXPECT_ERR(em_calib_range(c, EM_CALIB_MSE, &p, &lo, &hi), EMBER_ERR_INVALID_ARG, "mse");
    p.levels = 65537;
    EXPECT_ERR(em_calib_range(c, EM_CALIB_MSE, &p, &lo, &hi), EMBER_ERR_INVALID_ARG, "65537");
    EXPECT_ERR(em_calib_range(c, (em_calib_method)99, NULL, &lo, &hi), EMBER_ERR_INVALID_ARG,
               "unknown calibration method 99");
    em_calib_free(c);
    em_calib_free(NULL);

    /* an odd number of levels wider than the last (clipped) window: no window has a q, so the
     * whole range, as ORT's all-infinite divergences give */
    OK(em_calib_new(8, &c));
    float ramp[33];
    for (int i = 0; i < 33; i++) {
        ramp[i] = (float)(i - 16) / 4;
    }
    OK(em_calib_add(c, ramp, 33));
    p.levels = 17;
    OK(em_calib_range(c, EM_CALIB_ENTROPY, &p, &lo, &hi));
    assert_true(lo == -4 && hi == 4);
    p.levels = 16; /* windows from 16 bins: one of them fits, still all of this 16-bin range */
    OK(em_calib_range(c, EM_CALIB_ENTROPY, &p, &lo, &hi));
    assert_true(lo == -4 && hi == 4);
    em_calib_free(c);

    em_calib_method m;
    for (int i = 0; i < EM_CALIB_METHOD_COUNT; i++) {
        OK(em_calib_method_parse(em_calib_method_name((em_calib_method)i), &m));
        assert_int_equal(m, i);
    }
    EXPECT_ERR(em_calib_method_parse("kl", &m), EMBER_ERR_INVALID_ARG, "'kl'",
               "minmax, percentile, entropy or mse");
    EXPECT_ERR(em_calib_method_parse(NULL, &m), EMBER_ERR_INVALID_ARG, "(null)");
    assert_string_equal(em_calib_method_name((em_calib_method)-1), "?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_references),
        cmocka_unit_test(test_growth_past_cap),
        cmocka_unit_test(test_entropy_rebinned),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_extremes),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
