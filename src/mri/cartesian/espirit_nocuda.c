/* ESPIRiT's per-voxel stage in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "mri/cartesian/espirit_internal.h"

KRI_CUDA_STUB(kri_espirit_backend, kri_espirit_cuda);
