/* Benchmark support only (not part of libkray): the PyPI astra-toolbox wheel links cuFFT from
 * CUDA 12 (soname libcufft.so.11, versioned symbols), while the GPU machine has CUDA 13's cuFFT
 * (libcufft.so.12); so does the PyPI cufinufft wheel. This shim exports the functions the two
 * use (ASTRA: plan1d, R2C, C2R; cuFINUFFT: planMany, C2C, Z2Z; both: setStream, destroy) under
 * the version node "libcufft.so.11" and forwards them to libcufft.so.12, whose basic API is
 * unchanged.
 * Build: gcc -shared -fPIC -O2 -Wl,--version-script=cufft11_shim.map -Wl,-soname,libcufft.so.11
 *        -o libcufft.so.11 cufft11_shim.c -ldl                                                 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef int cufftHandle;
typedef int cufftResult;
typedef void *cudaStream_t;

static void *sym(const char *name)
{
    static void *lib;
    if (!lib) lib = dlopen("libcufft.so.12", RTLD_NOW | RTLD_LOCAL);
    void *f = lib ? dlsym(lib, name) : NULL;
    if (!f) {
        fprintf(stderr, "cufft11_shim: cannot resolve %s in libcufft.so.12\n", name);
        abort();
    }
    return f;
}

cufftResult cufftPlan1d(cufftHandle *plan, int nx, int type, int batch)
{
    return ((cufftResult(*)(cufftHandle *, int, int, int))sym("cufftPlan1d"))(plan, nx, type, batch);
}

cufftResult cufftExecR2C(cufftHandle plan, float *in, void *out)
{
    return ((cufftResult(*)(cufftHandle, float *, void *))sym("cufftExecR2C"))(plan, in, out);
}

cufftResult cufftExecC2R(cufftHandle plan, void *in, float *out)
{
    return ((cufftResult(*)(cufftHandle, void *, float *))sym("cufftExecC2R"))(plan, in, out);
}

cufftResult cufftSetStream(cufftHandle plan, cudaStream_t s)
{
    return ((cufftResult(*)(cufftHandle, cudaStream_t))sym("cufftSetStream"))(plan, s);
}

cufftResult cufftDestroy(cufftHandle plan)
{
    return ((cufftResult(*)(cufftHandle))sym("cufftDestroy"))(plan);
}

cufftResult cufftPlanMany(cufftHandle *plan, int rank, int *n, int *inembed, int istride,
                          int idist, int *onembed, int ostride, int odist, int type, int batch)
{
    return ((cufftResult(*)(cufftHandle *, int, int *, int *, int, int, int *, int, int, int,
                            int))sym("cufftPlanMany"))(plan, rank, n, inembed, istride, idist,
                                                       onembed, ostride, odist, type, batch);
}

cufftResult cufftExecC2C(cufftHandle plan, void *in, void *out, int direction)
{
    return ((cufftResult(*)(cufftHandle, void *, void *, int))sym("cufftExecC2C"))(plan, in, out,
                                                                              direction);
}

cufftResult cufftExecZ2Z(cufftHandle plan, void *in, void *out, int direction)
{
    return ((cufftResult(*)(cufftHandle, void *, void *, int))sym("cufftExecZ2Z"))(plan, in, out,
                                                                              direction);
}
