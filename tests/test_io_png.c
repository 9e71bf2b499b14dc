/* PNG writer: files decoded here with libpng's reading API and checked pixel by pixel against
 * the closed-form window mapping (8 and 16 bit, default and given windows, slices, complex
 * parts, non-finite values), bad requests, atomic writes. */
#include "internal.h" /* kri_rand_sym */
#include "kt_io.h"

#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define KT_PI 3.14159265358979323846

/* Decoded greyscale image: w x h samples, row 0 first. */
typedef struct {
    uint32_t w, h;
    int bits, color;
    uint16_t *px;
} png_img;

static void rd_err(png_structp p, png_const_charp msg)
{
    fprintf(stderr, "libpng read error: %s\n", msg);
    png_longjmp(p, 1);
}

static int decode(const char *path, png_img *im)
{
    memset(im, 0, sizeof *im);
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    png_structp p = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, rd_err, NULL);
    png_infop info = png_create_info_struct(p);
    unsigned char *row = NULL;
    if (setjmp(png_jmpbuf(p))) {
        png_destroy_read_struct(&p, &info, NULL);
        fclose(f);
        free(row);
        free(im->px);
        im->px = NULL;
        return -1;
    }
    png_init_io(p, f);
    png_read_info(p, info);
    im->w = png_get_image_width(p, info);
    im->h = png_get_image_height(p, info);
    im->bits = png_get_bit_depth(p, info);
    im->color = png_get_color_type(p, info);
    size_t rb = png_get_rowbytes(p, info);
    row = malloc(rb);
    im->px = malloc(sizeof(uint16_t) * im->w * im->h);
    for (uint32_t y = 0; y < im->h; y++) {
        png_read_row(p, row, NULL);
        for (uint32_t x = 0; x < im->w; x++)
            im->px[(size_t)y * im->w + x] =
                im->bits == 16 ? (uint16_t)(row[2 * x] << 8 | row[2 * x + 1]) : row[x];
    }
    png_read_end(p, NULL);
    png_destroy_read_struct(&p, &info, NULL);
    free(row);
    fclose(f);
    return 0;
}

static int clampi(double v, int hi)
{
    return v < 0 ? 0 : v > hi ? hi : (int)v;
}

static void test_ramp_8bit_window(void)
{
    /* v = 3x + 40y - 5 over 32 x 8, window [10, 265]: pixel = clamp(v - 10, 0, 255) */
    int64_t d[2] = {32, 8};
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, KR_F32, 2, d, KR_HOST, NULL));
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 32; x++)
            ((float *)a->data)[y * 32 + x] = (float)(3 * x + 40 * y - 5);
    kr_io_opts o;
    kr_io_opts_default(&o);
    o.window_set = 1;
    o.window_lo = 10;
    o.window_hi = 265;
    const char *p = kt_tmp("ramp8.png");
    KT_OK(kr_write(p, a, &o));
    KT_CHECK(ktio_temp_files(p) == 0);
    png_img im;
    KT_CHECK(decode(p, &im) == 0);
    KT_CHECK(im.w == 32 && im.h == 8 && im.bits == 8 && im.color == PNG_COLOR_TYPE_GRAY);
    int bad = 0;
    for (uint32_t y = 0; im.px && y < 8; y++)
        for (uint32_t x = 0; x < 32; x++)
            bad += im.px[y * 32 + x] != clampi(3.0 * x + 40.0 * y - 5 - 10, 255);
    KT_CHECK_MSG(bad == 0, "%d pixels differ", bad);
    /* first row = y index 0: the top-left pixel is v(0,0) = -5 -> 0, bottom-left v(0,7) */
    KT_CHECK(im.px && im.px[0] == 0 && im.px[7 * 32] == 255 && im.px[1 * 32] == 25);
    free(im.px);
    /* default window = min..max: -5 -> 0, 368 -> 255, rounding to nearest */
    KT_OK(kr_write(p, a, NULL));
    KT_CHECK(decode(p, &im) == 0);
    bad = 0;
    for (uint32_t y = 0; im.px && y < 8; y++)
        for (uint32_t x = 0; x < 32; x++) {
            double v = 3.0 * x + 40.0 * y - 5;
            bad += im.px[y * 32 + x] != (int)floor((v + 5) / 373.0 * 255.0 + 0.5);
        }
    KT_CHECK_MSG(bad == 0, "%d pixels differ (default window)", bad);
    free(im.px);
    kr_array_destroy(a);
    remove(p);
}

