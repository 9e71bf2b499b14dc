/* Helpers shared by `kray recon` and `kray sense` (mri_common.h). */
#include "mri_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int kc_ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

int kc_mri_is_ismrmrd(const char *path)
{
    return path && (kc_ends_with(path, ".h5") || kc_ends_with(path, ".mrd") ||
                    kc_ends_with(path, ".ismrmrd"));
}

void kc_mri_free(kc_mri_input *in)
{
    if (!in) return;
    kr_array_destroy(in->kspace);
    kr_array_destroy(in->calib);
    kr_array_destroy(in->psi);
    free(in->lines);
    memset(in, 0, sizeof *in);
}

int kc_mri_read_c64(const char *tool, const char *path, const char *what, const int64_t *want,
                    kr_array **out)
{
    *out = NULL;
    int r = kc_check_input(tool, path);
    if (r) return r;
    kr_array *a = NULL;
    kr_status s = kc_read(path, &a, NULL, kc_image_io());
    if (s != KR_OK) return kc_fail(tool, s);
    if (a->dtype != KR_C64 && a->dtype != KR_C128) {
        fprintf(stderr, "kray %s: %s '%s' has element type %s; it must be complex (c64 or c128)\n",
                tool, what, path, kr_dtype_name(a->dtype));
        kr_array_destroy(a);
        return KC_EXIT_INPUT;
    }
    /* [nx, ny, nc] or BART's [nx, ny, 1, nc] */
    int64_t d[3] = {a->dims[0], a->ndim > 1 ? a->dims[1] : 1, 1};
    int rank = kr_array_rank(a);
    if (rank == 4 && a->dims[2] == 1)
        d[2] = a->dims[3];
    else if (rank <= 3)
        d[2] = a->ndim > 2 ? a->dims[2] : 1;
    else {
        char b[96];
        fprintf(stderr,
                "kray %s: %s '%s' has %s values; expected [x, y, coils] (or BART's "
                "[x, y, 1, coils])\n",
                tool, what, path, kr_dims_string(a->ndim, a->dims, b, sizeof b));
        kr_array_destroy(a);
        return KC_EXIT_INPUT;
    }
    if (want && (d[0] != want[0] || d[1] != want[1] || d[2] != want[2])) {
        fprintf(stderr,
                "kray %s: %s '%s' has %lldx%lldx%lld values but the k-space has "
                "%lldx%lldx%lld\n",
                tool, what, path, (long long)d[0], (long long)d[1], (long long)d[2],
                (long long)want[0], (long long)want[1], (long long)want[2]);
        kr_array_destroy(a);
        return KC_EXIT_INPUT;
    }
    kr_array *c = NULL;
    s = kr_array_create(&c, KR_C64, 3, d, KR_HOST, NULL);
    if (s == KR_OK) {
        kr_array tmp;
        kr_array_wrap(&tmp, a->dtype, 3, d, a->data, KR_HOST);
        s = kr_array_convert(c, &tmp);
    }
    kr_array_destroy(a);
    if (s != KR_OK) {
        kr_array_destroy(c);
        return kc_fail(tool, s);
    }
    *out = c;
    return 0;
}

int kc_mri_read_psi(const char *tool, const char *path, int64_t nc, kr_array **out)
{
    *out = NULL;
    int r = kc_check_input(tool, path);
    if (r) return r;
    kr_array *a = NULL;
    kr_status s = kc_read(path, &a, NULL, NULL);
    if (s != KR_OK) return kc_fail(tool, s);
    if (kr_array_rank(a) > 2 || a->dims[0] != nc || (a->ndim > 1 ? a->dims[1] : 1) != nc) {
        char b[96];
        fprintf(stderr,
                "kray %s: noise covariance '%s' has %s values; expected %lldx%lld for the "
                "%lld coils\n",
                tool, path, kr_dims_string(a->ndim, a->dims, b, sizeof b), (long long)nc,
                (long long)nc, (long long)nc);
        kr_array_destroy(a);
        return KC_EXIT_INPUT;
    }
    if (!kr_dtype_is_complex(a->dtype)) {
        kr_array *c = NULL;
        s = kr_array_astype(&c, a, KR_C128);
        kr_array_destroy(a);
        if (s != KR_OK) return kc_fail(tool, s);
        a = c;
    }
    *out = a;
    return 0;
}

