/* libismrmrd (and HDF5's H5Eset_auto2) through the optional-part loader (core/optional.h):
 * ismrmrd.c and ismrmrd_write.c include this after <ismrmrd/dataset.h> and keep calling
 * libismrmrd by its own names, which the macros below turn into the typed wrappers of
 * ismrmrd_load.c. kri_ismrmrd_enter (ismrmrd_internal.h) loads the library before any call. */
#ifndef KRAY_ISMRMRD_LOAD_H
#define KRAY_ISMRMRD_LOAD_H

#include "internal.h"

#include <ismrmrd/dataset.h>
#include <ismrmrd/ismrmrd.h>

/* Load libismrmrd once; KR_ERR_NOT_SUPPORTED with one sentence when it cannot be loaded. */
kr_status kri_ismrmrd_load(void);

int kri_dl_ismrmrd_append_acquisition(const ISMRMRD_Dataset *d, const ISMRMRD_Acquisition *a);
int kri_dl_ismrmrd_cleanup_acquisition(ISMRMRD_Acquisition *a);
int kri_dl_ismrmrd_cleanup_image(ISMRMRD_Image *im);
int kri_dl_ismrmrd_cleanup_ndarray(ISMRMRD_NDArray *arr);
int kri_dl_ismrmrd_close_dataset(ISMRMRD_Dataset *d);
uint32_t kri_dl_ismrmrd_get_number_of_acquisitions(const ISMRMRD_Dataset *d);
uint32_t kri_dl_ismrmrd_get_number_of_arrays(const ISMRMRD_Dataset *d, const char *var);
uint32_t kri_dl_ismrmrd_get_number_of_images(const ISMRMRD_Dataset *d, const char *var);
int kri_dl_ismrmrd_init_acquisition(ISMRMRD_Acquisition *a);
int kri_dl_ismrmrd_init_dataset(ISMRMRD_Dataset *d, const char *file, const char *group);
int kri_dl_ismrmrd_init_image(ISMRMRD_Image *im);
int kri_dl_ismrmrd_init_ndarray(ISMRMRD_NDArray *arr);
int kri_dl_ismrmrd_make_consistent_acquisition(ISMRMRD_Acquisition *a);
int kri_dl_ismrmrd_open_dataset(ISMRMRD_Dataset *d, const bool create);
int kri_dl_ismrmrd_read_acquisition(const ISMRMRD_Dataset *d, uint32_t i, ISMRMRD_Acquisition *a);
int kri_dl_ismrmrd_read_array(const ISMRMRD_Dataset *d, const char *var, const uint32_t i,
                              ISMRMRD_NDArray *arr);
char *kri_dl_ismrmrd_read_header(const ISMRMRD_Dataset *d);
int kri_dl_ismrmrd_read_image(const ISMRMRD_Dataset *d, const char *var, const uint32_t i,
                              ISMRMRD_Image *im);
int kri_dl_ismrmrd_set_channel_on(uint64_t mask[ISMRMRD_CHANNEL_MASKS], const uint16_t chan);
void kri_dl_ismrmrd_set_error_handler(ismrmrd_error_handler_t h);
int kri_dl_ismrmrd_set_flag(uint64_t *flags, const uint64_t val);
int kri_dl_ismrmrd_write_header(const ISMRMRD_Dataset *d, const char *xml);
herr_t kri_dl_H5Eset_auto2(hid_t stack, H5E_auto2_t func, void *data);

#define ismrmrd_append_acquisition kri_dl_ismrmrd_append_acquisition
#define ismrmrd_cleanup_acquisition kri_dl_ismrmrd_cleanup_acquisition
#define ismrmrd_cleanup_image kri_dl_ismrmrd_cleanup_image
#define ismrmrd_cleanup_ndarray kri_dl_ismrmrd_cleanup_ndarray
#define ismrmrd_close_dataset kri_dl_ismrmrd_close_dataset
#define ismrmrd_get_number_of_acquisitions kri_dl_ismrmrd_get_number_of_acquisitions
#define ismrmrd_get_number_of_arrays kri_dl_ismrmrd_get_number_of_arrays
#define ismrmrd_get_number_of_images kri_dl_ismrmrd_get_number_of_images
#define ismrmrd_init_acquisition kri_dl_ismrmrd_init_acquisition
#define ismrmrd_init_dataset kri_dl_ismrmrd_init_dataset
#define ismrmrd_init_image kri_dl_ismrmrd_init_image
#define ismrmrd_init_ndarray kri_dl_ismrmrd_init_ndarray
#define ismrmrd_make_consistent_acquisition kri_dl_ismrmrd_make_consistent_acquisition
#define ismrmrd_open_dataset kri_dl_ismrmrd_open_dataset
#define ismrmrd_read_acquisition kri_dl_ismrmrd_read_acquisition
#define ismrmrd_read_array kri_dl_ismrmrd_read_array
#define ismrmrd_read_header kri_dl_ismrmrd_read_header
#define ismrmrd_read_image kri_dl_ismrmrd_read_image
#define ismrmrd_set_channel_on kri_dl_ismrmrd_set_channel_on
#define ismrmrd_set_error_handler kri_dl_ismrmrd_set_error_handler
#define ismrmrd_set_flag kri_dl_ismrmrd_set_flag
#define ismrmrd_write_header kri_dl_ismrmrd_write_header
#define H5Eset_auto2 kri_dl_H5Eset_auto2

#endif
