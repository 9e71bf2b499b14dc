/* FVE single voxels in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "mri/fve/fve_internal.h"

KRI_CUDA_STUB(kri_fve_backend, kri_fve_cuda);
