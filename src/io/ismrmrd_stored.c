/* ISMRMRD stored images and NDArrays (the image ismrmrd_recon_cartesian_2d appends, the coil
 * maps and phantom of ismrmrd_generate_cartesian_shepp_logan), read through kray's bounded HDF5
 * access (ismrmrd_h5.c): an image `var` is the datasets <group>/<var>/header (one header per
 * image: matrix size and channels) and <group>/<var>/data ([image, channel, z, y, x]); an
 * NDArray `var` is the dataset <group>/<var> ([item, ISMRMRD's dims reversed]). */
#include "ismrmrd_internal.h"
#include "kray/ismrmrd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef KRAY_HAVE_ISMRMRD

kr_status kr_ismrmrd_read_image(const char *path, const char *dataset, const char *var, int index,
                                kr_array **out)
{
    (void)path, (void)dataset, (void)var, (void)index;
    if (out) *out = NULL;
    return KRI_NO_ISMRMRD;
}
kr_status kr_ismrmrd_read_array(const char *path, const char *dataset, const char *var, int index,
                                kr_array **out)
{
    (void)path, (void)dataset, (void)var, (void)index;
    if (out) *out = NULL;
    return KRI_NO_ISMRMRD;
}

#else /* KRAY_HAVE_ISMRMRD */

/* kray's dtype and the memory type HDF5 converts the stored elements to: integers and 32-bit
 * floats give f32, 64-bit floats f64, a compound of two floats (real, imaginary) c64. */
static kr_status kri_stored_type(kri_h5 *h, const kri_h5_dset *d, kr_dtype *t, hid_t *mt)
{
    H5T_class_t c = H5Tget_class(d->type);
    size_t s = H5Tget_size(d->type);
    *mt = H5I_INVALID_HID;
    if (c == H5T_INTEGER && s <= 4) {
        *t = KR_F32;
        *mt = H5Tcopy(H5T_NATIVE_FLOAT);
    } else if (c == H5T_FLOAT && (s == 4 || s == 8)) {
        *t = s == 4 ? KR_F32 : KR_F64;
        *mt = H5Tcopy(s == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE);
    } else if (c == H5T_COMPOUND && H5Tget_nmembers(d->type) == 2) {
        int ok = 1;
        char *nm[2] = {NULL, NULL};
        for (unsigned k = 0; k < 2; k++) {
            hid_t m = H5Tget_member_type(d->type, k);
            ok &= H5Tget_class(m) == H5T_FLOAT;
            H5Tclose(m);
            nm[k] = H5Tget_member_name(d->type, k);
            ok &= nm[k] != NULL && (k == 0 || strcmp(nm[0], nm[1]) != 0);
        }
        if (ok) {
            *t = KR_C64;
            *mt = H5Tcreate(H5T_COMPOUND, 2 * sizeof(float));
            H5Tinsert(*mt, nm[0], 0, H5T_NATIVE_FLOAT);
            H5Tinsert(*mt, nm[1], sizeof(float), H5T_NATIVE_FLOAT);
        }
        H5free_memory(nm[0]);
        H5free_memory(nm[1]);
    }
    H5Eclear2(H5E_DEFAULT);
    if (*mt < 0)
        return kri_fail(KR_ERR_FORMAT,
                        "'%s': dataset '%s' holds elements kray does not read (integers, 32- and "
                        "64-bit floats and complex pairs of them are read)",
                        h->path, d->name);
    return KR_OK;
}

/* Item `index` along the first axis of d, shaped dims[nd], into a new array. */
static kr_status kri_stored_item(kri_h5 *h, kri_h5_dset *d, hsize_t index, int nd,
                                 const int64_t *dims, kr_array **out)
{
    for (int k = 0; k < nd; k++)
        if (dims[k] < 1)
            return kri_fail(KR_ERR_FORMAT, "'%s': dataset '%s' has an empty dimension", h->path,
                            d->name);
    kr_dtype t = KR_F32;
    hid_t mt;
    KRI_TRY(kri_stored_type(h, d, &t, &mt));
    kr_status st = kr_array_create(out, t, nd, dims, KR_HOST, NULL);
    if (st == KR_OK) st = kri_h5_read_rows(h, d, index, 1, mt, (*out)->data);
    H5Tclose(mt);
    if (st != KR_OK) {
        kr_array_destroy(*out);
        *out = NULL;
    }
    return st;
}

typedef struct kri_image_head {
    uint16_t matrix[3], channels;
} kri_image_head;

