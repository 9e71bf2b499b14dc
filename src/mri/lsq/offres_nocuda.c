/* The off-resonance steps in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "mri/lsq/offres_internal.h"

KRI_CUDA_STUB(kri_offres_backend, kri_offres_cuda);
