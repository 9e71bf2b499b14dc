/* The dense matrix operator in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "solve_internal.h"

KRI_CUDA_STUB(kri_matrix_backend, kri_matrix_cuda);
