/* libFuzzer harness: the PGM reader (P2 and P5, 8 and 16 bits; kr_read). */
#include "fuzz_common.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    fz_read(fz_file("in.pgm", d, n), NULL);
    return 0;
}

void fz_seeds(void)
{
    kr_io_opts o;
    kr_io_opts_default(&o);
    fz_seed_arrays("s.pgm", &o);
    o.bits = 16;
    fz_seed_arrays("s.pgm", &o);
    static const char p2[] = "P2\n# plain\n3 2\n255\n0 128 255\n1 2 3\n";
    fz_seed(p2, strlen(p2));
    static const char p2w[] = "P2 2 2 65535 0 65535 300 40000\n";
    fz_seed(p2w, strlen(p2w));
}
