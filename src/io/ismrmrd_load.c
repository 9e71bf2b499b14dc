/* libismrmrd's functions through the optional-part loader (ismrmrd_load.h, core/optional.h):
 * typed wrappers over the symbols kri_part_load resolved. Only with KRAY_HAVE_ISMRMRD. */
#include "internal.h"

#ifdef KRAY_HAVE_ISMRMRD
#include "ismrmrd_load.h"
#include "optional.h"

static const kri_fn *_Atomic kri_ism; /* the loader's table, set once loaded */

kr_status kri_ismrmrd_load(void)
{
    const kri_fn *f;
    KRI_TRY(kri_part_load(KRI_PART_ISMRMRD, &f));
    kri_ism = f;
    return KR_OK;
}

/* Call symbol `name` as a function of type T. */
#define KRI_ISM(name, T) ((T)kri_ism[KRI_SYM_##name])
typedef int (*kri_acq_fn)(ISMRMRD_Acquisition *);
typedef uint32_t (*kri_count_fn)(const ISMRMRD_Dataset *, const char *);

int kri_dl_ismrmrd_append_acquisition(const ISMRMRD_Dataset *d, const ISMRMRD_Acquisition *a)
{
    typedef int (*fn)(const ISMRMRD_Dataset *, const ISMRMRD_Acquisition *);
    return KRI_ISM(ismrmrd_append_acquisition, fn)(d, a);
}
int kri_dl_ismrmrd_cleanup_acquisition(ISMRMRD_Acquisition *a)
{
    return KRI_ISM(ismrmrd_cleanup_acquisition, kri_acq_fn)(a);
}
int kri_dl_ismrmrd_cleanup_image(ISMRMRD_Image *im)
{
    return KRI_ISM(ismrmrd_cleanup_image, int (*)(ISMRMRD_Image *))(im);
}
int kri_dl_ismrmrd_cleanup_ndarray(ISMRMRD_NDArray *arr)
{
    return KRI_ISM(ismrmrd_cleanup_ndarray, int (*)(ISMRMRD_NDArray *))(arr);
}
int kri_dl_ismrmrd_close_dataset(ISMRMRD_Dataset *d)
{
    return KRI_ISM(ismrmrd_close_dataset, int (*)(ISMRMRD_Dataset *))(d);
}
uint32_t kri_dl_ismrmrd_get_number_of_acquisitions(const ISMRMRD_Dataset *d)
{
    return KRI_ISM(ismrmrd_get_number_of_acquisitions, uint32_t(*)(const ISMRMRD_Dataset *))(d);
}
uint32_t kri_dl_ismrmrd_get_number_of_arrays(const ISMRMRD_Dataset *d, const char *var)
{
    return KRI_ISM(ismrmrd_get_number_of_arrays, kri_count_fn)(d, var);
}
uint32_t kri_dl_ismrmrd_get_number_of_images(const ISMRMRD_Dataset *d, const char *var)
{
    return KRI_ISM(ismrmrd_get_number_of_images, kri_count_fn)(d, var);
}
int kri_dl_ismrmrd_init_acquisition(ISMRMRD_Acquisition *a)
{
    return KRI_ISM(ismrmrd_init_acquisition, kri_acq_fn)(a);
}
int kri_dl_ismrmrd_init_dataset(ISMRMRD_Dataset *d, const char *file, const char *group)
{
    typedef int (*fn)(ISMRMRD_Dataset *, const char *, const char *);
    return KRI_ISM(ismrmrd_init_dataset, fn)(d, file, group);
}
int kri_dl_ismrmrd_init_image(ISMRMRD_Image *im)
{
    return KRI_ISM(ismrmrd_init_image, int (*)(ISMRMRD_Image *))(im);
}
int kri_dl_ismrmrd_init_ndarray(ISMRMRD_NDArray *arr)
{
    return KRI_ISM(ismrmrd_init_ndarray, int (*)(ISMRMRD_NDArray *))(arr);
}
int kri_dl_ismrmrd_make_consistent_acquisition(ISMRMRD_Acquisition *a)
{
    return KRI_ISM(ismrmrd_make_consistent_acquisition, kri_acq_fn)(a);
}
int kri_dl_ismrmrd_open_dataset(ISMRMRD_Dataset *d, const bool create)
{
    return KRI_ISM(ismrmrd_open_dataset, int (*)(ISMRMRD_Dataset *, const bool))(d, create);
}
int kri_dl_ismrmrd_read_acquisition(const ISMRMRD_Dataset *d, uint32_t i, ISMRMRD_Acquisition *a)
{
    typedef int (*fn)(const ISMRMRD_Dataset *, uint32_t, ISMRMRD_Acquisition *);
    return KRI_ISM(ismrmrd_read_acquisition, fn)(d, i, a);
}
int kri_dl_ismrmrd_read_array(const ISMRMRD_Dataset *d, const char *var, const uint32_t i,
                              ISMRMRD_NDArray *arr)
{
    typedef int (*fn)(const ISMRMRD_Dataset *, const char *, const uint32_t, ISMRMRD_NDArray *);
    return KRI_ISM(ismrmrd_read_array, fn)(d, var, i, arr);
}
char *kri_dl_ismrmrd_read_header(const ISMRMRD_Dataset *d)
{
    return KRI_ISM(ismrmrd_read_header, char *(*)(const ISMRMRD_Dataset *))(d);
}
int kri_dl_ismrmrd_read_image(const ISMRMRD_Dataset *d, const char *var, const uint32_t i,
                              ISMRMRD_Image *im)
{
    typedef int (*fn)(const ISMRMRD_Dataset *, const char *, const uint32_t, ISMRMRD_Image *);
    return KRI_ISM(ismrmrd_read_image, fn)(d, var, i, im);
}
int kri_dl_ismrmrd_set_channel_on(uint64_t mask[ISMRMRD_CHANNEL_MASKS], const uint16_t chan)
{
    typedef int (*fn)(uint64_t *, const uint16_t);
    return KRI_ISM(ismrmrd_set_channel_on, fn)(mask, chan);
}
void kri_dl_ismrmrd_set_error_handler(ismrmrd_error_handler_t h)
{
    KRI_ISM(ismrmrd_set_error_handler, void (*)(ismrmrd_error_handler_t))(h);
}
int kri_dl_ismrmrd_set_flag(uint64_t *flags, const uint64_t val)
{
    return KRI_ISM(ismrmrd_set_flag, int (*)(uint64_t *, const uint64_t))(flags, val);
}
int kri_dl_ismrmrd_write_header(const ISMRMRD_Dataset *d, const char *xml)
{
    return KRI_ISM(ismrmrd_write_header, int (*)(const ISMRMRD_Dataset *, const char *))(d, xml);
}
herr_t kri_dl_H5Eset_auto2(hid_t stack, H5E_auto2_t func, void *data)
{
    return KRI_ISM(H5Eset_auto2, herr_t(*)(hid_t, H5E_auto2_t, void *))(stack, func, data);
}
#endif
