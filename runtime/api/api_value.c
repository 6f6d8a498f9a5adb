/* SPDX-License-Identifier: Apache-2.0 */
/* Sequence and optional handles (ember.h), and their conversion to interpreter values. */
#include "api/api_internal.h"

#include "core/alloc.h"
#include "exec/interp.h"
#include "core/status.h"

#include "loaders/onnx/pb_write.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

ember_value_kind ember_tensor_kind(const ember_tensor *t)
{
    return t != NULL ? t->kind : EMBER_VALUE_TENSOR;
}

size_t ember_sequence_length(const ember_tensor *seq)
{
    return seq != NULL && seq->kind == EMBER_VALUE_SEQUENCE ? seq->n_items : 0;
}

ember_tensor *ember_sequence_item(const ember_tensor *seq, size_t i)
{
    return i < ember_sequence_length(seq) ? seq->items[i] : NULL;
}

/* An owned handle without bytes: a sequence (n slots) or an empty optional. */
static ember_status *handle_new(const ember_allocator *al, ember_value_kind kind, ember_dtype elem,
                                size_t n, ember_tensor **out)
{
    ember_tensor *t = em_calloc(al, 1, sizeof *t);
    if (t == NULL) {
        return em_status_oom();
    }
    if (al != NULL) {
        t->alloc = *al;
        t->al = &t->alloc;
    }
    t->owned = true;
    t->kind = kind;
    t->t.dtype = elem;
    if (n > 0 && (t->items = em_calloc(al, n, sizeof *t->items)) == NULL) {
        em_free(al, t);
        return em_status_oom();
    }
    *out = t;
    return NULL;
}

static ember_status *tensor_copy(const ember_allocator *al, const em_tensor *src,
                                 ember_tensor **out)
{
    ember_status *st = em_tensor_new_owned(al, src->dtype, src->dims, src->rank, out);
    if (st == NULL && src->dtype == EMBER_DTYPE_STRING) {
        st = em_api_tensor_set_strings(*out, src); /* a deep copy: owned by the handle */
    } else if (st == NULL && (*out)->nbytes > 0) {
        memcpy((*out)->t.data, src->data, (*out)->nbytes);
    }
    return st;
}

ember_status *ember_sequence_create(ember_dtype elem, ember_tensor *const *items, size_t n,
                                    ember_tensor **out)
{
    if (out == NULL) {
        return em_api_null_arg("sequence_create", "out");
    }
    *out = NULL;
    if (!em_api_dtype_known(elem)) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "sequence_create: elem %d is not an "
                             "ember_dtype", (int)elem);
    }
    if (n > INT_MAX) { /* em_rv counts items in an int */
        return em_status_new(EMBER_ERR_INVALID_ARG, "sequence_create: %zu items, more than the "
                             "%d a sequence holds", n, INT_MAX);
    }
    if (n > 0 && items == NULL) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "sequence_create: NULL items with n %zu", n);
    }
    for (size_t i = 0; i < n; i++) {
        if (items[i] == NULL || items[i]->kind != EMBER_VALUE_TENSOR ||
            items[i]->t.dtype != elem) {
            return em_status_new(EMBER_ERR_INVALID_ARG,
                                 "sequence_create: item %zu is not a tensor of dtype %s", i,
                                 em_dtype_name(elem));
        }
    }
    ember_tensor *s = NULL;
    ember_status *st = handle_new(NULL, EMBER_VALUE_SEQUENCE, elem, n, &s);
    for (size_t i = 0; i < n && st == NULL; i++) {
        st = tensor_copy(NULL, &items[i]->t, &s->items[i]);
        s->n_items = i + 1;
    }
    if (st != NULL) {
        ember_tensor_destroy(s);
        return st;
    }
    *out = s;
    return NULL;
}

ember_status *ember_optional_none_create(ember_dtype elem, ember_tensor **out)
{
    if (out == NULL) {
        return em_api_null_arg("optional_none_create", "out");
    }
    *out = NULL;
    if (!em_api_dtype_known(elem)) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "optional_none_create: elem %d is not an "
                             "ember_dtype", (int)elem);
    }
    return handle_new(NULL, EMBER_VALUE_NONE, elem, 0, out);
}

static ember_type_kind type_of(const em_value *v)
{
    switch (v->vt) {
    case EM_VT_SEQUENCE: return EMBER_TYPE_SEQUENCE;
    case EM_VT_OPTIONAL: return EMBER_TYPE_OPTIONAL;
    case EM_VT_OPTIONAL_SEQUENCE: return EMBER_TYPE_OPTIONAL_SEQUENCE;
    default: return EMBER_TYPE_TENSOR;
    }
}

ember_type_kind ember_model_input_type(const ember_model *m, size_t i)
{
    return m != NULL && i < (size_t)m->g->n_inputs ? type_of(&m->g->values[m->g->inputs[i]])
                                                   : EMBER_TYPE_TENSOR;
}

ember_type_kind ember_model_output_type(const ember_model *m, size_t i)
{
    return m != NULL && i < (size_t)m->g->n_outputs ? type_of(&m->g->values[m->g->outputs[i]])
                                                    : EMBER_TYPE_TENSOR;
}

