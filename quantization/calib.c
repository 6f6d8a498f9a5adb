/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Calibration collectors and range methods (calib.h).
 *
 * Both histograms are uniform bins [lo + j w, lo + (j + 1) w), the last one closed on the right
 * as numpy's. The value histogram keeps lo = -T (T the largest |x|, nb even), so 0 is the edge
 * between bins nb / 2 - 1 and nb / 2; while T = 0 (only zeros so far) w is 0 and everything is
 * in bin nb / 2, which is where 0 lands once T grows, as in ORT's merge_histogram. Growth adds
 * bins of width w at the ends (ORT: half_increased_bins on each side of the value histogram,
 * np.arange bins on the right of the |x| one); when a histogram would pass its cap
 * (EM_CALIB_CAP times its starting count), neighbouring pairs are merged first (after one padding
 * bin where the pairs would not line up with 0), so no count ever moves across an edge it did not
 * have before.
 *
 * The methods follow their references line by line where that decides a result (which edge is
 * returned, int64 truncation of ORT's expanded q, PyTorch's search order), and compute in
 * double where the references use float32 (KL sums, the L2 norm). Near a flat KL minimum ORT's
 * float32 rounding decides its choice, so the tests compare entropy with ORT's code run in
 * float64 (tests/quantization/test_calib.c explains each tolerance).
 */
#include "quantization/calib.h"

#include "core/alloc.h"
#include "core/status.h"

#include <math.h>
#include <string.h>

typedef struct hist {
    double *h;     /* counts, `alloc` entries (from base, doubled as needed up to cap) */
    int64_t nb;    /* bins in use */
    int64_t alloc; /* entries allocated */
    int64_t cap;   /* the most bins kept (EM_CALIB_CAP * base) */
    double lo, w;
    bool init;
} hist;

struct em_calib {
    int64_t bins;
    uint64_t count, batches;
    float min, max;
    double sum_bmin, sum_bmax; /* sums of each batch's min and max (moving average) */
    hist val;                  /* on [-T, T]: 2 * bins bins to start */
    double T;
    hist abs; /* on |x|: bins bins to start */
};

static const char *const method_names[] = {
#define EM_CALIB_NAME_(e, name) name,
    EM_CALIB_METHODS(EM_CALIB_NAME_)
#undef EM_CALIB_NAME_
};

const char *em_calib_method_name(em_calib_method m)
{
    return (unsigned)m < EM_CALIB_METHOD_COUNT ? method_names[m] : "?";
}

ember_status *em_calib_method_parse(const char *name, em_calib_method *out)
{
    for (int m = 0; name != NULL && m < EM_CALIB_METHOD_COUNT; m++) {
        if (strcmp(name, method_names[m]) == 0) {
            *out = (em_calib_method)m;
            return NULL;
        }
    }
    return em_status_new(EMBER_ERR_INVALID_ARG,
                         "unknown calibration method '%s' (expected minmax, percentile, entropy "
                         "or mse)",
                         name != NULL ? name : "(null)");
}

void em_calib_params_init(em_calib_params *p, em_calib_method m)
{
    p->symmetric = m == EM_CALIB_PERCENTILE;
    p->moving_average = false;
    p->percentile = 99.999;
    p->levels = m == EM_CALIB_ENTROPY ? EM_CALIB_ENTROPY_LEVELS : 256;
    p->bins = m == EM_CALIB_ENTROPY ? EM_CALIB_ENTROPY_BINS : 0;
}

/* ---- histograms ---- */

static ember_status *hist_alloc(hist *h, int64_t base)
{
    h->cap = EM_CALIB_CAP * base;
    h->alloc = base;
    h->h = em_calloc(NULL, (size_t)base, sizeof(double));
    h->nb = base;
    h->lo = h->w = 0;
    h->init = false;
    return h->h != NULL ? NULL : em_status_oom();
}

