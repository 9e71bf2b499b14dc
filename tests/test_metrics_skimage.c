/* Metrics against scikit-image 0.19 (Debian's /usr/bin/python3): SSIM with
 * structural_similarity(x, ref, gaussian_weights=True, sigma=1.5, use_sample_covariance=False,
 * data_range=L), and mean_squared_error, peak_signal_noise_ratio, normalized_root_mse. Each case
 * is written as raw little-endian files in its own dtype; Python reads them, takes magnitudes of
 * complex data, converts to float64 and prints the metrics; 3-D cases average the per-slice SSIM
 * over dim 2 (numpy axis 0). Skips (77) without /usr/bin/python3 or scikit-image. */
#include "internal.h"
#include "kt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PY "/usr/bin/python3"

static const char *kPyScript =
    "import sys, warnings\n"
    "import numpy as np\n"
    "from skimage.metrics import structural_similarity, mean_squared_error\n"
    "from skimage.metrics import peak_signal_noise_ratio, normalized_root_mse\n"
    "warnings.simplefilter('ignore')\n"
    "dt = {'f32': np.float32, 'f64': np.float64, 'c64': np.complex64, 'c128': np.complex128,\n"
    "      'u8': np.uint8, 'u16': np.uint16, 'i16': np.int16}\n"
    "def rd(path, t, shape):\n"
    "    a = np.fromfile(path, dtype=np.dtype(dt[t]).newbyteorder('<')).reshape(shape)\n"
    "    return np.abs(a.astype(np.complex128)) if np.iscomplexobj(a) else a.astype(np.float64)\n"
    "for line in open(sys.argv[1]):\n"
    "    name, xf, xt, rf, rt, nx, ny, nz, L = line.split()\n"
    "    shape = (int(nz), int(ny), int(nx))\n"
    "    x, r = rd(xf, xt, shape), rd(rf, rt, shape)\n"
    "    L = float(L)\n"
    "    if L == 0: L = float(r.max() - r.min())\n"
    "    s = np.mean([structural_similarity(x[k], r[k], gaussian_weights=True, sigma=1.5,\n"
    "                 use_sample_covariance=False, data_range=L) for k in range(shape[0])])\n"
    "    print(name, repr(float(s)), repr(float(mean_squared_error(r, x))),\n"
    "          repr(float(peak_signal_noise_ratio(r, x, data_range=L))),\n"
    "          repr(float(normalized_root_mse(r, x))), flush=True)\n";

typedef struct tcase {
    const char *name;
    kr_dtype xt, rt;
    int64_t nx, ny, nz;
    double range; /* 0 = from ref */
    kr_array *x, *r;
    double ours[5]; /* ssim, mse, psnr, nrmse, maxerr */
} tcase;

static double pattern(int64_t i, int64_t nx, int64_t ny, uint64_t seed, double noise, double shift)
{
    int64_t x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
    double fx = (double)x + shift, cx = 0.45 * (double)nx, cy = 0.55 * (double)ny;
    double s = 0.15 * (double)(nx + ny);
    double v = 0.6 * sin(0.19 * fx + 0.4 * (double)z) * cos(0.11 * (double)y) +
               exp(-((fx - cx) * (fx - cx) + (y - cy) * (y - cy)) / (s * s)) +
               (fx > 0.7 * (double)nx ? 0.5 : 0.0); /* an edge */
    return v + noise * kri_rand_sym(seed, (uint64_t)i);
}

/* x or ref of a case: value v = offset + scale * pattern, phase-rotated for complex types. */
static kr_array *make(const tcase *c, kr_dtype t, uint64_t seed, double noise, double shift,
                      double scale, double offset)
{
    int64_t dims[3] = {c->nx, c->ny, c->nz};
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, t, c->nz > 1 ? 3 : 2, dims, KR_HOST, NULL));
    if (!a) return NULL;
    int64_t n = kr_array_numel(a);
    for (int64_t i = 0; i < n; i++) {
        double v = offset + scale * pattern(i, c->nx, c->ny, seed, noise, shift);
        double ph = 3.0 * kri_rand_sym(seed + 99, (uint64_t)i);
        switch (t) {
        case KR_F32: ((float *)a->data)[i] = (float)v; break;
        case KR_F64: ((double *)a->data)[i] = v; break;
        case KR_C64:
            ((float *)a->data)[2 * i] = (float)(v * cos(ph));
            ((float *)a->data)[2 * i + 1] = (float)(v * sin(ph));
            break;
        case KR_C128:
            ((double *)a->data)[2 * i] = v * cos(ph);
            ((double *)a->data)[2 * i + 1] = v * sin(ph);
            break;
        case KR_U8: ((uint8_t *)a->data)[i] = (uint8_t)fmin(255, fmax(0, nearbyint(v))); break;
        case KR_U16: ((uint16_t *)a->data)[i] = (uint16_t)fmin(65535, fmax(0, nearbyint(v))); break;
        case KR_I16: ((int16_t *)a->data)[i] = (int16_t)fmin(32767, fmax(-32768, nearbyint(v))); break;
        default: break;
        }
    }
    return a;
}

