/* Vector operations in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "solve_internal.h"

KRI_CUDA_STUB(kri_vec_backend, kri_vec_cuda);
