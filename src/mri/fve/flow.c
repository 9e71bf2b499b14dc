/* FVE flow phantom and exact simulated spiral data (kray/fve.h), encoding parameters and their
 * JSON sidecar. */
#include "kray/fve.h"
#include "kray/phantom.h"
#include "kray/traj.h"

#include "core/internal.h"
#include "core/json.h"
#include "io/iofile.h"

#include <errno.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KRI_PI 3.14159265358979323846

kr_status kr_fve_velocity_axis(const kr_fve_params *p, double *v)
{
    KRI_ARG_NOT_NULL(p);
    KRI_ARG_NOT_NULL(v);
    if (p->encodes < 1 || !(p->vfov_cm_s > 0) || !isfinite(p->vfov_cm_s))
        return kri_fail(KR_ERR_INVALID_ARG,
                        "FVE encoding: %lld encodes and a velocity FOV of %g cm/s; need >= 1 "
                        "encode and a finite velocity FOV > 0",
                        (long long)p->encodes, p->vfov_cm_s);
    for (int64_t b = 0; b < p->encodes; b++)
        v[b] = (double)(b - p->encodes / 2) * p->vfov_cm_s / (double)p->encodes;
    return KR_OK;
}

static kr_status kri_fve_params_check(const kr_fve_params *p, const char *what)
{
    if (p->n < 2 || p->n > 65536 || !(p->fov_mm > 0) || !isfinite(p->fov_mm) ||
        !(p->vfov_cm_s > 0) || !isfinite(p->vfov_cm_s) || p->encodes < 1 || p->encodes > 65536)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "%s: n = %lld, fov_mm = %g, vfov_cm_s = %g, encodes = %lld; need n in "
                        "[2, 65536], fov and velocity FOV > 0, encodes in [1, 65536]",
                        what, (long long)p->n, p->fov_mm, p->vfov_cm_s, (long long)p->encodes);
    return KR_OK;
}

kr_status kr_fve_params_write(const char *path, const kr_fve_params *p, const kr_fve_sim_opts *sim)
{
    KRI_ARG_NOT_NULL(path);
    KRI_ARG_NOT_NULL(p);
    KRI_TRY(kri_fve_params_check(p, "FVE parameters"));
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    const int slot = kri_tmp_register(tmp); /* removed if a signal ends the process */
    FILE *f = fopen(tmp, "w");
    if (!f) {
        kri_tmp_unregister(slot);
        return kri_fail(KR_ERR_IO, "cannot write '%s': %s", tmp, strerror(errno));
    }
    fprintf(f, "{\n  \"n\": %lld,\n  \"fov_mm\": %.17g,\n  \"vfov_cm_s\": %.17g,\n  \"encodes\": %lld",
            (long long)p->n, p->fov_mm, p->vfov_cm_s, (long long)p->encodes);
    if (sim) {
        fprintf(f, ",\n  \"layout\": \"samples, interleaves, slices, encodes, frames, coils\",\n"
                   "  \"slices\": %lld,\n  \"frames\": %lld,\n  \"coils\": %d,\n"
                   "  \"interleaves\": %lld,\n  \"rings\": %d,\n  \"vessels\": [",
                (long long)sim->slices, (long long)sim->frames, sim->coils,
                (long long)sim->interleaves, sim->rings);
        for (int v = 0; v < sim->nvessels; v++) {
            const kr_fve_vessel *e = &sim->vessel[v];
            fprintf(f, "%s\n    {\"x0\": %.17g, \"y0\": %.17g, \"dx_slice\": %.17g, \"radius\": %.17g, "
                       "\"vpeak_cm_s\": %.17g, \"diastole\": %.17g, \"phase\": %.17g, \"rho\": %.17g}",
                    v ? "," : "", e->x0, e->y0, e->dx_slice, e->radius, e->vpeak_cm_s, e->diastole,
                    e->phase, e->rho);
        }
        fprintf(f, "\n  ]");
    }
    fprintf(f, "\n}\n");
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        kr_status s = kri_fail(KR_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
        remove(tmp);
        kri_tmp_unregister(slot);
        return s;
    }
    kri_tmp_unregister(slot);
    return KR_OK;
}

