/* Coil-array operations in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "mri/cartesian/coilop_internal.h"

KRI_CUDA_STUB(kri_coilop_backend, kri_coilop_cuda);
