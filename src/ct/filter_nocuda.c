/* Ramp filters in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "ct/filter_internal.h"

KRI_CUDA_STUB(kri_filter_backend, kri_filter_cuda);
