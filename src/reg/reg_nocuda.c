/* The reg kernels in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "reg_internal.h"

KRI_CUDA_STUB(kri_reg_backend, kri_reg_cuda);