kr_status kr_fve_params_read(const char *path, kr_fve_params *p)
{
    KRI_ARG_NOT_NULL(path);
    KRI_ARG_NOT_NULL(p);
    FILE *f = fopen(path, "rb");
    if (!f) return kri_fail(KR_ERR_IO, "cannot read FVE parameters '%s': %s", path, strerror(errno));
    char *text = NULL;
    size_t len = 0, cap = 0;
    kr_status s = KR_OK;
    for (;;) {
        if (len + 4096 > cap) {
            cap = cap ? 2 * cap : 8192;
            if (cap > (16u << 20)) {
                s = kri_fail(KR_ERR_FORMAT, "FVE parameters '%s' exceed 16 MiB", path);
                break;
            }
            char *nt = realloc(text, cap);
            if (!nt) {
                s = kri_fail(KR_ERR_OOM_HOST, "out of memory reading '%s'", path);
                break;
            }
            text = nt;
        }
        size_t r = fread(text + len, 1, cap - len, f);
        len += r;
        if (r == 0) break;
    }
    fclose(f);
    kri_json *root = NULL;
    if (s == KR_OK) s = kri_json_parse(text, len, path, &root);
    free(text);
    double fov = 0, vfov = 0;
    int64_t n = 0, e = 0;
    if (s == KR_OK && root->type != KRI_JSON_OBJECT)
        s = kri_fail(KR_ERR_FORMAT, "FVE parameters '%s' are not a JSON object", path);
    if (s == KR_OK) s = kri_json_take_int(root, "n", 1, path, "", 2, 65536, &n, NULL);
    if (s == KR_OK) s = kri_json_take_num(root, "fov_mm", 1, path, "", &fov, NULL);
    if (s == KR_OK) s = kri_json_take_num(root, "vfov_cm_s", 1, path, "", &vfov, NULL);
    if (s == KR_OK) s = kri_json_take_int(root, "encodes", 1, path, "", 1, 65536, &e, NULL);
    kri_json_free(root);
    if (s != KR_OK) return s;
    kr_fve_params q = {n, fov, vfov, e};
    KRI_TRY(kri_fve_params_check(&q, path));
    *p = q;
    return KR_OK;
}

void kr_fve_sim_opts_default(kr_fve_sim_opts *o)
{
    memset(o, 0, sizeof *o);
    o->enc.n = 115;
    o->enc.fov_mm = 160;
    o->enc.vfov_cm_s = 200;
    o->enc.encodes = 32;
    o->slices = 5;
    o->frames = 43;
    o->coils = 4;
    o->interleaves = 8;
    o->rings = 32;
    o->nvessels = 2;
    o->tissue_scale = 1;
    o->vessel[0] = (kr_fve_vessel){0.35, 0.5, 0.01, 0.08, 80, 0.3, 0.2, 1.0};
    o->vessel[1] = (kr_fve_vessel){-0.35, 0.5, -0.01, 0.07, 50, 0.4, 0.3, 1.0};
}

void kr_fve_sim_opts_small(kr_fve_sim_opts *o)
{
    kr_fve_sim_opts_default(o);
    o->enc.n = 48;
    o->enc.encodes = 16;
    o->slices = 2;
    o->frames = 6;
    o->coils = 2;
    o->interleaves = 4;
    o->rings = 32;
    o->vessel[0] = (kr_fve_vessel){0.3, 0.5, 0.0, 0.14, 80, 0.3, 0.2, 1.0};
    o->vessel[1] = (kr_fve_vessel){-0.3, 0.5, 0.0, 0.14, 50, 0.4, 0.5, 1.0};
}

double kr_fve_vmax(const kr_fve_vessel *v, int64_t frame, int64_t frames)
{
    double t = frames > 0 ? (double)frame / (double)frames : 0.0;
    return v->vpeak_cm_s * (v->diastole + (1.0 - v->diastole) *
                                              (1.0 + cos(2.0 * KRI_PI * (t - v->phase))) / 2.0);
}

