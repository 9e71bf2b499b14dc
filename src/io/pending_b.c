/* Not yet implemented formats (deleted by the change that implements them). */
#include "io_internal.h"
kr_status kri_read_nifti(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *o)
{
    (void)out, (void)meta, (void)o;
    return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: reading nifti is not implemented yet", path);
}
kr_status kri_write_nifti(const char *path, const kr_array *a, const kr_io_opts *o)
{
    (void)a, (void)o;
    return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: writing nifti is not implemented yet", path);
}
kr_status kri_read_mha(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *o)
{
    (void)out, (void)meta, (void)o;
    return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: reading mha is not implemented yet", path);
}
kr_status kri_write_mha(const char *path, const kr_array *a, const kr_io_opts *o)
{
    (void)a, (void)o;
    return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: writing mha is not implemented yet", path);
}
kr_status kri_read_nrrd(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *o)
{
    (void)out, (void)meta, (void)o;
    return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: reading nrrd is not implemented yet", path);
}
kr_status kri_write_nrrd(const char *path, const kr_array *a, const kr_io_opts *o)
{
    (void)a, (void)o;
    return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: writing nrrd is not implemented yet", path);
}
kr_status kri_write_png(const char *path, const kr_array *a, const kr_io_opts *o)
{
    (void)a, (void)o;
    return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: writing png is not implemented yet", path);
}
