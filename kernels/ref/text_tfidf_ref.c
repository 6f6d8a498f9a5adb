/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TfIdfVectorizer-9 (kernels_text.def), counting as onnx's reference implementation and onnxruntime
 * do. The pool holds n-grams grouped by length: ngram_counts[k] is where the (k+1)-grams start;
 * n-grams are numbered 1, 2, ... in pool order across every length, those outside
 * [min_gram_length, max_gram_length] keeping their numbers without being loaded, and n-gram j
 * is counted into output column ngram_indexes[j - 1]. Loaded n-grams form a trie (one node per
 * distinct prefix, found through a hash of (parent, item)); a later duplicate's number wins.
 * For every skip distance 1..max_skip_count + 1 and start position, the trie is walked along
 * items start, start + skip, ...; unigrams are counted at the first distance only.
 */
#include "ref.h"

#include "core/alloc.h"
#include "core/strtensor.h"

#include <string.h>

typedef enum tf_mode { TF_TF = 0, TF_IDF, TF_TFIDF } tf_mode;

typedef struct tf_node {
    int64_t parent; /* -1: the root */
    int64_t key;    /* int pools */
    const char *skey; /* string pools: the node's attribute string */
    int64_t id;     /* 0: a prefix only */
} tf_node;

typedef struct tf_state {
    tf_mode mode;
    int64_t min_gram, max_gram, max_skip;
    bool strings;
    ember_dtype dt;
    int64_t rows, cols, out_size;
    const int64_t *idx;
    int64_t n_idx;
    const float *w;
    int64_t n_w;
    tf_node *nodes; /* in the same allocation as the state */
    int64_t n_nodes;
    int64_t *slots; /* hash of (parent, key): node index + 1, 0 = empty */
    uint64_t mask;
} tf_state;

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

static uint64_t key_hash(const tf_state *s, int64_t parent, int64_t key, const char *skey)
{
    uint64_t h = mix((uint64_t)parent + 0x9e3779b97f4a7c15ull);
    if (s->strings) {
        uint64_t f = 0xcbf29ce484222325ull; /* FNV-1a */
        for (const unsigned char *p = (const unsigned char *)skey; *p != '\0'; p++) {
            f = (f ^ *p) * 0x100000001b3ull;
        }
        return mix(h ^ f);
    }
    return mix(h ^ (uint64_t)key);
}

/* The hash slot of the child of `parent` for an item: holding it, or empty when there is none. */
static int64_t *find_slot(const tf_state *s, int64_t parent, int64_t key, const char *skey)
{
    for (uint64_t h = key_hash(s, parent, key, skey);; h++) {
        int64_t *slot = &s->slots[h & s->mask];
        if (*slot == 0) {
            return slot;
        }
        const tf_node *n = &s->nodes[*slot - 1];
        if (n->parent == parent && (s->strings ? strcmp(n->skey, skey) == 0 : n->key == key)) {
            return slot;
        }
    }
}

static int64_t find_child(const tf_state *s, int64_t parent, int64_t key, const char *skey)
{
    return *find_slot(s, parent, key, skey) - 1;
}

static int64_t add_child(tf_state *s, int64_t parent, int64_t key, const char *skey)
{
    int64_t *slot = find_slot(s, parent, key, skey);
    if (*slot == 0) {
        tf_node *n = &s->nodes[s->n_nodes];
        n->parent = parent;
        n->key = key;
        n->skey = skey;
        n->id = 0;
        *slot = ++s->n_nodes;
    }
    return *slot - 1;
}

typedef struct tf_pool {
    const int64_t *ints;
    char *const *strs;
    int64_t n;
    const int64_t *counts;
    int64_t n_counts;
} tf_pool;

