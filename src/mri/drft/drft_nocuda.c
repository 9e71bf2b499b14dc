/* The DrFT in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "mri/drft/drft_internal.h"

KRI_CUDA_STUB(kri_drft_backend, kri_drft_cuda);