/* Adds k bins on the left and r on the right (nb + k + r <= cap). */
static ember_status *hist_extend(hist *h, int64_t k, int64_t r)
{
    int64_t need = h->nb + k + r;
    if (need > h->alloc) {
        int64_t n = 2 * h->alloc > need ? 2 * h->alloc : need;
        n = n < h->cap ? n : h->cap;
        double *p = em_realloc(NULL, h->h, (size_t)n * sizeof(double));
        if (p == NULL) {
            return em_status_oom();
        }
        h->h = p;
        h->alloc = n;
    }
    memmove(h->h + k, h->h, (size_t)h->nb * sizeof(double));
    memset(h->h, 0, (size_t)k * sizeof(double));
    memset(h->h + k + h->nb, 0, (size_t)r * sizeof(double));
    h->nb += k + r;
    h->lo -= (double)k * h->w;
    return NULL;
}

/* Merges pairs (2j, 2j + 1); nb must be even. */
static void hist_halve(hist *h)
{
    for (int64_t j = 0; j < h->nb / 2; j++) {
        h->h[j] = h->h[2 * j] + h->h[2 * j + 1];
    }
    memset(h->h + h->nb / 2, 0, (size_t)(h->nb / 2) * sizeof(double));
    h->nb /= 2;
    h->w *= 2;
}

static int64_t hist_index(const hist *h, double x, double inv_w)
{
    double f = (x - h->lo) * inv_w;
    if (!(f >= 0)) {
        return 0;
    }
    return f >= (double)(h->nb - 1) ? h->nb - 1 : (int64_t)f; /* truncation: floor for f >= 0 */
}

/* The value histogram covers [-t, t] (t > 0), growing as ORT's merge_histogram: half bins on
 * each side with half = floor((t - T) / w) + 1, after merging pairs while that would pass the
 * cap (with one bin padded on each side when nb / 2 is odd, so the pairs keep 0 on an edge). */
static ember_status *val_grow(em_calib *c, double t)
{
    ember_status *st = NULL;
    hist *h = &c->val;
    if (c->T == 0) {
        c->T = t;
        h->lo = -t;
        h->w = 2 * t / (double)h->nb;
        return NULL;
    }
    for (;;) {
        double half = floor((t - c->T) / h->w) + 1;
        if ((double)h->nb + 2 * half <= (double)h->cap) {
            EMBER_TRY(hist_extend(h, (int64_t)half, (int64_t)half));
            c->T += half * h->w;
            h->lo = -c->T;
            return NULL;
        }
        if (h->nb % 4 != 0) {
            EMBER_TRY(hist_extend(h, 1, 1)); /* nb + 2 <= cap: nb < cap, both even */
            c->T += h->w;
        }
        hist_halve(h);
    }
fail:
    return st;
}

/* The |x| histogram covers [a0, a1]; the first time from a0 to a1 in nb bins (numpy's
 * (a0 - 0.5, a0 + 0.5) when a0 = a1), later by whole bins at either end (ORT adds them on the
 * right only, and drops smaller |x| than its first batch's: ember keeps them). */
static ember_status *abs_grow(hist *h, double a0, double a1)
{
    ember_status *st = NULL;
    if (!h->init) {
        h->init = true;
        if (a0 == a1) {
            a0 -= 0.5;
            a1 += 0.5;
        }
        h->lo = a0;
        h->w = (a1 - a0) / (double)h->nb;
        return NULL;
    }
    for (;;) {
        double k = a0 < h->lo ? ceil((h->lo - a0) / h->w) : 0;
        double hi = h->lo + (double)h->nb * h->w;
        double r = a1 > hi ? ceil((a1 - hi) / h->w) : 0;
        if ((double)h->nb + k + r <= (double)h->cap) {
            return hist_extend(h, (int64_t)k, (int64_t)r);
        }
        if (h->nb % 2 != 0) {
            EMBER_TRY(hist_extend(h, 0, 1));
        }
        hist_halve(h);
    }
fail:
    return st;
}

/* ---- the collector ---- */

