/* libFuzzer harness: the .npy reader (kr_read). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    fz_read(fz_file("in.npy", d, n), NULL);
    return 0;
}

void fz_seeds(void) { fz_seed_arrays("s.npy", NULL); }
