/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for ImageDecoder (runtime/shape/shape_image.c, kernels/ref/image_*.c, and the
 * codec libraries behind them). The input is the encoded image; its length mod 3 picks the
 * pixel_format. Any input must come back as a status or pixels, without out-of-bounds access,
 * leak, undefined behaviour or hang. The shape function and prepare must agree on the dims, a
 * failing prepare must name the node, and the two ways of decoding (in prepare, seeing the data,
 * and in run, from scratch) must give the same bytes. Images over 2^20 pixels are only probed,
 * to keep each run fast (the kernel handles up to EM_IMAGE_MAX_PIXELS).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "ir/image.h"
#include "kernels/ref/ref.h"
#include "shape/shape.h"
#include "core/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
    if (!ok) {
        abort();
    }
}

static const em_kernel *kernel(void)
{
    for (size_t i = 0; i < em_ref_table.n; i++) {
        if (em_ref_table.kernels[i].op == EM_OP_IMAGEDECODER) {
            return &em_ref_table.kernels[i];
        }
    }
    abort();
}

/* prepare (seeing the data or not) and run; NULL state and status on failure. */
static ember_status *run(const em_node *node, const em_tensor *in, em_tensor *out, bool konst)
{
    const em_kernel *k = kernel();
    em_tensor pin = *in, pout = *out;
    pin.data = konst ? in->data : NULL;
    pout.data = NULL;
    em_kinfo ki = {node, 1, 1, &pin, &pout, NULL, 0, 1, NULL};
    void *state = NULL;
    size_t scratch_bytes = 0;
    ember_status *st = k->prepare(&ki, &state, &scratch_bytes);
    if (st != NULL) {
        check(state == NULL);
        return st;
    }
    void *scratch = scratch_bytes > 0 ? em_aligned_alloc(NULL, scratch_bytes) : NULL;
    check(scratch_bytes == 0 || scratch != NULL);
    em_kctx ctx = {NULL, scratch};
    k->run(state, in, out, &ctx);
    em_aligned_free(NULL, scratch);
    em_free(NULL, state);
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const pixfmts[3] = {"RGB", "BGR", "Grayscale"};
    em_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.name = "pixel_format";
    attr.type = EM_ATTR_STRING;
    attr.s = (char *)pixfmts[size % 3];
    em_node node;
    memset(&node, 0, sizeof node);
    node.op = EM_OP_IMAGEDECODER;
    node.name = "fuzz";
    node.attrs = &attr;
    node.n_attrs = 1;

    int64_t xdims[1] = {(int64_t)size};
    em_tensor x;
    memset(&x, 0, sizeof x);
    x.dtype = EMBER_DTYPE_U8;
    x.rank = 1;
    x.dims[0] = xdims[0];
    x.data = (void *)data;
    em_shape in, out;
    memset(&in, 0, sizeof in);
    in.dtype = EMBER_DTYPE_U8;
    in.rank = 1;
    in.dims[0] = em_dim_known(xdims[0]);
    in.value = &x;
    memset(&out, 0, sizeof out);
    out.rank = -1;
    ember_status *st = em_shape_image_decoder(&node, &in, &out);
    check(ember_status_message(st) != NULL);
    if (st != NULL) {
        ember_status_destroy(st);
        return 0;
    }
    int64_t h = out.dims[0].v, w = out.dims[1].v, c = out.dims[2].v;
    check(h >= 1 && w >= 1 && w <= EM_IMAGE_MAX_PIXELS / h && (c == 1 || c == 3));
    if (h * w > ((int64_t)1 << 20)) {
        return 0;
    }
    size_t nbytes = (size_t)(h * w * c);
    uint8_t *a = malloc(nbytes), *b = malloc(nbytes);
    check(a != NULL && b != NULL);
    em_tensor ya, yb;
    memset(&ya, 0, sizeof ya);
    ya.dtype = EMBER_DTYPE_U8;
    ya.rank = 3;
    ya.dims[0] = h;
    ya.dims[1] = w;
    ya.dims[2] = c;
    yb = ya;
    ya.data = a;
    yb.data = b;
    st = run(&node, &x, &ya, true);
    ember_status *st2 = run(&node, &x, &yb, false);
    check(st2 == NULL); /* run cannot fail: a bad image reads as zeros */
    if (st != NULL) {
        check(strstr(ember_status_message(st), "'fuzz'") != NULL);
        ember_status_destroy(st);
        for (size_t i = 0; i < nbytes; i++) {
            check(b[i] == 0);
        }
    } else {
        check(memcmp(a, b, nbytes) == 0);
    }
    free(a);
    free(b);
    return 0;
}
