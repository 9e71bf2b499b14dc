/* FBP of the exact sinogram of the 2-D Shepp-Logan phantom, 512^2 from 720 views over 180
 * degrees, Ram-Lak, against scikit-image's iradon (Debian's /usr/bin/python3, skimage 0.19) on
 * the same sinogram and output grid.
 *
 * Same input for both: iradon puts the rotation axis at detector index N/2 = 256 and pixel
 * (row j, col i) at (i - 256, j - 256) pixels, with t = x cos(phi) - y sin(phi); kray's
 * geometry below is made identical (det_offset -tau/2, image offset -tau/2 in x and y, and
 * iradon gets phi = -theta), so both reconstruct the same grid from the same numbers (iradon's
 * input is divided by tau: it assumes unit pixels). The truth is the phantom rasterised on that
 * grid (3x3 supersampled). PSNR (range 2, the phantom's max - min) and NRMSE are measured inside
 * the reconstruction circle (radius 0.98 of the half field of view), where iradon's circle mask
 * does not act. kray must be at least as good as iradon (it agrees with it to ~1e-13: the same
 * band-limited ramp, padding, interpolation and scaling), and its NRMSE below a fixed bound; the
 * iradon part is skipped with a message when Python or scikit-image is missing. */
#include "internal.h"
#include "test_fbp_util.h"

#include <stdio.h>
#include <unistd.h>

#define PY "/usr/bin/python3"

static const char *kScript = "import sys, numpy as np, warnings\n"
                             "warnings.simplefilter('ignore')\n"
                             "from skimage.transform import iradon\n"
                             "n, v, tau = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])\n"
                             "s = np.fromfile(sys.argv[1], dtype='<f8').reshape(v, n).T / tau\n"
                             "th = -np.arange(v) * 180.0 / v\n"
                             "r = iradon(s, theta=th, output_size=n, filter_name='ramp', "
                             "interpolation='linear', circle=True)\n"
                             "r.astype('<f8').tofile(sys.argv[5])\n";

static int have_skimage(void)
{
    return access(PY, X_OK) == 0 &&
           system(PY " -c 'import skimage.transform, numpy' >/dev/null 2>&1") == 0;
}

static void test_vs_iradon(void)
{
    const int64_t n = 512, nv = 720;
    const double tau = 2.0 / (double)n; /* the phantom's [-1, 1] frame, in mm */
    kr_ct_scan sc;
    kr_ct_scan_default(&sc);
    sc.nviews = nv;
    sc.det_count = n;
    sc.det_spacing_mm = tau;
    sc.det_offset_mm = -0.5 * tau;
    kr_ct_grid gr;
    kr_ct_grid_2d(&gr, n, n, tau);
    gr.offset_mm[0] = gr.offset_mm[1] = -0.5 * tau;
    kr_ct_geom *g = NULL;
    KT_OK(kr_ct_geom_create(&g, &sc, &gr));
    int ne;
    const kr_ellipse *e = kr_phantom_ellipses(KR_PHANTOM_SHEPP_LOGAN, &ne);
    kr_array *sino = tf_sinogram(g, e, ne, KR_F64);
    /* truth on kray's grid: centres at (i - 256) tau = phantom grid shifted by tau / 2 */
    kr_ellipse *es = tf_ellipses(KR_PHANTOM_SHEPP_LOGAN, 1.0, 0.5 * tau, 0.5 * tau, &ne);
    kr_array *truth = NULL;
    KT_OK(kr_phantom_2d_ellipses(&truth, es, ne, n, n, 3, KR_F64));

    kr_fbp_opts o;
    kr_fbp_opts_default(&o);
    o.dtype = KR_F64;
    kr_array *r64 = tf_fbp(KR_BACKEND_CPU, g, &o, sino);
    tf_err k64 = tf_compare(r64, truth, &gr, 0.98, 2.0);
    kr_array *s32 = NULL;
    KT_OK(kr_array_astype(&s32, sino, KR_F32));
    o.dtype = KR_F32;
    kr_array *r32 = tf_fbp(KR_BACKEND_CPU, g, &o, s32);
    tf_err k32 = tf_compare(r32, truth, &gr, 0.98, 2.0);
    printf("  kray f64: PSNR %.3f dB, NRMSE %.5f; f32: PSNR %.3f dB, NRMSE %.5f\n", k64.psnr,
           k64.nrmse, k32.psnr, k32.nrmse);
    KT_LE(k64.nrmse, 0.035); /* measured 0.0300 */
    KT_LE(k32.nrmse, 0.035);
    KT_GE(k64.psnr, 37.0); /* measured 37.19 dB */

    if (!have_skimage()) {
        printf("  skipped the iradon comparison: %s with scikit-image not found\n", PY);
    } else {
        const char *sp = kt_tmp("fbp_sl_sino.raw"), *rp = kt_tmp("fbp_sl_iradon.raw");
        const char *py = kt_tmp("fbp_iradon.py");
        FILE *f = fopen(sp, "wb"), *fs = fopen(py, "w");
        KT_CHECK(f && fs);
        if (f) {
            fwrite(sino->data, sizeof(double), (size_t)(n * nv), f);
            fclose(f);
        }
        if (fs) {
            fputs(kScript, fs);
            fclose(fs);
        }
        char cmd[2048];
        snprintf(cmd, sizeof cmd, PY " %s %s %lld %lld %.17g %s", py, sp, (long long)n,
                 (long long)nv, tau, rp);
        double t0 = kr_time_now();
        int rc = system(cmd);
        double t1 = kr_time_now();
        KT_CHECK(rc == 0);
        int64_t dims[2] = {n, n};
        kr_array *ir = NULL;
        KT_OK(kr_array_create(&ir, KR_F64, 2, dims, KR_HOST, NULL));
        f = fopen(rp, "rb");
        KT_CHECK(f && fread(ir->data, sizeof(double), (size_t)(n * n), f) == (size_t)(n * n));
        if (f) fclose(f);
        tf_err ki = tf_compare(ir, truth, &gr, 0.98, 2.0);
        tf_err kc = tf_compare(r64, ir, &gr, 1.0, 2.0); /* the whole reconstruction circle */
        tf_err kd = tf_compare(r64, ir, &gr, 0.98, 2.0);
        printf("  iradon:   PSNR %.3f dB, NRMSE %.5f (%.2f s incl. Python start); kray vs iradon "
               "max |diff| %.3g\n",
               ki.psnr, ki.nrmse, t1 - t0, kd.maxerr);
        /* the same algorithm (band-limited ramp, zero padding, linear interpolation, pi / n
         * scaling): equal to rounding; 'at least as high' up to that rounding */
        KT_LE(kd.maxerr, 1e-10);
        KT_LE(kc.maxerr, 1e-10);
        KT_GE(k64.psnr, ki.psnr - 1e-6);
        KT_GE(k32.psnr, ki.psnr - 0.01);
        kr_array_destroy(ir);
        remove(sp);
        remove(rp);
        remove(py);
    }
    kr_array_destroy(sino);
    kr_array_destroy(s32);
    kr_array_destroy(truth);
    kr_array_destroy(r64);
    kr_array_destroy(r32);
    kr_ct_geom_destroy(g);
    free(es);
}

int main(void)
{
    KT_RUN(test_vs_iradon);
    return kt_finish();
}
