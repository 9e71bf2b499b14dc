/* The CPU NUFFT body for c128 plans (double), baseline instruction set (nufft_cpu_bodies.h). */
#define KRI_AVX2 0
#define KRI_DOUBLE 1
#include "mri/nufft/nufft_cpu_bodies.h"
