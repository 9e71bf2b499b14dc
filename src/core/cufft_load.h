/* cuFFT through the optional-part loader (optional.h): the CUDA sources include this instead
 * of <cufft.h> / <cufftXt.h> and keep calling cuFFT by its own names, which the macros below
 * turn into the wrappers of gpu_cufft.c. Every path that makes a cuFFT plan calls
 * kri_cufft_load() first; the other calls act on plans, so cuFFT is loaded by then. */
#ifndef KRAY_CUFFT_LOAD_H
#define KRAY_CUFFT_LOAD_H

#include <cufftXt.h>

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Load cuFFT once; KR_ERR_NOT_SUPPORTED with one sentence when it cannot be loaded. */
kr_status kri_cufft_load(void);

cufftResult kri_dl_cufftCreate(cufftHandle *plan);
cufftResult kri_dl_cufftDestroy(cufftHandle plan);
cufftResult kri_dl_cufftExecC2C(cufftHandle plan, cufftComplex *in, cufftComplex *out, int dir);
cufftResult kri_dl_cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex *in,
                                cufftDoubleComplex *out, int dir);
cufftResult kri_dl_cufftMakePlanMany64(cufftHandle plan, int rank, long long *n,
                                       long long *inembed, long long istride, long long idist,
                                       long long *onembed, long long ostride, long long odist,
                                       cufftType type, long long batch, size_t *work);
cufftResult kri_dl_cufftSetAutoAllocation(cufftHandle plan, int autoAllocate);
cufftResult kri_dl_cufftSetStream(cufftHandle plan, cudaStream_t stream);
cufftResult kri_dl_cufftSetWorkArea(cufftHandle plan, void *work);
cufftResult kri_dl_cufftXtSetJITCallback(cufftHandle plan, const char *symbol,
                                         const void *fatbin, size_t size,
                                         cufftXtCallbackType type, void **caller_info);

#ifdef __cplusplus
}
#endif

#define cufftCreate kri_dl_cufftCreate
#define cufftDestroy kri_dl_cufftDestroy
#define cufftExecC2C kri_dl_cufftExecC2C
#define cufftExecZ2Z kri_dl_cufftExecZ2Z
#define cufftMakePlanMany64 kri_dl_cufftMakePlanMany64
#define cufftSetAutoAllocation kri_dl_cufftSetAutoAllocation
#define cufftSetStream kri_dl_cufftSetStream
#define cufftSetWorkArea kri_dl_cufftSetWorkArea
#define cufftXtSetJITCallback kri_dl_cufftXtSetJITCallback

#endif
