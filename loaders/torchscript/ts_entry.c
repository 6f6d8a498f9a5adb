/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The TorchScript loader's entries in the loader table (ir/loader.h), built in every
 * configuration: a zip archive ("PK\3\4", torch.jit.save) loads when the loader is built
 * (EMBER_HAVE_TORCHSCRIPT, libzip); a bare pickle of protocol 2 (torch.save of a module or a
 * state dict) is refused with what to do instead.
 */
#include "ir/loader.h"

#include "core/status.h"

#ifdef EMBER_HAVE_TORCHSCRIPT
#include "ts.h"
#endif

#include <string.h>

static bool zip_sniff(const unsigned char *d, size_t n)
{
    return n >= 4 && memcmp(d, "PK\003\004", 4) == 0;
}

#ifdef EMBER_HAVE_TORCHSCRIPT
static ember_status *ts_entry_load(const em_load_args *a, em_graph *g, em_load_info *info)
{
    (void)info;
    return em_ts_load(a, g);
}
#define TS_LOAD ts_entry_load
#define TS_SAVE em_ts_save_weights
#else
#define TS_LOAD NULL
#define TS_SAVE NULL
#endif

const em_loader em_loader_torchscript = {
    "torchscript", "a TorchScript archive",
    "configured with EMBER_WITH_TORCHSCRIPT=OFF or without libzip", false, zip_sniff, TS_LOAD,
    NULL, NULL, TS_SAVE,
};

static bool pickle_sniff(const unsigned char *d, size_t n)
{
    return n >= 2 && d[0] == 0x80 && d[1] == 0x02;
}

static ember_status *pickle_refuse(const em_load_args *a, em_graph *g, em_load_info *info)
{
    (void)g;
    (void)info;
    return em_status_new(EMBER_ERR_UNSUPPORTED, "%s: a pickle written by torch.save(); "
                         "ember reads TorchScript archives (torch.jit.save)",
                         a->path != NULL ? a->path : "<memory>");
}

const em_loader em_loader_torch_save = {
    "torch.save", "a torch.save() pickle", NULL, true, pickle_sniff, pickle_refuse, NULL, NULL,
    NULL,
};
