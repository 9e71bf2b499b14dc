/* The NUFFT in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "mri/nufft/nufft_internal.h"

KRI_CUDA_STUB(kri_nufft_backend, kri_nufft_cuda);
