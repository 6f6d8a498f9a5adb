/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Det-22 and Einsum-28.
 *
 * Det, f32 f64 f16 bf16: the determinant of each M x M matrix of X [*, M, M], by Gaussian
 * elimination with partial pivoting in double (each row swap flips the sign; the product of
 * the pivots is the determinant). A zero pivot column gives 0; M = 0 gives 1 (the empty
 * product). The matrix is copied into M * M doubles of scratch; matrices run one by one.
 *
 * Einsum, f32 f64 f16 bf16 i32 i64, up to EM_EIN_MAX_IN inputs: numpy einsum semantics. Labels are
 * the letters (A-Z, a-z) plus one label per broadcast "..." dim (right-aligned across inputs, size
 * 1 broadcasting). Without "->" the output is the "..." dims followed by the letters that occur
 * exactly once, in ASCII order. Every other label is summed over. Each input gets one element
 * stride per label: the sum of the strides of its axes carrying that label (so a repeated label
 * walks the diagonal) and 0 where a "..." dim of size 1 broadcasts. run then visits, for each
 * output element, every combination of the summed labels and adds the product of the inputs (double
 * for floats, rounded once into the output dtype; wrapping uint64 for integers). The equation
 * parser (runtime/ir/einsum.c) is shared with the shape function, so both agree on the labels.
 */
#include "ref.h"

#include "ir/einsum.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct em_det_attrs {
    ember_dtype dt;
    int64_t batch, m;
} em_det_attrs;

ember_status *em_det_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_det_attrs a;
    const em_tensor *x = &ki->in[0];

    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_UNDEFINED, "input 0 (X)"));
    if (!em_q_is_float(x->dtype)) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "dtype %s is not supported",
                            em_dtype_name(x->dtype));
    }
    if (x->rank < 2 || x->dims[x->rank - 1] != x->dims[x->rank - 2]) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "input 0 (X) must be [*, M, M] (rank >= 2, square)");
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0 (Y)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], x->dims, x->rank - 2, "output 0 (Y)"));
    a.dt = x->dtype;
    a.m = x->dims[x->rank - 1];
    a.batch = em_ref_prod(x->dims, x->rank - 2);
    if (a.m > ((int64_t)1 << 15)) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "matrices of %lld rows are too large",
                            (long long)a.m);
    }
    *scratch_bytes = (size_t)(a.m > 0 ? a.m * a.m : 1) * sizeof(double);
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

/* Determinant of the m x m row-major matrix `w`, destroyed in the process. */
static double det_inplace(double *w, int64_t m)
{
    double det = 1.0;
    for (int64_t k = 0; k < m; k++) {
        int64_t p = k;
        for (int64_t i = k + 1; i < m; i++) {
            p = fabs(w[i * m + k]) > fabs(w[p * m + k]) ? i : p;
        }
        if (w[p * m + k] == 0.0) {
            return 0.0;
        }
        if (p != k) {
            for (int64_t c = 0; c < m; c++) {
                double t = w[k * m + c];
                w[k * m + c] = w[p * m + c];
                w[p * m + c] = t;
            }
            det = -det;
        }
        double piv = w[k * m + k];
        det *= piv;
        for (int64_t i = k + 1; i < m; i++) {
            double f = w[i * m + k] / piv;
            for (int64_t c = k + 1; c < m; c++) {
                w[i * m + c] -= f * w[k * m + c];
            }
        }
    }
    return det;
}

void em_det__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_det_attrs *a = state;
    double *w = ctx->scratch;
    const int64_t mm = a->m * a->m;
    for (int64_t b = 0; b < a->batch; b++) {
        for (int64_t i = 0; i < mm; i++) {
            w[i] = em_tref_get(a->dt, in[0].data, b * mm + i);
        }
        em_q_setf(a->dt, out[0].data, b, det_inplace(w, a->m));
    }
}

/* ---- Einsum ------------------------------------------------------------------------------ */

typedef struct em_einsum_attrs {
    ember_dtype dt;
    int n_in, n_labels, n_out; /* labels 0..n_out-1 are the output's, the rest are summed */
    int64_t size[EM_EIN_MAX_LABELS];
    int64_t stride[EM_EIN_MAX_IN][EM_EIN_MAX_LABELS];
} em_einsum_attrs;

/* Label sizes (letters equal everywhere, "..." dims broadcast) into size[] by original label;
 * -1 for unused labels. */
static ember_status *ein_sizes(const em_kinfo *ki, const em_ein_labels *p, int64_t *size)
{
    for (int l = 0; l < EM_EIN_MAX_LABELS; l++) {
        size[l] = -1;
    }
    for (int i = 0; i < ki->n_in; i++) {
        for (int a = 0; a < ki->in[i].rank; a++) {
            int l = p->lab[i][a];
            int64_t d = ki->in[i].dims[a];
            if (size[l] < 0 || (l >= EM_EIN_LETTERS && size[l] == 1)) {
                size[l] = d;
            } else if (d != size[l] && !(l >= EM_EIN_LETTERS && d == 1)) {
                return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                    "input %d axis %d has size %lld, another axis with its label "
                                    "%lld",
                                    i, a, (long long)d, (long long)size[l]);
            }
        }
    }
    return NULL;
}

