/* libFuzzer harness: the Pulseq reader (kr_seq_read_pulseq), then what a reader's caller does
 * with the sequence: its summary and every block. */
#include "fuzz_common.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    kr_seq *s = NULL;
    if (kr_seq_read_pulseq(&s, fz_file("in.seq", d, n), NULL) == KR_OK) {
        kr_seq_info info;
        if (kr_seq_get_info(s, &info) == KR_OK)
            for (int64_t i = 0; i < info.nblocks; i++) {
                kr_seq_block b;
                kr_seq_get_block(s, i, &b);
            }
    }
    kr_seq_destroy(s);
    return 0;
}

void fz_seeds(void)
{
    kr_seq *s = NULL;
    kr_seq_cart_opts o;
    for (int k = 0; k < 3; k++) {
        kr_seq_cart_opts_default(&o);
        o.nx = 8;
        o.ny = 4;
        o.spoil = (kr_spoil)k;
        o.bw_hz_px = 6250; /* dwell 20 us: the blocks fall on the Pulseq rasters */
        if ((k < 2 ? kr_seq_gre(&s, &o) : kr_seq_se(&s, &o)) == KR_OK &&
            kr_seq_write_pulseq(s, fz_path("s.seq"), NULL) == KR_OK)
            fz_seed_file(fz_path("s.seq"));
        kr_seq_destroy(s);
        s = NULL;
    }
    kr_seq_epi_opts e;
    kr_seq_epi_opts_default(&e);
    e.nx = e.ny = 8;
    e.te_ms = 30;
    e.tr_ms = 200;
    if (kr_seq_se_epi(&s, &e) == KR_OK && kr_seq_write_pulseq(s, fz_path("s.seq"), NULL) == KR_OK)
        fz_seed_file(fz_path("s.seq"));
    kr_seq_destroy(s);
    static const char v13[] = "[VERSION]\nmajor 1\nminor 3\nrevision 0\n[DEFINITIONS]\n"
                              "GradientRasterTime 1e-05\n[BLOCKS]\n1 1 1 0 2 0 1\n2 1 0 3 0 0 0\n"
                              "[RF]\n1 250 1 2 0 0 0\n[GRADIENTS]\n3 1000 1 10\n"
                              "[TRAP]\n2 5000 20 100 20 0\n[ADC]\n1 16 10000 10 0 0\n"
                              "[DELAYS]\n1 300\n[SHAPES]\nshape_id 1\nnum_samples 4\n"
                              "0.5\n0.5\n0\n0\n1\n\nshape_id 2\nnum_samples 4\n0\n0\n0\n0\n";
    fz_seed(v13, sizeof v13 - 1);
}
