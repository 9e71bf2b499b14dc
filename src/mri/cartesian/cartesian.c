/* Cartesian undersampling (kray/cartesian.h): phase-encode line masks and zeroing the lines
 * not acquired. */
#include "kray/cartesian.h"

#include "core/internal.h"
#include "mri/cartesian/coilop_internal.h"

kr_status kr_cartesian_lines(uint8_t *lines, int64_t ny, int accel, int offset, int64_t nacs)
{
    KRI_ARG_NOT_NULL(lines);
    if (ny < 1)
        return kri_fail(KR_ERR_DIM, "kr_cartesian_lines: %lld phase-encode lines (must be >= 1)",
                        (long long)ny);
    if (accel < 1)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "kr_cartesian_lines: acceleration R = %d (must be >= 1)", accel);
    if (offset < 0 || offset >= accel)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "kr_cartesian_lines: offset %d is outside 0..%d for R = %d", offset,
                        accel - 1, accel);
    if (nacs < 0 || nacs > ny)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "kr_cartesian_lines: %lld calibration lines for %lld phase-encode lines",
                        (long long)nacs, (long long)ny);
    int64_t a0 = ny / 2 - nacs / 2;
    for (int64_t j = 0; j < ny; j++) {
        uint8_t f = 0;
        if ((j - offset) % accel == 0 && j >= offset) f |= KR_LINE_IMAGING;
        if (j >= a0 && j < a0 + nacs) f |= KR_LINE_CALIBRATION;
        lines[j] = f;
    }
    return KR_OK;
}

int64_t kr_cartesian_count(const uint8_t *lines, int64_t ny, unsigned which)
{
    if (!lines) return 0;
    int64_t n = 0;
    for (int64_t j = 0; j < ny; j++)
        if (lines[j] & which) n++;
    return n;
}

kr_status kr_cartesian_undersample(const kr_ctx *ctx, kr_array *kspace, const uint8_t *lines)
{
    const char *fn = "kr_cartesian_undersample";
    KRI_TRY(kri_check_operand(fn, "kspace", kspace, KR_C64, KRI_ANY_LOC));
    KRI_ARG_NOT_NULL(lines);
    KRI_TRY(kri_check_loc(ctx, kspace->loc, fn));
    int64_t nx = kspace->dims[0], ny = kspace->ndim > 1 ? kspace->dims[1] : 1;
    int64_t rest = kr_array_numel(kspace) / (nx * ny);
    const kri_coilop_backend *be;
    KRI_TRY(kri_backend_pick(&be, kspace->loc, &kri_coilop_cpu, &kri_coilop_cuda, fn));
    return be->undersample(ctx, nx, ny, rest, kspace->data, lines);
}
