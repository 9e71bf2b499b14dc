/* kt: kray's minimal test harness. A test program is
 *
 *   static void test_thing(void) { KT_CHECK(1 + 1 == 2); KT_STATUS(kr_foo(NULL), KR_ERR_INVALID_ARG); }
 *   int main(void) { KT_RUN(test_thing); return kt_finish(); }
 *
 * Failed checks print file:line and the expression and count against the running test; the
 * program exits 1 when any check failed, 0 otherwise, and 77 (ctest: skipped) via kt_skip().
 */
#ifndef KRAY_KT_H
#define KRAY_KT_H

#include "kray/kray.h"

#include <math.h>
#include <stdio.h>

extern int kt_failures;     /* failed checks in the running test */
extern const char *kt_current;

void kt_fail_at(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void kt_run(const char *name, void (*fn)(void));
int kt_finish(void);
/* Print "skipped: why" and exit 77. */
void kt_skip(const char *why);
/* Exit 77 unless a CUDA device is usable. */
void kt_require_gpu(void);
/* A fresh path under $KRAY_TMP (or /tmp) for `name`; static buffer rotated over 8 slots. */
const char *kt_tmp(const char *name);
/* Source tree root ($KRAY_SRC) or ".". */
const char *kt_src(void);
/* A host c64 or c128 array of `dims` filled with kri_rand_sym(seed, k) for scalar k (the
 * library's counter-based stream, uniform in [-1, 1)); part 0/1 of element i as a double. */
kr_array *kt_rand_complex(kr_dtype dtype, int ndim, const int64_t *dims, uint64_t seed);
/* A host array: zeros (seed 0) or kr_vec_random's values for seed. */
kr_array *kt_host_array(kr_dtype dtype, int ndim, const int64_t *dims, uint64_t seed);
/* 1 when a and b hold the same bytes (sizes included). */
int kt_same_bits(const kr_array *a, const kr_array *b);
/* max |a - b| / max |b| over the elements (kr_array_get_f64: the real part of complex ones). */
double kt_relmax(const kr_array *a, const kr_array *b);
double kt_cget(const kr_array *a, int64_t i, int part);
/* A quiet CPU context (checked: a failure counts against the running test and returns NULL). */
kr_ctx *kt_cpu_ctx(void);
/* A CPU context of 2 threads whose device list 0 .. nparts-1 divides work into nparts parts. */
kr_ctx *kt_cpu_parts(int nparts);
/* xorshift64 step of *z (nonzero), then a uniform double in [0, 1) from its top 53 bits. */
double kt_urand(uint64_t *z);

#define KT_RUN(fn) kt_run(#fn, fn)

#define KT_CHECK(cond)                                                                         \
    do {                                                                                       \
        if (!(cond)) kt_fail_at(__FILE__, __LINE__, "check failed: %s", #cond);                \
    } while (0)

#define KT_CHECK_MSG(cond, ...)                                                                \
    do {                                                                                       \
        if (!(cond)) kt_fail_at(__FILE__, __LINE__, __VA_ARGS__);                              \
    } while (0)

/* expr must return exactly `expected` (a kr_status). */
#define KT_STATUS(expr, expected)                                                              \
    do {                                                                                       \
        kr_status kt_s_ = (expr);                                                              \
        if (kt_s_ != (expected))                                                               \
            kt_fail_at(__FILE__, __LINE__, "%s returned %s (%s), expected %s", #expr,          \
                       kr_status_string(kt_s_), kr_last_error(), kr_status_string(expected));  \
    } while (0)

#define KT_OK(expr) KT_STATUS(expr, KR_OK)

/* |a - b| <= tol */
#define KT_NEAR(a, b, tol)                                                                     \
    do {                                                                                       \
        double kt_a_ = (double)(a), kt_b_ = (double)(b), kt_t_ = (double)(tol);                \
        if (!(fabs(kt_a_ - kt_b_) <= kt_t_))                                                   \
            kt_fail_at(__FILE__, __LINE__, "%s = %.17g, %s = %.17g, |diff| %.3g > %.3g", #a,   \
                       kt_a_, #b, kt_b_, fabs(kt_a_ - kt_b_), kt_t_);                          \
    } while (0)

/* value <= bound, printing both */
#define KT_LE(value, bound)                                                                    \
    do {                                                                                       \
        double kt_v_ = (double)(value), kt_b_ = (double)(bound);                               \
        if (!(kt_v_ <= kt_b_))                                                                 \
            kt_fail_at(__FILE__, __LINE__, "%s = %.6g exceeds %s = %.6g", #value, kt_v_,       \
                       #bound, kt_b_);                                                         \
    } while (0)

#define KT_GE(value, bound)                                                                    \
    do {                                                                                       \
        double kt_v_ = (double)(value), kt_b_ = (double)(bound);                               \
        if (!(kt_v_ >= kt_b_))                                                                 \
            kt_fail_at(__FILE__, __LINE__, "%s = %.6g is below %s = %.6g", #value, kt_v_,      \
                       #bound, kt_b_);                                                         \
    } while (0)

#endif
