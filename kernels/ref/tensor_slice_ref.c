/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Slice-13, Pad-21, ReverseSequence-10 and Trilu-14 for any dtype.
 * Slice: per axis, negative starts/ends count from the end, then start is clamped to [0, dim]
 * and end to [0, dim] for a positive step, to [0, dim-1] and [-1, dim-1] for a negative one;
 * the output has max(0, ceil((end - start) / step)) elements: a strided copy.
 * Pad: pads[i] / pads[n + i] are the begin / end pads of axes[i] (default: every axis);
 * negative pads crop. The output maps to the cropped input (length L) through the mode:
 * constant (constant_value, default 0), edge (clamp), reflect (mirror without repeating the
 * edge, period 2(L-1)), wrap (period L): numpy.pad's results, also for pads wider than the
 * input (except wrap where numpy, padding both sides by more than the axis, leaves the period;
 * ember keeps it).
 */
#include "ref.h"

#include <string.h>

static ember_status *check_io(const em_kinfo *ki, int min_in, int max_in)
{
    ember_status *st = NULL;
    EMBER_TRY(em_ref_check_arity(ki, min_in, max_in, 1));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[0], EMBER_DTYPE_UNDEFINED, "input 0"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], ki->in[0].dtype, "output 0"));
    return NULL;
fail:
    return st;
}

/* An optional 1-D (or 0-D) int32/int64 input; `data_known` tells whether its values are here. */
static ember_status *check_ints_input(const em_kinfo *ki, int i, const char *what, bool *data_known)
{
    const em_tensor *t = &ki->in[i];
    if (!em_ref_has_input(ki, i)) {
        return NULL;
    }
    if ((t->dtype != EMBER_DTYPE_I32 && t->dtype != EMBER_DTYPE_I64) || t->rank > 1 ||
        (t->rank == 1 && t->dims[0] > 2 * EM_MAX_RANK)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "'%s' must be a short 1-D int32/int64 "
                            "tensor",
                            what);
    }
    *data_known = *data_known && t->data != NULL;
    return NULL;
}

/* ---- Slice ---------------------------------------------------------------------------------- */

typedef struct elem_state {
    size_t esize;
    int rank;
    int n_in;  /* the node's input count */
    int mode;  /* Pad: the mode */
    int64_t a; /* Trilu: upper; ReverseSequence: batch axis */
    int64_t b; /* ReverseSequence: time axis */
} elem_state;

/* start[d], step[d] and len[d] (output size) of each axis, or a reason the inputs are bad. */
static const char *slice_params(const em_tensor *in, int n_in, int64_t *start, int64_t *step,
                                int64_t *len)
{
    const em_tensor *x = &in[0];
    int64_t sv[EM_MAX_RANK], ev[EM_MAX_RANK], av[EM_MAX_RANK], pv[EM_MAX_RANK];
    int cs, ce, ca, cp;
    unsigned seen = 0;
    if (!em_tref_ints(&in[1], sv, EM_MAX_RANK, &cs) ||
        !em_tref_ints(&in[2], ev, EM_MAX_RANK, &ce)) {
        return "'starts' and 'ends' must be short 1-D int tensors";
    }
    ca = cp = cs;
    for (int i = 0; i < cs; i++) {
        av[i] = i;
        pv[i] = 1;
    }
    if ((n_in > 3 && in[3].dtype != EMBER_DTYPE_UNDEFINED &&
         !em_tref_ints(&in[3], av, EM_MAX_RANK, &ca)) ||
        (n_in > 4 && in[4].dtype != EMBER_DTYPE_UNDEFINED &&
         !em_tref_ints(&in[4], pv, EM_MAX_RANK, &cp))) {
        return "'axes' and 'steps' must be short 1-D int tensors";
    }
    if (ce != cs || ca != cs || cp != cs) {
        return "starts, ends, axes and steps differ in length";
    }
    for (int d = 0; d < x->rank; d++) {
        start[d] = 0;
        step[d] = 1;
        len[d] = x->dims[d];
    }
    for (int i = 0; i < cs; i++) {
        int64_t a = av[i] < 0 ? av[i] + x->rank : av[i];
        if (a < 0 || a >= x->rank || (seen & (1u << a)) || pv[i] == 0) {
            return "an axis is out of range or repeated, or a step is 0";
        }
        seen |= 1u << a;
        int64_t dim = x->dims[a], s = sv[i], e = ev[i], p = pv[i];
        s = s < 0 ? s + dim : s;
        e = e < 0 ? e + dim : e;
        if (p > 0) {
            s = s < 0 ? 0 : (s > dim ? dim : s);
            e = e < 0 ? 0 : (e > dim ? dim : e);
            len[a] = e > s ? (e - s - 1) / p + 1 : 0;
        } else {
            s = s < 0 ? 0 : (s > dim - 1 ? dim - 1 : s);
            e = e < -1 ? -1 : (e > dim - 1 ? dim - 1 : e);
            len[a] = s > e ? (int64_t)(((uint64_t)(s - e) - 1) / (0 - (uint64_t)p)) + 1 : 0;
        }
        start[a] = s;
        /* A step beyond the axis reaches one element only: keep it small (no overflow). */
        step[a] = len[a] <= 1 ? 1 : p;
    }
    return NULL;
}