static kr_status kri_image(kri_h5 *h, const char *base, const char *var, int index,
                           kr_array **out)
{
    char name[2200];
    snprintf(name, sizeof name, "%s/header", base);
    kr_status st;
    if (!kri_h5_exists(h, name, &st))
        return st != KR_OK ? st
                           : kri_fail(KR_ERR_FORMAT, "'%s' has 0 images '%s'; index %d requested",
                                      h->path, var, index);
    kri_h5_dset hd, dd;
    kri_image_head ih = {{0, 0, 0}, 0};
    st = kri_h5_dset_open(h, name, &hd);
    if (st == KR_OK && (hd.rank != 1 || (hsize_t)index >= hd.dims[0]))
        st = kri_fail(KR_ERR_FORMAT, "'%s' has %llu images '%s'; index %d requested", h->path,
                      hd.rank == 1 ? (unsigned long long)hd.dims[0] : 0ull, var, index);
    if (st == KR_OK) {
        hsize_t three = 3;
        hid_t a = H5Tarray_create2(H5T_NATIVE_UINT16, 1, &three);
        hid_t mt = H5Tcreate(H5T_COMPOUND, sizeof ih);
        H5Tinsert(mt, "matrix_size", HOFFSET(kri_image_head, matrix), a);
        H5Tinsert(mt, "channels", HOFFSET(kri_image_head, channels), H5T_NATIVE_UINT16);
        st = kri_h5_read_rows(h, &hd, (hsize_t)index, 1, mt, &ih);
        H5Tclose(mt);
        H5Tclose(a);
    }
    kri_h5_dset_close(&hd);
    if (st != KR_OK) return st;
    snprintf(name, sizeof name, "%s/data", base);
    st = kri_h5_dset_open(h, name, &dd);
    int64_t dims[4] = {ih.matrix[0], ih.matrix[1], ih.matrix[2], ih.channels};
    if (st == KR_OK &&
        (dd.rank != 5 || dd.dims[0] <= (hsize_t)index || (int64_t)dd.dims[1] != dims[3] ||
         (int64_t)dd.dims[2] != dims[2] || (int64_t)dd.dims[3] != dims[1] ||
         (int64_t)dd.dims[4] != dims[0]))
        st = kri_fail(KR_ERR_FORMAT,
                      "'%s': image '%s' %d is %lld x %lld x %lld of %lld channels in its header, "
                      "its data dataset does not hold that",
                      h->path, var, index, (long long)dims[0], (long long)dims[1],
                      (long long)dims[2], (long long)dims[3]);
    int nd = 4;
    while (nd > 1 && dims[nd - 1] == 1) nd--;
    if (st == KR_OK) st = kri_stored_item(h, &dd, (hsize_t)index, nd, dims, out);
    kri_h5_dset_close(&dd);
    return st;
}

static kr_status kri_array(kri_h5 *h, const char *base, const char *var, int index,
                           kr_array **out)
{
    kr_status st;
    if (!kri_h5_exists(h, base, &st))
        return st != KR_OK ? st
                           : kri_fail(KR_ERR_FORMAT, "'%s' has 0 arrays '%s'; index %d requested",
                                      h->path, var, index);
    kri_h5_dset d;
    st = kri_h5_dset_open(h, base, &d);
    if (st == KR_OK && (d.rank < 2 || (hsize_t)index >= d.dims[0]))
        st = kri_fail(KR_ERR_FORMAT, "'%s' has %llu arrays '%s' of 1 or more dims; index %d "
                      "requested",
                      h->path, d.rank >= 2 ? (unsigned long long)d.dims[0] : 0ull, var, index);
    int64_t dims[KRI_H5_MAXRANK];
    for (int k = 0; st == KR_OK && k < d.rank - 1; k++) dims[k] = (int64_t)d.dims[d.rank - 1 - k];
    if (st == KR_OK) st = kri_stored_item(h, &d, (hsize_t)index, d.rank - 1, dims, out);
    kri_h5_dset_close(&d);
    return st;
}

/* Open the file, find <group>/<var> and read item `index` (path, var, out checked). */
static kr_status kri_read_stored(int image, const char *path, const char *dataset,
                                 const char *var, int index, kr_array **out)
{
    const char *fn = image ? "kr_ismrmrd_read_image" : "kr_ismrmrd_read_array";
    if (index < 0) return kri_fail(KR_ERR_INVALID_ARG, "%s: index %d < 0", fn, index);
    const char *group = dataset ? dataset : "dataset";
    if (strlen(group) + strlen(var) > 2000)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: the group or variable name is too long", fn);
    char base[2100];
    snprintf(base, sizeof base, "%s/%s", group, var);
    KRI_TRY(kri_ismrmrd_enter());
    kri_h5 h;
    kr_status st = kri_h5_open(&h, path);
    if (st == KR_OK)
        st = image ? kri_image(&h, base, var, index, out) : kri_array(&h, base, var, index, out);
    kri_h5_close(&h);
    kri_ismrmrd_leave();
    return st;
}

kr_status kr_ismrmrd_read_image(const char *path, const char *dataset, const char *var, int index,
                                kr_array **out)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(path);
    KRI_ARG_NOT_NULL(var);
    return kri_read_stored(1, path, dataset, var, index, out);
}

kr_status kr_ismrmrd_read_array(const char *path, const char *dataset, const char *var, int index,
                                kr_array **out)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(path);
    KRI_ARG_NOT_NULL(var);
    return kri_read_stored(0, path, dataset, var, index, out);
}

#endif /* KRAY_HAVE_ISMRMRD */
