/* Shared-memory wavefronts of 4-, 8- and 16-byte loads for ten warp access patterns: the probe
 * behind docs/benchmarks.md's account of the FDK backprojector's shared-memory floor. Not part
 * of the build. Run on the GPU machine:
 *   nvcc -arch=sm_90 -O3 -o lds_wavefronts bench/probes/lds_wavefronts.cu
 *   ncu --clock-control none --metrics \
 *     l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum \
 *     ./lds_wavefronts
 * and divide the two metrics per launch (launches in the order printed). Pattern p gives lane l
 * the cell index below (cells of the load's width). */
#include <cstdio>
#include <cuda_runtime.h>

static const char *const kNames[10] = {
    "l (32 distinct)",          "l % 16 (halves equal)",   "l / 2 (lane pairs equal)",
    "0 (one address)",          "l % 8",                   "l / 4",
    "2 (l % 16)",               "l / 2 + 16 (l & 1)",      "(l & 15) + 32 (l >> 4)",
    "(l % 16) / 2"};

__device__ int cell(int p, int l)
{
    switch (p) {
    case 0: return l;
    case 1: return l % 16;
    case 2: return l / 2;
    case 3: return 0;
    case 4: return l % 8;
    case 5: return l / 4;
    case 6: return (l % 16) * 2;
    case 7: return l / 2 + (l & 1) * 16;
    case 8: return (l & 15) + ((l >> 4) << 5);
    default: return (l % 16) / 2;
    }
}

template <int V> __global__ void probe(int p, float *out)
{
    __shared__ __align__(16) float s[8192];
    for (int i = threadIdx.x; i < 8192; i += blockDim.x) s[i] = (float)i;
    __syncthreads();
    const unsigned a = (unsigned)__cvta_generic_to_shared(s) + (unsigned)(cell(p, threadIdx.x & 31) * V * 4);
    float acc = 0;
    for (int it = 0; it < 256; it++) {
        float x = 0, y = 0, z = 0, w = 0;
        if (V == 1) asm volatile("ld.shared.f32 %0, [%1];" : "=f"(x) : "r"(a));
        if (V == 2) asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];" : "=f"(x), "=f"(y) : "r"(a));
        if (V == 4)
            asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                         : "=f"(x), "=f"(y), "=f"(z), "=f"(w)
                         : "r"(a));
        acc += x + y + z + w;
    }
    if (acc == -1.0f) out[0] = acc; /* keeps the loads */
}

int main()
{
    float *o = nullptr;
    if (cudaMalloc(&o, 4) != cudaSuccess) return 1;
    for (int v = 1; v <= 4; v *= 2)
        for (int p = 0; p < 10; p++) {
            if (v == 1) probe<1><<<132, 256>>>(p, o);
            if (v == 2) probe<2><<<132, 256>>>(p, o);
            if (v == 4) probe<4><<<132, 256>>>(p, o);
            printf("launch %2d: %2d-byte loads, lane l reads cell %s\n", (v == 1 ? 0 : v == 2 ? 10 : 20) + p,
                   4 * v, kNames[p]);
        }
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
