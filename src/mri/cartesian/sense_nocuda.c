/* SENSE plans in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "mri/cartesian/sense_internal.h"

KRI_CUDA_STUB(kri_sense_backend, kri_sense_cuda);