ember_status *em_calib_new(int64_t bins, em_calib **out)
{
    *out = NULL;
    if (bins == 0) {
        bins = EM_CALIB_DEFAULT_BINS;
    }
    if (bins < 8 || bins > ((int64_t)1 << 20)) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "calibration histogram bins %lld out of range [8, 1048576]",
                             (long long)bins);
    }
    em_calib *c = em_calloc(NULL, 1, sizeof *c);
    if (c == NULL) {
        return em_status_oom();
    }
    c->bins = bins;
    ember_status *st = hist_alloc(&c->val, 2 * bins);
    if (st == NULL) {
        st = hist_alloc(&c->abs, bins);
    }
    if (st != NULL) {
        em_calib_free(c);
        return st;
    }
    *out = c;
    return NULL;
}

void em_calib_free(em_calib *c)
{
    if (c != NULL) {
        em_free(NULL, c->val.h);
        em_free(NULL, c->abs.h);
        em_free(NULL, c);
    }
}

uint64_t em_calib_count(const em_calib *c)
{
    return c->count;
}

uint64_t em_calib_batches(const em_calib *c)
{
    return c->batches;
}

ember_status *em_calib_add(em_calib *c, const float *x, size_t n)
{
    if (n == 0) {
        return NULL;
    }
    if (x == NULL) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "calibration batch of %zu values is NULL", n);
    }
    float mn = x[0], mx = x[0], amn = fabsf(x[0]), amx = amn;
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        if (!isfinite(v)) {
            return em_status_new(EMBER_ERR_INVALID_ARG,
                                 "calibration data: value %zu of %zu is %s (the model produced a "
                                 "non-finite activation)",
                                 i, n,
                                 isnan(v) ? "NaN"
                                 : v > 0  ? "+inf"
                                          : "-inf");
        }
        float a = fabsf(v);
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
        amn = a < amn ? a : amn;
        amx = a > amx ? a : amx;
    }
    /* ORT's threshold: max(|min|, |max|) of the batch, i.e. its largest |x|. The histograms
     * grow first: if that runs out of memory they have only gained empty bins. */
    hist *vh = &c->val, *ah = &c->abs;
    vh->init = true;
    ember_status *st = amx > c->T ? val_grow(c, amx) : NULL;
    if (st != NULL || (st = abs_grow(ah, amn, amx)) != NULL) {
        return st;
    }
    if (c->batches == 0) {
        c->min = mn;
        c->max = mx;
    } else {
        c->min = mn < c->min ? mn : c->min;
        c->max = mx > c->max ? mx : c->max;
    }
    c->sum_bmin += mn;
    c->sum_bmax += mx;
    c->batches++;
    c->count += n;

    if (vh->w == 0) {
        vh->h[vh->nb / 2] += (double)n;
    } else {
        double inv = 1.0 / vh->w;
        for (size_t i = 0; i < n; i++) {
            vh->h[hist_index(vh, x[i], inv)] += 1;
        }
    }

    double inv = 1.0 / ah->w;
    for (size_t i = 0; i < n; i++) {
        ah->h[hist_index(ah, fabs(x[i]), inv)] += 1;
    }
    return NULL;
}

/* Adds src's bins to dst's (which cover them) in proportion to their overlap. */
static void hist_spread(hist *dst, const hist *src)
{
    double inv = 1.0 / dst->w;
    for (int64_t j = 0; j < src->nb; j++) {
        double cnt = src->h[j];
        if (cnt == 0) {
            continue;
        }
        double a = src->lo + (double)j * src->w, b = a + src->w;
        int64_t ja = hist_index(dst, a, inv), jb = hist_index(dst, b, inv);
        if (jb > ja && dst->lo + (double)jb * dst->w >= b) {
            jb--; /* b is exactly an edge of dst: nothing goes into the bin it opens */
        }
        if (ja == jb || src->w == 0) {
            dst->h[ja] += cnt;
            continue;
        }
        for (int64_t k = ja; k <= jb; k++) {
            double l = dst->lo + (double)k * dst->w, r = l + dst->w;
            l = l > a ? l : a;
            r = r < b ? r : b;
            if (r > l) {
                dst->h[k] += cnt * (r - l) / src->w;
            }
        }
    }
}

