/* SPDX-License-Identifier: Apache-2.0 */
/*
 * RotaryEmbedding-23 and TensorScatter-24.
 *
 * RotaryEmbedding: X is [B, H, S, D] or [B, S, H * D] (num_heads); the first R =
 * rotary_embedding_dim (0: D) entries of each head vector rotate in R / 2 pairs, the rest pass
 * through. Pair k is (x[k], x[k + R/2]), or (x[2k], x[2k + 1]) when interleaved, and becomes (cos *
 * x1 - sin * x2, sin * x1 + cos * x2) with cos / sin = cache[position_ids[b, s], k] (caches
 * [max_pos, R/2]) or cache[b, s, k] without position_ids (caches [B, S, R/2]). A position outside
 * the cache (only found while running, when position_ids are not constant) rotates nothing: its
 * rotated part is written as zeros. Computed in double, stored once.
 *
 * TensorScatter: present = past_cache with, for every index before `axis` (batch b first) and
 * s < update's length, slot write_indices[b] + s (mod the cache length when circular) of the
 * axis replaced by update's slot s. Slots past the cache end (linear mode, only possible with
 * write_indices unknown when planning) are dropped. Bytes are copied, so any dtype works; the
 * output may be past_cache itself (in place).
 */
#include "ref.h"

#include <string.h>

/* ---- RotaryEmbedding ----------------------------------------------------------------------- */

typedef struct em_rotary_attrs {
    ember_dtype dt;
    int64_t batch, heads, seq, hd, rot, max_pos;
    int64_t sb, sh, ss; /* element strides of b, h, s in X and Y */
    bool interleaved, has_pos;
} em_rotary_attrs;

static ember_status *rotary_caches(const em_kinfo *ki, em_rotary_attrs *a)
{
    ember_status *st = NULL;
    const int64_t half = a->rot / 2;
    a->has_pos = em_ref_has_input(ki, 3);
    for (int i = 1; i < 3; i++) {
        const em_tensor *c = &ki->in[i];
        EMBER_TRY(em_ref_check_tensor(ki, c, a->dt,
                                      i == 1 ? "input 1 (cos_cache)" : "input 2 (sin_cache)"));
        bool ok = a->has_pos ? c->rank == 2 && c->dims[1] == half
                             : c->rank == 3 && c->dims[0] == a->batch && c->dims[1] == a->seq &&
                                   c->dims[2] == half;
        if (!ok || (i == 2 && c->dims[0] != ki->in[1].dims[0])) {
            return em_ref_error(
                ki, EMBER_ERR_INVALID_MODEL,
                "cos_cache / sin_cache must be %s with last dim %lld (rotary dim / 2)",
                a->has_pos ? "[max_position, R/2]" : "[B, S, R/2]", (long long)half);
        }
    }
    a->max_pos = ki->in[1].dims[0];
    if (!a->has_pos) {
        return NULL;
    }
    const em_tensor *p = &ki->in[3];
    EMBER_TRY(em_ref_check_tensor(ki, p, EMBER_DTYPE_I64, "input 3 (position_ids)"));
    if (p->rank != 2 || p->dims[0] != a->batch || p->dims[1] != a->seq) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "position_ids must be [B, S] = [%lld, %lld]", (long long)a->batch,
                            (long long)a->seq);
    }
    for (int64_t i = 0; p->data != NULL && i < a->batch * a->seq; i++) {
        int64_t v = ((const int64_t *)p->data)[i];
        if (v < 0 || v >= a->max_pos) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "position_ids[%lld] = %lld is outside the caches' %lld positions",
                                (long long)i, (long long)v, (long long)a->max_pos);
        }
    }
    return NULL;
fail:
    return st;
}

