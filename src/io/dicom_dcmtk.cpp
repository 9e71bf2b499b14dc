// kray's DCMTK plug-in (libkray_dcmtk.so): DICOM writer and reader on DCMTK (dcmdata), built
// only when CMake found DCMTK (KRAY_HAVE_DCMTK) and loaded by dicom.c when a call first needs
// it (core/optional.h), so that processes which never touch DICOM do not load DCMTK. It uses
// nothing of libkray: failures are a status and one sentence in err (dicom_internal.h).
#include "dcmtk/config/osconfig.h"
#include "dcmtk/dcmdata/dctk.h"
#include "dcmtk/dcmdata/dcuid.h"
#include "dcmtk/oflog/oflog.h"

#include "dicom_internal.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#define KRI_EXPORT extern "C" __attribute__((visibility("default")))

namespace
{

// Library code never prints: DCMTK's dcmdata logger would write parser complaints to stderr
// (our callers get them as kr_last_error() sentences instead).
void quiet_dcmtk()
{
    static std::once_flag once;
    std::call_once(once,
                   [] { OFLog::getLogger("dcmtk.dcmdata").setLogLevel(OFLogger::OFF_LOG_LEVEL); });
}

__attribute__((format(printf, 3, 4))) kr_status fail(char *err, kr_status s, const char *fmt,
                                                      ...)
{
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(err, KRI_DCMTK_ERR, fmt, ap);
    va_end(ap);
    return s;
}

kr_status cond_fail(char *err, const OFCondition &c, const char *path, const char *what)
{
    return fail(err, KR_ERR_IO, "%s: DCMTK could not %s: %s", path, what, c.text());
}

// Insert a string attribute; collects the first failure.
struct putter {
    DcmDataset *ds;
    OFCondition cond;
    const char *failed_tag = nullptr;
    void str(const DcmTagKey &k, const char *v, const char *name)
    {
        if (cond.bad()) return;
        cond = ds->putAndInsertString(k, v ? v : "");
        if (cond.bad()) failed_tag = name;
    }
    void u16(const DcmTagKey &k, Uint16 v, const char *name)
    {
        if (cond.bad()) return;
        cond = ds->putAndInsertUint16(k, v);
        if (cond.bad()) failed_tag = name;
    }
};

} // namespace

KRI_EXPORT kri_dcmtk_abi_fn kri_dcmtk_abi;
KRI_EXPORT kri_dcmtk_uid_fn kri_dcmtk_uid;
KRI_EXPORT kri_dcmtk_write_slice_fn kri_dcmtk_write_slice;
KRI_EXPORT kri_dcmtk_read_fn kri_dcmtk_read;

int kri_dcmtk_abi(void) { return KRI_DCMTK_ABI; }

kr_status kri_dcmtk_uid(char uid[KRI_UID_LEN], char *err)
{
    char buf[100];
    if (!dcmGenerateUniqueIdentifier(buf, SITE_INSTANCE_UID_ROOT) || std::strlen(buf) > 64)
        return fail(err, KR_ERR_INTERNAL, "DCMTK could not generate a DICOM UID");
    std::snprintf(uid, KRI_UID_LEN, "%s", buf);
    return KR_OK;
}

