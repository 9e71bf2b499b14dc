/* cuFFT's functions through the optional-part loader (cufft_load.h, optional.h): typed wrappers
 * over the symbols kri_part_load resolved. Only in builds with CUDA. */
#include "internal.h"

#ifdef KRAY_HAVE_CUDA
#include "cufft_load.h"
#include "optional.h"

static const kri_fn *_Atomic kri_cufft; /* the loader's table, set once loaded */

kr_status kri_cufft_load(void)
{
    const kri_fn *f;
    KRI_TRY(kri_part_load(KRI_PART_CUFFT, &f));
    kri_cufft = f; /* the same table on every call */
    return KR_OK;
}

/* The symbol `name` as a pointer to a function of type T. */
#define KRI_CUFFT(name, T) ((T)kri_cufft[KRI_SYM_##name])

cufftResult kri_dl_cufftCreate(cufftHandle *plan)
{
    return KRI_CUFFT(cufftCreate, cufftResult(*)(cufftHandle *))(plan);
}
cufftResult kri_dl_cufftDestroy(cufftHandle plan)
{
    return KRI_CUFFT(cufftDestroy, cufftResult(*)(cufftHandle))(plan);
}
typedef cufftResult (*kri_c2c_fn)(cufftHandle, cufftComplex *, cufftComplex *, int);
cufftResult kri_dl_cufftExecC2C(cufftHandle plan, cufftComplex *in, cufftComplex *out, int dir)
{
    return KRI_CUFFT(cufftExecC2C, kri_c2c_fn)(plan, in, out, dir);
}
typedef cufftResult (*kri_z2z_fn)(cufftHandle, cufftDoubleComplex *, cufftDoubleComplex *, int);
cufftResult kri_dl_cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex *in,
                                cufftDoubleComplex *out, int dir)
{
    return KRI_CUFFT(cufftExecZ2Z, kri_z2z_fn)(plan, in, out, dir);
}
typedef cufftResult (*kri_many64_fn)(cufftHandle, int, long long *, long long *, long long,
                                     long long, long long *, long long, long long, cufftType,
                                     long long, size_t *);
cufftResult kri_dl_cufftMakePlanMany64(cufftHandle plan, int rank, long long *n,
                                       long long *inembed, long long istride, long long idist,
                                       long long *onembed, long long ostride, long long odist,
                                       cufftType type, long long batch, size_t *work)
{
    return KRI_CUFFT(cufftMakePlanMany64, kri_many64_fn)(plan, rank, n, inembed, istride, idist,
                                                         onembed, ostride, odist, type, batch,
                                                         work);
}
cufftResult kri_dl_cufftSetAutoAllocation(cufftHandle plan, int autoAllocate)
{
    return KRI_CUFFT(cufftSetAutoAllocation, cufftResult(*)(cufftHandle, int))(plan, autoAllocate);
}
cufftResult kri_dl_cufftSetStream(cufftHandle plan, cudaStream_t stream)
{
    return KRI_CUFFT(cufftSetStream, cufftResult(*)(cufftHandle, cudaStream_t))(plan, stream);
}
cufftResult kri_dl_cufftSetWorkArea(cufftHandle plan, void *work)
{
    return KRI_CUFFT(cufftSetWorkArea, cufftResult(*)(cufftHandle, void *))(plan, work);
}
typedef cufftResult (*kri_jit_fn)(cufftHandle, const char *, const void *, size_t,
                                  cufftXtCallbackType, void **);
cufftResult kri_dl_cufftXtSetJITCallback(cufftHandle plan, const char *symbol,
                                         const void *fatbin, size_t size,
                                         cufftXtCallbackType type, void **caller_info)
{
    return KRI_CUFFT(cufftXtSetJITCallback, kri_jit_fn)(plan, symbol, fatbin, size, type,
                                                        caller_info);
}
#endif