/* Loads the pool into the trie; *max_id is the highest n-gram number given. */
static ember_status *load_pool(const em_kinfo *ki, tf_state *s, const tf_pool *p,
                               int64_t *max_id)
{
    int64_t id = 1;
    for (int64_t k = 0, size = 1; k < p->n_counts; k++, size++) {
        int64_t start = p->counts[k], end = k + 1 < p->n_counts ? p->counts[k + 1] : p->n;
        if (start < 0 || end < start || end > p->n) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                                "ngram_counts[%lld] = %lld: the pool ranges are not increasing "
                                "within the pool's %lld items",
                                (long long)k, (long long)start, (long long)p->n);
        }
        int64_t grams = (end - start) / size;
        if (size < s->min_gram || size > s->max_gram) {
            id += grams;
            continue;
        }
        for (int64_t g = 0; g < grams; g++, id++) {
            int64_t node = -1;
            for (int64_t j = 0; j < size; j++) {
                int64_t at = start + g * size + j;
                node = add_child(s, node, p->ints != NULL ? p->ints[at] : 0,
                                 p->strs != NULL ? p->strs[at] : NULL);
            }
            s->nodes[node].id = id;
        }
    }
    *max_id = id - 1;
    return NULL;
}

static ember_status *parse_attrs(const em_kinfo *ki, tf_state *s, tf_pool *p)
{
    ember_status *st = NULL;
    const char *mode = NULL;
    EMBER_TRY(em_ref_attr_string(ki, "mode", NULL, &mode));
    EMBER_TRY(em_ref_attr_int(ki, "min_gram_length", 0, &s->min_gram));
    EMBER_TRY(em_ref_attr_int(ki, "max_gram_length", 0, &s->max_gram));
    EMBER_TRY(em_ref_attr_int(ki, "max_skip_count", 0, &s->max_skip));
    if (mode == NULL || (strcmp(mode, "TF") && strcmp(mode, "IDF") && strcmp(mode, "TFIDF"))) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "mode must be TF, IDF or TFIDF");
    }
    s->mode = strcmp(mode, "TF") == 0 ? TF_TF : strcmp(mode, "IDF") == 0 ? TF_IDF : TF_TFIDF;
    if (s->min_gram < 1 || s->max_gram < s->min_gram || s->max_skip < 0 ||
        s->max_skip > ((int64_t)1 << 30)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "needs 1 <= min_gram_length <= max_gram_length and max_skip_count "
                            ">= 0");
    }
    s->n_idx = em_node_attr_ints(ki->node, "ngram_indexes", &s->idx);
    p->n_counts = em_node_attr_ints(ki->node, "ngram_counts", &p->counts);
    const em_attr *pi = em_node_attr(ki->node, "pool_int64s");
    const em_attr *ps = em_node_attr(ki->node, "pool_strings");
    const em_attr *w = em_node_attr(ki->node, "weights");
    if (s->n_idx <= 0 || p->n_counts <= 0 || (pi == NULL) == (ps == NULL) ||
        (pi != NULL && pi->type != EM_ATTR_INTS) || (ps != NULL && ps->type != EM_ATTR_STRINGS) ||
        (w != NULL && w->type != EM_ATTR_FLOATS)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "needs ngram_indexes, ngram_counts, weights (floats, optional) and "
                            "exactly one of pool_int64s and pool_strings");
    }
    s->strings = ps != NULL;
    p->ints = pi != NULL ? pi->ints : NULL;
    p->strs = ps != NULL ? ps->strings : NULL;
    p->n = pi != NULL ? pi->n : ps->n;
    s->w = w != NULL ? w->floats : NULL;
    s->n_w = w != NULL ? w->n : 0;
    if (s->strings != (s->dt == EMBER_DTYPE_STRING)) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "input 0 is %s but the pool holds %s", em_dtype_name(s->dt),
                            s->strings ? "strings" : "integers");
    }
    return NULL;
fail:
    return st;
}

