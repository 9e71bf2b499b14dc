/* The NaN / Inf census in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "mri/nonfinite_internal.h"

KRI_CUDA_STUB(kri_nonfinite_backend, kri_nonfinite_cuda);
