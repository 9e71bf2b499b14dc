/* kray Goertzel: single-point, multi-point and full-image evaluation of the centred 2-D DFT of
 * Cartesian (or gridded) k-space by the second-order Goertzel recurrence.
 *
 * Transform (the same sign, origin and scale as the unweighted adjoint DrFT (kray/drft.h) and
 * as kr_fft with KR_FFT_BACKWARD | KR_FFT_CENTERED, i.e. the UNNORMALISED centred inverse DFT):
 *   out(x, y) = sum_{i, j} K[i, j] exp(+2 pi i ((i - nx/2) x / nx + (j - ny/2) y / ny))
 * with nx/2, ny/2 integer division and (x, y) a pixel position in kray's centred image
 * coordinates (pixel index minus n/2; the image of kr_fft has pixel (x, y) at index
 * (x + nx/2, y + ny/2)). Positions may be fractional; each coordinate must lie in
 * [-(n/2), n - 1 - n/2] (the span of the pixel centres), otherwise KR_ERR_INVALID_ARG names the
 * point. On integer positions the result equals kr_fft(BACKWARD | CENTERED) to rounding; divide
 * by nx ny for numpy's ifft scaling.
 *
 * Method: for each distinct x the row pass runs the recurrence s_i = a_i + 2 cos(theta) s_{i+1}
 * - s_{i+2} from i = nx - 1 down to 0 over every row (theta = 2 pi x / nx), giving
 * R_j = sum_i K[i, j] e^{i theta i} = s_0 - e^{-i theta} s_1; the column pass runs the same
 * recurrence over j on R for each point. Cost per point ~ nx ny + ny complex-by-real
 * multiply-adds (points sharing x share the row pass; the full image costs nx ny (nx + ny)).
 * The recurrence and the phase factors are computed in double precision whatever the element
 * type (the Goertzel recurrence loses about log10(n^2) digits near theta = 0 and pi; in double
 * the measured max error / max |ref| grows as n^2 eps: 1.5e-13 at 115^2, 1.1e-12 at 256^2,
 * 1.6e-11 at 1024^2 against a long-double direct sum; tests/test_goertzel.c),
 * and the result is rounded once to the output type.
 *
 * Arrays: kspace c64 or c128, contiguous, dims [nx, ny, batch...] (nx, ny >= 1); out the same
 * dtype, contiguous, dims [npts, batch...] (batch dims must agree as products); for
 * kr_goertzel2d_image the image has kspace's dims. Host arrays need a CPU context (or NULL:
 * OpenMP default; each output is summed by one thread in a fixed order, so results are
 * bit-identical for any thread count); device arrays need a CUDA context (double-precision
 * recurrence on the GPU; agrees with the CPU to rounding). xy is always a host pointer.
 * Statuses: INVALID_ARG (NULL, npts < 1, non-finite or out-of-range points, NaN/Inf k-space),
 * DTYPE, DIM, LOCATION, NO_DEVICE, CUDA, OOM_*.
 */
#ifndef KRAY_GOERTZEL_H
#define KRAY_GOERTZEL_H

#include "kray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

kr_status kr_goertzel2d(const kr_ctx *ctx, const kr_array *kspace, int64_t npts,
                        const double *xy, kr_array *out);
/* Every pixel: image [nx, ny, batch...] (same dims as kspace), image(x + nx/2, y + ny/2) =
 * out(x, y) above. */
kr_status kr_goertzel2d_image(const kr_ctx *ctx, const kr_array *kspace, kr_array *image);

#ifdef __cplusplus
}
#endif
#endif
