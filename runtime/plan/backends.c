/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Glue between the registry and the kernel directories: the one place that knows which
 * kernel tables were compiled in (CMake defines EMBER_HAVE_* for this file).
 */
#include "plan/backends.h"

extern const em_kernel_table em_ref_table;
#ifdef EMBER_HAVE_X86
extern const em_kernel_table em_x86_table;
#endif
#ifdef EMBER_HAVE_ARM
extern const em_kernel_table em_arm_table;
#endif
#ifdef EMBER_HAVE_OPENBLAS
extern const em_kernel_table em_openblas_table;
#endif
#ifdef EMBER_HAVE_ONEDNN
extern const em_kernel_table em_onednn_table;
#endif
#ifdef EMBER_HAVE_CUDA
extern const em_kernel_table em_cuda_table;
int em_cuda_device_count(void);
#endif

static const em_kernel_table *const tables[] = {
    &em_ref_table,
#ifdef EMBER_HAVE_X86
    &em_x86_table,
#endif
#ifdef EMBER_HAVE_ARM
    &em_arm_table,
#endif
#ifdef EMBER_HAVE_OPENBLAS
    &em_openblas_table,
#endif
#ifdef EMBER_HAVE_ONEDNN
    &em_onednn_table,
#endif
#ifdef EMBER_HAVE_CUDA
    &em_cuda_table,
#endif
    NULL,
};

const em_kernel_table *const *em_backend_tables(void) { return tables; }

int em_backend_cuda_devices(void)
{
#ifdef EMBER_HAVE_CUDA
    return em_cuda_device_count();
#else
    return 0;
#endif
}

const char *em_backend_cuda_info(void)
{
#if defined(EMBER_HAVE_CUDA) && defined(EMBER_HAVE_CUDNN)
    return "on+cudnn";
#elif defined(EMBER_HAVE_CUDA)
    return "on";
#else
    return "off";
#endif
}
