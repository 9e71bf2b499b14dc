/* libFuzzer harness: the ISMRMRD HDF5 reader (kr_ismrmrd_read), built when kray has ISMRMRD.
 * The input is the .h5 file itself. HDF5 is not instrumented, so only what kray does with
 * what the library returns is checked in depth. */
#include "fuzz_common.h"

#include "kray/ismrmrd.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    kr_ismrmrd_read_opts o;
    kr_ismrmrd_read_opts_default(&o);
    kr_ismrmrd_data k = {0};
    kr_ismrmrd_read(fz_file("in.h5", d, n), &o, &k);
    kr_ismrmrd_data_destroy(&k);
    return 0;
}

void fz_seeds(void)
{
    for (int k = 0; k < 2; k++) {
        kr_array *ks = NULL, *noise = NULL;
        const int64_t dims[3] = {8, 6, 2}, nd[2] = {8, 2};
        if (kr_array_create(&ks, KR_C64, 3, dims, KR_HOST, NULL) != KR_OK) return;
        float *v = ks->data;
        for (int64_t i = 0; i < 2 * 8 * 6 * 2; i++) v[i] = (float)((i * 13) % 7) - 3.0f;
        if (k && kr_array_create(&noise, KR_C64, 2, nd, KR_HOST, NULL) == KR_OK) {
            float *w = noise->data;
            for (int64_t i = 0; i < 2 * 8 * 2; i++) w[i] = (float)(i % 3) * 0.1f;
        }
        uint8_t lines[6] = {1, 1, 2, 3, 1, 0};
        kr_ismrmrd_write_opts o;
        kr_ismrmrd_write_opts_default(&o);
        o.accel = 1 + k;
        if (kr_ismrmrd_write(fz_path("s.h5"), &o, ks, k ? lines : NULL, noise) == KR_OK)
            fz_seed_file(fz_path("s.h5"));
        kr_array_destroy(ks);
        kr_array_destroy(noise);
    }
}