int kc_mri_load(const char *tool, const char *path, const char *dataset, int repetition,
                int keep_oversampling, kc_mri_input *in)
{
    memset(in, 0, sizeof *in);
    if (kc_mri_is_ismrmrd(path)) {
        kr_ismrmrd_read_opts o;
        kr_ismrmrd_read_opts_default(&o);
        o.dataset = dataset;
        o.repetition = repetition;
        o.remove_oversampling = !keep_oversampling;
        kr_ismrmrd_data d;
        kr_status s = kr_ismrmrd_read(path, &o, &d);
        if (s != KR_OK) return kc_fail(tool, s);
        if ((s = kc_check_finite(path, d.kspace)) != KR_OK ||
            (s = kc_check_finite(path, d.calib)) != KR_OK) {
            kr_ismrmrd_data_destroy(&d);
            return kc_fail(tool, s);
        }
        in->kspace = d.kspace;
        in->calib = d.calib;
        in->psi = d.psi;
        in->accel = d.accel;
        in->ismrmrd = 1;
        in->lines = malloc((size_t)d.ny);
        if (in->lines) memcpy(in->lines, d.lines, (size_t)d.ny);
        d.kspace = d.calib = d.psi = NULL;
        kr_ismrmrd_data_destroy(&d);
        if (!in->lines) return kc_fail(tool, KR_ERR_OOM_HOST);
        return 0;
    }
    int r = kc_mri_read_c64(tool, path, "k-space", NULL, &in->kspace);
    if (r) return r;
    int64_t nx = in->kspace->dims[0], ny = in->kspace->dims[1], nc = in->kspace->dims[2];
    in->lines = calloc((size_t)ny, 1);
    if (!in->lines) return kc_fail(tool, KR_ERR_OOM_HOST);
    const float *v = in->kspace->data;
    for (int64_t c = 0; c < nc; c++)
        for (int64_t j = 0; j < ny; j++)
            for (int64_t x = 0; x < nx && !in->lines[j]; x++) {
                const float *e = v + 2 * (x + nx * (j + ny * c));
                if (e[0] != 0 || e[1] != 0) in->lines[j] = KR_LINE_IMAGING;
            }
    return 0;
}

int kc_mri_write(const char *tool, const char *path, const kr_array *a)
{
    kr_status s = kr_write(path, a, kc_image_io());
    return s == KR_OK ? 0 : kc_fail(tool, s);
}

int kc_mri_maps(const char *tool, const kr_ctx *ctx, const kc_mri_input *in, const char *path,
                const int64_t *want, int kernel, int calib, double crop, const char *out_path,
                kr_array **maps)
{
    *maps = NULL;
    int r = 0;
    if (path) {
        r = kc_mri_read_c64(tool, path, "maps", want, maps);
    } else {
        kr_espirit_opts o;
        kr_espirit_opts_default(&o);
        o.kernel = kernel;
        o.calib = calib;
        o.crop = crop;
        kr_status s = kr_espirit(ctx, in->calib ? in->calib : in->kspace, &o, maps, NULL);
        if (s != KR_OK) r = kc_fail(tool, s);
    }
    if (r == 0 && out_path) r = kc_mri_write(tool, out_path, *maps);
    return r;
}

int kc_mri_write_image(const char *tool, const char *path, const kr_array *img, int magnitude)
{
    if (!magnitude) return kc_mri_write(tool, path, img);
    kr_array *mag = NULL;
    kr_status s = kr_array_create(&mag, KR_F32, img->ndim, img->dims, KR_HOST, NULL);
    if (s != KR_OK) return kc_fail(tool, s);
    const float *v = img->data;
    float *m = mag->data;
    for (int64_t i = 0; i < kr_array_numel(img); i++) m[i] = (float)hypot(v[2 * i], v[2 * i + 1]);
    int r = kc_mri_write(tool, path, mag);
    kr_array_destroy(mag);
    return r;
}

kr_status kc_random_traj(const char *spec, int nd, const int64_t n[3], kr_dtype dt, kr_array **t)
{
    char *end = NULL;
    long long m = strtoll(spec + 7, &end, 10);
    if (!end || *end || m < 1) return KR_ERR_INVALID_ARG;
    int64_t d[2] = {3, m};
    kr_status s = kr_array_create(t, dt, 2, d, KR_HOST, NULL);
    if (s != KR_OK) return s;
    uint64_t z = 0x9E3779B97F4A7C15ull;
    for (long long i = 0; i < 3 * m; i++) {
        z ^= z << 13, z ^= z >> 7, z ^= z << 17;               /* xorshift64 */
        double u = (double)(z >> 11) / 9007199254740992.0; /* [0, 1) */
        int a = (int)(i % 3);
        double k = a < nd && n[a] > 1 ? (u - 0.5) * (double)n[a] : 0.0;
        if (dt == KR_F64)
            ((double *)(*t)->data)[i] = k;
        else
            ((float *)(*t)->data)[i] = (float)k;
    }
    return KR_OK;
}

kr_status kc_read_real(const char *path, kr_array **out, const kr_io_opts *io)
{
    kr_array *a = NULL;
    kr_status s = kc_read(path, &a, NULL, io);
    if (s != KR_OK) return s;
    s = kr_array_astype(out, a, KR_F64);
    kr_array_destroy(a);
    return s;
}

kr_status kc_mri_dcf(const char *spec, const kr_ctx *ctx, const kr_array *traj, kr_array **w)
{
    kr_dcf_opts o;
    kr_dcf_opts_default(&o);
    if (!strcmp(spec, "radial") || !strcmp(spec, "pipe") || !strcmp(spec, "voronoi")) {
        o.method = !strcmp(spec, "radial") ? KR_DCF_RADIAL
                   : !strcmp(spec, "pipe") ? KR_DCF_PIPE_MENON
                                           : KR_DCF_VORONOI;
        return kr_dcf(w, ctx, traj, &o, NULL);
    }
    kr_array *a = NULL;
    kr_status s = kc_read(spec, &a, NULL, NULL);
    if (s == KR_OK) s = kr_array_astype(w, a, KR_F32);
    kr_array_destroy(a);
    return s;
}
