/* libFuzzer harness: the trajectory reader (kr_traj_read, f32 and f64): first byte even, the
 * rest is a .npy file; odd, framed (fuzz_common.h) .hdr and .cfl files. Bits 1-2 pick the
 * dtype asked for: f32, f64, or c64 (refused: trajectories are real). */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n < 1) return 0;
    const char *path;
    if (!(d[0] & 1)) {
        path = fz_file("t.npy", d + 1, n - 1);
    } else {
        const uint8_t *h, *c;
        size_t nh, nc;
        if (!fz_split(d + 1, n - 1, &h, &nh, &c, &nc)) return 0;
        fz_file("t.hdr", h, nh);
        path = fz_file("t.cfl", c, nc);
    }
    kr_array *t = NULL;
    static const kr_dtype want[4] = {KR_F32, KR_F64, KR_C64, KR_F32};
    if (kr_traj_read(path, &t, want[(d[0] >> 1) & 3]) == KR_OK) {
        double kmax[3], r;
        kr_traj_extent(t, kmax, &r);
    }
    kr_array_destroy(t);
    return 0;
}

static void fz_seed_traj(const kr_array *t)
{
    for (int cfl = 0; cfl < 2; cfl++) {
        const char *p = fz_path(cfl ? "s.cfl" : "s.npy");
        if (kr_traj_write(p, t) != KR_OK && kr_write(p, t, NULL) != KR_OK) continue;
        size_t n, nh = 0;
        uint8_t *b = fz_slurp(p, &n), *h = cfl ? fz_slurp(fz_path("s.hdr"), &nh) : NULL;
        uint8_t *f = malloc(3 + nh + n);
        size_t k = 0;
        f[k++] = (uint8_t)cfl;
        if (cfl) {
            f[k++] = (uint8_t)(nh & 255);
            f[k++] = (uint8_t)(nh >> 8);
            memcpy(f + k, h, nh);
            k += nh;
        }
        memcpy(f + k, b, n);
        fz_seed(f, k + n);
        f[0] |= 2;
        fz_seed(f, k + n);
        free(f);
        free(b);
        free(h);
    }
}

void fz_seeds(void)
{
    for (int k = 0; k < FZ_NARRAYS; k++) { /* arrays that are not trajectories: the refusals */
        kr_array *a = fz_array(k);
        fz_seed_traj(a);
        kr_array_destroy(a);
    }
    kr_array *t = NULL;
    if (kr_traj_cartesian(&t, 4, 3, 1, KR_F32) == KR_OK) fz_seed_traj(t);
    kr_array_destroy(t);
    kr_radial_opts r;
    kr_radial_opts_default(&r);
    r.samples = 8;
    r.spokes = 3;
    t = NULL;
    if (kr_traj_radial(&t, &r) == KR_OK) fz_seed_traj(t);
    kr_array_destroy(t);
}
