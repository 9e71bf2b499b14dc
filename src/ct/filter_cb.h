/* Shared between src/ct/cufft_cb/filter_cb.cu (cuFFT LTO store callbacks, compiled to LTO-IR
 * and linked into cuFFT's kernels at plan time) and src/ct/filter_cufft.cu (the plans). The
 * callbacks get a device pointer to one of these. */
#ifndef KRAY_FILTER_CB_H
#define KRAY_FILTER_CB_H

typedef struct kri_filter_cbinfo {
    const void *resp; /* L response values of the dtype (the 1/L of the inverse included) */
    void *out;        /* PLAIN output: row r at out + r * os (elements) */
    long long os;     /* output row stride */
    long long L;      /* FFT length = complex row (pair) stride of the work buffer */
    long long N;      /* values per row */
    long long R;      /* rows (pairs: (R + 1) / 2); L * pairs < 2^32 */
} kri_filter_cbinfo;

/* Symbol names of the callbacks (cuFFT looks them up in the LTO-IR). */
#define KRI_FCB_MUL_C "kri_fcb_mul_c"
#define KRI_FCB_MUL_Z "kri_fcb_mul_z"
#define KRI_FCB_UNPACK_C "kri_fcb_unpack_c"
#define KRI_FCB_UNPACK_Z "kri_fcb_unpack_z"

#endif