/* The edges of src's first and last non-empty bins. */
static void hist_occupied(const hist *h, double *a, double *b)
{
    int64_t j0 = 0, j1 = h->nb - 1;
    while (j0 < j1 && h->h[j0] == 0) {
        j0++;
    }
    while (j1 > j0 && h->h[j1] == 0) {
        j1--;
    }
    *a = h->lo + (double)j0 * h->w;
    *b = h->lo + (double)(j1 + 1) * h->w;
}

ember_status *em_calib_merge(em_calib *dst, const em_calib *src)
{
    if (dst == src) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "cannot merge a calibration collector into "
                                                    "itself");
    }
    if (src->batches == 0) {
        return NULL;
    }
    if (dst->bins != src->bins) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "cannot merge calibration collectors of %lld and %lld bins",
                             (long long)dst->bins, (long long)src->bins);
    }
    if (dst->batches == 0) {
        double *vh = em_malloc(NULL, (size_t)src->val.alloc * sizeof(double));
        double *ah = em_malloc(NULL, (size_t)src->abs.alloc * sizeof(double));
        if (vh == NULL || ah == NULL) {
            em_free(NULL, vh);
            em_free(NULL, ah);
            return em_status_oom();
        }
        memcpy(vh, src->val.h, (size_t)src->val.alloc * sizeof(double));
        memcpy(ah, src->abs.h, (size_t)src->abs.alloc * sizeof(double));
        em_free(NULL, dst->val.h);
        em_free(NULL, dst->abs.h);
        *dst = *src;
        dst->val.h = vh;
        dst->abs.h = ah;
        return NULL;
    }
    double a, b;
    hist_occupied(&src->abs, &a, &b);
    ember_status *st = src->T > dst->T ? val_grow(dst, src->T) : NULL;
    if (st != NULL || (st = abs_grow(&dst->abs, a, b)) != NULL) {
        return st;
    }
    dst->min = src->min < dst->min ? src->min : dst->min;
    dst->max = src->max > dst->max ? src->max : dst->max;
    dst->sum_bmin += src->sum_bmin;
    dst->sum_bmax += src->sum_bmax;
    dst->batches += src->batches;
    dst->count += src->count;
    if (src->val.w == 0 || dst->val.w == 0) {
        double total = 0; /* src (or dst) holds zeros only: they go where 0 is */
        for (int64_t j = 0; j < src->val.nb; j++) {
            total += src->val.h[j];
        }
        dst->val.h[dst->val.nb / 2] += total;
    } else {
        hist_spread(&dst->val, &src->val);
    }
    hist_spread(&dst->abs, &src->abs);
    return NULL;
}

/* ---- the methods ---- */

static double hist_total(const hist *h)
{
    double t = 0;
    for (int64_t j = 0; j < h->nb; j++) {
        t += h->h[j];
    }
    return t;
}

/* numpy's searchsorted(cumsum(hist / total), v): the first bin where the running sum reaches
 * v, or nb. */
static int64_t cdf_search(const hist *h, double total, double v)
{
    double s = 0;
    for (int64_t j = 0; j < h->nb; j++) {
        s += h->h[j] / total;
        if (s >= v) {
            return j;
        }
    }
    return h->nb;
}

static double edge(const hist *h, int64_t j)
{
    return h->lo + (double)j * h->w;
}

static void range_percentile(const em_calib *c, const em_calib_params *p, double *lo, double *hi)
{
    if (p->symmetric) {
        const hist *h = &c->abs;
        double e = edge(h, cdf_search(h, hist_total(h), p->percentile / 100.0));
        *lo = -e;
        *hi = e;
    } else if (c->T == 0) {
        *lo = *hi = 0;
    } else {
        const hist *h = &c->val;
        double total = hist_total(h), cut = (100.0 - p->percentile) / 200.0;
        *lo = edge(h, cdf_search(h, total, cut));
        *hi = edge(h, cdf_search(h, total, 1.0 - cut));
    }
}

