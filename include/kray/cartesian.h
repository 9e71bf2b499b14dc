/* kray Cartesian undersampling: phase-encode line masks and zeroing the lines not acquired.
 *
 * AXES. Cartesian k-space is [kx, ky, ...] (kx = readout, fastest). Phase encoding is axis 1
 * (ky): undersampling keeps or drops whole readout lines of axis 1. Line index j of an axis of
 * ny samples holds the frequency j - floor(ny/2) cycles per FOV (the centred grid of coils.h).
 *
 * Statuses: KR_ERR_INVALID_ARG (NULL, bad option), KR_ERR_DTYPE (k-space not c64), KR_ERR_DIM,
 * KR_ERR_LOCATION (k-space at a location the ctx cannot reach), KR_ERR_NOT_SUPPORTED
 * (non-contiguous k-space).
 */
#ifndef KRAY_CARTESIAN_H
#define KRAY_CARTESIAN_H

#include "kray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase-encode line mask, lines[j] for j = 0 .. ny - 1 (index in the centred k-space array):
 *   bit 0 (KR_LINE_IMAGING)     (j - offset) mod accel == 0: the regular undersampled lattice;
 *   bit 1 (KR_LINE_CALIBRATION) j in the nacs central lines [floor(ny/2) - floor(nacs/2),
 *                               floor(ny/2) - floor(nacs/2) + nacs) (autocalibration, ACS).
 * A line is acquired when lines[j] != 0. accel >= 1 (any integer, need not divide ny);
 * 0 <= offset < accel (offset = index of the first lattice line, as ISMRMRD's
 * kspace_encode_step_1 counts lines); 0 <= nacs <= ny. */
enum { KR_LINE_IMAGING = 1, KR_LINE_CALIBRATION = 2 };
kr_status kr_cartesian_lines(uint8_t *lines, int64_t ny, int accel, int offset, int64_t nacs);
/* Zero, in place, every line j of axis 1 with lines[j] == 0 (c64 [nx, ny, ...], host or
 * device; lines is a host array of ny flags). */
kr_status kr_cartesian_undersample(const kr_ctx *ctx, kr_array *kspace, const uint8_t *lines);
/* Number of lines with lines[j] & which (which = KR_LINE_IMAGING, KR_LINE_CALIBRATION or
 * both); 0 for NULL. */
int64_t kr_cartesian_count(const uint8_t *lines, int64_t ny, unsigned which);

#ifdef __cplusplus
}
#endif
#endif
