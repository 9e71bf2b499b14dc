/* 2-D FBP in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "ct/fbp_internal.h"

KRI_CUDA_STUB(kri_fbp_backend, kri_fbp_cuda);
