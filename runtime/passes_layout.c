/* SPDX-License-Identifier: Apache-2.0 */
/* The layout pass (passes.h, step 5). */
#include "passes.h"

ember_status *em_pass_layout(em_pctx *c, int block)
{
    (void)c;
    (void)block;
    return NULL;
}
