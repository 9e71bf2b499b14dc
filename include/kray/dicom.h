/* kray DICOM export of reconstructed CT slices (and import of single-frame CT/MR slices).
 *
 * Built on DCMTK (Debian libdcmtk-dev) behind this small C API. DCMTK is optional at build time:
 * without it both functions return KR_ERR_NOT_SUPPORTED with "kray was built without DCMTK;
 * install libdcmtk-dev and rebuild".
 *
 * Files written are CT Image Storage (SOP class 1.2.840.10008.5.1.4.1.1.2), Explicit VR Little
 * Endian, one file per slice, MONOCHROME2, 16-bit signed stored values (BitsStored 16,
 * PixelRepresentation 1) with RescaleSlope / RescaleIntercept / RescaleType "HU":
 *     HU = RescaleSlope * stored + RescaleIntercept.
 * Attenuation to Hounsfield units: HU = 1000 * (mu - mu_water) / mu_water, with mu the image
 * value (1/mm, kray's unit) and mu_water given in the options (default 0.0193 / mm, water at
 * about 70 keV effective energy). With values_are_hu the image is taken as HU already.
 * The slope is 1 and the intercept 0 when every HU value fits in [-32768, 32767]; otherwise the
 * slope grows to (largest |HU|) / 32767 so nothing saturates. Stored values are rounded to
 * nearest, so the written HU differ from the exact ones by at most slope / 2. NaN is stored as
 * -1024 HU (air); the count of NaNs is logged.
 * Geometry: image [x, y] (x fastest) becomes Columns = nx, Rows = ny; DICOM row r is kray y index
 * r (so the file displays as kray's PNG does: y index 0 at the top). ImageOrientationPatient
 * 1\0\0\0\1\0 and patient coordinates equal kray's x, y, z in mm (both right-handed);
 * ImagePositionPatient is the centre of pixel (0, 0); PixelSpacing is dy\dx (row spacing first,
 * as DICOM orders it). A volume [x, y, nz] is written as nz files "<stem>_0000.dcm",
 * "<stem>_0001.dcm", ... (stem = path without its ".dcm") sharing study, series and frame of
 * reference UIDs, with InstanceNumber 1..nz and z = z0 + k * slice_spacing_mm.
 * Identifiers: Study/Series/SOP Instance/Frame of Reference UIDs come from DCMTK's
 * dcmGenerateUniqueIdentifier (DCMTK's site root); patient and study fields are placeholders
 * that the options can replace (no real patient data is ever invented).
 */
#ifndef KRAY_DICOM_H
#define KRAY_DICOM_H

#include "kray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kr_dicom_opts {
    double mu_water;               /* 1/mm; > 0; default 0.0193 */
    int values_are_hu;             /* 1: image values are HU already; default 0 */
    double pixel_spacing_mm[2];    /* dx, dy (> 0); default 1, 1 */
    double slice_thickness_mm;     /* > 0; default = dx */
    double slice_spacing_mm;       /* volumes: z step (> 0); default = slice_thickness_mm */
    double origin_mm[3];           /* centre of the image grid (x, y) and z of slice 0; default 0 */
    double window_center_hu;       /* display window; default 40 */
    double window_width_hu;        /* default 400 (0 = omit the window) */
    const char *patient_name;      /* default "Anonymous^kray" */
    const char *patient_id;        /* default "KRAY-PHANTOM" */
    const char *study_description; /* default "kray reconstruction" */
    const char *series_description; /* default "FBP" */
    int series_number;              /* default 1 */
} kr_dicom_opts;

void kr_dicom_opts_default(kr_dicom_opts *o);

/* Write image ([nx, ny] or [nx, ny, nz], f32 or f64, host) as CT Image Storage file(s).
 * opts may be NULL (defaults). */
kr_status kr_write_dicom(const char *path, const kr_array *image, const kr_dicom_opts *opts);

/* Read one single-frame DICOM image with uncompressed 8/16-bit greyscale pixels into a new f32
 * host array [Columns, Rows] holding RescaleSlope * stored + RescaleIntercept (HU for CT).
 * spacing_mm (may be NULL) receives PixelSpacing as dx, dy (0 when absent). */
kr_status kr_read_dicom(const char *path, kr_array **out, double spacing_mm[2]);

#ifdef __cplusplus
}
#endif
#endif
