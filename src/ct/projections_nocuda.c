/* Projection arrays in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "projections_internal.h"

KRI_CUDA_STUB(kri_ctproj_backend, kri_ctproj_cuda);
