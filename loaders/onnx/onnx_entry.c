/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ONNX loader's entry in the loader table (ir/loader.h). Built in every configuration: the
 * sniff needs no protobuf-c; without EMBER_HAVE_ONNX the entry has no load function and says
 * why. A ModelProto is a protobuf whose first byte is the tag of one of its fields with the
 * right wire type (ir_version, producer_name / version, domain, model_version, doc_string,
 * graph, opset_import, metadata_props).
 */
#include "ir/loader.h"

#ifdef EMBER_HAVE_ONNX
#include "onnx.h"
#endif

#include <string.h>

static bool onnx_sniff(const unsigned char *d, size_t n)
{
    static const unsigned char tags[] = {0x08, 0x12, 0x1a, 0x22, 0x28, 0x32, 0x3a, 0x42, 0x72};
    return n >= 2 && memchr(tags, d[0], sizeof tags) != NULL;
}

#ifdef EMBER_HAVE_ONNX
static ember_status *onnx_entry_load(const em_load_args *a, em_graph *g, em_load_info *info)
{
    em_onnx_opsets os = {0};
    ember_status *st = em_onnx_load(a->image, a->path, g, &os);
    if (st == NULL) {
        info->n_opsets = os.n;
        info->opset_domains = os.domains;
        info->opset_versions = os.versions;
    }
    return st;
}
#define ONNX_LOAD onnx_entry_load
#define ONNX_READ_TENSOR em_onnx_read_tensor
#define ONNX_READ_VALUE em_onnx_read_value
#else
#define ONNX_LOAD NULL
#define ONNX_READ_TENSOR NULL
#define ONNX_READ_VALUE NULL
#endif

const em_loader em_loader_onnx = {
    "onnx", "an ONNX model",
    "configured with EMBER_WITH_ONNX=OFF or without protobuf-c", false, onnx_sniff,
    ONNX_LOAD, ONNX_READ_TENSOR, ONNX_READ_VALUE, NULL,
};