/*
 * ORT's get_entropy_threshold. For each window [start, end) of len = 2i + 1 bins (one fewer at
 * the right end): p is the window with the counts outside added to its end bins; q merges the
 * window's own counts (without those) into nq groups of m = len / nq bins (the rest into the
 * last group), each spread evenly over the group's bins where p is non-zero and truncated to an
 * integer (ORT's q is int64), the bins past nq * m staying 0; both are smoothed
 * (smooth_distribution: zeros become eps, the non-zeros lose eps * zeros / non-zeros) and
 * compared by KL(p || q) (ORT's entropy(): both normalised).
 *
 * The same sum, arranged so that a window costs one pass over its bins (one log per non-zero
 * bin) and O(nq) for q, since q' is constant on each group:
 *   KL = (A - B) / sp + log(sq / sp),  A = sum p' log p',  B = sum_k log q'_k * (sum of p' on
 *   group k),  sp = sum p',  sq = sum q'.
 */
typedef struct kl_scratch {
    const double *h, *pre; /* the histogram and its prefix sums (pre[j] = h[0] + ... h[j-1]) */
    const int64_t *nzpre;  /* prefix counts of non-zero bins */
    const int64_t *nzidx;  /* the non-zero bins, in order (nzidx[nzpre[j]] is the first >= j) */
    double *gsum, *qv;     /* nq + 1 group sums of p' (the last: bins past nq * m), nq q values */
    int64_t *nzg;          /* nq + 1 non-zero bins of p per group */
    int64_t nb, nq;
} kl_scratch;

static const double kl_eps = 0.0001;

/* smooth_distribution's value of one bin of count v, given its eps1 (ORT asserts the result
 * is positive; a fractional count left by a merge may not be, and then counts as a zero). */
static double smoothed(double v, double eps1)
{
    return v == 0 || v - eps1 <= 0 ? kl_eps : v - eps1;
}

/* Adds bin j of the window (count v != 0) to A, sp and its group's sum. */
static void kl_add(const kl_scratch *k, double v, int64_t j, int64_t m, double e1p, double *a,
                   double *sp)
{
    double pv = smoothed(v, e1p);
    *a += pv * log(pv);
    *sp += pv;
    k->gsum[j / m < k->nq ? j / m : k->nq] += pv;
}

/* KL(p || q) of the window [start, end). Zero bins of p all weigh eps, so only the non-zero
 * ones are visited: a window of a sparse (grown) histogram costs its non-zero bins plus nq. */
static double window_kl(const kl_scratch *k, int64_t start, int64_t end)
{
    const double *h = k->h;
    int64_t len = end - start, nq = k->nq, m = len / nq;
    if (m == 0) {
        return INFINITY; /* an odd nq wider than the clipped window: ORT's q is all zeros */
    }
    double first = h[start] + k->pre[start], last = h[end - 1] + (k->pre[k->nb] - k->pre[end]);
    /* non-zero bins of p: the window's, with its end bins as p has them */
    int64_t nzp = k->nzpre[end] - k->nzpre[start] - (h[start] != 0) - (h[end - 1] != 0) +
                  (first != 0) + (last != 0);
    if (nzp == 0) {
        return INFINITY;
    }
    /* q per group: the group's own counts over its non-zero bins of p, truncated */
    int64_t zq = len - nq * m, nzsum = 0;
    for (int64_t g = 0; g < nq; g++) {
        int64_t s0 = start + g * m, s1 = s0 + m;
        double cnt = k->pre[s1] - k->pre[s0];
        if (g == nq - 1) {
            cnt += k->pre[end] - k->pre[start + nq * m];
        }
        int64_t nz = k->nzpre[s1] - k->nzpre[s0];
        if (s0 == start) {
            nz += (first != 0) - (h[start] != 0);
        }
        if (s1 == end) {
            nz += (last != 0) - (h[end - 1] != 0);
        }
        k->nzg[g] = nz;
        nzsum += nz;
        k->qv[g] = nz != 0 ? floor(cnt / (double)nz) : 0;
        zq += k->qv[g] == 0 ? m : 0;
    }
    k->nzg[nq] = nzp - nzsum;
    if (zq == len) {
        return INFINITY;
    }
    /* p': the zero bins at eps, then the non-zero ones */
    double e1p = kl_eps * (double)(len - nzp) / (double)nzp;
    double a = (double)(len - nzp) * kl_eps * log(kl_eps), sp = (double)(len - nzp) * kl_eps;
    for (int64_t g = 0; g <= nq; g++) {
        int64_t size = g < nq ? m : len - nq * m;
        k->gsum[g] = (double)(size - k->nzg[g]) * kl_eps;
    }
    if (first != 0) {
        kl_add(k, first, 0, m, e1p, &a, &sp);
    }
    if (last != 0) {
        kl_add(k, last, len - 1, m, e1p, &a, &sp);
    }
    for (int64_t t = k->nzpre[start + 1]; t < k->nzpre[end - 1]; t++) {
        int64_t j = k->nzidx[t];
        kl_add(k, h[j], j - start, m, e1p, &a, &sp);
    }
    double e1q = kl_eps * (double)zq / (double)(len - zq), b = 0, sq = 0;
    for (int64_t g = 0; g < nq; g++) {
        double q = smoothed(k->qv[g], e1q);
        b += log(q) * k->gsum[g];
        sq += q * (double)m;
    }
    b += log(kl_eps) * k->gsum[nq];
    sq += kl_eps * (double)(len - nq * m);
    return (a - b) / sp + log(sq / sp);
}