ember_status *em_slice_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    elem_state s;
    bool known = true;
    int64_t start[EM_MAX_RANK], step[EM_MAX_RANK], len[EM_MAX_RANK];

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(check_io(ki, 3, 5));
    EMBER_TRY(check_ints_input(ki, 1, "starts", &known));
    EMBER_TRY(check_ints_input(ki, 2, "ends", &known));
    EMBER_TRY(check_ints_input(ki, 3, "axes", &known));
    EMBER_TRY(check_ints_input(ki, 4, "steps", &known));
    if (!em_ref_has_input(ki, 1) || !em_ref_has_input(ki, 2)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "'starts' and 'ends' are required");
    }
    if (known) {
        const char *why = slice_params(ki->in, ki->n_in, start, step, len);
        if (why != NULL) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%s", why);
        }
        EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], len, ki->in[0].rank, "output 0"));
    } else if (ki->out[0].rank != ki->in[0].rank) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "output rank differs from the input's");
    }
    memset(&s, 0, sizeof s);
    s.esize = em_dtype_size(ki->in[0].dtype);
    s.rank = ki->in[0].rank;
    s.n_in = ki->n_in;
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

void em_slice__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const elem_state *s = state;
    int64_t start[EM_MAX_RANK], step[EM_MAX_RANK], len[EM_MAX_RANK], xs[EM_MAX_RANK];
    int64_t strides[EM_MAX_RANK], base = 0;
    (void)ctx;
    const char *why = slice_params(in, s->n_in, start, step, len);
    bool same = why == NULL;
    for (int d = 0; same && d < s->rank; d++) {
        same = len[d] == out[0].dims[d];
    }
    if (!same) {
        memset(out[0].data, 0, em_tensor_nbytes(&out[0]));
        return;
    }
    em_tref_strides(in[0].dims, s->rank, xs);
    for (int d = 0; d < s->rank; d++) {
        base += len[d] > 0 ? start[d] * xs[d] : 0;
        strides[d] = step[d] * xs[d];
    }
    em_tref_strided_copy(s->esize, s->rank, out[0].dims, in[0].data, base, strides, out[0].data);
}

/* ---- Pad ------------------------------------------------------------------------------------ */

enum { PAD_CONSTANT, PAD_REFLECT, PAD_EDGE, PAD_WRAP };

