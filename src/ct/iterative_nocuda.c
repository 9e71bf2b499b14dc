/* SIRT in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "iterative_internal.h"

KRI_CUDA_STUB(kri_sirt_backend, kri_sirt_cuda);
