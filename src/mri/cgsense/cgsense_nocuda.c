/* CG-SENSE in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "mri/cgsense/cgsense_internal.h"

KRI_CUDA_STUB(kri_cgsense_backend, kri_cgsense_cuda);
