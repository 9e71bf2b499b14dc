/* Coil maps in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "sim/coils_internal.h"

KRI_CUDA_STUB(kri_coils_backend, kri_coils_cuda);