/* Numbers the used labels (outputs first) and fills sizes and per-input strides. */
static void ein_layout(const em_kinfo *ki, const em_ein_labels *p, const int64_t *size,
                       em_einsum_attrs *a)
{
    int id[EM_EIN_MAX_LABELS];
    for (int l = 0; l < EM_EIN_MAX_LABELS; l++) {
        id[l] = -1;
    }
    a->n_out = p->n_out;
    for (int o = 0; o < p->n_out; o++) {
        id[p->out[o]] = a->n_labels;
        a->size[a->n_labels++] = size[p->out[o]];
    }
    for (int l = 0; l < EM_EIN_MAX_LABELS; l++) {
        if (size[l] >= 0 && id[l] < 0) {
            id[l] = a->n_labels;
            a->size[a->n_labels++] = size[l];
        }
    }
    for (int i = 0; i < ki->n_in; i++) {
        int64_t st = 1;
        for (int ax = ki->in[i].rank - 1; ax >= 0; ax--) {
            int l = p->lab[i][ax];
            if (ki->in[i].dims[ax] == size[l]) { /* else a broadcast size-1 "..." dim */
                a->stride[i][id[l]] += st;
            }
            st *= ki->in[i].dims[ax];
        }
    }
}

ember_status *em_einsum_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_einsum_attrs a;
    em_ein_labels p;
    const char *eq;
    int ranks[EM_EIN_MAX_IN];
    int64_t size[EM_EIN_MAX_LABELS], od[EM_MAX_RANK];

    *state = NULL;
    *scratch_bytes = 0;
    memset(&a, 0, sizeof a);
    EMBER_TRY(em_ref_check_arity(ki, 1, EM_EIN_MAX_IN, 1));
    a.dt = ki->in[0].dtype;
    if (!em_q_is_float(a.dt) && a.dt != EMBER_DTYPE_I32 && a.dt != EMBER_DTYPE_I64) {
        return em_ref_error(ki, EMBER_ERR_UNSUPPORTED, "dtype %s is not supported",
                            em_dtype_name(a.dt));
    }
    for (int i = 0; i < ki->n_in; i++) {
        EMBER_TRY(em_ref_check_tensor(ki, &ki->in[i], a.dt, "an input"));
        ranks[i] = ki->in[i].rank;
    }
    EMBER_TRY(em_ref_attr_string(ki, "equation", NULL, &eq));
    if (eq == NULL) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "attribute 'equation' is missing");
    }
    const char *why = em_einsum_parse(eq, ki->n_in, ranks, &p);
    if (why != NULL) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "equation '%s': %s", eq, why);
    }
    EMBER_TRY(ein_sizes(ki, &p, size));
    for (int o = 0; o < p.n_out; o++) {
        od[o] = size[p.out[o]];
    }
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], a.dt, "output 0 (Output)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], od, p.n_out, "output 0 (Output)"));
    a.n_in = ki->n_in;
    ein_layout(ki, &p, size, &a);
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct einsum_job {
    const em_einsum_attrs *a;
    const em_tensor *in;
    void *y;
} einsum_job;

/* One output element: its labels are fixed in off[]; walk the summed labels. */
static void einsum_one(const einsum_job *j, int64_t o)
{
    const em_einsum_attrs *a = j->a;
    int64_t off[EM_EIN_MAX_IN] = {0}, val[EM_EIN_MAX_LABELS] = {0};
    bool fl = em_q_is_float(a->dt);
    int64_t rest = o;
    for (int l = a->n_out - 1; l >= 0; l--) {
        int64_t v = rest % a->size[l];
        rest /= a->size[l];
        for (int i = 0; i < a->n_in; i++) {
            off[i] += v * a->stride[i][l];
        }
    }
    int64_t n_sum = 1;
    for (int l = a->n_out; l < a->n_labels; l++) {
        n_sum *= a->size[l];
    }
    double sf = 0.0;
    uint64_t si = 0;
    for (int64_t s = 0; s < n_sum; s++) {
        double pf = 1.0;
        uint64_t pi = 1;
        for (int i = 0; i < a->n_in; i++) {
            if (fl) {
                pf *= em_tref_get(a->dt, j->in[i].data, off[i]);
            } else {
                pi *= (uint64_t)em_rd_load_i(j->in[i].data, a->dt, off[i]);
            }
        }
        sf += pf;
        si += pi;
        /* Odometer step over the summed labels, keeping off[] in step. */
        for (int l = a->n_labels - 1; l >= a->n_out; l--) {
            for (int i = 0; i < a->n_in; i++) {
                off[i] += a->stride[i][l];
            }
            if (++val[l] < a->size[l]) {
                break;
            }
            for (int i = 0; i < a->n_in; i++) {
                off[i] -= a->size[l] * a->stride[i][l];
            }
            val[l] = 0;
        }
    }
    if (fl) {
        em_q_setf(a->dt, j->y, o, sf);
    } else {
        em_rd_store_i(j->y, a->dt, o,
                      si <= INT64_MAX ? (int64_t)si
                                      : (int64_t)(si - ((uint64_t)1 << 63)) + INT64_MIN);
    }
}

static void einsum_task(void *arg, int64_t begin, int64_t end)
{
    for (int64_t o = begin; o < end; o++) {
        einsum_one(arg, o);
    }
}

void em_einsum__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_einsum_attrs *a = state;
    einsum_job j = {a, in, out[0].data};
    int64_t n_out = 1;
    for (int l = 0; l < a->n_out; l++) {
        n_out *= a->size[l];
    }
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, n_out, 16, einsum_task, &j);
}