double kr_fve_true_velocity(const kr_fve_sim_opts *o, double x, double y, int64_t slice,
                            int64_t frame, int *inside)
{
    if (inside) *inside = 0;
    if (!o) return 0.0;
    for (int v = 0; v < o->nvessels && v < KR_FVE_MAX_VESSELS; v++) {
        const kr_fve_vessel *e = &o->vessel[v];
        double dx = x - (e->x0 + (double)slice * e->dx_slice), dy = y - e->y0;
        double r2 = (dx * dx + dy * dy) / (e->radius * e->radius);
        if (r2 <= 1.0) {
            if (inside) *inside = 1;
            return kr_fve_vmax(e, frame, o->frames) * (1.0 - r2);
        }
    }
    return 0.0;
}

static kr_status kri_fve_opts_check(const kr_fve_sim_opts *o)
{
    KRI_TRY(kri_fve_params_check(&o->enc, "kr_fve_simulate"));
    if (o->slices < 1 || o->frames < 1 || o->coils < 1 || o->coils > 64 || o->interleaves < 1 ||
        o->rings < 1 || o->rings > 4096 || o->nvessels < 0 || o->nvessels > KR_FVE_MAX_VESSELS ||
        !isfinite(o->tissue_scale))
        return kri_fail(KR_ERR_INVALID_ARG,
                        "kr_fve_simulate: slices %lld, frames %lld, coils %d, interleaves %lld, "
                        "rings %d, vessels %d: each must be >= 1 (coils <= 64, rings <= 4096, "
                        "0 <= vessels <= %d)",
                        (long long)o->slices, (long long)o->frames, o->coils,
                        (long long)o->interleaves, o->rings, o->nvessels, KR_FVE_MAX_VESSELS);
    for (int v = 0; v < o->nvessels; v++) {
        const kr_fve_vessel *e = &o->vessel[v];
        double vm = fabs(e->vpeak_cm_s) * fmax(1.0, fabs(e->diastole));
        if (!(e->radius > 0) || !(e->diastole >= 0 && e->diastole <= 1) || !isfinite(e->rho) ||
            !isfinite(e->x0) || !isfinite(e->y0) || !isfinite(e->dx_slice) || !isfinite(e->phase) ||
            !(vm < o->enc.vfov_cm_s / 2))
            return kri_fail(KR_ERR_INVALID_ARG,
                            "kr_fve_simulate: vessel %d (radius %g, diastole %g, peak %g cm/s) is "
                            "invalid: need radius > 0, diastole in [0, 1] and |peak| below half "
                            "the velocity FOV (%g cm/s)",
                            v, e->radius, e->diastole, e->vpeak_cm_s, o->enc.vfov_cm_s / 2);
    }
    return KR_OK;
}

/* Static tissue density at the vessel (constant over the disk, else an error). */
static kr_status kri_fve_tissue_under(const kr_ellipse *sl, int nsl, double x0, double y0, double r,
                                      int v, int64_t slice, double *rho)
{
    double xy[2 * 33], val[33];
    xy[0] = x0, xy[1] = y0;
    for (int i = 0; i < 32; i++) {
        double a = 2 * KRI_PI * i / 32;
        double rr = (i & 1) ? 1.02 * r : 0.5 * r;
        xy[2 + 2 * i] = x0 + rr * cos(a), xy[3 + 2 * i] = y0 + rr * sin(a);
    }
    KRI_TRY(kr_phantom_eval_2d(sl, nsl, xy, 33, val));
    for (int i = 1; i < 33; i++)
        if (fabs(val[i] - val[0]) > 1e-12)
            return kri_fail(KR_ERR_INVALID_ARG,
                            "kr_fve_simulate: vessel %d in slice %lld (centre %g, %g, radius %g) "
                            "crosses a tissue boundary; move it inside one tissue region",
                            v, (long long)slice, x0, y0, r);
    *rho = val[0];
    return KR_OK;
}

