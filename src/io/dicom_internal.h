/* Private contract between dicom.c (options, validation, HU quantisation, file names) and
 * dicom_dcmtk.cpp, kray's DCMTK plug-in (libkray_dcmtk.so, built only with KRAY_HAVE_DCMTK and
 * loaded by dicom.c on first use through core/optional.h). The plug-in uses nothing of libkray:
 * a failure is a status and one sentence in err (KRI_DCMTK_ERR bytes). */
#ifndef KRAY_DICOM_INTERNAL_H
#define KRAY_DICOM_INTERNAL_H

#include "kray/core.h"
#include "kray/dicom.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KRI_UID_LEN 68 /* a UID is at most 64 characters */
#define KRI_DCMTK_ERR 400
/* The plug-in's interface version: raise it when anything below changes. */
#define KRI_DCMTK_ABI 1

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

/* The plug-in's functions (optional.h's KRI_DCMTK_SYMS), as types both sides check against. */
/* KRI_DCMTK_ABI of the plug-in's build. */
typedef int kri_dcmtk_abi_fn(void);
/* A fresh UID with DCMTK's site root. */
typedef kr_status kri_dcmtk_uid_fn(char uid[KRI_UID_LEN], char *err);
/* Write one slice to `path` (the caller renames it into place). */
typedef kr_status kri_dcmtk_write_slice_fn(const char *path, const kri_dicom_slice *s,
                                           const kr_dicom_opts *o, char *err);
/* Read a single-frame greyscale slice: *pixels = malloc'ed dims[0] (columns) x dims[1] (rows)
 * floats after the modality LUT (freed by the caller with free), spacing_mm = PixelSpacing
 * (dx, dy) or zeros when spacing_mm is not NULL. */
typedef kr_status kri_dcmtk_read_fn(const char *path, float **pixels, int64_t dims[2],
                                    double spacing_mm[2], char *err);

#ifdef __cplusplus
}
#endif
#endif
