/* The CPU NUFFT body for c64 plans (float), baseline instruction set (nufft_cpu_bodies.h). */
#define KRI_AVX2 0
#define KRI_DOUBLE 0
#include "mri/nufft/nufft_cpu_bodies.h"
