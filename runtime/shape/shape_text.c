/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape functions of the text family (ONNX StringNormalizer-10, StringConcat-20,
 * StringSplit-20, RegexFullMatch-20, TfIdfVectorizer-9). StringNormalizer's length (stopwords
 * dropped, at least 1) and StringSplit's last dim (the most pieces of any element) depend on
 * the data: exact when the input has a value (the interpreter always gives one), unknown
 * otherwise. The rules that decide them are text.h's, which the kernels share.
 */
#include "shape/shape.h"

#include "core/status.h"
#include "core/strtensor.h"
#include "ir/text.h"

#include <stdint.h>
#include <string.h>

/* Input i must be a string tensor when its dtype is known. */
static ember_status *need_strings(const em_node *n, const em_shape *in, int i)
{
    if (in[i].dtype != EMBER_DTYPE_UNDEFINED && in[i].dtype != EMBER_DTYPE_STRING) {
        return em_status_new(EMBER_ERR_INVALID_MODEL,
                             "node '%s' (%s): input %d has dtype %s, the op takes strings",
                             n->name, em_op_name(n->op), i, em_dtype_name(in[i].dtype));
    }
    return NULL;
}

/* The value of input 0 when the shape function can read it. */
static const em_tensor *string_value(const em_shape *x)
{
    const em_tensor *v = x->value;
    if (v == NULL || v->dtype != EMBER_DTYPE_STRING ||
        (v->data == NULL && em_tensor_numel(v) > 0)) {
        return NULL;
    }
    return v;
}

static void copy_shape(const em_shape *x, em_shape *out, ember_dtype dt)
{
    out->dtype = dt;
    out->rank = x->rank;
    memcpy(out->dims, x->dims, sizeof out->dims);
}

ember_status *em_shape_stringnormalizer(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0];
    ember_status *st = need_strings(n, in, 0);
    if (st != NULL) {
        return st;
    }
    if (x->rank > 2 || x->rank == 0 || (x->rank == 2 && x->dims[0].v >= 0 && x->dims[0].v != 1)) {
        return em_shape_bad(n, "input 0 must have shape [C] or [1, C]");
    }
    copy_shape(x, out, EMBER_DTYPE_STRING);
    const em_attr *sw = em_node_attr(n, "stopwords");
    if (sw == NULL || sw->n == 0 || x->rank < 0) {
        return NULL; /* nothing is dropped: the input's shape */
    }
    if (sw->type != EM_ATTR_STRINGS) {
        return em_shape_bad(n, "attribute 'stopwords' must be a list of strings");
    }
    bool cs = em_node_attr_int(n, "is_case_sensitive", 0) != 0;
    const em_tensor *v = string_value(x);
    em_dim *c = &out->dims[x->rank - 1];
    *c = em_dim_unknown();
    if (v != NULL) {
        int64_t kept = 0, numel = em_tensor_numel(v);
        for (int64_t i = 0; i < numel; i++) {
            kept += !em_text_in_list(em_str_at(v, i), sw->strings, sw->n, cs);
        }
        *c = em_dim_known(kept > 0 ? kept : 1); /* all dropped: one "" (the spec) */
    }
    return NULL;
}

ember_status *em_shape_stringconcat(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st = need_strings(n, in, 0);
    if (st == NULL) {
        st = need_strings(n, in, 1);
    }
    if (st == NULL) {
        st = em_shape_broadcast(n, &in[0], &in[1], out);
    }
    out->dtype = EMBER_DTYPE_STRING;
    return st;
}

ember_status *em_shape_stringsplit(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0];
    ember_status *st = need_strings(n, in, 0);
    if (st != NULL) {
        return st;
    }
    const em_attr *d = em_node_attr(n, "delimiter");
    if (d != NULL && d->type != EM_ATTR_STRING) {
        return em_shape_bad(n, "attribute 'delimiter' must be a string");
    }
    copy_shape(x, &out[1], EMBER_DTYPE_I64);
    out[0].dtype = EMBER_DTYPE_STRING;
    if (x->rank < 0) {
        return NULL;
    }
    if (x->rank >= EM_MAX_RANK) {
        return em_shape_bad(n, "input 0 has the largest rank already; the output needs one more");
    }
    copy_shape(x, &out[0], EMBER_DTYPE_STRING);
    out[0].rank = x->rank + 1;
    out[0].dims[x->rank] = em_dim_unknown();
    const em_tensor *v = string_value(x);
    if (v != NULL) {
        const char *sep = d != NULL ? d->s : NULL;
        int64_t maxsplit = em_node_attr_int(n, "maxsplit", -1), most = 0;
        int64_t numel = em_tensor_numel(v);
        for (int64_t i = 0; i < numel; i++) {
            int64_t k = em_text_split(em_str_at(v, i), sep, maxsplit, NULL, 0);
            most = k > most ? k : most;
        }
        out[0].dims[x->rank] = em_dim_known(most);
    }
    return NULL;
}

ember_status *em_shape_regexfullmatch(const em_node *n, const em_shape *in, em_shape *out)
{
    ember_status *st = need_strings(n, in, 0);
    if (st == NULL) {
        copy_shape(&in[0], out, EMBER_DTYPE_BOOL);
    }
    return st;
}

ember_status *em_shape_tfidfvectorizer(const em_node *n, const em_shape *in, em_shape *out)
{
    const em_shape *x = &in[0];
    const int64_t *idx = NULL;
    int64_t n_idx = em_node_attr_ints(n, "ngram_indexes", &idx), most = -1;
    if (n_idx <= 0) {
        return em_shape_bad(n, "attribute 'ngram_indexes' is missing or empty");
    }
    for (int64_t i = 0; i < n_idx; i++) {
        if (idx[i] < 0 || idx[i] > ((int64_t)1 << 40)) {
            return em_shape_bad(n, "'ngram_indexes' has a negative or huge entry");
        }
        most = idx[i] > most ? idx[i] : most;
    }
    if (x->rank > 2) {
        return em_shape_bad(n, "input 0 must have shape [C] or [N, C]");
    }
    out->dtype = EMBER_DTYPE_F32;
    out->rank = x->rank == 2 ? 2 : (x->rank < 0 ? -1 : 1);
    if (x->rank == 2) {
        out->dims[0] = x->dims[0];
    }
    if (out->rank > 0) {
        out->dims[out->rank - 1] = em_dim_known(most + 1);
    }
    return NULL;
}