static void test_16bit(void)
{
    /* v = 0.5 * (1000x + 7y), window [0, 32767.5] -> pixel = 1000x + 7y, 16-bit */
    int64_t d[2] = {60, 9};
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, KR_F64, 2, d, KR_HOST, NULL));
    for (int y = 0; y < 9; y++)
        for (int x = 0; x < 60; x++)
            ((double *)a->data)[y * 60 + x] = 0.5 * (1000 * x + 7 * y);
    kr_io_opts o;
    kr_io_opts_default(&o);
    o.bits = 16;
    o.window_set = 1;
    o.window_lo = 0;
    o.window_hi = 32767.5;
    const char *p = kt_tmp("ramp16.png");
    KT_OK(kr_write(p, a, &o));
    png_img im;
    KT_CHECK(decode(p, &im) == 0);
    KT_CHECK(im.w == 60 && im.h == 9 && im.bits == 16 && im.color == PNG_COLOR_TYPE_GRAY);
    int bad = 0;
    for (uint32_t y = 0; im.px && y < 9; y++)
        for (uint32_t x = 0; x < 60; x++)
            bad += im.px[y * 60 + x] != clampi(1000.0 * x + 7.0 * y, 65535);
    KT_CHECK_MSG(bad == 0, "%d pixels differ", bad);
    KT_CHECK(im.px && im.px[8 * 60 + 59] == 59056 && im.px[1] == 1000);
    free(im.px);
    /* integer input (u16) with the default window */
    kr_array *u = NULL;
    int64_t du[1] = {3};
    KT_OK(kr_array_create(&u, KR_U16, 1, du, KR_HOST, NULL));
    uint16_t uv[3] = {100, 300, 200};
    memcpy(u->data, uv, sizeof uv);
    o.window_set = 0;
    KT_OK(kr_write(p, u, &o));
    KT_CHECK(decode(p, &im) == 0);
    KT_CHECK(im.w == 3 && im.h == 1 && im.px && im.px[0] == 0 && im.px[1] == 65535 &&
             im.px[2] == 32768);
    free(im.px);
    kr_array_destroy(u);
    kr_array_destroy(a);
    remove(p);
}

