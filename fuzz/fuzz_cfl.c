/* libFuzzer harness: the BART .cfl/.hdr pair (kr_read). Input: framed (fuzz_common.h), the
 * .hdr text then the .cfl bytes. */
#include "fuzz_common.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    const uint8_t *h, *c;
    size_t nh, nc;
    if (!fz_split(d, n, &h, &nh, &c, &nc)) return 0;
    fz_file("in.hdr", h, nh);
    fz_read(fz_file("in.cfl", c, nc), NULL);
    return 0;
}

void fz_seeds(void)
{
    for (int k = 0; k < FZ_NARRAYS; k++) {
        kr_array *a = fz_array(k);
        if (kr_write(fz_path("s.cfl"), a, NULL) == KR_OK)
            fz_seed_pair(fz_path("s.hdr"), fz_path("s.cfl"));
        kr_array_destroy(a);
    }
}
