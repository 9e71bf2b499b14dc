/* Goertzel in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "mri/goertzel/goertzel_internal.h"

KRI_CUDA_STUB(kri_gz_backend, kri_gz_cuda);
