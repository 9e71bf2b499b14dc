/* The cone-beam projector in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "project3d_internal.h"

KRI_CUDA_STUB(kri_ct_backend, kri_ct3_cuda);
