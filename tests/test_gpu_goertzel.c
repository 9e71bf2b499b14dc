/* GPU parity of the Goertzel transform and the FVE voxels: CUDA vs the CPU twins (double
 * recurrences / accumulations on both, so agreement to float rounding of the output). */
#include "kray/fve.h"
#include "kray/goertzel.h"
#include "core/internal.h"
#include "kt.h"

#include <math.h>
#include <string.h>

static double rel(const kr_array *a, const kr_array *b)
{
    const float *x = (const float *)a->data, *y = (const float *)b->data;
    double e = 0, m = 0;
    for (int64_t i = 0; i < kr_array_numel(a); i++) {
        e = fmax(e, hypot(x[2 * i] - y[2 * i], x[2 * i + 1] - y[2 * i + 1]));
        m = fmax(m, hypot(y[2 * i], y[2 * i + 1]));
    }
    return e / m;
}

static void test_goertzel_parity(void)
{
    kr_ctx *c = NULL, *g = NULL;
    KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU));
    KT_OK(kr_ctx_create(&g, KR_BACKEND_CUDA));
    int64_t d[3] = {115, 96, 3}, pd[2] = {4, 3};
    kr_array *k = NULL, *dk = NULL, *a = NULL, *db = NULL, *hb = NULL;
    KT_OK(kr_array_create(&k, KR_C64, 3, d, KR_HOST, NULL));
    for (int64_t i = 0; i < 2 * kr_array_numel(k); i++) ((float *)k->data)[i] = (float)kri_rand_sym(3, (uint64_t)i);
    KT_OK(kr_array_clone(&dk, k, KR_DEVICE, g));
    KT_OK(kr_array_create(&a, KR_C64, 3, d, KR_HOST, NULL));
    KT_OK(kr_array_create(&db, KR_C64, 3, d, KR_DEVICE, g));
    KT_OK(kr_goertzel2d_image(c, k, a));
    KT_OK(kr_goertzel2d_image(g, dk, db));
    KT_OK(kr_array_clone(&hb, db, KR_HOST, g));
    double e = rel(hb, a);
    printf("  full 115x96x3: gpu vs cpu %.3g\n", e);
    KT_LE(e, 1e-6);
    kr_array_destroy(db), kr_array_destroy(hb), kr_array_destroy(a);
    double xy[8] = {0, 0, 3.25, -7.5, -57, 47, 10, 10};
    KT_OK(kr_array_create(&a, KR_C64, 2, pd, KR_HOST, NULL));
    KT_OK(kr_array_create(&db, KR_C64, 2, pd, KR_DEVICE, g));
    KT_OK(kr_goertzel2d(c, k, 4, xy, a));
    KT_OK(kr_goertzel2d(g, dk, 4, xy, db));
    KT_OK(kr_array_clone(&hb, db, KR_HOST, g));
    e = rel(hb, a);
    printf("  4 points: gpu vs cpu %.3g\n", e);
    KT_LE(e, 1e-6);
    KT_STATUS(kr_goertzel2d(g, k, 4, xy, a), KR_ERR_LOCATION);
    kr_array_destroy(k), kr_array_destroy(dk), kr_array_destroy(a), kr_array_destroy(db);
    kr_array_destroy(hb);
    kr_ctx_destroy(c), kr_ctx_destroy(g);
}

static void test_fve_parity(void)
{
    kr_ctx *c = NULL, *g = NULL;
    KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU));
    KT_OK(kr_ctx_create(&g, KR_BACKEND_CUDA));
    kr_fve_sim_opts o;
    kr_fve_sim_opts_small(&o);
    kr_array *t = NULL, *d = NULL, *w = NULL, *dd = NULL, *a = NULL, *db = NULL, *hb = NULL;
    KT_OK(kr_fve_simulate(c, &o, &t, &d, &w));
    double vox[6] = {7.2, -12, 1, 0, -7, 0};
    int64_t vd[4] = {o.enc.encodes, o.frames, o.coils, 2};
    KT_OK(kr_array_create(&a, KR_C64, 4, vd, KR_HOST, NULL));
    KT_OK(kr_array_create(&db, KR_C64, 4, vd, KR_DEVICE, g));
    KT_OK(kr_array_clone(&dd, d, KR_DEVICE, g));
    KT_OK(kr_fve_voxels(c, t, w, d, o.enc.n, 2, vox, a));
    KT_OK(kr_fve_voxels(g, t, w, dd, o.enc.n, 2, vox, db));
    KT_OK(kr_array_clone(&hb, db, KR_HOST, g));
    double e = rel(hb, a);
    printf("  fve voxels: gpu vs cpu %.3g\n", e);
    KT_LE(e, 1e-6);
    kr_array *all[] = {t, d, w, dd, a, db, hb};
    for (int i = 0; i < 7; i++) kr_array_destroy(all[i]);
    kr_ctx_destroy(c), kr_ctx_destroy(g);
}

int main(void)
{
    kt_require_gpu();
    KT_RUN(test_goertzel_parity);
    KT_RUN(test_fve_parity);
    return kt_finish();
}
