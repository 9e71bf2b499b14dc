/* The Toeplitz engine's steps in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "mri/lsq/lsq_internal.h"

KRI_CUDA_STUB(kri_toep_backend, kri_toep_cuda);