/* Begin and end pads of every axis from pads (input 1) and axes (input 3), or a reason. */
static const char *pad_params(const em_tensor *in, int n_in, int64_t *pb, int64_t *pe)
{
    int64_t pv[2 * EM_MAX_RANK], av[EM_MAX_RANK];
    int cp, ca, r = in[0].rank;
    unsigned seen = 0;
    if (in[1].dtype != EMBER_DTYPE_I64 || !em_tref_ints(&in[1], pv, 2 * EM_MAX_RANK, &cp)) {
        return "'pads' must be a 1-D int64 tensor";
    }
    ca = r;
    for (int d = 0; d < r; d++) {
        av[d] = d;
        pb[d] = pe[d] = 0;
    }
    if (n_in > 3 && in[3].dtype != EMBER_DTYPE_UNDEFINED &&
        !em_tref_ints(&in[3], av, EM_MAX_RANK, &ca)) {
        return "'axes' must be a short 1-D int tensor";
    }
    if (cp != 2 * ca) {
        return "'pads' must have two entries per padded axis";
    }
    for (int i = 0; i < ca; i++) {
        int64_t a = av[i] < 0 ? av[i] + r : av[i];
        int64_t lim = (int64_t)1 << 60;
        if (a < 0 || a >= r || (seen & (1u << a))) {
            return "an axis is out of range or repeated";
        }
        if (pv[i] < -lim || pv[i] > lim || pv[ca + i] < -lim || pv[ca + i] > lim) {
            return "a pad is out of range";
        }
        seen |= 1u << a;
        pb[a] = pv[i];
        pe[a] = pv[ca + i];
        if (in[0].dims[a] + pb[a] + pe[a] < 0) {
            return "negative pads remove more than the axis holds";
        }
    }
    return NULL;
}

/* The cropped length of each axis; NULL when the mode can produce every output element. */
static const char *pad_check(const em_tensor *x, int mode, const int64_t *pb, const int64_t *pe)
{
    for (int d = 0; d < x->rank; d++) {
        int64_t len = x->dims[d] - (pb[d] < 0 ? -pb[d] : 0) - (pe[d] < 0 ? -pe[d] : 0);
        if (mode != PAD_CONSTANT && len <= 0 && (pb[d] > 0 || pe[d] > 0)) {
            return "edge, reflect and wrap cannot pad an empty axis";
        }
    }
    return NULL;
}

ember_status *em_pad_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    elem_state s;
    const em_tensor *x = &ki->in[0];
    const char *mode;
    bool known = true;
    static const char *const modes[] = {"constant", "reflect", "edge", "wrap"};

    *state = NULL;
    *scratch_bytes = 0;
    memset(&s, 0, sizeof s);
    EMBER_TRY(check_io(ki, 2, 4));
    EMBER_TRY(em_ref_attr_string(ki, "mode", "constant", &mode));
    s.mode = -1;
    for (int m = 0; m < 4; m++) {
        s.mode = strcmp(mode, modes[m]) == 0 ? m : s.mode;
    }
    if (s.mode < 0) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "unknown mode '%s'", mode);
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->in[1], EMBER_DTYPE_I64, "input 1 (pads)"));
    EMBER_TRY(check_ints_input(ki, 1, "pads", &known));
    EMBER_TRY(check_ints_input(ki, 3, "axes", &known));
    if (em_ref_has_input(ki, 2) &&
        (ki->in[2].dtype != x->dtype || em_tensor_numel(&ki->in[2]) > 1 || ki->in[2].rank > 1)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "'constant_value' must be one value of the data's dtype");
    }
    if (known) {
        int64_t pb[EM_MAX_RANK], pe[EM_MAX_RANK], dims[EM_MAX_RANK];
        const char *why = pad_params(ki->in, ki->n_in, pb, pe);
        why = why != NULL ? why : pad_check(x, s.mode, pb, pe);
        if (why != NULL) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "%s", why);
        }
        for (int d = 0; d < x->rank; d++) {
            dims[d] = x->dims[d] + pb[d] + pe[d];
        }
        EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], dims, x->rank, "output 0"));
    } else if (ki->out[0].rank != x->rank) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "output rank differs from the input's");
    }
    s.esize = em_dtype_size(x->dtype);
    s.rank = x->rank;
    s.n_in = ki->n_in;
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

