/* 3-D ESPIRiT against BART 0.8: `bart ecalib -m 1 -k 5:5:5 -r 16:16:16` and kr_espirit (kernel
 * 5, calibration 16) on the same analytic 3-D multi-coil k-space (espirit_test_util.h): the same
 * calibration region and kernel count (both logs: 16x16x16 at (8, 6, 4), 163 of 750), the same
 * crop mask; the maps of each are unique up to a phase per voxel and are compared through
 * |maps| and the projections m m^H, which do not see it, where BART's 30-step eigen-iteration
 * has converged (its eigenvalue within 1e-4 of kray's). Skipped when bart is not installed. */
#include "espirit_test_util.h"
#include "kray/io.h"

#include <stdio.h>

static int have_bart(void) { return system("command -v bart > /dev/null 2>&1") == 0; }

static void test_vs_bart(void)
{
    if (!have_bart()) {
        printf("  bart not found on PATH: comparison skipped\n");
        kt_skip("bart not installed");
    }
    kr_ctx *c = kt_cpu_ctx();
    kr_array *S = ket_maps3(kN, kNC);
    kr_array *k = ket_kspace3(c, S, NULL);
    const int64_t nv = kN[0] * kN[1] * kN[2];
    char kpath[512], mpath[512], epath[512], cmd[2048];
    snprintf(kpath, sizeof kpath, "%s", kt_tmp("espirit3d_k.cfl"));
    snprintf(mpath, sizeof mpath, "%s", kt_tmp("espirit3d_maps.cfl"));
    snprintf(epath, sizeof epath, "%s", kt_tmp("espirit3d_ev.cfl"));
    KT_OK(kr_write(kpath, k, NULL));
    kpath[strlen(kpath) - 4] = mpath[strlen(mpath) - 4] = epath[strlen(epath) - 4] = '\0';
    snprintf(cmd, sizeof cmd,
             "bart ecalib -m 1 -k 5:5:5 -r 16:16:16 '%s' '%s' '%s' > /dev/null 2>&1", kpath,
             mpath, epath);
    double t0 = kr_time_now();
    KT_CHECK(system(cmd) == 0);
    double t1 = kr_time_now();
    strcat(mpath, ".cfl");
    strcat(epath, ".cfl");
    kr_array *mb = NULL, *eb = NULL, *m = NULL, *ev = NULL;
    KT_OK(kr_read(mpath, &mb, NULL, NULL));
    KT_OK(kr_read(epath, &eb, NULL, NULL));
    kr_espirit_opts o;
    kr_espirit_opts_default(&o);
    o.kernel = 5;
    o.calib = 16;
    double t2 = kr_time_now();
    KT_OK(kr_espirit(c, k, &o, &m, &ev));
    double t3 = kr_time_now();
    if (mb && m && kr_array_numel(mb) == kr_array_numel(m)) {
        ket_cmp r = ket_compare(m, mb, nv, kNC);
        /* BART stops its orthogonal iteration after 30 steps: where it has not converged its
         * eigenvalue (a Rayleigh quotient) is below kray's, never above. Compare the maps where
         * the eigenvalues agree to 1e-4, and count the rest. */
        const float *ek = ev->data, *ebv = eb->data;
        const int cplx = eb->dtype == KR_C64; /* BART writes the eigenvalues as complex */
        double emax = 0, eup = 0;
        kr_array *ma = NULL, *mba = NULL;
        KT_OK(kr_array_clone(&ma, m, KR_HOST, NULL));
        KT_OK(kr_array_clone(&mba, mb, KR_HOST, NULL));
        int64_t conv = 0;
        for (int64_t q = 0; q < nv; q++) {
            const double d = ek[q] - ebv[cplx ? 2 * q : q];
            emax = fmax(emax, fabs(d));
            if (ek[q] > 0.4) eup = fmax(eup, -d); /* kray iterates to 1e-9 above half the crop */
            if (d < 1e-4) {
                conv++;
                continue;
            }
            for (int64_t c2 = 0; c2 < kNC; c2++) /* leave it out of the comparison */
                for (int re = 0; re < 2; re++)
                    ((float *)ma->data)[2 * (q + nv * c2) + re] =
                        ((float *)mba->data)[2 * (q + nv * c2) + re] = 0;
        }
        ket_cmp rc = ket_compare(ma, mba, nv, kNC);
        printf("  %lldx%lldx%lld, %lld coils vs bart ecalib (kray %.2f s, bart %.2f s, loaded "
               "machine): crop differs on %.2f %% of voxels; eigenvalues max |diff| %.2g (bart "
               "above kray by at most %.1e where kray's > 0.4); over all %lld voxels kept by both: |maps| %.2e, "
               "projections m m^H %.2e; over the %lld where the eigenvalues agree to 1e-4: "
               "|maps| %.2e, projections %.2e\n",
               (long long)kN[0], (long long)kN[1], (long long)kN[2], (long long)kNC, t3 - t2,
               t1 - t0, 100 * r.crop_mismatch, emax, eup, (long long)r.both, r.mag, r.proj,
               (long long)rc.both, rc.mag, rc.proj);
        KT_LE(r.crop_mismatch, 0.01);
        KT_LE(eup, 1e-5);
        KT_GE((double)rc.both, 0.95 * (double)r.both);
        KT_LE(rc.mag, 5e-3);
        KT_LE(rc.proj, 5e-3);
        (void)conv;
        kr_array_destroy(ma), kr_array_destroy(mba);
    } else {
        KT_CHECK(!"bart maps missing or of another size");
    }
    kr_array_destroy(S), kr_array_destroy(k), kr_array_destroy(mb), kr_array_destroy(eb);
    kr_array_destroy(m), kr_array_destroy(ev);
    kr_ctx_destroy(c);
}

int main(void)
{
    KT_RUN(test_vs_bart);
    return kt_finish();
}
