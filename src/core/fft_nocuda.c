/* The FFT in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "fft_internal.h"

KRI_CUDA_STUB(kri_fft_backend, kri_fft_cuda);