static void test_slices_and_parts(void)
{
    /* v = 10z + x + y over 4 x 3 x 5; window [0, 255] -> pixel = v */
    int64_t d[3] = {4, 3, 5};
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, KR_F32, 3, d, KR_HOST, NULL));
    for (int z = 0; z < 5; z++)
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 4; x++)
                ((float *)a->data)[(z * 3 + y) * 4 + x] = (float)(10 * z + x + y);
    kr_io_opts o;
    kr_io_opts_default(&o);
    o.window_set = 1;
    o.window_lo = 0;
    o.window_hi = 255;
    const char *p = kt_tmp("slice.png");
    int slices[3] = {3, -1, 0}, expect_z[3] = {3, 2, 0};
    png_img im;
    for (int k = 0; k < 3; k++) {
        o.slice = slices[k];
        KT_OK(kr_write(p, a, &o));
        KT_CHECK(decode(p, &im) == 0);
        KT_CHECK(im.w == 4 && im.h == 3);
        int bad = 0;
        for (int y = 0; im.px && y < 3; y++)
            for (int x = 0; x < 4; x++)
                bad += im.px[y * 4 + x] != 10 * expect_z[k] + x + y;
        KT_CHECK_MSG(bad == 0, "slice %d: %d pixels differ", slices[k], bad);
        free(im.px);
    }
    o.slice = 5;
    KT_STATUS(kr_write(p, a, &o), KR_ERR_INVALID_ARG);
    KTIO_ERR_NAMES(p, "slice 5");
    /* 4-D: a slice when the 4th size is 1, else KR_ERR_DIM */
    int64_t d4[4] = {4, 3, 5, 1}, d4b[4] = {4, 3, 5, 2};
    kr_array w = *a;
    kr_array_wrap(&w, KR_F32, 4, d4, a->data, KR_HOST);
    o.slice = 1;
    KT_OK(kr_write(p, &w, &o));
    kr_array *b = NULL;
    KT_OK(kr_array_create(&b, KR_F32, 4, d4b, KR_HOST, NULL));
    remove(p);
    KT_STATUS(kr_write(p, b, &o), KR_ERR_DIM);
    KTIO_ERR_NAMES(p, "4x3x5x2");
    KT_CHECK(!ktio_exists(p));
    kr_array_destroy(b);
    kr_array_destroy(a);

    /* complex: re = x, im = y over 9 x 7 */
    int64_t dc[2] = {9, 7};
    KT_OK(kr_array_create(&a, KR_C64, 2, dc, KR_HOST, NULL));
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 9; x++) {
            ((float *)a->data)[2 * (y * 9 + x)] = (float)x;
            ((float *)a->data)[2 * (y * 9 + x) + 1] = (float)y;
        }
    o.slice = -1;
    for (int part = 0; part < 4; part++) {
        o.complex_part = part;
        o.window_lo = part == 3 ? -KT_PI : 0;
        o.window_hi = part == 3 ? KT_PI : 255;
        KT_OK(kr_write(p, a, &o));
        KT_CHECK(decode(p, &im) == 0);
        int bad = 0;
        for (int y = 0; im.px && y < 7; y++)
            for (int x = 0; x < 9; x++) {
                double v = part == 0   ? floor(hypot(x, y) + 0.5)
                           : part == 1 ? x
                           : part == 2 ? y
                                       : floor((atan2(y, x) + KT_PI) / (2 * KT_PI) * 255 + 0.5);
                bad += im.px[y * 9 + x] != (int)v;
            }
        KT_CHECK_MSG(bad == 0, "complex part %d: %d pixels differ", part, bad);
        free(im.px);
    }
    o.complex_part = 4;
    KT_STATUS(kr_write(p, a, &o), KR_ERR_INVALID_ARG);
    KTIO_ERR_NAMES(p, "complex part");
    kr_array_destroy(a);
    remove(p);
}

static void test_non_finite(void)
{
    int64_t d[1] = {6};
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, KR_F64, 1, d, KR_HOST, NULL));
    double v[6] = {NAN, INFINITY, -INFINITY, 1.0, 3.0, 2.0};
    memcpy(a->data, v, sizeof v);
    const char *p = kt_tmp("nf.png");
    KT_OK(kr_write(p, a, NULL)); /* window from the finite values: [1, 3] */
    png_img im;
    KT_CHECK(decode(p, &im) == 0);
    KT_CHECK(im.px && im.px[0] == 0 && im.px[1] == 255 && im.px[2] == 0 && im.px[3] == 0 &&
             im.px[4] == 255 && im.px[5] == 128);
    free(im.px);
    /* a constant image is written (all 0), not refused */
    for (int i = 0; i < 6; i++)
        ((double *)a->data)[i] = 4.0;
    KT_OK(kr_write(p, a, NULL));
    KT_CHECK(decode(p, &im) == 0);
    KT_CHECK(im.px && im.px[0] == 0 && im.px[5] == 0);
    free(im.px);
    kr_array_destroy(a);
    remove(p);
}

