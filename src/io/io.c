/* File I/O dispatcher: the format by the file extension, then the format file's entry point
 * (io_internal.h). The helpers the format files share are in iofile.c. */
#include "io_internal.h"
#include "kray/dicom.h"

#include <string.h>
#include <strings.h>

void kr_io_opts_default(kr_io_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->bits = 8;
    o->slice = -1;
    o->nrrd_gzip = 0;
}

static const char *kri_ext(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    return dot ? dot + 1 : "";
}

kr_format kr_format_from_path(const char *path)
{
    if (!path || !*path) return KR_FMT_UNKNOWN;
    if (kri_nifti_gz(path)) return KR_FMT_NIFTI;
    const char *e = kri_ext(path);
    static const struct {
        const char *ext;
        kr_format f;
    } map[] = {{"cfl", KR_FMT_CFL}, {"hdr", KR_FMT_CFL},   {"npy", KR_FMT_NPY},
               {"nii", KR_FMT_NIFTI}, {"mha", KR_FMT_MHA}, {"mhd", KR_FMT_MHA},
               {"nrrd", KR_FMT_NRRD}, {"png", KR_FMT_PNG}, {"pgm", KR_FMT_PGM},
               {"raw", KR_FMT_RAW},   {"dcm", KR_FMT_DICOM}, {"", KR_FMT_CFL}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcasecmp(e, map[i].ext) == 0) return map[i].f;
    return KR_FMT_UNKNOWN;
}

const char *kr_format_name(kr_format f)
{
    static const char *const names[] = {"unknown", "cfl",  "npy", "nifti", "metaimage",
                                        "nrrd",    "png",  "pgm", "raw", "dicom"};
    return (int)f >= 0 && f <= KR_FMT_DICOM ? names[f] : "unknown";
}

static kr_status kri_unknown_format(const char *path)
{
    return kri_fail(KR_ERR_INVALID_ARG,
                    "%s: unknown file extension '.%s' (expected .cfl, .npy, .nii, .nii.gz, .mha, "
                    ".mhd, .dcm, .nrrd, .png, .pgm or .raw)",
                    path, kri_ext(path));
}

kr_status kr_read(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *opts)
{
    KRI_ARG_NOT_NULL(path);
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    if (meta) memset(meta, 0, sizeof *meta);
    kr_io_opts def;
    if (!opts) {
        kr_io_opts_default(&def);
        opts = &def;
    }
    switch (kr_format_from_path(path)) {
    case KR_FMT_CFL: return kri_read_cfl(path, out, meta, opts);
    case KR_FMT_NPY: return kri_read_npy(path, out, meta, opts);
    case KR_FMT_NIFTI: return kri_read_nifti(path, out, meta, opts);
    case KR_FMT_MHA: return kri_read_mha(path, out, meta, opts);
    case KR_FMT_NRRD: return kri_read_nrrd(path, out, meta, opts);
    case KR_FMT_PGM: return kri_read_pgm(path, out, meta, opts);
    case KR_FMT_RAW: return kri_read_raw(path, out, meta, opts);
    case KR_FMT_DICOM: {
        double sp[2] = {0, 0};
        kr_status s = kr_read_dicom(path, out, sp);
        if (s == KR_OK && meta) {
            meta->spacing[0] = sp[0];
            meta->spacing[1] = sp[1];
        }
        return s;
    }
    case KR_FMT_PNG:
        return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: PNG is an output-only format in kray", path);
    default: return kri_unknown_format(path);
    }
}

kr_status kr_write(const char *path, const kr_array *a, const kr_io_opts *opts)
{
    KRI_ARG_NOT_NULL(path);
    KRI_TRY(kri_io_check_array(a, path));
    kr_io_opts def;
    if (!opts) {
        kr_io_opts_default(&def);
        opts = &def;
    }
    switch (kr_format_from_path(path)) {
    case KR_FMT_CFL: return kri_write_cfl(path, a, opts);
    case KR_FMT_NPY: return kri_write_npy(path, a, opts);
    case KR_FMT_NIFTI: return kri_write_nifti(path, a, opts);
    case KR_FMT_MHA: return kri_write_mha(path, a, opts);
    case KR_FMT_NRRD: return kri_write_nrrd(path, a, opts);
    case KR_FMT_PNG: return kri_write_png(path, a, opts);
    case KR_FMT_PGM: return kri_write_pgm(path, a, opts);
    case KR_FMT_RAW: return kri_write_raw(path, a, opts);
    case KR_FMT_DICOM: {
        kr_dicom_opts d;
        kr_dicom_opts_default(&d);
        const kr_meta *m = opts->meta;
        if (m && m->spacing[0] > 0 && m->spacing[1] > 0) {
            d.pixel_spacing_mm[0] = m->spacing[0];
            d.pixel_spacing_mm[1] = m->spacing[1];
            if (m->spacing[2] > 0) d.slice_thickness_mm = m->spacing[2];
        }
        return kr_write_dicom(path, a, &d);
    }
    default: return kri_unknown_format(path);
    }
}