kr_status kri_dcmtk_write_slice(const char *path, const kri_dicom_slice *s,
                                const kr_dicom_opts *o, char *err)
{
    quiet_dcmtk();
    DcmFileFormat ff;
    DcmDataset *ds = ff.getDataset();
    putter p{ds, EC_Normal};
    char sop[KRI_UID_LEN], buf[160];
    kr_status st = kri_dcmtk_uid(sop, err);
    if (st != KR_OK) return st;

    // SOP common, patient, study, series, equipment, frame of reference
    p.str(DCM_SpecificCharacterSet, "ISO_IR 100", "SpecificCharacterSet");
    p.str(DCM_ImageType, "DERIVED\\SECONDARY\\AXIAL", "ImageType");
    p.str(DCM_SOPClassUID, UID_CTImageStorage, "SOPClassUID");
    p.str(DCM_SOPInstanceUID, sop, "SOPInstanceUID");
    p.str(DCM_StudyDate, s->date, "StudyDate");
    p.str(DCM_SeriesDate, s->date, "SeriesDate");
    p.str(DCM_ContentDate, s->date, "ContentDate");
    p.str(DCM_StudyTime, s->time, "StudyTime");
    p.str(DCM_SeriesTime, s->time, "SeriesTime");
    p.str(DCM_ContentTime, s->time, "ContentTime");
    p.str(DCM_AccessionNumber, "", "AccessionNumber");
    p.str(DCM_Modality, "CT", "Modality");
    p.str(DCM_Manufacturer, "kray", "Manufacturer");
    p.str(DCM_ReferringPhysicianName, "", "ReferringPhysicianName");
    p.str(DCM_StudyDescription, o->study_description ? o->study_description : "kray reconstruction",
          "StudyDescription");
    p.str(DCM_SeriesDescription, o->series_description ? o->series_description : "FBP",
          "SeriesDescription");
    p.str(DCM_ManufacturerModelName, "kray " KRAY_VERSION_STRING, "ManufacturerModelName");
    p.str(DCM_PatientName, o->patient_name ? o->patient_name : "Anonymous^kray", "PatientName");
    p.str(DCM_PatientID, o->patient_id ? o->patient_id : "KRAY-PHANTOM", "PatientID");
    p.str(DCM_PatientBirthDate, "", "PatientBirthDate");
    p.str(DCM_PatientSex, "", "PatientSex");
    p.str(DCM_KVP, "", "KVP");
    std::snprintf(buf, sizeof buf, "%.8g", s->thickness);
    p.str(DCM_SliceThickness, buf, "SliceThickness");
    p.str(DCM_StudyInstanceUID, s->study_uid, "StudyInstanceUID");
    p.str(DCM_SeriesInstanceUID, s->series_uid, "SeriesInstanceUID");
    p.str(DCM_StudyID, "1", "StudyID");
    std::snprintf(buf, sizeof buf, "%d", o->series_number);
    p.str(DCM_SeriesNumber, buf, "SeriesNumber");
    /* General Series, Type 2C: Laterality is required when the body part is paired and unknown
     * here (empty); PatientPosition is required for CT Image Storage (empty: not known) */
    p.str(DCM_Laterality, "", "Laterality");
    p.str(DCM_PatientPosition, "", "PatientPosition");
    p.str(DCM_AcquisitionNumber, "1", "AcquisitionNumber");
    std::snprintf(buf, sizeof buf, "%d", s->instance);
    p.str(DCM_InstanceNumber, buf, "InstanceNumber");
    std::snprintf(buf, sizeof buf, "%.8g\\%.8g\\%.8g", s->pos[0], s->pos[1], s->pos[2]);
    p.str(DCM_ImagePositionPatient, buf, "ImagePositionPatient");
    p.str(DCM_ImageOrientationPatient, "1\\0\\0\\0\\1\\0", "ImageOrientationPatient");
    p.str(DCM_FrameOfReferenceUID, s->frame_uid, "FrameOfReferenceUID");
    p.str(DCM_PositionReferenceIndicator, "", "PositionReferenceIndicator");
    std::snprintf(buf, sizeof buf, "%.8g", s->pos[2]);
    p.str(DCM_SliceLocation, buf, "SliceLocation");
    // image pixel
    p.u16(DCM_SamplesPerPixel, 1, "SamplesPerPixel");
    p.str(DCM_PhotometricInterpretation, "MONOCHROME2", "PhotometricInterpretation");
    p.u16(DCM_Rows, (Uint16)s->rows, "Rows");
    p.u16(DCM_Columns, (Uint16)s->cols, "Columns");
    std::snprintf(buf, sizeof buf, "%.8g\\%.8g", s->dy, s->dx); // row spacing \ column spacing
    p.str(DCM_PixelSpacing, buf, "PixelSpacing");
    p.u16(DCM_BitsAllocated, 16, "BitsAllocated");
    p.u16(DCM_BitsStored, 16, "BitsStored");
    p.u16(DCM_HighBit, 15, "HighBit");
    p.u16(DCM_PixelRepresentation, 1, "PixelRepresentation");
    // CT image: modality LUT
    p.str(DCM_RescaleIntercept, s->intercept, "RescaleIntercept");
    p.str(DCM_RescaleSlope, s->slope, "RescaleSlope");
    p.str(DCM_RescaleType, "HU", "RescaleType");
    if (o->window_width_hu > 0) {
        std::snprintf(buf, sizeof buf, "%.8g", o->window_center_hu);
        p.str(DCM_WindowCenter, buf, "WindowCenter");
        std::snprintf(buf, sizeof buf, "%.8g", o->window_width_hu);
        p.str(DCM_WindowWidth, buf, "WindowWidth");
    }
    if (p.cond.bad())
        return fail(err, KR_ERR_FORMAT, "%s: DCMTK refused the value of %s: %s", path,
                    p.failed_tag, p.cond.text());
    OFCondition c =
        ds->putAndInsertUint16Array(DCM_PixelData, reinterpret_cast<const Uint16 *>(s->pixels),
                                    (unsigned long)s->rows * (unsigned long)s->cols);
    if (c.bad()) return cond_fail(err, c, path, "store the pixel data");
    c = ff.saveFile(path, EXS_LittleEndianExplicit, EET_ExplicitLength, EGL_recalcGL, EPD_noChange,
                    0, 0, EWM_fileformat);
    if (c.bad()) return cond_fail(err, c, path, "write the file");
    return KR_OK;
}

