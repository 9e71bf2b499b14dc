/* FDK in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "fdk_internal.h"

KRI_CUDA_STUB(kri_fdk_backend, kri_fdk_cuda);