/* A position in units of the fine histogram's bins, snapped to the nearest integer when within
 * rounding of it (edges that line up must not leave a sliver of a count in a neighbour). */
static double snap(double x)
{
    double r = nearbyint(x);
    return fabs(x - r) <= 1e-9 * (1 + fabs(r)) ? r : x;
}

/*
 * The histogram of ORT's one collect: nb bins over [-t, t], t = max(|min|, |max|), from the value
 * histogram f (which covers [-T, T], T >= t). Fine bin j is [j, j + 1) in fine units; its part
 * inside [-t, t] goes to the coarse bins it overlaps in proportion (all of it to one bin when it
 * lies inside one, as whenever the edges line up). out->h is allocated here.
 */
static ember_status *rebin(const em_calib *c, int64_t nb, hist *out)
{
    const hist *f = &c->val;
    double t = fmax(fabs((double)c->min), fabs((double)c->max));
    out->h = em_calloc(NULL, (size_t)nb, sizeof(double));
    if (out->h == NULL) {
        return em_status_oom();
    }
    out->nb = out->alloc = out->cap = nb;
    out->lo = -t;
    out->w = 2 * t / (double)nb;
    out->init = true;
    double u0 = (-t - f->lo) / f->w, du = out->w / f->w, u1 = u0 + (double)nb * du;
    for (int64_t j = 0; j < f->nb; j++) {
        double cnt = f->h[j];
        if (cnt == 0) {
            continue;
        }
        double a = fmax((double)j, u0), b = fmin((double)(j + 1), u1);
        if (!(b > a)) { /* outside [-t, t] by rounding only: the nearest end bin */
            out->h[(double)j < u0 ? 0 : nb - 1] += cnt;
            continue;
        }
        double xa = snap((a - u0) / du), xb = snap((b - u0) / du);
        int64_t ka = (int64_t)floor(xa), kb = (int64_t)ceil(xb) - 1;
        ka = ka < 0 ? 0 : ka > nb - 1 ? nb - 1 : ka;
        kb = kb < ka ? ka : kb > nb - 1 ? nb - 1 : kb;
        if (ka == kb) {
            out->h[ka] += cnt;
            continue;
        }
        for (int64_t k = ka; k <= kb; k++) {
            double l = fmax(xa, (double)k), r = fmin(xb, (double)(k + 1));
            if (r > l) {
                out->h[k] += cnt * (r - l) / (xb - xa);
            }
        }
    }
    return NULL;
}

