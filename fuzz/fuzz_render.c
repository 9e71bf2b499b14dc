/* libFuzzer harness: the PNG and PGM writers through the grey-level rendering (kr_write of an
 * array the input describes). Input: dtype (byte 0), bits and complex part (byte 1), window
 * flag and slice (byte 2), sizes nx, ny, nz (bytes 3..5), with the window flag two doubles
 * (lo, hi), then the sample bytes (repeated to fill the array). */
#include "fuzz_common.h"

#include <string.h>

static const kr_dtype fz_types[] = {KR_F32, KR_F64, KR_C64, KR_C128, KR_U8, KR_U16, KR_I16};

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n < 6) return 0;
    kr_io_opts o;
    kr_io_opts_default(&o);
    const kr_dtype t = fz_types[d[0] % 7];
    o.bits = d[1] & 1 ? 16 : 8;
    o.complex_part = (d[1] >> 1) % 5; /* 4 is invalid and must be refused */
    o.window_set = d[2] & 1;
    o.slice = (int)(d[2] >> 1) % 6 - 1; /* -1 = central; 4 may lie outside */
    const int64_t dims[3] = {1 + d[3] % 48, 1 + d[4] % 48, 1 + d[5] % 4};
    size_t off = 6;
    if (o.window_set) {
        if (n < off + 16) return 0;
        memcpy(&o.window_lo, d + off, 8);
        memcpy(&o.window_hi, d + off + 8, 8);
        off += 16;
    }
    kr_array *a = NULL;
    if (kr_array_create(&a, t, 3, dims, KR_HOST, NULL) != KR_OK) return 0;
    const size_t bytes = (size_t)kr_array_numel(a) * kr_dtype_size(t);
    uint8_t *p = a->data;
    for (size_t i = 0; i < bytes; i++) p[i] = off < n ? d[off + i % (n - off)] : 0;
    kr_write(fz_path("out.pgm"), a, &o);
    kr_write(fz_path("out.png"), a, &o);
    kr_array_destroy(a);
    return 0;
}

void fz_seeds(void)
{
    for (int k = 0; k < FZ_NARRAYS; k++) {
        kr_array *a = fz_array(k);
        const size_t bytes = (size_t)kr_array_numel(a) * kr_dtype_size(a->dtype);
        uint8_t buf[6 + 16 + 512];
        int ti = 0;
        while (fz_types[ti] != a->dtype) ti++;
        buf[0] = (uint8_t)ti;
        buf[1] = (uint8_t)(k & 1);
        buf[2] = (uint8_t)(k == 1 || k == 8);
        buf[3] = (uint8_t)(a->dims[0] - 1);
        buf[4] = (uint8_t)((a->ndim > 1 ? a->dims[1] : 1) - 1);
        buf[5] = (uint8_t)((a->ndim > 2 ? a->dims[2] : 1) - 1);
        size_t off = 6;
        if (buf[2] & 1) {
            const double w[2] = {k == 8 ? -1e308 : -2.0, k == 8 ? 1e308 : 3.0};
            memcpy(buf + off, w, 16);
            off += 16;
        }
        memcpy(buf + off, a->data, bytes);
        fz_seed(buf, off + bytes);
        kr_array_destroy(a);
    }
}
