/* libFuzzer harness: the MetaImage reader (kr_read). First byte even: the rest is one .mha
 * file; odd: the rest is framed (fuzz_common.h), an .mhd header and its data file "in.raw". */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    fz_read_one_or_pair(d, n, "in.mha", "in.mhd");
    return 0;
}

void fz_seeds(void)
{
    kr_io_opts o;
    kr_io_opts_default(&o);
    kr_meta m = {{0.5, 1, 2}, {-3, 4, 0.25}, "seed"};
    o.meta = &m;
    for (int k = 0; k < FZ_NARRAYS; k++) {
        kr_array *a = fz_array(k);
        size_t len;
        if (kr_write(fz_path("in.mha"), a, &o) == KR_OK) {
            uint8_t *b = fz_slurp(fz_path("in.mha"), &len);
            fz_seed_mode(0, b, len);
            free(b);
        }
        if (kr_write(fz_path("in.mhd"), a, &o) == KR_OK) {
            size_t nh, nr;
            uint8_t *h = fz_slurp(fz_path("in.mhd"), &nh), *r = fz_slurp(fz_path("in.raw"), &nr);
            uint8_t *f = malloc(3 + nh + nr);
            f[0] = 1;
            f[1] = (uint8_t)(nh & 255);
            f[2] = (uint8_t)(nh >> 8);
            memcpy(f + 3, h, nh);
            memcpy(f + 3 + nh, r, nr);
            fz_seed(f, 3 + nh + nr);
            free(f);
            free(h);
            free(r);
        }
        kr_array_destroy(a);
    }
    static const char zh[] = "ObjectType = Image\nNDims = 2\nDimSize = 2 2\n"
                             "CompressedData = True\nCompressedDataSize = 12\n"
                             "ElementType = MET_UCHAR\nElementDataFile = LOCAL\n"
                             "x\x9c\x63\x60\x64\x62\x06\x00\x00\x0e\x00\x07";
    fz_seed_mode(0, zh, sizeof zh - 1);
}