kr_status kr_fve_simulate(const kr_ctx *ctx, const kr_fve_sim_opts *o, kr_array **traj,
                          kr_array **data, kr_array **weights)
{
    KRI_ARG_NOT_NULL(o);
    KRI_ARG_NOT_NULL(traj);
    KRI_ARG_NOT_NULL(data);
    *traj = NULL, *data = NULL;
    if (weights) *weights = NULL;
    KRI_TRY(kri_fve_opts_check(o));
    const int64_t n = o->enc.n, E = o->enc.encodes, T = o->frames, S = o->slices;
    const int C = o->coils, NV = o->nvessels, R = o->rings;
    kr_spiral_opts so;
    kr_spiral_opts_default(&so);
    so.fov_mm = o->enc.fov_mm;
    so.res_mm = o->enc.fov_mm / (double)(n - 1); /* kmax = (n - 1)/2 < n/2 */
    so.interleaves = o->interleaves;
    so.dtype = KR_F64;
    kr_array *t = NULL, *w = NULL, *d = NULL, *stat = NULL;
    double *acc = NULL, *ann = NULL, *kxy = NULL;
    kr_status s = kr_traj_spiral(&t, &so, NULL);
    int64_t M = 0;
    if (s == KR_OK) {
        M = t->dims[1] * t->dims[2];
        s = kri_alloc((void **)&kxy, (size_t)M * 2 * sizeof(double), "FVE trajectory");
    }
    if (s == KR_OK) {
        for (int64_t m = 0; m < M; m++)
            kxy[2 * m] = ((double *)t->data)[3 * m], kxy[2 * m + 1] = ((double *)t->data)[3 * m + 1];
        int64_t dd[6] = {t->dims[1], t->dims[2], S, E, T, C};
        s = kr_array_create(&d, KR_C64, 6, dd, KR_HOST, NULL);
    }
    if (s == KR_OK && weights) {
        kr_dcf_opts dopt;
        kr_dcf_opts_default(&dopt);
        dopt.method = KR_DCF_SPIRAL;
        s = kr_dcf(&w, ctx, t, &dopt, NULL);
    }
    /* annuli k-space, per vessel and ring: [NV * R][C][M] complex double */
    size_t annsz = (size_t)(NV > 0 ? NV : 1) * (size_t)R * (size_t)C * (size_t)M * 2;
    if (s == KR_OK) s = kri_alloc((void **)&ann, annsz * sizeof(double), "FVE vessel k-space");
    int nsl = 0;
    const kr_ellipse *sl = kr_phantom_ellipses(KR_PHANTOM_MODIFIED_SL, &nsl);
    kr_ellipse el[10 + KR_FVE_MAX_VESSELS];
    double *vel = NULL;
    if (s == KR_OK) s = kri_alloc((void **)&vel, (size_t)(NV > 0 ? NV : 1) * R * T * sizeof(double), "FVE velocities");
    for (int64_t sc = 0; s == KR_OK && sc < S; sc++) {
        /* static tissue with the vessels cut out */
        int ne = 0;
        for (int i = 0; i < nsl && i < 10; i++) {
            el[ne] = sl[i];
            el[ne++].rho *= o->tissue_scale;
        }
        for (int v = 0; s == KR_OK && v < NV; v++) {
            const kr_fve_vessel *e = &o->vessel[v];
            double x0 = e->x0 + (double)sc * e->dx_slice, rho = 0;
            s = kri_fve_tissue_under(sl, nsl, x0, e->y0, e->radius, v, sc, &rho);
            el[ne++] = (kr_ellipse){-rho * o->tissue_scale, e->radius, e->radius, x0, e->y0, 0};
        }
        if (s == KR_OK) s = kr_phantom_kspace_coils_ellipses(&stat, el, ne, kxy, M, n, C);
        /* annuli: disk(q + 1) - disk(q), radius R sqrt(q / rings) */
        for (int v = 0; s == KR_OK && v < NV; v++) {
            const kr_fve_vessel *e = &o->vessel[v];
            double x0 = e->x0 + (double)sc * e->dx_slice;
            /* disks in parallel (independent calls; the first failure is kept) */
            kr_status sq = KR_OK;
            const int ntq = kri_threads(ctx);
#pragma omp parallel for schedule(dynamic, 1) num_threads(ntq)
            for (int q = 0; q < R; q++) {
                double *a = ann + (size_t)(v * R + q) * (size_t)C * (size_t)M * 2;
                kr_ellipse de = {e->rho, e->radius * sqrt((double)(q + 1) / R),
                                 e->radius * sqrt((double)(q + 1) / R), x0, e->y0, 0};
                kr_array *dk = NULL;
                kr_status s1 = kr_phantom_kspace_coils_ellipses(&dk, &de, 1, kxy, M, n, C);
                if (s1 == KR_OK) {
                    const double *dv = (const double *)dk->data;
                    for (int64_t i = 0; i < (int64_t)C * M * 2; i++) a[i] = dv[i];
                }
                kr_array_destroy(dk);
                if (s1 != KR_OK) {
#pragma omp critical(kri_fve_disk)
                    if (sq == KR_OK) sq = s1;
                }
            }
            s = sq;
            if (s != KR_OK) s = kri_fail(s, "kr_fve_simulate: vessel %d k-space failed", v);
            /* turn the disks into annuli, outermost first */
            for (int q = R - 1; s == KR_OK && q > 0; q--) {
                double *a = ann + (size_t)(v * R + q) * (size_t)C * (size_t)M * 2;
                const double *b = a - (size_t)C * (size_t)M * 2;
                for (int64_t i = 0; i < (int64_t)C * M * 2; i++) a[i] -= b[i];
            }
            for (int q = 0; q < R; q++)
                for (int64_t tt = 0; tt < T; tt++)
                    vel[((int64_t)v * R + q) * T + tt] =
                        kr_fve_vmax(e, tt, T) * (1.0 - (q + 0.5) / (double)R);
        }
        if (s != KR_OK) break;
        /* combine: one thread per (encode, frame, coil) column */
        const int64_t ncol = E * T * C;
        const int nt = kri_threads(ctx);
        const double *st = (const double *)stat->data;
        float *out = (float *)d->data;
        const int nth = nt > 0 ? nt : 1;
        s = kri_alloc((void **)&acc, (size_t)nth * (size_t)M * 2 * sizeof(double), "FVE accumulator");
        if (s != KR_OK) break;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nth)
        for (int64_t col = 0; col < ncol; col++) {
#ifdef _OPENMP
            double *ac = acc + (size_t)omp_get_thread_num() * (size_t)M * 2;
#else
            double *ac = acc;
#endif
            const int64_t ev = col % E, tt = (col / E) % T, c = col / (E * T);
            const double kv = (double)(ev - E / 2) / o->enc.vfov_cm_s;
            for (int64_t i = 0; i < 2 * M; i++) ac[i] = st[2 * c * M + i];
            for (int v = 0; v < NV; v++)
                for (int q = 0; q < R; q++) {
                    double ph = 2.0 * KRI_PI * fmod(kv * vel[((int64_t)v * R + q) * T + tt], 1.0);
                    double pr = cos(ph), pi = sin(ph);
                    const double *a = ann + ((size_t)(v * R + q) * (size_t)C + (size_t)c) * (size_t)M * 2;
                    for (int64_t m = 0; m < M; m++) {
                        ac[2 * m] += pr * a[2 * m] - pi * a[2 * m + 1];
                        ac[2 * m + 1] += pr * a[2 * m + 1] + pi * a[2 * m];
                    }
                }
            float *dst = out + 2 * M * (sc + S * (ev + E * (tt + T * c)));
            for (int64_t i = 0; i < 2 * M; i++) dst[i] = (float)ac[i];
        }
        kri_free(acc);
        acc = NULL;
        kr_array_destroy(stat);
        stat = NULL;
    }
    kri_free(vel);
    kri_free(ann);
    kri_free(kxy);
    kr_array_destroy(stat);
    if (s != KR_OK) {
        kr_array_destroy(t), kr_array_destroy(w), kr_array_destroy(d);
        return s;
    }
    *traj = t, *data = d;
    if (weights) *weights = w;
    return KR_OK;
}
