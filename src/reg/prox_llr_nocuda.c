/* The locally-low-rank blocks in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "prox_llr_internal.h"

KRI_CUDA_STUB(kri_llr_backend, kri_llr_cuda);