/* Input coordinate (in the uncropped input) of output coordinate o on one axis, or -1 for the
 * constant. crop = elements cropped at the start, len = cropped length, shift = begin pad. */
static int64_t pad_src(int mode, int64_t o, int64_t shift, int64_t crop, int64_t len)
{
    int64_t c = o - shift;
    if (c >= 0 && c < len) {
        return c + crop;
    }
    switch (mode) {
    case PAD_EDGE:
        c = c < 0 ? 0 : len - 1;
        break;
    case PAD_REFLECT:
        if (len == 1) {
            c = 0;
        } else {
            int64_t p = 2 * (len - 1);
            c %= p;
            c = c < 0 ? c + p : c;
            c = c >= len ? p - c : c;
        }
        break;
    case PAD_WRAP:
        c %= len;
        c = c < 0 ? c + len : c;
        break;
    default:
        return -1;
    }
    return c + crop;
}

void em_pad__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const elem_state *s = state;
    const em_tensor *x = &in[0];
    int64_t pb[EM_MAX_RANK], pe[EM_MAX_RANK], crop[EM_MAX_RANK], len[EM_MAX_RANK];
    int64_t xs[EM_MAX_RANK], c[EM_MAX_RANK] = {0};
    (void)ctx;
    const char *why = pad_params(in, s->n_in, pb, pe);
    why = why != NULL ? why : pad_check(x, s->mode, pb, pe);
    for (int d = 0; why == NULL && d < s->rank; d++) {
        why = x->dims[d] + pb[d] + pe[d] == out[0].dims[d] ? NULL : "mismatch";
        crop[d] = pb[d] < 0 ? -pb[d] : 0;
        len[d] = x->dims[d] - crop[d] - (pe[d] < 0 ? -pe[d] : 0);
    }
    size_t es = s->esize;
    unsigned char zero[16] = {0};
    const unsigned char *cv = zero;
    if (s->n_in > 2 && in[2].dtype == x->dtype && em_tensor_numel(&in[2]) == 1 && es <= 16) {
        cv = in[2].data;
    }
    if (why != NULL) {
        memset(out[0].data, 0, em_tensor_nbytes(&out[0]));
        return;
    }
    em_tref_strides(x->dims, s->rank, xs);
    int64_t n = em_tensor_numel(&out[0]);
    unsigned char *dst = out[0].data;
    for (int64_t i = 0; i < n; i++) {
        int64_t off = 0;
        for (int d = 0; d < s->rank && off >= 0; d++) {
            int64_t src = pad_src(s->mode, c[d], pb[d] > 0 ? pb[d] : 0, crop[d], len[d]);
            off = src < 0 ? -1 : off + src * xs[d];
        }
        em_tref_copy1(es, dst + (size_t)i * es,
                      off < 0 ? cv : (const unsigned char *)x->data + (size_t)off * es);
        em_ref_coord_next(c, out[0].dims, s->rank);
    }
}

/* ---- ReverseSequence ------------------------------------------------------------------------ */

