/* Helpers shared by the reg algorithms (fista.c, admm.c, pdhg.c). Private. */
#ifndef KRAY_REG_SOLVE_COMMON_H
#define KRAY_REG_SOLVE_COMMON_H

#include "internal.h"
#include "kray/reg.h"

/* Argument and option checks of kr_fista / kr_admm / kr_pdhg. */
kr_status kri_reg_check(const char *fn, const kr_ctx *ctx, const kr_linop *A, const kr_array *y,
                        const kr_array *x, const kr_reg_term *terms, int nterms,
                        const kr_reg_opts *o);
/* A work array shaped like A's domain (dom != 0) or codomain. */
kr_status kri_reg_work(kr_array **v, const kr_ctx *ctx, const kr_linop *A, int dom);
/* 1/2 ||r||^2 of a residual array. */
kr_status kri_half_sq(const kr_ctx *ctx, const kr_array *r, double *out);
/* "<fn>: the iterate became non-finite at iteration k" (KR_ERR_NOT_CONVERGED). */
kr_status kri_reg_nonfinite(const char *fn, int k);
/* ||a - b|| / ||a|| (0 when both vanish), through `tmp`. */
kr_status kri_rel_change(const kr_ctx *ctx, const kr_array *a, const kr_array *b, kr_array *tmp,
                         double *out);
/* The end of iteration k: objective F and relative change into the histories and info, one
 * progress unit; returns 1 (and marks info converged) when change <= tol. */
int kri_reg_record(const kr_reg_opts *o, kr_reg_info *info, kr_progress *prog, int k, double F,
                   double change);

#endif
