/* Private contract between dicom.c (options, validation, HU quantisation, file names) and
 * dicom_dcmtk.cpp (the DCMTK writer and reader, compiled only with KRAY_HAVE_DCMTK). */
#ifndef KRAY_DICOM_INTERNAL_H
#define KRAY_DICOM_INTERNAL_H

#include "internal.h"
#include "kray/dicom.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KRI_UID_LEN 68 /* a UID is at most 64 characters */

typedef struct kri_dicom_slice {
    const int16_t *pixels; /* rows x cols, row-major (DICOM order) */
    int rows, cols;
    char slope[20], intercept[20]; /* DS strings, exactly as used for quantisation */
    double dx, dy, thickness;
    double pos[3]; /* ImagePositionPatient */
    int instance;  /* InstanceNumber, 1-based */
    char date[12], time[12];
    char study_uid[KRI_UID_LEN], series_uid[KRI_UID_LEN], frame_uid[KRI_UID_LEN];
} kri_dicom_slice;

/* Fresh UID with DCMTK's site root. */
kr_status kri_dicom_uid(char uid[KRI_UID_LEN]);
/* Write one slice to `path` (the caller renames it into place). */
kr_status kri_dicom_write_slice(const char *path, const kri_dicom_slice *s, const kr_dicom_opts *o);
kr_status kri_dicom_read(const char *path, kr_array **out, double spacing_mm[2]);

#ifdef __cplusplus
}
#endif
#endif
