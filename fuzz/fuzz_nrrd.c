/* libFuzzer harness: the NRRD reader, raw and gzip encodings (kr_read). First byte even: the
 * rest is one .nrrd file (attached data); odd: framed (fuzz_common.h), a header and the
 * detached data file "in.raw" it may name. */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    fz_read_one_or_pair(d, n, "in.nrrd", "in.nrrd");
    return 0;
}

void fz_seeds(void)
{
    kr_io_opts o;
    kr_io_opts_default(&o);
    kr_meta m = {{0.5, 1, 2}, {-3, 4, 0.25}, "seed"};
    o.meta = &m;
    for (int gz = 0; gz < 2; gz++) {
        o.nrrd_gzip = gz;
        for (int k = 0; k < FZ_NARRAYS; k++) {
            kr_array *a = fz_array(k);
            size_t len;
            if (kr_write(fz_path("in.nrrd"), a, &o) == KR_OK) {
                uint8_t *b = fz_slurp(fz_path("in.nrrd"), &len);
                fz_seed_mode(0, b, len);
                free(b);
            }
            kr_array_destroy(a);
        }
    }
    /* a detached header, big-endian data, line and byte skips, an ASCII encoding */
    static const char det[] = "\x01\x67\x00NRRD0004\ntype: short\ndimension: 2\nsizes: 2 2\n"
                              "endian: big\nencoding: raw\nbyte skip: 2\n"
                              "data file: in.raw\n\n\x00\x00\x00\x01\x00\x02\xff\xfe\x7f\xff";
    fz_seed(det, sizeof det - 1);
    static const char txt[] = "NRRD0004\ntype: float\ndimension: 1\nsizes: 3\nencoding: ascii\n"
                              "space dimension: 1\nspace origin: (1)\nspace directions: (0.5)\n"
                              "line skip: 1\n\nskipped\n1.5 -2 nan\n";
    fz_seed_mode(0, txt, sizeof txt - 1);
}
