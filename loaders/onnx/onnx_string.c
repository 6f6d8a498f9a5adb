/* SPDX-License-Identifier: Apache-2.0 */
/*
 * String tensors in ONNX files: TensorProto.string_data (one bytes entry per element) and the
 * Constant attributes value_string / value_strings, each into a packed string storage
 * (runtime/core/strtensor.h). An element ends at its first NUL byte, as a C string must; string
 * tensors cannot use raw_data or external data (the spec keeps them in string_data).
 */
#include "onnx_internal.h"

#include "core/alloc.h"
#include "core/status.h"
#include "core/strtensor.h"

#include <string.h>

/* A packed storage of n protobuf byte strings. */
static ember_status *pack_bytes(const onnx_ctx *c, const ProtobufCBinaryData *b, size_t n,
                                em_storage **out)
{
    const char **ptrs = em_calloc(c->al, n + 1, sizeof *ptrs);
    size_t *lens = em_calloc(c->al, n + 1, sizeof *lens);
    ember_status *st = ptrs == NULL || lens == NULL ? em_status_oom() : NULL;
    for (size_t i = 0; i < n && st == NULL; i++) {
        ptrs[i] = b[i].data != NULL ? (const char *)b[i].data : "";
        lens[i] = b[i].data != NULL ? b[i].len : 0;
    }
    if (st == NULL) {
        st = em_str_pack(c->al, ptrs, lens, (int64_t)n, out);
    }
    em_free(c->al, ptrs);
    em_free(c->al, lens);
    return st;
}

ember_status *em_onnx_tensor_strings(onnx_ctx *c, const Onnx__TensorProto *tp, const char *name,
                                  const em_tensor *shape, em_storage **out)
{
    int64_t numel = em_tensor_numel(shape);
    *out = NULL;
    if (tp->has_raw_data ||
        (tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)) {
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL,
                        "tensor '%s': a string tensor keeps its data in string_data (not raw_data "
                        "or external data)",
                        name);
    }
    if ((int64_t)tp->n_string_data != numel) {
        char buf[160];
        em_dims_str(shape->dims, shape->rank, buf, sizeof buf);
        return em_onnx_err(c, EMBER_ERR_INVALID_MODEL,
                        "tensor '%s': has %zu strings, its dims %s need %lld", name,
                        tp->n_string_data, buf, (long long)numel);
    }
    return pack_bytes(c, tp->string_data, tp->n_string_data, out);
}

ember_status *em_onnx_const_strings(onnx_ctx *c, em_graph *g, const Onnx__AttributeProto *ap,
                                 const char *out, int *idx)
{
    bool one = ap->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
    int64_t n = one ? 1 : (int64_t)ap->n_strings;
    em_storage *s = NULL;
    ember_status *st = pack_bytes(c, one ? &ap->s : ap->strings, (size_t)n, &s);
    if (st == NULL) {
        st = em_graph_add_initializer(g, out, EMBER_DTYPE_STRING, one ? 0 : 1, &n, s, 0, idx);
        st = st != NULL ? em_status_wrap(st, "onnx: %s", c->what) : NULL;
    }
    em_storage_release(s);
    return st;
}