kr_status kri_dcmtk_read(const char *path, float **pixels, int64_t dims[2], double spacing_mm[2],
                         char *err)
{
    *pixels = nullptr;
    quiet_dcmtk();
    DcmFileFormat ff;
    OFCondition c = ff.loadFile(path);
    if (c.bad()) {
        FILE *f = std::fopen(path, "rb");
        if (!f) return fail(err, KR_ERR_IO, "%s: cannot open the file", path);
        std::fclose(f);
        return fail(err, KR_ERR_FORMAT, "%s: not a readable DICOM file (%s)", path, c.text());
    }
    DcmDataset *ds = ff.getDataset();
    DcmXfer xfer(ds->getOriginalXfer());
    if (xfer.isEncapsulated())
        return fail(err, KR_ERR_NOT_SUPPORTED, "%s: compressed transfer syntax %s is not supported",
                    path, xfer.getXferName());
    Uint16 rows = 0, cols = 0, bits = 0, stored = 0, repr = 0, spp = 1;
    if (ds->findAndGetUint16(DCM_Rows, rows).bad() ||
        ds->findAndGetUint16(DCM_Columns, cols).bad() ||
        ds->findAndGetUint16(DCM_BitsAllocated, bits).bad())
        return fail(err, KR_ERR_FORMAT, "%s: Rows, Columns or BitsAllocated is missing", path);
    if (ds->findAndGetUint16(DCM_BitsStored, stored).bad()) stored = bits;
    (void)ds->findAndGetUint16(DCM_PixelRepresentation, repr);
    (void)ds->findAndGetUint16(DCM_SamplesPerPixel, spp);
    Sint32 frames = 1;
    (void)ds->findAndGetSint32(DCM_NumberOfFrames, frames);
    if (rows == 0 || cols == 0 || spp != 1 || frames > 1 || (bits != 8 && bits != 16) ||
        stored == 0 || stored > bits)
        return fail(err, KR_ERR_NOT_SUPPORTED,
                    "%s: %ux%u, %u samples, %d frames, %u/%u bits: only single-frame "
                    "greyscale 8/16-bit images are supported",
                    path, (unsigned)cols, (unsigned)rows, (unsigned)spp, (int)frames,
                    (unsigned)stored, (unsigned)bits);
    Float64 slope = 1.0, icpt = 0.0;
    if (ds->findAndGetFloat64(DCM_RescaleSlope, slope).bad()) slope = 1.0;
    if (ds->findAndGetFloat64(DCM_RescaleIntercept, icpt).bad()) icpt = 0.0;
    const unsigned long n = (unsigned long)rows * cols;
    const Uint16 *p16 = nullptr;
    const Uint8 *p8 = nullptr;
    unsigned long count = 0;
    c = bits == 16 ? ds->findAndGetUint16Array(DCM_PixelData, p16, &count)
                   : ds->findAndGetUint8Array(DCM_PixelData, p8, &count);
    if (c.bad() || count < n)
        return fail(err, KR_ERR_FORMAT, "%s: pixel data missing or shorter than %lux%lu values",
                    path, (unsigned long)cols, (unsigned long)rows);
    float *dst = (float *)std::malloc(n * sizeof(float));
    if (!dst) return fail(err, KR_ERR_OOM_HOST, "%s: out of host memory for the pixels", path);
    const unsigned sh = 32u - stored;
    for (unsigned long i = 0; i < n; i++) {
        uint32_t raw = bits == 16 ? p16[i] : p8[i];
        double v;
        if (repr)
            v = (double)((int32_t)(raw << sh) >> sh); // sign-extend BitsStored bits
        else
            v = (double)(raw & (stored >= 32 ? 0xffffffffu : ((1u << stored) - 1u)));
        dst[i] = (float)(slope * v + icpt);
    }
    if (spacing_mm) {
        Float64 dy = 0, dx = 0;
        if (ds->findAndGetFloat64(DCM_PixelSpacing, dy, 0).bad()) dy = 0;
        if (ds->findAndGetFloat64(DCM_PixelSpacing, dx, 1).bad()) dx = 0;
        spacing_mm[0] = dx;
        spacing_mm[1] = dy;
    }
    dims[0] = cols;
    dims[1] = rows;
    *pixels = dst;
    return KR_OK;
}
