/* Coil maps on CUDA against the CPU twin (c128 and c64, 2-D and 3-D, both grids, both
 * normalisations) and location errors. Exits 77 without a usable CUDA device. */
#include "internal.h"
#include "kray/coils.h"
#include "kt.h"

#include <string.h>

static void test_parity(void)
{
    kr_ctx *cpu = NULL, *gpu = NULL;
    KT_OK(kr_ctx_create(&cpu, KR_BACKEND_CPU));
    KT_OK(kr_ctx_create(&gpu, KR_BACKEND_CUDA));
    kr_coil c[32];
    int nr;
    KT_OK(kr_coil_layout_mrxcat(16, 6, 300, c, &nr, NULL));
    for (int dt = 0; dt < 2; dt++)
        for (int g = 0; g < 2; g++) {
            kr_coil_map_opts o;
            kr_coil_map_opts_default(&o);
            o.nx = 40;
            o.ny = 33;
            o.nz = g ? 5 : 1;
            o.grid = (kr_phantom_grid)g;
            o.voxel_mm[0] = o.voxel_mm[1] = 6;
            o.voxel_mm[2] = 30;
            o.norm = g ? KR_COIL_NORM_RSS_CENTRE : KR_COIL_NORM_NONE;
            int64_t dims[4] = {o.nx, o.ny, o.nz, 16};
            kr_dtype t = dt ? KR_C128 : KR_C64;
            kr_array *h = NULL, *d = NULL, *back = NULL;
            KT_OK(kr_array_create(&h, t, 4, dims, KR_HOST, NULL));
            KT_OK(kr_array_create(&back, t, 4, dims, KR_HOST, NULL));
            KT_OK(kr_array_create(&d, t, 4, dims, KR_DEVICE, gpu));
            KT_OK(kr_coil_maps(cpu, c, 16, &o, h));
            KT_OK(kr_coil_maps(gpu, c, 16, &o, d));
            KT_OK(kr_array_copy(back, d, gpu));
            double worst = 0, mx = 0;
            for (int64_t i = 0; i < 2 * kr_array_numel(h); i++) {
                double a = dt ? ((double *)h->data)[i] : ((float *)h->data)[i];
                double b = dt ? ((double *)back->data)[i] : ((float *)back->data)[i];
                worst = fmax(worst, fabs(a - b));
                mx = fmax(mx, fabs(a));
            }
            printf("  dtype %s grid %d: max |gpu - cpu| / max = %.3g\n", kr_dtype_name(t), g,
                   worst / mx);
            /* c128: CUDA's double sqrt/atan2/AGM differ from libm by a few ulp and the loop sum
             * cancels near the wires: measured 7.6e-13 of max on an H100. */
            KT_LE(worst, (dt ? 3e-12 : 2e-7) * mx);
            /* location errors */
            KT_STATUS(kr_coil_maps(gpu, c, 16, &o, h), KR_ERR_LOCATION);
            KT_STATUS(kr_coil_maps(cpu, c, 16, &o, d), KR_ERR_LOCATION);
            kr_array_destroy(h);
            kr_array_destroy(d);
            kr_array_destroy(back);
        }
    kr_ctx_destroy(cpu);
    kr_ctx_destroy(gpu);
}

int main(void)
{
    kt_require_gpu();
    KT_RUN(test_parity);
    return kt_finish();
}
