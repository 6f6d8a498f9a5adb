/* SPDX-License-Identifier: Apache-2.0 */
/* Constant evaluation for the passes' folding (fold.h). */
#include "plan/fold.h"

#include "core/alloc.h"
#include "core/status.h"
#include "plan/kernel.h"
#include "plan/planner.h"

#include <string.h>

ember_status *em_plan_eval_const(const em_node *n, const em_tensor *in, em_tensor *out,
                                 const ember_allocator *al, em_storage **sto, bool *ran)
{
    const em_kernel *k = NULL;
    void *state = NULL;
    size_t scratch = 0;
    *ran = false;
    ember_status *st = em_kernel_pick(n, in, out, al, 0, 1, NULL, &k, &state, &scratch);
    if (st != NULL && ember_status_code(st) != EMBER_ERR_OUT_OF_MEMORY) {
        ember_status_destroy(st); /* not foldable here: the planner sees the node as it is */
        return NULL;
    }
    if (st != NULL) {
        return st;
    }
    void *scr = scratch > 0 ? em_aligned_alloc(al, scratch) : NULL;
    st = scratch > 0 && scr == NULL ? em_status_oom() : NULL;
    for (int o = 0; o < n->n_out && st == NULL; o++) {
        st = em_storage_new_owned(al, em_tensor_nbytes(&out[o]) + 1, &sto[o]);
        if (st == NULL) {
            out[o].data = em_storage_data(sto[o]);
            memset(out[o].data, 0, em_tensor_nbytes(&out[o]));
        }
    }
    if (st == NULL) {
        em_kctx kc = {NULL, scr};
        k->run(state, in, out, &kc);
        *ran = true;
    }
    em_aligned_free(al, scr);
    if (k->release != NULL) {
        k->release(al, state);
    } else {
        em_free(al, state);
    }
    return st;
}
