/* Host FFT vs numpy (Debian's /usr/bin/python3): centred 2-D transforms,
 * numpy.fft.fftshift(numpy.fft.fft2(numpy.fft.ifftshift(x))) and the backward "ortho" variant.
 * kray dims are fastest-first, so a kray array nx x ny is the numpy array of shape (ny, nx).
 * Skips (77) when python3 or numpy is missing. */
#include "internal.h"
#include "kt.h"

#include <complex.h>
#include <stdlib.h>
#include <string.h>

static const char *script =
    "import sys, numpy as np\n"
    "nx, ny, mode = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]\n"
    "x = np.fromfile(sys.argv[1], dtype=np.complex128).reshape(ny, nx)\n"
    "s = np.fft.ifftshift(x)\n"
    "y = np.fft.fft2(s) if mode == 'fwd' else np.fft.ifft2(s, norm='ortho')\n"
    "np.fft.fftshift(y).astype(np.complex128).tofile(sys.argv[2])\n";

static int have_numpy(void)
{
    return system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0;
}

static void run_numpy(const char *in, const char *out, int64_t nx, int64_t ny, const char *mode)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 - '%s' '%s' %lld %lld %s", in, out,
             (long long)nx, (long long)ny, mode);
    FILE *p = popen(cmd, "w");
    KT_CHECK(p != NULL);
    if (!p) return;
    fputs(script, p);
    KT_CHECK(pclose(p) == 0);
}

static void compare(int64_t nx, int64_t ny, kr_fft_dir dir, unsigned flags, const char *mode)
{
    int64_t dims[2] = {nx, ny};
    kr_array *x = NULL, *y = NULL;
    KT_OK(kr_array_create(&x, KR_C128, 2, dims, KR_HOST, NULL));
    KT_OK(kr_array_create_like(&y, x, KR_HOST, NULL));
    double *xd = x->data;
    for (int64_t i = 0; i < 2 * nx * ny; i++) xd[i] = kri_rand_sym(77, (uint64_t)i);
    const char *fin = kt_tmp("fft_np_in.bin"), *fout = kt_tmp("fft_np_out.bin");
    FILE *f = fopen(fin, "wb");
    KT_CHECK(f != NULL);
    if (!f) return;
    KT_CHECK(fwrite(xd, 16, (size_t)(nx * ny), f) == (size_t)(nx * ny));
    fclose(f);
    run_numpy(fin, fout, nx, ny, mode);
    double complex *ref = calloc((size_t)(nx * ny), sizeof *ref);
    f = fopen(fout, "rb");
    KT_CHECK(f != NULL);
    if (f) {
        KT_CHECK(fread(ref, 16, (size_t)(nx * ny), f) == (size_t)(nx * ny));
        fclose(f);
    }
    KT_OK(kr_fft(NULL, x, y, 0, dir, flags));
    const double *yd = y->data;
    double e = 0, m = 0;
    for (int64_t i = 0; i < nx * ny; i++) {
        e = fmax(e, cabs(yd[2 * i] + I * yd[2 * i + 1] - ref[i]));
        m = fmax(m, cabs(ref[i]));
    }
    printf("        numpy %s %lldx%lld: rel. max diff %.3g\n", mode, (long long)nx, (long long)ny,
           e / m);
    KT_CHECK(m > 1.0);
    KT_LE(e / m, 1e-14);
    remove(fin);
    remove(fout);
    free(ref);
    kr_array_destroy(x);
    kr_array_destroy(y);
}

static void test_numpy_centered_2d(void)
{
    compare(6, 5, KR_FFT_FORWARD, KR_FFT_CENTERED, "fwd");
    compare(7, 12, KR_FFT_BACKWARD, KR_FFT_CENTERED | KR_FFT_UNITARY, "bwd_ortho");
}

int main(void)
{
    if (!have_numpy()) kt_skip("/usr/bin/python3 with numpy is not available");
    KT_RUN(test_numpy_centered_2d);
    return kt_finish();
}