ember_status *em_rotary_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_rotary_attrs a;
    const em_tensor *x = &ki->in[0];
    int64_t heads, rot, inter;

    memset(&a, 0, sizeof a);
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 3, 4, 1));
    EMBER_TRY(em_attn_check_float(ki, x, "input 0 (X)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], x->dtype, "output 0 (Y)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], x->dims, x->rank, "output 0 (Y)"));
    EMBER_TRY(em_ref_attr_int(ki, "num_heads", 0, &heads));
    EMBER_TRY(em_ref_attr_int(ki, "rotary_embedding_dim", 0, &rot));
    EMBER_TRY(em_ref_attr_int(ki, "interleaved", 0, &inter));
    if ((x->rank != 3 && x->rank != 4) ||
        (x->rank == 3 && (heads < 1 || x->dims[2] % heads != 0))) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "X must be [B, H, S, D], or [B, S, H * D] with num_heads dividing the "
                            "hidden size");
    }
    a.dt = x->dtype;
    a.batch = x->dims[0];
    a.heads = x->rank == 4 ? x->dims[1] : heads;
    a.seq = x->dims[x->rank - 2];
    a.hd = x->rank == 4 ? x->dims[3] : x->dims[2] / heads;
    a.rot = rot == 0 ? a.hd : rot;
    if (a.rot < 0 || a.rot > a.hd || a.rot % 2 != 0) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "rotary dim %lld must be even and at most the head size %lld",
                            (long long)a.rot, (long long)a.hd);
    }
    a.interleaved = inter != 0;
    a.sb = a.heads * a.seq * a.hd;
    a.sh = x->rank == 4 ? a.seq * a.hd : a.hd;
    a.ss = x->rank == 4 ? a.hd : a.heads * a.hd;
    EMBER_TRY(rotary_caches(ki, &a));
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

typedef struct rotary_job {
    const em_rotary_attrs *a;
    const em_tensor *in;
    em_tensor *out;
} rotary_job;

static void rotary_task(void *arg, int64_t begin, int64_t end)
{
    const rotary_job *j = arg;
    const em_rotary_attrs *a = j->a;
    const void *x = j->in[0].data;
    void *y = j->out[0].data;
    const int64_t half = a->rot / 2;
    for (int64_t r = begin; r < end; r++) { /* r = (b * S + s) * H + h */
        const int64_t b = r / (a->seq * a->heads), s = r / a->heads % a->seq, h = r % a->heads;
        const int64_t e0 = b * a->sb + h * a->sh + s * a->ss;
        int64_t c0 = (b * a->seq + s) * half; /* cache row without position_ids */
        bool ok = true;
        if (a->has_pos) {
            int64_t p = ((const int64_t *)j->in[3].data)[b * a->seq + s];
            ok = p >= 0 && p < a->max_pos;
            c0 = p * half;
        }
        for (int64_t k = 0; k < half; k++) {
            int64_t i1 = a->interleaved ? 2 * k : k, i2 = a->interleaved ? 2 * k + 1 : k + half;
            double x1 = em_nn_get(a->dt, x, e0 + i1), x2 = em_nn_get(a->dt, x, e0 + i2);
            double c = ok ? em_nn_get(a->dt, j->in[1].data, c0 + k) : 0.0;
            double sn = ok ? em_nn_get(a->dt, j->in[2].data, c0 + k) : 0.0;
            em_nn_set(a->dt, y, e0 + i1, c * x1 - sn * x2);
            em_nn_set(a->dt, y, e0 + i2, sn * x1 + c * x2);
        }
        for (int64_t d = a->rot; d < a->hd && y != x; d++) {
            em_nn_set(a->dt, y, e0 + d, em_nn_get(a->dt, x, e0 + d));
        }
    }
}

void em_rotary__ref(const void *state, const em_tensor *in, em_tensor *out, const em_kctx *ctx)
{
    const em_rotary_attrs *a = state;
    rotary_job j = {a, in, out};
    em_parallel_for(ctx != NULL ? ctx->pool : NULL, a->batch * a->seq * a->heads, 1, rotary_task,
                    &j);
}

/* ---- TensorScatter ------------------------------------------------------------------------- */

typedef struct em_tscatter_attrs {
    size_t esize;
    int64_t prefix, per_batch; /* index tuples before the axis; of them per batch entry */
    int64_t max_len, upd_len, inner;
    bool circular, has_idx;
} em_tscatter_attrs;

