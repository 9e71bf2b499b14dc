/* kray goertzel: centred 2-D DFT of Cartesian k-space at chosen pixels or the whole image by
 * the Goertzel recurrence (kray/goertzel.h). */
#include "cli.h"
#include "kray/goertzel.h"

#include <string.h>

int kc_tool_goertzel(int argc, char **argv)
{
    const char *ip = NULL, *op = NULL;
    kc_list at;
    memset(&at, 0, sizeof at);
    int norm = 0;
    const kc_opt opts[] = {
        {"at", 0, KC_LIST, &at, NULL, "X,Y,...",
         "pixel positions (x1,y1,x2,y2,...) in centred coordinates (index - n/2, fractional "
         "allowed); default: the whole image", NULL, 0, 0, NULL},
        {"normalize", 'N', KC_FLAG, &norm, NULL, NULL,
         "divide by nx ny (numpy's ifft scaling)", NULL, 0, 0, NULL},
        {0}};
    const kc_arg args[] = {{"kspace", &ip, "c64 [nx, ny, batch...], origin at n/2", 0},
                           {"output", &op, "[npoints, batch...] with --at, else [nx, ny, batch...]", 0},
                           {0}};
    const kc_spec spec = {
        "goertzel",
        "Evaluate out(x, y) = sum K[i, j] exp(+2 pi i ((i - nx/2) x / nx + (j - ny/2) y / ny))\n"
        "(kr_fft BACKWARD | CENTERED without scaling; the unweighted DrFT adjoint) at chosen\n"
        "points or every pixel, by a row pass then a column pass of the Goertzel recurrence in\n"
        "double precision.",
        opts,
        args,
        KC_JSON,
        "Examples:\n  kray goertzel --at 0,0,10.5,-3 k.cfl pts.npy\n  kray goertzel -N k.cfl img.cfl",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    if (at.n % 2) return kc_usage("goertzel", "--at needs x,y pairs (got %d numbers)", at.n);
    if ((r = kc_check_output("goertzel", op)) != 0) return r;
    kr_ctx *ctx = NULL;
    if ((r = kc_make_ctx("goertzel", &c, &ctx)) != 0) return r;
    kr_dtype dt = c.precision == 1 ? KR_C128 : KR_C64;
    kr_loc loc = kr_ctx_backend(ctx) == KR_BACKEND_CUDA ? KR_DEVICE : KR_HOST;
    kr_array *k = NULL, *kc = NULL, *dk = NULL, *o = NULL, *ho = NULL;
    kr_status s = kc_read(ip, &k, NULL, kc_image_io());
    if (s == KR_OK) s = kr_array_astype(&kc, k, dt);
    if (s == KR_OK) s = kr_array_clone(&dk, kc, loc, ctx);
    double t0 = kr_time_now(), t1 = t0;
    if (s == KR_OK && at.n) {
        int64_t np = at.n / 2, od[KR_MAX_DIMS];
        int on = 1;
        od[0] = np;
        for (int i = 2; i < kc->ndim; i++) od[on++] = kc->dims[i];
        s = kr_array_create(&o, dt, on, od, loc, ctx);
        t0 = kr_time_now();
        if (s == KR_OK) s = kr_goertzel2d(ctx, dk, np, at.v, o);
        t1 = kr_time_now();
    } else if (s == KR_OK) {
        s = kr_array_create_like(&o, dk, loc, ctx);
        t0 = kr_time_now();
        if (s == KR_OK) s = kr_goertzel2d_image(ctx, dk, o);
        t1 = kr_time_now();
    }
    if (s == KR_OK) s = kr_array_clone(&ho, o, KR_HOST, ctx);
    if (s == KR_OK && norm) {
        double f = 1.0 / ((double)kc->dims[0] * (double)(kc->ndim > 1 ? kc->dims[1] : 1));
        for (int64_t i = 0; i < 2 * kr_array_numel(ho); i++) {
            if (dt == KR_C64) ((float *)ho->data)[i] = (float)(((float *)ho->data)[i] * f);
            else ((double *)ho->data)[i] *= f;
        }
    }
    if (s == KR_OK) s = kr_write(op, ho, at.n ? NULL : kc_image_io());
    if (s == KR_OK && (c.json || c.verbose)) {
        if (c.json) {
            kc_jo j;
            kc_jo_begin(&j);
            kc_jo_int(&j, "points",
                      at.n ? at.n / 2 : kc->dims[0] * (kc->ndim > 1 ? kc->dims[1] : 1));
            kc_jo_str(&j, "backend", kr_backend_name(kr_ctx_backend(ctx)));
            kc_jo_num(&j, "seconds", t1 - t0);
            kc_jo_end(&j);
        } else {
            kc_note("goertzel", "wrote %s (%s) in %.4f s", op, at.n ? "points" : "full image", t1 - t0);
        }
    }
    kr_array_destroy(k), kr_array_destroy(kc), kr_array_destroy(dk), kr_array_destroy(o);
    kr_array_destroy(ho);
    kr_ctx_destroy(ctx);
    return s == KR_OK ? 0 : kc_fail("goertzel", s);
}
