/* PNG writer (libpng): 8- or 16-bit greyscale, no alpha, not interlaced.
 * The grey levels come from kri_render_gray: window [lo, hi] (default the data's min..max)
 * mapped linearly to 0..255 or 0..65535 with rounding and clamping, one slice of a volume
 * (o->slice, -1 = the central one), one part of complex data (o->complex_part). The first PNG
 * row (top of the picture) is y index 0 and x runs left to right, so the image reads like the
 * array printed with x fastest. libpng errors are caught (setjmp/longjmp) and reported; the
 * temporary file is removed and nothing is left at the target. */
#include "io_internal.h"

#include <png.h>
#include <setjmp.h>
#include <string.h>

typedef struct kri_png_ctx {
    kri_wfile *w;
    char msg[256];
} kri_png_ctx;

static void kri_png_error(png_structp png, png_const_charp msg)
{
    kri_png_ctx *c = png_get_error_ptr(png);
    snprintf(c->msg, sizeof c->msg, "%s", msg ? msg : "unknown error");
    png_longjmp(png, 1);
}

static void kri_png_warning(png_structp png, png_const_charp msg)
{
    (void)png, (void)msg; /* library code never prints */
}

static void kri_png_write(png_structp png, png_bytep data, size_t n)
{
    kri_png_ctx *c = png_get_io_ptr(png);
    if (kri_wfile_write(c->w, data, n) != KR_OK) png_error(png, "write failed");
}

static void kri_png_flush(png_structp png)
{
    (void)png;
}

/* Encode rows (already in PNG byte order) into c->w. 0 on success, -1 on a libpng error
 * (message in c->msg), -2 when libpng could not allocate its structures. */
static int kri_png_encode(kri_png_ctx *c, const unsigned char *img, size_t row_bytes, uint32_t nx,
                          uint32_t ny, int bits)
{
    png_structp png =
        png_create_write_struct(PNG_LIBPNG_VER_STRING, c, kri_png_error, kri_png_warning);
    if (!png) return -2;
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return -2;
    }
    /* png and info are not modified after setjmp, so they keep their values on longjmp */
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return -1;
    }
    png_set_write_fn(png, c, kri_png_write, kri_png_flush);
    png_set_IHDR(png, info, nx, ny, bits, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (uint32_t y = 0; y < ny; y++)
        png_write_row(png, img + (size_t)y * row_bytes);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return 0;
}

kr_status kri_write_png(const char *path, const kr_array *a, const kr_io_opts *o)
{
    int bits = o->bits ? o->bits : 8;
    void *px;
    int64_t nx, ny;
    kr_status s = kri_render_gray(a, o, bits, &px, &nx, &ny);
    if (s != KR_OK) return kri_fail_prefix(s, "%s", path);
    size_t row_bytes = (size_t)nx * (size_t)(bits / 8);
    if (bits == 16) { /* PNG samples are big-endian */
        unsigned char *b = px;
        const uint16_t *v = px;
        for (int64_t i = 0; i < nx * ny; i++) {
            uint16_t x = v[i];
            b[2 * i] = (unsigned char)(x >> 8);
            b[2 * i + 1] = (unsigned char)(x & 0xff);
        }
    }
    kri_wfile w;
    s = kri_wfile_open(&w, path);
    if (s != KR_OK) {
        kri_free(px);
        return s;
    }
    kri_png_ctx c;
    memset(&c, 0, sizeof c);
    c.w = &w;
    int r = kri_png_encode(&c, px, row_bytes, (uint32_t)nx, (uint32_t)ny, bits);
    kri_free(px);
    if (r != 0) {
        if (w.status != KR_OK)
            s = w.status; /* the write itself failed; detail already set */
        else if (r == -2)
            s = kri_fail(KR_ERR_OOM_HOST, "%s: libpng could not allocate its structures", path);
        else
            s = kri_fail(KR_ERR_FORMAT, "%s: libpng error: %s", path, c.msg);
        kri_wfile_abort(&w);
        return s;
    }
    return kri_wfile_commit(&w);
}
