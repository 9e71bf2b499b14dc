/* Not yet implemented formats (deleted by the change that implements them). */
#include "io_internal.h"
kr_status kri_read_cfl(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *o)
{
    (void)out, (void)meta, (void)o;
    return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: reading cfl is not implemented yet", path);
}
kr_status kri_write_cfl(const char *path, const kr_array *a, const kr_io_opts *o)
{
    (void)a, (void)o;
    return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: writing cfl is not implemented yet", path);
}
kr_status kri_read_npy(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *o)
{
    (void)out, (void)meta, (void)o;
    return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: reading npy is not implemented yet", path);
}
kr_status kri_write_npy(const char *path, const kr_array *a, const kr_io_opts *o)
{
    (void)a, (void)o;
    return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: writing npy is not implemented yet", path);
}
kr_status kri_read_pgm(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *o)
{
    (void)out, (void)meta, (void)o;
    return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: reading pgm is not implemented yet", path);
}
kr_status kri_write_pgm(const char *path, const kr_array *a, const kr_io_opts *o)
{
    (void)a, (void)o;
    return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: writing pgm is not implemented yet", path);
}
kr_status kri_read_raw(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *o)
{
    (void)out, (void)meta, (void)o;
    return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: reading raw is not implemented yet", path);
}
kr_status kri_write_raw(const char *path, const kr_array *a, const kr_io_opts *o)
{
    (void)a, (void)o;
    return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: writing raw is not implemented yet", path);
}