static int write_raw(const char *path, const kr_array *a)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t n = kr_array_bytes(a);
    int ok = fwrite(a->data, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static double g_max_ssim_diff;

static void test_against_skimage(void)
{
    tcase cs[] = {
        {"smooth_noisy_64x48", KR_F64, KR_F64, 64, 48, 1, 0.0, NULL, NULL, {0}},
        {"odd_37x53_range5", KR_F64, KR_F64, 37, 53, 1, 5.0, NULL, NULL, {0}},
        {"minimum_11x11", KR_F64, KR_F64, 11, 11, 1, 0.0, NULL, NULL, {0}},
        {"f32_vs_f64_129x97", KR_F32, KR_F64, 129, 97, 1, 0.0, NULL, NULL, {0}},
        {"shifted_50x50_range4", KR_F64, KR_F64, 50, 50, 1, 4.0, NULL, NULL, {0}},
        {"u8_41x33_range255", KR_U8, KR_U8, 41, 33, 1, 255.0, NULL, NULL, {0}},
        {"u16_30x45", KR_U16, KR_U16, 30, 45, 1, 0.0, NULL, NULL, {0}},
        {"i16_45x41_range3000", KR_I16, KR_I16, 45, 41, 1, 3000.0, NULL, NULL, {0}},
        {"c64_31x29", KR_C64, KR_C64, 31, 29, 1, 0.0, NULL, NULL, {0}},
        {"c128_vs_f64_26x35", KR_C128, KR_F64, 26, 35, 1, 2.5, NULL, NULL, {0}},
        {"3d_23x19x4_range3", KR_F64, KR_F64, 23, 19, 4, 3.0, NULL, NULL, {0}},
        {"3d_f32_12x40x3", KR_F32, KR_F32, 12, 40, 3, 0.0, NULL, NULL, {0}},
        {"identical_20x20", KR_F64, KR_F64, 20, 20, 1, 1.0, NULL, NULL, {0}},
        {"large_range_300x211", KR_F64, KR_F64, 300, 211, 1, 100.0, NULL, NULL, {0}},
    };
    const int nc = (int)(sizeof cs / sizeof cs[0]);
    KT_CHECK(nc <= 14); /* size of paths[] below */
    if (nc > 14) return;
    char manifest[1100], script[1100]; /* kt_tmp's buffers rotate: keep copies */
    snprintf(manifest, sizeof manifest, "%s", kt_tmp("metrics_manifest.txt"));
    snprintf(script, sizeof script, "%s", kt_tmp("metrics_ssim.py"));
    FILE *mf = fopen(manifest, "w"), *sf = fopen(script, "w");
    KT_CHECK(mf && sf);
    if (!mf || !sf) return;
    fputs(kPyScript, sf);
    fclose(sf);
    char paths[2 * 14][1100];
    for (int k = 0; k < nc; k++) {
        tcase *c = &cs[k];
        double scale = 1.0, offset = 0.0;
        if (c->rt == KR_U8) scale = 90.0, offset = 40.0;
        if (c->rt == KR_U16) scale = 9000.0, offset = 12000.0;
        if (c->rt == KR_I16) scale = 800.0, offset = -300.0;
        c->r = make(c, c->rt, 100 + (uint64_t)k, 0.03, 0.0, scale, offset);
        if (strncmp(c->name, "identical", 9) == 0)
            c->x = make(c, c->xt, 100 + (uint64_t)k, 0.03, 0.0, scale, offset);
        else if (strncmp(c->name, "shifted", 7) == 0)
            c->x = make(c, c->xt, 100 + (uint64_t)k, 0.03, 1.5, scale, offset);
        else
            c->x = make(c, c->xt, 200 + (uint64_t)k, 0.25, 0.0, 0.9 * scale, offset + 0.05 * scale);
        snprintf(paths[2 * k], sizeof paths[0], "%s", kt_tmp("m_x.raw"));
        snprintf(paths[2 * k + 1], sizeof paths[0], "%s", kt_tmp("m_r.raw"));
        /* kt_tmp names collide across cases: make them unique with the case index */
        snprintf(paths[2 * k] + strlen(paths[2 * k]), 32, ".%d", k);
        snprintf(paths[2 * k + 1] + strlen(paths[2 * k + 1]), 32, ".%d", k);
        KT_CHECK(write_raw(paths[2 * k], c->x) == 0 && write_raw(paths[2 * k + 1], c->r) == 0);
        fprintf(mf, "%s %s %s %s %s %lld %lld %lld %.17g\n", c->name, paths[2 * k],
                kr_dtype_name(c->xt), paths[2 * k + 1], kr_dtype_name(c->rt), (long long)c->nx,
                (long long)c->ny, (long long)c->nz, c->range);
        kr_metrics m;
        KT_OK(kr_metrics_compute(NULL, c->x, c->r, c->range, &m));
        c->ours[0] = m.ssim, c->ours[1] = m.mse, c->ours[2] = m.psnr, c->ours[3] = m.nrmse;
        double v;
        KT_OK(kr_ssim(NULL, c->x, c->r, c->range, &v));
        KT_CHECK(v == m.ssim);
    }
    fclose(mf);

    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s '%s' '%s'", PY, script, manifest);
    FILE *p = popen(cmd, "r");
    KT_CHECK(p != NULL);
    if (!p) return;
    char line[4096];
    int got = 0;
    while (fgets(line, sizeof line, p) && got < nc) {
        char name[256];
        double s, mse, psnr, nrmse;
        if (sscanf(line, "%255s %lf %lf %lf %lf", name, &s, &mse, &psnr, &nrmse) != 5) {
            kt_fail_at(__FILE__, __LINE__, "unexpected line from python: %s", line);
            continue;
        }
        tcase *c = &cs[got++];
        KT_CHECK_MSG(strcmp(name, c->name) == 0, "python answered %s for %s", name, c->name);
        double d = fabs(c->ours[0] - s);
        if (d > g_max_ssim_diff) g_max_ssim_diff = d;
        printf("  %-22s ssim kray %.15f skimage %.15f |diff| %.2e\n", c->name, c->ours[0], s, d);
        KT_NEAR(c->ours[0], s, 1e-4);
        KT_NEAR(c->ours[0], s, 1e-12); /* observed agreement is at rounding level */
        KT_NEAR(c->ours[1], mse, 1e-12 * fmax(1.0, mse));
        if (isinf(psnr))
            KT_CHECK(isinf(c->ours[2]) && c->ours[2] > 0);
        else
            KT_NEAR(c->ours[2], psnr, 1e-10);
        KT_NEAR(c->ours[3], nrmse, 1e-12);
        KT_CHECK(s > -1.0 && s <= 1.0);
    }
    int rc = pclose(p);
    KT_CHECK_MSG(got == nc && rc == 0, "python gave %d of %d results (exit status %d)", got, nc, rc);
    /* the cases are not trivial: SSIM spans a useful range and 'identical' is exactly 1 */
    KT_CHECK(cs[0].ours[0] < 0.9 && cs[12].ours[0] == 1.0);
    printf("  max |SSIM_kray - SSIM_skimage| = %.3e over %d cases\n", g_max_ssim_diff, nc);
    for (int k = 0; k < nc; k++) {
        remove(paths[2 * k]);
        remove(paths[2 * k + 1]);
        kr_array_destroy(cs[k].x);
        kr_array_destroy(cs[k].r);
    }
    remove(manifest);
    remove(script);
}

int main(void)
{
    if (access(PY, X_OK) != 0) kt_skip(PY " is not installed");
    if (system(PY " -c 'import numpy, skimage.metrics' >/dev/null 2>&1") != 0)
        kt_skip("scikit-image is not importable by " PY);
    KT_RUN(test_against_skimage);
    return kt_finish();
}
