/* Bloch simulation in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "sim/sim_internal.h"

KRI_CUDA_STUB(kri_sim_backend, kri_sim_cuda);
