/* Metrics in a build without CUDA: the CUDA table says so (core/backend.h). */
#include "metrics/metrics_internal.h"

KRI_CUDA_STUB(kri_metrics_backend, kri_metrics_cuda);