ember_status *em_tfidfvectorizer_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch)
{
    ember_status *st = NULL;
    tf_state s = {0};
    tf_pool p = {0};
    *scratch = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    const em_tensor *x = &ki->in[0];
    s.dt = x->dtype;
    if (s.dt != EMBER_DTYPE_I32 && s.dt != EMBER_DTYPE_I64 && s.dt != EMBER_DTYPE_STRING) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input 0 must be int32, int64 or string");
    }
    EMBER_TRY(em_ref_check_tensor(ki, x, s.dt, "input 0"));
    if (x->rank > 2) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input 0 must have shape [C] or [N, C]");
    }
    EMBER_TRY(parse_attrs(ki, &s, &p));
    for (int64_t i = 0; i < s.n_idx; i++) {
        s.out_size = s.idx[i] + 1 > s.out_size ? s.idx[i] + 1 : s.out_size;
        if (s.idx[i] < 0) {
            return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "ngram_indexes has a negative entry");
        }
    }
    s.rows = x->rank == 2 ? x->dims[0] : 1;
    s.cols = x->rank == 0 ? 1 : x->dims[x->rank - 1];
    int64_t ydims[2] = {s.rows, s.out_size};
    EMBER_TRY(em_ref_check_tensor(ki, &ki->out[0], EMBER_DTYPE_F32, "output 0"));
    EMBER_TRY(em_ref_check_shape(ki, &ki->out[0], x->rank == 2 ? ydims : ydims + 1,
                                 x->rank == 2 ? 2 : 1, "output 0"));
    size_t cap = 4;
    while (cap < 2 * (size_t)p.n + 2) {
        cap *= 2;
    }
    size_t nodes_at = em_align_up(sizeof s, 8), slots_at = nodes_at + sizeof(tf_node) * (size_t)p.n;
    tf_state *t = em_calloc(ki->al, 1, slots_at + sizeof(int64_t) * cap);
    if (t == NULL) {
        return em_status_oom();
    }
    *t = s;
    t->nodes = (tf_node *)((char *)t + nodes_at);
    t->slots = (int64_t *)((char *)t + slots_at);
    t->mask = cap - 1;
    int64_t max_id = 0;
    st = load_pool(ki, t, &p, &max_id);
    if (st == NULL && max_id > t->n_idx) {
        st = em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                          "the pool holds %lld n-grams, ngram_indexes only %lld",
                          (long long)max_id, (long long)t->n_idx);
    }
    if (st != NULL) {
        em_free(ki->al, t);
        return st;
    }
    *state = t;
    return NULL;
fail:
    return st;
}

/* Counts the n-grams of one row of x into y (the row's out_size counters). */
static void count_row(const tf_state *s, const em_tensor *x, int64_t row, float *y)
{
    int64_t start_size = s->min_gram, base = row * s->cols;
    for (int64_t skip = 1; skip <= s->max_skip + 1; skip++) {
        for (int64_t st = 0; st < s->cols; st++) {
            if (st + skip * (start_size - 1) >= s->cols) {
                break;
            }
            int64_t node = -1;
            for (int64_t size = 1, at = st; size <= s->max_gram && at < s->cols;
                 size++, at += skip) {
                int64_t k = 0;
                const char *sk = NULL;
                if (s->dt == EMBER_DTYPE_STRING) {
                    sk = em_str_at(x, base + at);
                } else {
                    k = s->dt == EMBER_DTYPE_I32 ? ((const int32_t *)x->data)[base + at]
                                                 : ((const int64_t *)x->data)[base + at];
                }
                node = find_child(s, node, k, sk);
                if (node < 0) {
                    break;
                }
                int64_t id = s->nodes[node].id;
                if (size >= start_size && id != 0) {
                    y[s->idx[id - 1]] += 1.0f;
                }
            }
        }
        if (start_size == 1) { /* unigrams do not depend on the skip: counted once */
            start_size = 2;
            if (start_size > s->max_gram) {
                break;
            }
        }
    }
}

void em_tfidfvectorizer__ref(const void *state, const em_tensor *in, em_tensor *out,
                             const em_kctx *ctx)
{
    const tf_state *s = state;
    float *y = out[0].data;
    (void)ctx;
    memset(y, 0, sizeof(float) * (size_t)(s->rows * s->out_size));
    for (int64_t r = 0; r < s->rows && s->n_nodes > 0; r++) {
        count_row(s, &in[0], r, y + r * s->out_size);
    }
    for (int64_t r = 0; r < s->rows; r++) {
        for (int64_t c = 0; c < s->out_size; c++) {
            float *v = &y[r * s->out_size + c];
            float w = s->n_w > 0 ? (c < s->n_w ? s->w[c] : 0.0f) : 1.0f;
            if (s->mode == TF_IDF) {
                *v = *v > 0 ? w : 0.0f;
            } else if (s->mode == TF_TFIDF) {
                *v *= w;
            }
        }
    }
}
