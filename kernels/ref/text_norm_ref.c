/* SPDX-License-Identifier: Apache-2.0 */
/*
 * StringNormalizer-10. Follows the operator spec and onnxruntime: an element equal
 * to a stopword (exactly, or after lowercasing both when is_case_sensitive is 0) is dropped
 * whole; the rest keep their order and are upper- or lowercased (runtime/ir/text.h, the same
 * mapping for every `locale`). onnx's Python reference differs in two ways ember does not copy:
 * it removes stopwords word by word inside an element and strips accents (NFKD). When every
 * element is dropped the output is one "" ([1] or [1, 1]), as the spec says.
 */
#include "ref.h"

#include "core/strtensor.h"
#include "ir/text.h"

#include <string.h>

typedef enum norm_case { NORM_NONE = 0, NORM_LOWER, NORM_UPPER } norm_case;

typedef struct norm_state {
    norm_case action;
    bool case_sensitive;
    char *const *stops; /* the node's attribute strings */
    int64_t n_stops;
    int64_t numel, cols; /* input elements, output elements */
} norm_state;

static ember_status *parse_attrs(const em_kinfo *ki, norm_state *s)
{
    ember_status *st = NULL;
    const char *action = NULL, *locale = NULL;
    int64_t cs = 0;
    EMBER_TRY(em_ref_attr_string(ki, "case_change_action", "NONE", &action));
    EMBER_TRY(em_ref_attr_string(ki, "locale", "", &locale));
    EMBER_TRY(em_ref_attr_int(ki, "is_case_sensitive", 0, &cs));
    if (strcmp(action, "NONE") == 0) {
        s->action = NORM_NONE;
    } else if (strcmp(action, "LOWER") == 0) {
        s->action = NORM_LOWER;
    } else if (strcmp(action, "UPPER") == 0) {
        s->action = NORM_UPPER;
    } else {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "case_change_action '%s' is none of NONE, LOWER, UPPER", action);
    }
    s->case_sensitive = cs != 0;
    const em_attr *a = em_node_attr(ki->node, "stopwords");
    if (a != NULL && a->type != EM_ATTR_STRINGS) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "attribute 'stopwords' must be a list of strings");
    }
    s->stops = a != NULL ? a->strings : NULL;
    s->n_stops = a != NULL ? a->n : 0;
    return NULL;
fail:
    return st;
}

ember_status *em_stringnormalizer_prepare__ref(const em_kinfo *ki, void **state, size_t *scratch)
{
    ember_status *st = NULL;
    norm_state s = {0};
    *scratch = 0;
    EMBER_TRY(em_ref_check_arity(ki, 1, 1, 1));
    const em_tensor *x = &ki->in[0], *y = &ki->out[0];
    EMBER_TRY(em_ref_check_tensor(ki, x, EMBER_DTYPE_STRING, "input 0"));
    EMBER_TRY(em_ref_check_tensor(ki, y, EMBER_DTYPE_STRING, "output 0"));
    if (!(x->rank == 1 || (x->rank == 2 && x->dims[0] == 1))) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL, "input 0 must have shape [C] or [1, C]");
    }
    if (y->rank != x->rank || (x->rank == 2 && y->dims[0] != 1) || y->dims[y->rank - 1] < 1) {
        return em_ref_error(ki, EMBER_ERR_INVALID_MODEL,
                            "output 0 must have shape [C'] or [1, C'] with C' >= 1");
    }
    EMBER_TRY(parse_attrs(ki, &s));
    s.numel = x->dims[x->rank - 1];
    s.cols = y->dims[y->rank - 1];
    return em_ref_state_new(ki, &s, sizeof s, state);
fail:
    return st;
}

/* The element with its case changed, in the output's arena; NULL after em_str_fail. */
static const char *change_case(em_tensor *y, const char *x, int64_t i, bool upper)
{
    size_t n = strlen(x), bad = 0;
    size_t len = em_text_case_map(x, n, upper, NULL, &bad);
    if (len == EM_TEXT_BAD) {
        em_str_fail(y, "input element %lld is not valid UTF-8 (byte %zu), which %s needs",
                    (long long)i, bad, upper ? "UPPER" : "LOWER");
        return NULL;
    }
    char *s = em_str_alloc(y, len);
    if (s != NULL) {
        em_text_case_map(x, n, upper, s, NULL);
    }
    return s;
}

void em_stringnormalizer__ref(const void *state, const em_tensor *in, em_tensor *out,
                              const em_kctx *ctx)
{
    const norm_state *s = state;
    const char **y = out[0].data;
    int64_t k = 0;
    (void)ctx;
    for (int64_t j = 0; j < s->cols; j++) {
        y[j] = "";
    }
    for (int64_t i = 0; i < s->numel && k < s->cols; i++) {
        const char *x = em_str_at(&in[0], i);
        if (s->n_stops > 0 && em_text_in_list(x, s->stops, s->n_stops, s->case_sensitive)) {
            continue;
        }
        const char *v = x; /* NONE: the input's bytes, which the interpreter keeps alive */
        if (s->action != NORM_NONE) {
            v = change_case(&out[0], x, i, s->action == NORM_UPPER);
            if (v == NULL) {
                return;
            }
        }
        y[k++] = v;
    }
}
