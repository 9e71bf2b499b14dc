/* libFuzzer harness: the gzip-compressed NIfTI-1 reader (.nii.gz; kr_read). The first byte
 * chooses what the rest is: even, the decompressed file, which the harness compresses (so the
 * fuzzer works on the header and the data); odd, the .nii.gz bytes themselves (corrupt and
 * truncated streams). Byte 0 = 2 reads the rest as a plain .nii, so that this harness covers
 * the whole reader (the nifti harness covers the plain files alone, faster). */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* d[0..n) as one gzip member into a new buffer. */
static uint8_t *fz_gzip(const uint8_t *d, size_t n, size_t *out)
{
    z_stream z = {0};
    if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return NULL;
    size_t cap = deflateBound(&z, (uLong)n) + 32;
    uint8_t *b = malloc(cap);
    z.next_in = (Bytef *)d;
    z.avail_in = (uInt)n;
    z.next_out = b;
    z.avail_out = (uInt)cap;
    int r = deflate(&z, Z_FINISH);
    *out = cap - z.avail_out;
    deflateEnd(&z);
    if (r != Z_STREAM_END) {
        free(b);
        return NULL;
    }
    return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n < 1) return 0;
    if (d[0] == 2) {
        fz_read(fz_file("in.nii", d + 1, n - 1), NULL);
        return 0;
    }
    if (d[0] & 1) {
        fz_read(fz_file("in.nii.gz", d + 1, n - 1), NULL);
        return 0;
    }
    size_t nz;
    uint8_t *z = fz_gzip(d + 1, n - 1, &nz);
    if (z) fz_read(fz_file("in.nii.gz", z, nz), NULL);
    free(z);
    return 0;
}

void fz_seeds(void)
{
    for (int k = 0; k < FZ_NARRAYS; k++) {
        kr_array *a = fz_array(k);
        if (kr_write(fz_path("s.nii"), a, NULL) == KR_OK) { /* the plain file, to be compressed */
            size_t m;
            uint8_t *b = fz_slurp(fz_path("s.nii"), &m);
            uint8_t *f = malloc(m + 1);
            f[0] = 0;
            for (size_t i = 0; i < m; i++) f[i + 1] = b[i];
            fz_seed(f, m + 1);
            /* the plain form (mode 2) with scaling or other units: scl_slope 2 and scl_inter
             * 0.5 (bytes 112, 116), xyzt_units metre or micron (byte 123) */
            if (m > 124) {
                const float slope = 2.0f, inter = 0.5f;
                if (k % 3 == 0) memcpy(b + 112, &slope, 4), memcpy(b + 116, &inter, 4);
                else b[123] = k % 3 == 1 ? 1 : 3;
                fz_seed_mode(2, b, m);
            }
            free(f);
            free(b);
        }
        if (k < 3 && kr_write(fz_path("s.nii.gz"), a, NULL) == KR_OK) { /* a real .nii.gz */
            size_t m;
            uint8_t *b = fz_slurp(fz_path("s.nii.gz"), &m);
            uint8_t *f = malloc(m + 1);
            f[0] = 1;
            for (size_t i = 0; i < m; i++) f[i + 1] = b[i];
            fz_seed(f, m + 1);
            free(f);
            free(b);
        }
        kr_array_destroy(a);
    }
}
