/* SPDX-License-Identifier: Apache-2.0 */
/* The TorchScript loader's entry (ts.h). Work in progress: see docs/NOTES.md, issue #4. */
#include "ts.h"

#include "status.h"

ember_status *em_ts_load(em_storage *image, const char *path, em_graph *g)
{
    (void)image;
    (void)g;
    return em_status_new(EMBER_ERR_UNSUPPORTED,
                         "%s: a TorchScript archive; the TorchScript loader is not finished",
                         path != NULL ? path : "<memory>");
}