ember_status *em_api_value_from_rv(const ember_allocator *al, const em_rv *v, ember_tensor **out)
{
    ember_status *st = NULL;
    *out = NULL;
    switch (v->kind) {
    case EM_RV_TENSOR:
        return tensor_copy(al, &v->t, out);
    case EM_RV_NONE:
        return handle_new(al, EMBER_VALUE_NONE, v->elem, 0, out);
    case EM_RV_SEQUENCE:
        st = handle_new(al, EMBER_VALUE_SEQUENCE, v->elem, (size_t)v->n, out);
        for (int i = 0; i < v->n && st == NULL; i++) {
            st = em_api_value_from_rv(al, &v->items[i], &(*out)->items[i]);
            (*out)->n_items = (size_t)i + 1;
        }
        if (st != NULL) {
            ember_tensor_destroy(*out);
            *out = NULL;
        }
        return st;
    default:
        return em_status_new(EMBER_ERR_INVALID_ARG, "a value was not computed");
    }
}

ember_status *em_api_value_to_rv(const ember_allocator *al, const ember_tensor *t, em_rv *out)
{
    memset(out, 0, sizeof *out);
    switch (t->kind) {
    case EMBER_VALUE_NONE:
        out->kind = EM_RV_NONE;
        out->elem = t->t.dtype;
        return NULL;
    case EMBER_VALUE_SEQUENCE:
        out->kind = EM_RV_SEQUENCE;
        out->elem = t->t.dtype;
        if (t->n_items > 0 &&
            (out->items = em_calloc(al, t->n_items, sizeof *out->items)) == NULL) {
            return em_status_oom();
        }
        for (size_t i = 0; i < t->n_items; i++) {
            out->n = (int)i + 1;
            ember_status *st = em_api_value_to_rv(al, t->items[i], &out->items[i]);
            if (st != NULL) {
                return st;
            }
        }
        return NULL;
    default:
        out->kind = EM_RV_TENSOR;
        out->t = t->t;
        return em_storage_new_borrowed(al, t->t.data, t->nbytes, &out->s);
    }
}

/* ---- Writing values as ONNX protobuf (ember_value_save_pb) ---- */

/* Appends the SequenceProto of `seq` (items are tensors). */
static ember_status *pb_sequence(em_pbuf *b, const ember_tensor *seq)
{
    em_pb_varint(b, 2, EM_PB_ELEM_TENSOR);
    for (size_t i = 0; i < seq->n_items; i++) {
        em_pbuf item = {0};
        ember_status *st = em_pb_tensor(&item, &seq->items[i]->t);
        if (st == NULL) {
            em_pb_bytes(b, 3, item.p, item.n);
        }
        em_pbuf_free(&item);
        if (st != NULL) {
            return st;
        }
    }
    return NULL;
}

/* Appends the message for `v` declared as `kind`: see ember_value_save_pb. */
static ember_status *pb_value(em_pbuf *b, const ember_tensor *v, ember_type_kind kind)
{
    bool optional = kind == EMBER_TYPE_OPTIONAL || kind == EMBER_TYPE_OPTIONAL_SEQUENCE;
    bool want_seq = kind == EMBER_TYPE_SEQUENCE || kind == EMBER_TYPE_OPTIONAL_SEQUENCE;
    if (v->kind == EMBER_VALUE_NONE ? !optional
                                    : (v->kind == EMBER_VALUE_SEQUENCE) != want_seq) {
        return em_status_new(EMBER_ERR_INVALID_ARG, "value_save_pb: the value is %s, not %s",
                             v->kind == EMBER_VALUE_NONE       ? "an empty optional"
                             : v->kind == EMBER_VALUE_SEQUENCE ? "a sequence"
                                                               : "a tensor",
                             want_seq ? "a sequence" : "a tensor");
    }
    if (!optional) {
        return v->kind == EMBER_VALUE_SEQUENCE ? pb_sequence(b, v) : em_pb_tensor(b, &v->t);
    }
    em_pb_varint(b, 2, want_seq ? EM_PB_ELEM_SEQUENCE : EM_PB_ELEM_TENSOR);
    if (v->kind == EMBER_VALUE_NONE) {
        return NULL;
    }
    em_pbuf inner = {0};
    ember_status *st = want_seq ? pb_sequence(&inner, v) : em_pb_tensor(&inner, &v->t);
    if (st == NULL) {
        em_pb_bytes(b, want_seq ? 5 : 3, inner.p, inner.n);
    }
    em_pbuf_free(&inner);
    return st;
}

ember_status *ember_value_save_pb(const ember_tensor *v, ember_type_kind kind, const char *path)
{
    if (v == NULL || path == NULL) {
        return em_api_null_arg("value_save_pb", v == NULL ? "value" : "path");
    }
    if ((unsigned)kind > EMBER_TYPE_OPTIONAL_SEQUENCE) {
        return em_status_new(EMBER_ERR_INVALID_ARG,
                             "value_save_pb: kind %d is not an ember_type_kind", (int)kind);
    }
    em_pbuf b = {0};
    ember_status *st = pb_value(&b, v, kind);
    if (st == NULL && b.failed) {
        st = em_status_oom();
    }
    if (st == NULL) {
        st = em_api_write_file(path, b.p, b.n);
    }
    em_pbuf_free(&b);
    return st;
}