/* The KL search on histogram h; *lo / *hi are left as they are when there is no window. */
static ember_status *search_entropy(const hist *h, const em_calib_params *p, double *lo,
                                    double *hi)
{
    int64_t nb = h->nb, zero = nb / 2, nq = p->levels, halfq = nq / 2;
    if (halfq > zero) {
        return NULL; /* no window to search: the whole range */
    }
    double *pre = em_malloc(NULL, (size_t)(nb + 1 + 2 * nq + 1) * sizeof(double));
    int64_t *nzpre = em_malloc(NULL, (size_t)(2 * nb + 1 + nq + 1) * sizeof(int64_t));
    if (pre == NULL || nzpre == NULL) {
        em_free(NULL, pre);
        em_free(NULL, nzpre);
        return em_status_oom();
    }
    int64_t *nzidx = nzpre + nb + 1;
    pre[0] = 0;
    nzpre[0] = 0;
    for (int64_t j = 0; j < nb; j++) {
        pre[j + 1] = pre[j] + h->h[j];
        nzpre[j + 1] = nzpre[j] + (h->h[j] != 0);
        if (h->h[j] != 0) {
            nzidx[nzpre[j]] = j;
        }
    }
    kl_scratch k = {h->h,       pre, nzpre, nzidx, pre + nb + 1, pre + nb + 1 + nq + 1,
                    nzidx + nb, nb,  nq};
    double best = INFINITY;
    int64_t best_i = halfq;
    for (int64_t i = halfq; i <= zero; i++) {
        int64_t start = zero - i, end = zero + i + 1 < nb ? zero + i + 1 : nb;
        double kl = window_kl(&k, start, end);
        if (kl < best) {
            best = kl;
            best_i = i;
        }
    }
    int64_t start = zero - best_i, end = zero + best_i + 1 < nb ? zero + best_i + 1 : nb;
    *lo = edge(h, start);
    *hi = edge(h, end);
    em_free(NULL, pre);
    em_free(NULL, nzpre);
    return NULL;
}

static ember_status *range_entropy(const em_calib *c, const em_calib_params *p, double *lo,
                                   double *hi)
{
    *lo = c->min;
    *hi = c->max;
    if (c->T == 0 || (p->bins != 0 && p->bins / 2 < p->levels / 2)) {
        return NULL; /* only zeros, or no window narrower than the histogram: the whole range */
    }
    if (p->bins == 0) {
        return search_entropy(&c->val, p, lo, hi);
    }
    hist h;
    ember_status *st = rebin(c, p->bins, &h);
    if (st == NULL) {
        st = search_entropy(&h, p, lo, hi);
        em_free(NULL, h.h);
    }
    return st;
}

/* PyTorch's HistogramObserver._get_norm: density * integral of x^2 over [b, e]. */
static double l2(double b, double e, double density)
{
    return density * (e * e * e - b * b * b) / 3;
}

/* _compute_quantization_error of bins [s, e] (inclusive) over h[0, n) of width w. */
static double quant_error(const double *h, int64_t n, double w, int64_t s, int64_t e, int dst)
{
    double dw = w * (double)(e - s + 1) / dst;
    if (dw == 0) {
        return 0;
    }
    double norm = 0, full = l2(-dw / 2, dw / 2, 1);
    for (int64_t i = 0; i < n; i++) {
        if (h[i] == 0) {
            continue;
        }
        double b = (double)(i - s) * w, en = b + w, density = h[i] / w;
        double db = floor(b / dw), de = floor(en / dw);
        db = db < 0 ? 0 : db > dst - 1 ? dst - 1 : db;
        de = de < 0 ? 0 : de > dst - 1 ? dst - 1 : de;
        norm += l2(b - (db + 0.5) * dw, dw / 2, density);
        norm += (de - db - 1) * full * density;
        norm += l2(-dw / 2, en - (de * dw + dw / 2), density);
    }
    return norm;
}