ember_status *em_reversesequence_prepare__ref(const em_kinfo *ki, void **state,
                                              size_t *scratch_bytes)
{
    ember_status *st = NULL;
    elem_state s;
    const em_tensor *x = &ki->in[0], *sl = &ki->in[1];

    *state = NULL;
    *scratch_bytes = 0;
    memset(&s, 0, sizeof s);
    EMBER_TRY(check_io(ki, 2, 2));
    EMBER_TRY(em_ref_attr_int(ki, "batch_axis", 1, &s.a));
    EMBER_TRY(em_ref_attr_int(ki, "time_axis", 0, &s.b));
    if (x->rank < 2 || s.a < 0 || s.a > 1 || s.b < 0 || s.b > 1 || s.a == s.b) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "need rank >= 2 and batch_axis, "
                            "time_axis that are 0 and 1");
    }
    EMBER_TRY(em_ref_check_tensor(ki, sl, EMBER_DTYPE_I64, "input 1 (sequence_lens)"));
    if (sl->rank != 1 || sl->dims[0] != x->dims[s.a]) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "'sequence_lens' must be 1-D with one entry per batch");
    }
    for (int64_t i = 0; sl->data != NULL && i < sl->dims[0]; i++) {
        int64_t v = ((const int64_t *)sl->data)[i];
        if (v < 0 || v > x->dims[s.b]) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "sequence_lens[%lld] = %lld is "
                                "out of range",
                                (long long)i, (long long)v);
        }
    }
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], x->dims, x->rank, "output 0"));
    s.esize = em_dtype_size(x->dtype);
    s.rank = x->rank;
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

void em_reversesequence__ref(const void *state, const em_tensor *in, em_tensor *out,
                             const em_kctx *ctx)
{
    const elem_state *s = state;
    const em_tensor *x = &in[0];
    const int64_t *lens = in[1].data;
    int64_t xs[EM_MAX_RANK], c[EM_MAX_RANK] = {0};
    (void)ctx;
    em_tref_strides(x->dims, s->rank, xs);
    int64_t n = em_tensor_numel(x), tdim = x->dims[s->b];
    unsigned char *dst = out[0].data;
    for (int64_t i = 0; i < n; i++) {
        int64_t len = lens[c[s->a]], t = c[s->b];
        len = len < 0 ? 0 : (len > tdim ? tdim : len);
        int64_t src_t = t < len ? len - 1 - t : t;
        int64_t off = i + (src_t - t) * xs[s->b];
        em_tref_copy1(s->esize, dst + (size_t)i * s->esize,
                      (const unsigned char *)x->data + (size_t)off * s->esize);
        em_ref_coord_next(c, x->dims, s->rank);
    }
}

/* ---- Trilu ---------------------------------------------------------------------------------- */

ember_status *em_trilu_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    elem_state s;
    const em_tensor *x = &ki->in[0];

    *state = NULL;
    *scratch_bytes = 0;
    memset(&s, 0, sizeof s);
    EMBER_TRY(check_io(ki, 1, 2));
    EMBER_TRY(em_ref_attr_int(ki, "upper", 1, &s.a));
    if (x->rank < 2) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input must have rank >= 2");
    }
    if (em_ref_has_input(ki, 1) &&
        (ki->in[1].dtype != EMBER_DTYPE_I64 || em_tensor_numel(&ki->in[1]) != 1)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "'k' must be one int64 value");
    }
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], x->dims, x->rank, "output 0"));
    s.esize = em_dtype_size(x->dtype);
    s.rank = x->rank;
    s.n_in = ki->n_in;
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

void em_trilu__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const elem_state *s = state;
    const em_tensor *x = &in[0];
    (void)ctx;
    int64_t k = s->n_in > 1 && in[1].dtype == EMBER_DTYPE_I64 ? *(const int64_t *)in[1].data : 0;
    int64_t rows = x->dims[s->rank - 2], cols = x->dims[s->rank - 1];
    int64_t n = em_tensor_numel(x);
    size_t es = s->esize;
    const unsigned char *src = x->data;
    unsigned char *dst = out[0].data;
    /* Keep j - i >= k (upper) or j - i <= k (lower); |j - i| < 2^62, no overflow. */
    for (int64_t e = 0; e < n; e++) {
        int64_t j = e % cols, i = (e / cols) % rows, diff = j - i;
        bool keep = s->a != 0 ? diff >= k : diff <= k;
        if (keep) {
            em_tref_copy1(es, dst + (size_t)e * es, src + (size_t)e * es);
        } else {
            memset(dst + (size_t)e * es, 0, es);
        }
    }
}