ember_status *em_tensorscatter_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch_bytes)
{
    ember_status *st = NULL;
    em_tscatter_attrs a;
    const em_tensor *c = &ki->in[0], *u = &ki->in[1];
    static const char *const modes[] = {"linear", "circular"};
    int64_t axis;
    int mode = 0;

    memset(&a, 0, sizeof a);
    *state = NULL;
    *scratch_bytes = 0;
    EMBER_TRY(em_ref_check_arity(ki, 2, 3, 1));
    EMBER_TRY(em_ref_check_tensor(ki, c, EMBER_DTYPE_UNDEFINED, "input 0 (past_cache)"));
    EMBER_TRY(em_ref_check_tensor(ki, u, c->dtype, "input 1 (update)"));
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], c->dtype, "output 0 (present_cache)"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], c->dims, c->rank, "output 0 (present_cache)"));
    EMBER_TRY(em_ref_attr_int(ki, "axis", -2, &axis));
    EMBER_TRY(em_nn_attr_enum(ki, "mode", modes, 2, 0, &mode));
    int64_t ax = axis < 0 ? axis + c->rank : axis;
    bool ok = u->rank == c->rank && ax >= 1 && ax < c->rank;
    for (int d = 0; ok && d < c->rank; d++) {
        ok = d == ax ? u->dims[d] <= c->dims[d] : u->dims[d] == c->dims[d];
    }
    if (!ok) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "axis %lld must be a non-batch axis of past_cache, and update must "
                            "match past_cache except along it, where it may be shorter",
                            (long long)axis);
    }
    a.has_idx = em_ref_has_input(ki, 2);
    if (a.has_idx) {
        const em_tensor *w = &ki->in[2];
        EMBER_TRY(em_ref_check_tensor(ki, w, EMBER_DTYPE_I64, "input 2 (write_indices)"));
        if (w->rank != 1 || w->dims[0] != c->dims[0]) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "write_indices must be [batch]");
        }
        for (int64_t i = 0; w->data != NULL && mode == 0 && i < w->dims[0]; i++) {
            int64_t v = ((const int64_t *)w->data)[i];
            if (v < 0 || v > c->dims[ax] - u->dims[ax]) {
                return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                    "write_indices[%lld] = %lld writes past the cache's %lld slots",
                                    (long long)i, (long long)v, (long long)c->dims[ax]);
            }
        }
    }
    a.esize = em_dtype_size(c->dtype);
    a.prefix = em_ref_prod(c->dims, (int)ax);
    a.per_batch = c->dims[0] > 0 ? a.prefix / c->dims[0] : 0;
    a.max_len = c->dims[ax];
    a.upd_len = u->dims[ax];
    a.inner = em_ref_prod(c->dims + ax + 1, c->rank - (int)ax - 1);
    a.circular = mode == 1;
    return em_ref_state_new(ki, &a, sizeof a, state);
fail:
    return st;
}

void em_tensorscatter__ref(const void *state, const em_tensor *in, em_tensor *out,
                           const em_kctx *ctx)
{
    const em_tscatter_attrs *a = state;
    const size_t row = (size_t)a->inner * a->esize;
    char *y = out[0].data;
    const char *u = in[1].data;
    (void)ctx;
    if (y != in[0].data && a->prefix * a->max_len * a->inner > 0) {
        memcpy(y, in[0].data, (size_t)(a->prefix * a->max_len) * row);
    }
    for (int64_t p = 0; p < a->prefix; p++) {
        int64_t w = a->has_idx ? ((const int64_t *)in[2].data)[p / a->per_batch] : 0;
        for (int64_t s = 0; s < a->upd_len; s++) {
            int64_t dst = w + s;
            if (a->circular) {
                dst %= a->max_len;
                dst += dst < 0 ? a->max_len : 0;
            }
            if (dst >= 0 && dst < a->max_len) {
                memcpy(y + (size_t)(p * a->max_len + dst) * row,
                       u + (size_t)(p * a->upd_len + s) * row, row);
            }
        }
    }
}
