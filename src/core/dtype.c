/* Element types: sizes, names, real/complex pairs. */
#include "internal.h"

#include <string.h>

static const struct {
    const char *name;
    size_t size;
} kri_dtypes[KR_DTYPE_COUNT] = {
    [KR_DTYPE_INVALID] = {"invalid", 0}, [KR_F32] = {"f32", 4},  [KR_F64] = {"f64", 8},
    [KR_C64] = {"c64", 8},               [KR_C128] = {"c128", 16}, [KR_U8] = {"u8", 1},
    [KR_U16] = {"u16", 2},               [KR_I16] = {"i16", 2},
};

static int kri_dtype_valid(kr_dtype t) { return t > KR_DTYPE_INVALID && t < KR_DTYPE_COUNT; }

size_t kr_dtype_size(kr_dtype t) { return kri_dtype_valid(t) ? kri_dtypes[t].size : 0; }

const char *kr_dtype_name(kr_dtype t)
{
    return kri_dtype_valid(t) ? kri_dtypes[t].name : "invalid";
}

kr_dtype kr_dtype_from_name(const char *s)
{
    if (!s) return KR_DTYPE_INVALID;
    for (int t = KR_F32; t < KR_DTYPE_COUNT; t++)
        if (strcmp(s, kri_dtypes[t].name) == 0) return (kr_dtype)t;
    /* common aliases */
    if (!strcmp(s, "float") || !strcmp(s, "float32")) return KR_F32;
    if (!strcmp(s, "double") || !strcmp(s, "float64")) return KR_F64;
    if (!strcmp(s, "complex64") || !strcmp(s, "cfloat")) return KR_C64;
    if (!strcmp(s, "complex128") || !strcmp(s, "cdouble")) return KR_C128;
    if (!strcmp(s, "uint8")) return KR_U8;
    if (!strcmp(s, "uint16")) return KR_U16;
    if (!strcmp(s, "int16")) return KR_I16;
    return KR_DTYPE_INVALID;
}

int kr_dtype_is_complex(kr_dtype t) { return t == KR_C64 || t == KR_C128; }

int kr_dtype_is_float(kr_dtype t) { return t == KR_F32 || t == KR_F64 || kr_dtype_is_complex(t); }

kr_dtype kr_dtype_real(kr_dtype t)
{
    if (t == KR_C64) return KR_F32;
    if (t == KR_C128) return KR_F64;
    return t;
}

kr_dtype kr_dtype_complex(kr_dtype t)
{
    if (t == KR_F32) return KR_C64;
    if (t == KR_F64) return KR_C128;
    return t;
}
