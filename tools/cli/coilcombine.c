/* kray coilcombine: one image from coil images, by root-sum-of-squares or weighted by
 * sensitivity maps (kray/coils.h), for any image shape and any coil axis. */
#include "cli.h"
#include "mri_common.h"
#include "kray/coils.h"

#include <string.h>

/* View of `a` (host, contiguous) as [p, 1, nc] at batch b of the dims after the coil axis. */
static void kc_cc_view(kr_array *v, const kr_array *a, int64_t p, int64_t nc, int64_t b)
{
    int64_t d[3] = {p, 1, nc};
    size_t off = (size_t)(b * p * nc) * kr_dtype_size(a->dtype);
    kr_array_wrap(v, a->dtype, 3, d, (char *)a->data + off, KR_HOST);
}

int kc_tool_coilcombine(int argc, char **argv)
{
    const char *ip = NULL, *op = NULL, *mp = NULL, *pp = NULL;
    int axis = -1;
    const kc_opt opts[] = {
        {"maps", 0, KC_STRING, &mp, NULL, "FILE",
         "sensitivity maps (same dims as the images, size-1 axes aside): rho = S^H Psi^-1 I / (S^H Psi^-1 S), "
         "complex; without: root-sum-of-squares, real", NULL, 0, 0, NULL},
        {"psi", 0, KC_STRING, &pp, NULL, "FILE",
         "with --maps: noise covariance [nc, nc] (default identity)", NULL, 0, 0, NULL},
        {"coil-axis", 0, KC_INT, &axis, "-1", "A",
         "axis of the coils, 0 = x (-1 = the last axis: [nx, ny, nc], BART's [nx, ny, 1, nc])",
         NULL, -1, KR_MAX_DIMS - 1, NULL},
        {0}};
    const kc_arg args[] = {{"images", &ip, "coil images, complex [..., coils, ...]", 0},
                           {"output", &op, "combined image: the input's dims without the coil "
                                           "axis", 0},
                           {0}};
    const kc_spec spec = {
        "coilcombine",
        "Combine coil images into one image: root-sum-of-squares sqrt(sum_c |I_c|^2) (f32), or,\n"
        "with --maps, the sensitivity-weighted (Roemer) combination S^H Psi^-1 I / (S^H Psi^-1 S)\n"
        "(c64; 0 where every map is 0). The coils are one axis of the images, e.g. the output of\n"
        "`kray nufft` or `kray drft` for multi-coil k-space ([nx, ny, 1, coils]); every other axis\n"
        "is combined pixel by pixel.",
        opts,
        args,
        KC_HOST,
        "Examples:\n  kray nufft t.cfl k.cfl coils.cfl && kray coilcombine coils.cfl rss.png\n"
        "  kray coilcombine --maps maps.cfl coils.cfl combined.cfl",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    kc_apply_threads(&c);
    if (pp && !mp) return kc_usage("coilcombine", "--psi needs --maps");
    if ((r = kc_check_input("coilcombine", ip)) != 0) return r;
    if (mp && (r = kc_check_input("coilcombine", mp)) != 0) return r;
    if ((r = kc_check_output("coilcombine", op)) != 0) return r;

    kr_array *a = NULL, *img = NULL, *m0 = NULL, *maps = NULL, *psi = NULL, *out = NULL;
    char d1[128], d2[128];
    kr_status s = kc_read(ip, &a, NULL, kc_image_io());
    if (s == KR_OK) s = kr_array_astype(&img, a, KR_C64);
    kr_array_destroy(a);
    a = NULL;
    if (s != KR_OK) goto fail;
    int ax = axis < 0 ? img->ndim - 1 : axis;
    if (ax >= img->ndim || img->ndim < 2) {
        kc_error("coilcombine", "'%s' has %s values: no coil axis %d", ip,
                 kr_dims_string(img->ndim, img->dims, d1, sizeof d1), ax);
        r = KC_EXIT_INPUT;
        goto done;
    }
    int64_t p = 1, nc = img->dims[ax], nb = 1;
    for (int i = 0; i < ax; i++) p *= img->dims[i];
    for (int i = ax + 1; i < img->ndim; i++) nb *= img->dims[i];
    if (mp) {
        s = kc_read(mp, &m0, NULL, kc_image_io());
        if (s == KR_OK) s = kr_array_astype(&maps, m0, KR_C64);
        if (s != KR_OK) goto fail;
        /* the same dims, size-1 axes aside ([nx, ny, coils] maps of [nx, ny, 1, coils]
         * images): the same layout in memory */
        int same = 1;
        for (int i = 0, k = 0; same && (i < img->ndim || k < maps->ndim);) {
            if (i < img->ndim && img->dims[i] == 1) {
                i++;
            } else if (k < maps->ndim && maps->dims[k] == 1) {
                k++;
            } else {
                same = i < img->ndim && k < maps->ndim && img->dims[i] == maps->dims[k];
                i++;
                k++;
            }
        }
        if (!same) {
            kc_error("coilcombine", "maps '%s' have %s values, the images '%s' %s", mp,
                     kr_dims_string(maps->ndim, maps->dims, d1, sizeof d1), ip,
                     kr_dims_string(img->ndim, img->dims, d2, sizeof d2));
            r = KC_EXIT_INPUT;
            goto done;
        }
        if (pp && (r = kc_mri_read_psi("coilcombine", pp, nc, &psi)) != 0) goto done;
    }
    int64_t od[KR_MAX_DIMS];
    int on = 0;
    for (int i = 0; i < img->ndim; i++)
        if (i != ax) od[on++] = img->dims[i];
    while (on > 1 && od[on - 1] == 1) on--; /* [nx, ny, 1, coils] -> [nx, ny] */
    s = kr_array_create(&out, mp ? KR_C64 : KR_F32, on, od, KR_HOST, NULL);
    for (int64_t b = 0; s == KR_OK && b < nb; b++) {
        kr_array vi, vm, vo;
        int64_t d[2] = {p, 1};
        kc_cc_view(&vi, img, p, nc, b);
        size_t off = (size_t)(b * p) * kr_dtype_size(out->dtype);
        kr_array_wrap(&vo, out->dtype, 2, d, (char *)out->data + off, KR_HOST);
        if (mp) {
            kc_cc_view(&vm, maps, p, nc, b);
            s = kr_coil_combine(NULL, &vi, &vm, psi, &vo);
        } else {
            s = kr_coil_rss(NULL, &vi, &vo);
        }
    }
    if (s == KR_OK) s = kr_write(op, out, kc_image_io());
    if (s != KR_OK) goto fail;
    if (c.verbose)
        fprintf(stderr, "kray coilcombine: %lld coils -> %s %s (%s)\n", (long long)nc, op,
                kr_dims_string(out->ndim, out->dims, d1, sizeof d1),
                mp ? "sensitivity-weighted" : "root-sum-of-squares");
    r = 0;
    goto done;
fail:
    r = kc_fail("coilcombine", s);
done:
    kr_array_destroy(a), kr_array_destroy(img), kr_array_destroy(m0), kr_array_destroy(maps);
    kr_array_destroy(psi), kr_array_destroy(out);
    return r;
}