static void test_bad_requests(void)
{
    const char *p = kt_tmp("bad.png");
    int64_t d[2] = {4, 4};
    kr_array *a = ktio_make(KR_F32, 2, d), *r = NULL;
    kr_io_opts o;
    kr_io_opts_default(&o);
    o.bits = 12;
    KT_STATUS(kr_write(p, a, &o), KR_ERR_INVALID_ARG);
    KTIO_ERR_NAMES(p, "12");
    kr_io_opts_default(&o);
    o.window_set = 1;
    o.window_lo = 5;
    o.window_hi = 5;
    KT_STATUS(kr_write(p, a, &o), KR_ERR_INVALID_ARG);
    o.window_hi = NAN;
    KT_STATUS(kr_write(p, a, &o), KR_ERR_INVALID_ARG);
    KTIO_ERR_NAMES(p, "window");
    int64_t wide[2] = {70000, 1};
    kr_array *b = ktio_make(KR_U8, 2, wide);
    KT_STATUS(kr_write(p, b, NULL), KR_ERR_DIM);
    KT_CHECK(!ktio_exists(p) && ktio_temp_files(p) == 0);
    KT_STATUS(kr_write(p, NULL, NULL), KR_ERR_INVALID_ARG);
    kr_array w = *a;
    w.loc = KR_DEVICE;
    KT_STATUS(kr_write(p, &w, NULL), KR_ERR_LOCATION);
    /* PNG is output only */
    KT_OK(kr_write(p, a, NULL));
    KT_STATUS(kr_read(p, &r, NULL, NULL), KR_ERR_NOT_SUPPORTED);
    KT_CHECK(r == NULL);
    remove(p);
    kr_array_destroy(a);
    kr_array_destroy(b);
}

static void test_atomic(void)
{
    const char *p = kt_tmp("at.png");
    int64_t d[2] = {512, 512}, ds[2] = {3, 2};
    kr_array *a = NULL, *s = ktio_make(KR_F32, 2, ds);
    KT_OK(kr_array_create(&a, KR_F32, 2, d, KR_HOST, NULL));
    for (int64_t i = 0; i < 512 * 512; i++)
        ((float *)a->data)[i] = (float)kri_rand_sym(11, (uint64_t)i); /* noise: incompressible */
    kr_io_opts o;
    kr_io_opts_default(&o);
    o.bits = 16;
    KT_OK(kr_write(p, a, &o));
    long big = ktio_size(p);
    KT_CHECK(big > 400000);
    KT_OK(kr_write(p, s, NULL));
    long small = ktio_size(p);
    KT_CHECK(small > 0 && small < 200);
    /* libpng's write fails part way: error reported, old file kept, no temporary file */
    kr_status st = KR_OK;
    KTIO_WITH_FSIZE_LIMIT(65536, st = kr_write(p, a, &o));
    KT_CHECK(st == KR_ERR_IO);
    KTIO_ERR_NAMES(p, NULL);
    KT_CHECK(ktio_size(p) == small && ktio_temp_files(p) == 0);
    png_img im;
    KT_CHECK(decode(p, &im) == 0 && im.w == 3 && im.h == 2);
    free(im.px);
    remove(p);
    KTIO_WITH_FSIZE_LIMIT(65536, st = kr_write(p, a, &o));
    KT_CHECK(st == KR_ERR_IO && !ktio_exists(p) && ktio_temp_files(p) == 0);
    const char *q = kt_tmp("missing/dir.png");
    KT_STATUS(kr_write(q, s, NULL), KR_ERR_IO);
    KTIO_ERR_NAMES(q, NULL);
    kr_array_destroy(a);
    kr_array_destroy(s);
}

int main(void)
{
    KT_RUN(test_ramp_8bit_window);
    KT_RUN(test_16bit);
    KT_RUN(test_slices_and_parts);
    KT_RUN(test_non_finite);
    KT_RUN(test_bad_requests);
    KT_RUN(test_atomic);
    return kt_finish();
}