/* _non_linear_param_search on the value histogram's occupied bins [j0, j1]. */
static ember_status *range_mse(const em_calib *c, const em_calib_params *p, double *lo, double *hi)
{
    const hist *hh = &c->val;
    *lo = c->min;
    *hi = c->max;
    if (c->T == 0 || c->min == c->max) {
        return NULL;
    }
    int64_t j0 = 0, j1 = hh->nb - 1;
    while (hh->h[j0] == 0) {
        j0++;
    }
    while (hh->h[j1] == 0) {
        j1--;
    }
    const double *h = hh->h + j0;
    int64_t n = j1 - j0 + 1;
    double *csum = em_malloc(NULL, (size_t)n * sizeof(double));
    if (csum == NULL) {
        return em_status_oom();
    }
    double total = 0;
    for (int64_t j = 0; j < n; j++) {
        total += h[j];
        csum[j] = total;
    }
    const double step = 1e-5;
    double alpha = 0, beta = 1, norm_min = INFINITY;
    int64_t start = 0, end = n - 1;
    while (alpha < beta) {
        double na = alpha + step, nbeta = beta - step;
        int64_t l = start, r = end;
        while (l < end && csum[l] < na * total) {
            l++;
        }
        while (r > start && csum[r] > nbeta * total) {
            r--;
        }
        int64_t ns = start, ne = end;
        if (l - start > end - r) {
            ns = l;
            alpha = na;
        } else {
            ne = r;
            beta = nbeta;
        }
        if (ns == start && ne == end) {
            continue;
        }
        double norm = quant_error(h, n, hh->w, ns, ne, p->levels);
        if (norm > norm_min) {
            break;
        }
        norm_min = norm;
        start = ns;
        end = ne;
    }
    em_free(NULL, csum);
    *lo = edge(hh, j0 + start);
    *hi = edge(hh, j0 + end + 1);
    return NULL;
}

ember_status *em_calib_range(const em_calib *c, em_calib_method m, const em_calib_params *p,
                             float *lo, float *hi)
{
    em_calib_params def;
    if ((unsigned)m >= EM_CALIB_METHOD_COUNT) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "unknown calibration method %d", (int)m);
    }
    if (p == NULL) {
        em_calib_params_init(&def, m);
        p = &def;
    }
    if (m == EM_CALIB_PERCENTILE && !(p->percentile > 0 && p->percentile <= 100)) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "percentile %g out of range (0, 100]",
                             p->percentile);
    }
    if ((m == EM_CALIB_ENTROPY || m == EM_CALIB_MSE) && (p->levels < 2 || p->levels > 65536)) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "%s: %d quantization levels out of [2, 65536]",
                             em_calib_method_name(m), p->levels);
    }
    if (m == EM_CALIB_ENTROPY && p->bins != 0 && (p->bins < 2 || p->bins > EM_CALIB_ENTROPY_MAX_BINS)) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "entropy: %lld histogram bins out of [2, %lld] "
                             "(or 0: the collector's own)", (long long)p->bins,
                             (long long)EM_CALIB_ENTROPY_MAX_BINS);
    }
    if (c->batches == 0) {
        return em_status_new(EMBER_ERR_STATE, "%s calibration: no values were collected",
                             em_calib_method_name(m));
    }
    double l = c->min, h = c->max;
    ember_status *st = NULL;
    switch (m) {
    case EM_CALIB_MINMAX:
        if (p->moving_average) {
            l = c->sum_bmin / (double)c->batches;
            h = c->sum_bmax / (double)c->batches;
        }
        if (p->symmetric) {
            double a = fabs(l) > fabs(h) ? fabs(l) : fabs(h);
            l = -a;
            h = a;
        }
        break;
    case EM_CALIB_PERCENTILE:
        range_percentile(c, p, &l, &h);
        break;
    case EM_CALIB_ENTROPY:
        st = range_entropy(c, p, &l, &h);
        break;
    case EM_CALIB_MSE:
        st = range_mse(c, p, &l, &h);
        break;
    default:
        break;
    }
    if (st != NULL) {
        return st;
    }
    if (m != EM_CALIB_MINMAX) { /* the histogram methods clip to the data, as ORT */
        l = l < c->min ? c->min : l;
        h = h > c->max ? c->max : h;
    }
    if (h < l) {
        h = l; /* a bin's left edge below the smallest value: constant data */
    }
    *lo = (float)l;
    *hi = (float)h;
    return NULL;
}
