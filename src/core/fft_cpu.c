/* The FFT on the host (core/fft_internal.h, kri_fft_cpu): the FFTW plan cache, the engine and
 * the centre shifts. Conventions are in include/kray/fft.h.
 *
 * Engine: for each transformed axis (ascending), the lines of that axis are cut into "units"
 * of `lanes` lines; the cut depends only on the shape. A unit is copied into a 64-byte aligned
 * per-thread scratch buffer (the ifftshift of KR_FFT_CENTERED is a rotated copy), transformed
 * in place there by one single-threaded FFTW plan (fftw_execute_dft), and copied back (fftshift
 * as a rotated copy; the unitary scale is applied in scratch on the last axis). Scratch layout:
 * lines of a contiguous axis (inner == 1) are stored one after the other (stride 1, dist n);
 * lines of a strided axis are interleaved (stride lanes, dist 1), so both copies move whole
 * runs of memory. Every line meets the same plan on equally aligned memory, so the output does
 * not depend on the thread count or on the arrays' alignment. */
#include "fft_internal.h"

#include <fftw3.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Target elements per unit (fits in L2 for c128) and the least lanes of a strided unit (one
 * 64-byte cache line of c64 per row). */
#define KRI_FFT_UNIT_ELEMS 4096
#define KRI_FFT_MIN_LANES 8
#define KRI_FFTW_CACHE_MAX 64

/* ---- FFTW plan cache ------------------------------------------------------------------------ */
/* Every FFTW plan kray makes is in-place, planned and executed on 64-byte aligned scratch, and
 * keyed by (dtype, n, howmany, stride, dist, sign). FFTW's planner is not thread-safe: every
 * fftw(f)_plan_* / destroy / cleanup call happens under kri_fftw_lock. fftw_execute_dft on a
 * shared plan is thread-safe. Entries in use (refs > 0) are never evicted. */
typedef struct kri_fftw_entry {
    struct kri_fftw_entry *next;
    kr_dtype dtype;
    int n, howmany, stride, dist, sign;
    int refs;
    uint64_t used; /* LRU tick */
    void *plan;    /* fftwf_plan (KR_C64) or fftw_plan (KR_C128) */
} kri_fftw_entry;

static pthread_mutex_t kri_fftw_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t kri_fftw_once = PTHREAD_ONCE_INIT;
static kri_fftw_entry *kri_fftw_cache;
static int kri_fftw_count;
static uint64_t kri_fftw_tick;
static int64_t kri_fftw_made; /* plans made, for the cache test */

static void kri_fftw_destroy_locked(kri_fftw_entry *e)
{
    if (e->dtype == KR_C64)
        fftwf_destroy_plan((fftwf_plan)e->plan);
    else
        fftw_destroy_plan((fftw_plan)e->plan);
    kri_free(e);
}

static void kri_cpu_fft_cache_clear(void)
{
    pthread_mutex_lock(&kri_fftw_lock);
    kri_fftw_entry **pp = &kri_fftw_cache;
    while (*pp) {
        kri_fftw_entry *e = *pp;
        if (e->refs == 0) {
            *pp = e->next;
            kri_fftw_destroy_locked(e);
            kri_fftw_count--;
        } else {
            pp = &e->next;
        }
    }
    if (kri_fftw_cache == NULL) { /* fftw_cleanup invalidates every plan: only when none left */
        fftw_cleanup();
        fftwf_cleanup();
    }
    pthread_mutex_unlock(&kri_fftw_lock);
}

static void kri_fftw_atexit(void) { kri_cpu_fft_cache_clear(); }
static void kri_fftw_register(void) { (void)atexit(kri_fftw_atexit); }

/* Find or make the in-place plan; `buf` (64-byte aligned, howmany * n elements) is only used
 * for planning (FFTW_ESTIMATE does not touch it). */
static kr_status kri_fftw_acquire(kri_fftw_entry **out, kr_dtype dtype, int n, int howmany,
                                  int stride, int dist, int sign, void *buf)
{
    pthread_once(&kri_fftw_once, kri_fftw_register);
    pthread_mutex_lock(&kri_fftw_lock);
    for (kri_fftw_entry *e = kri_fftw_cache; e; e = e->next)
        if (e->dtype == dtype && e->n == n && e->howmany == howmany && e->stride == stride &&
            e->dist == dist && e->sign == sign) {
            e->refs++;
            e->used = ++kri_fftw_tick;
            *out = e;
            pthread_mutex_unlock(&kri_fftw_lock);
            return KR_OK;
        }
    void *plan;
    if (dtype == KR_C64)
        plan = fftwf_plan_many_dft(1, &n, howmany, buf, NULL, stride, dist, buf, NULL, stride,
                                   dist, sign, FFTW_ESTIMATE);
    else
        plan = fftw_plan_many_dft(1, &n, howmany, buf, NULL, stride, dist, buf, NULL, stride, dist,
                                  sign, FFTW_ESTIMATE);
    if (!plan) {
        pthread_mutex_unlock(&kri_fftw_lock);
        return kri_fail(KR_ERR_FFT, "FFTW could not plan %d %s transforms of length %d", howmany,
                        kr_dtype_name(dtype), n);
    }
    kri_fftw_entry *e = kri_calloc(1, sizeof *e);
    if (!e) {
        if (dtype == KR_C64)
            fftwf_destroy_plan((fftwf_plan)plan);
        else
            fftw_destroy_plan((fftw_plan)plan);
        pthread_mutex_unlock(&kri_fftw_lock);
        return kri_fail(KR_ERR_OOM_HOST, "out of host memory caching an FFTW plan");
    }
    kri_fftw_made++;
    *e = (kri_fftw_entry){kri_fftw_cache, dtype, n, howmany, stride, dist, sign, 1,
                          ++kri_fftw_tick, plan};
    kri_fftw_cache = e;
    kri_fftw_count++;
    while (kri_fftw_count > KRI_FFTW_CACHE_MAX) { /* evict the least recently used idle plan */
        kri_fftw_entry **victim = NULL;
        for (kri_fftw_entry **pp = &kri_fftw_cache; *pp; pp = &(*pp)->next)
            if ((*pp)->refs == 0 && (!victim || (*pp)->used < (*victim)->used)) victim = pp;
        if (!victim) break; /* all in use: the cache may exceed its bound until plans die */
        kri_fftw_entry *v = *victim;
        *victim = v->next;
        kri_fftw_destroy_locked(v);
        kri_fftw_count--;
    }
    *out = e;
    pthread_mutex_unlock(&kri_fftw_lock);
    return KR_OK;
}

static void kri_fftw_release(kri_fftw_entry *e)
{
    if (!e) return;
    pthread_mutex_lock(&kri_fftw_lock);
    e->refs--;
    pthread_mutex_unlock(&kri_fftw_lock);
}

/* ---- single lines (fft_internal.h) ------------------------------------------------------------ */
struct kri_fft_line {
    kri_fftw_entry *fw;
};

kr_status kri_fft_line_create(kri_fft_line **out, kr_dtype dtype, int64_t n, int dir)
{
    *out = NULL;
    if ((dtype != KR_C64 && dtype != KR_C128) || n < 1 || n > INT32_MAX)
        return kri_fail(KR_ERR_INTERNAL, "kri_fft_line_create: %s lines of %lld",
                        kr_dtype_name(dtype), (long long)n);
    kri_fft_line *l = kri_calloc(1, sizeof *l);
    void *buf = kri_malloc((size_t)n * kr_dtype_size(dtype)); /* planning only (not touched) */
    kr_status s = l && buf ? KR_OK : kri_fail(KR_ERR_OOM_HOST, "out of host memory for an FFT");
    if (s == KR_OK)
        s = kri_fftw_acquire(&l->fw, dtype, (int)n, 1, 1, (int)n,
                             dir == KR_FFT_FORWARD ? FFTW_FORWARD : FFTW_BACKWARD, buf);
    kri_free(buf);
    if (s != KR_OK) {
        kri_free(l);
        return s;
    }
    *out = l;
    return KR_OK;
}

void kri_fft_line_execute(const kri_fft_line *l, void *line)
{
    if (l->fw->dtype == KR_C64)
        fftwf_execute_dft((fftwf_plan)l->fw->plan, (fftwf_complex *)line, (fftwf_complex *)line);
    else
        fftw_execute_dft((fftw_plan)l->fw->plan, (fftw_complex *)line, (fftw_complex *)line);
}

void kri_fft_line_destroy(kri_fft_line *l)
{
    if (!l) return;
    kri_fftw_release(l->fw);
    kri_free(l);
}

/* ---- plan ----------------------------------------------------------------------------------- */
typedef struct kri_fft_axis {
    int axis;
    int64_t n, inner, outer; /* length; products of the dims before / after the axis */
    int64_t lanes;           /* lines per unit */
    int64_t groups;          /* units per outer index (inner > 1) or in all (inner == 1) */
    int64_t units;
    kri_fftw_entry *fw;
} kri_fft_axis;

/* A host plan: the transform, its axes and the per-thread scratch (nslots slots of slot_bytes,
 * a multiple of 64). */
typedef struct kri_fft_host {
    kri_fft_desc d;
    size_t esize;
    int naxes;
    kri_fft_axis ax[KR_MAX_DIMS];
    int64_t max_units;
    int nslots;
    size_t slot_bytes;
    unsigned char *scratch;
} kri_fft_host;

static kr_status kri_fft_slots(kri_fft_host *p, int nslots)
{
    unsigned char *s = NULL;
    if (nslots < 1) nslots = 1;
    if (p->slot_bytes == 0) return KR_OK;
    s = kri_calloc((size_t)nslots, p->slot_bytes);
    if (!s)
        return kri_fail(KR_ERR_OOM_HOST, "out of host memory for %d FFT scratch buffers of %zu "
                        "bytes", nslots, p->slot_bytes);
    for (int t = 0; t < nslots; t++) {
        void *slot = s + (size_t)t * p->slot_bytes;
        int al = p->d.dtype == KR_C64 ? fftwf_alignment_of((float *)slot)
                                    : fftw_alignment_of((double *)slot);
        if (al != 0) {
            kri_free(s);
            return kri_fail(KR_ERR_INTERNAL, "FFT scratch buffer is not SIMD-aligned (offset %d)",
                            al);
        }
    }
    kri_free(p->scratch);
    p->scratch = s;
    p->nslots = nslots;
    return KR_OK;
}

static kr_status kri_host_axes(kri_fft_host *p, const kr_ctx *ctx)
{
    size_t max_elems = 0;
    for (int d = 0; d < p->d.ndim; d++) {
        if (!(p->d.axes & (1u << d))) continue;
        kri_fft_axis *a = &p->ax[p->naxes++];
        a->axis = d;
        a->n = p->d.dims[d];
        a->inner = 1;
        a->outer = 1;
        for (int e = 0; e < d; e++) a->inner *= p->d.dims[e];
        for (int e = d + 1; e < p->d.ndim; e++) a->outer *= p->d.dims[e];
        int64_t total = a->inner == 1 ? a->outer : a->inner;
        int64_t want = KRI_FFT_UNIT_ELEMS / a->n;
        if (a->inner > 1 && want < KRI_FFT_MIN_LANES) want = KRI_FFT_MIN_LANES;
        if (want < 1) want = 1;
        a->groups = (total + want - 1) / want;
        a->lanes = (total + a->groups - 1) / a->groups; /* balanced groups, little padding */
        a->units = a->inner == 1 ? a->groups : a->outer * a->groups;
        if (a->units > p->max_units) p->max_units = a->units;
        if ((size_t)(a->lanes * a->n) > max_elems) max_elems = (size_t)(a->lanes * a->n);
    }
    p->slot_bytes = (max_elems * p->esize + 63) / 64 * 64;
    int t = kri_threads(ctx);
    if (t > p->max_units) t = (int)p->max_units;
    KRI_TRY(kri_fft_slots(p, t));
    for (int k = 0; k < p->naxes; k++) {
        kri_fft_axis *a = &p->ax[k];
        int contiguous = a->inner == 1;
        KRI_TRY(kri_fftw_acquire(&a->fw, p->d.dtype, (int)a->n, (int)a->lanes,
                                 contiguous ? 1 : (int)a->lanes, contiguous ? (int)a->n : 1,
                                 p->d.dir == KR_FFT_FORWARD ? FFTW_FORWARD : FFTW_BACKWARD,
                                 p->scratch));
    }
    return KR_OK;
}

static void kri_cpu_fft_destroy(void *state)
{
    kri_fft_host *p = state;
    if (!p) return;
    for (int k = 0; k < p->naxes; k++) kri_fftw_release(p->ax[k].fw);
    kri_free(p->scratch);
    kri_free(p);
}

static kr_status kri_cpu_fft_create(void **state, const kr_ctx *ctx, const kri_fft_desc *d)
{
    *state = NULL;
    kri_fft_host *p = kri_calloc(1, sizeof *p);
    if (!p) return kri_fail(KR_ERR_OOM_HOST, "out of host memory creating an FFT plan");
    p->d = *d;
    p->esize = kr_dtype_size(d->dtype);
    kr_status s = kri_host_axes(p, ctx);
    if (s != KR_OK) {
        kri_cpu_fft_destroy(p);
        return s;
    }
    *state = p;
    return KR_OK;
}

/* ---- execution ------------------------------------------------------------------------------ */
static void kri_scale(void *buf, size_t nelem, kr_dtype dtype, double scale)
{
    if (dtype == KR_C64) {
        float *f = buf, s = (float)scale;
        for (size_t i = 0; i < 2 * nelem; i++) f[i] *= s;
    } else {
        double *f = buf;
        for (size_t i = 0; i < 2 * nelem; i++) f[i] *= scale;
    }
}

/* One unit: copy in (rotated by h = N/2 when centred), transform, scale, copy out. */
static void kri_unit(const kri_fft_host *p, const kri_fft_axis *a, int64_t u,
                     const unsigned char *src, unsigned char *dst, unsigned char *scr, int last)
{
    const size_t es = p->esize;
    const int64_t n = a->n, h = (p->d.flags & KR_FFT_CENTERED) ? n / 2 : 0;
    const size_t lo = (size_t)(n - h) * es, hi = (size_t)h * es;
    int64_t nl;
    if (a->inner == 1) {
        int64_t l0 = u * a->lanes;
        nl = a->outer - l0 < a->lanes ? a->outer - l0 : a->lanes;
        for (int64_t l = 0; l < nl; l++) {
            const unsigned char *s = src + (size_t)((l0 + l) * n) * es;
            unsigned char *c = scr + (size_t)(l * n) * es;
            memcpy(c, s + hi, lo); /* c[j] = s[(j + h) mod n] */
            memcpy(c + lo, s, hi);
        }
    } else {
        int64_t o = u / a->groups, i0 = (u % a->groups) * a->lanes;
        nl = a->inner - i0 < a->lanes ? a->inner - i0 : a->lanes;
        const unsigned char *s = src + (size_t)(o * n * a->inner + i0) * es;
        for (int64_t j = 0; j < n; j++)
            memcpy(scr + (size_t)(j * a->lanes) * es, s + (size_t)(((j + h) % n) * a->inner) * es,
                   (size_t)nl * es);
    }
    if (p->d.dtype == KR_C64)
        fftwf_execute_dft((fftwf_plan)a->fw->plan, (fftwf_complex *)scr, (fftwf_complex *)scr);
    else
        fftw_execute_dft((fftw_plan)a->fw->plan, (fftw_complex *)scr, (fftw_complex *)scr);
    if (last && p->d.scale != 1.0)
        kri_scale(scr, (size_t)(a->lanes * n), p->d.dtype, p->d.scale);
    if (a->inner == 1) {
        int64_t l0 = u * a->lanes;
        for (int64_t l = 0; l < nl; l++) {
            unsigned char *d = dst + (size_t)((l0 + l) * n) * es;
            const unsigned char *c = scr + (size_t)(l * n) * es;
            memcpy(d + hi, c, lo); /* d[(j + h) mod n] = c[j] */
            memcpy(d, c + lo, hi);
        }
    } else {
        int64_t o = u / a->groups, i0 = (u % a->groups) * a->lanes;
        unsigned char *d = dst + (size_t)(o * n * a->inner + i0) * es;
        for (int64_t j = 0; j < n; j++)
            memcpy(d + (size_t)(((j + h) % n) * a->inner) * es, scr + (size_t)(j * a->lanes) * es,
                   (size_t)nl * es);
    }
}

static kr_status kri_cpu_fft_execute(void *state, const kr_ctx *ctx, const void *in, void *out)
{
    kri_fft_host *p = state;
    const unsigned char *src0 = in;
    unsigned char *dst = out;
    int nt = kri_threads(ctx);
    if (nt > p->max_units) nt = (int)p->max_units;
    if (nt < 1) nt = 1;
    if (nt > p->nslots) KRI_TRY(kri_fft_slots(p, nt));
    for (int k = 0; k < p->naxes; k++) {
        const kri_fft_axis *a = &p->ax[k];
        const unsigned char *src = k == 0 ? src0 : dst;
        const int last = k == p->naxes - 1;
        const int64_t units = a->units;
        unsigned char *scratch = p->scratch;
        const size_t slot = p->slot_bytes;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && units > 1)
        for (int64_t u = 0; u < units; u++)
            kri_unit(p, a, u, src, dst, scratch + (size_t)omp_get_thread_num() * slot, last);
    }
    return KR_OK;
}

/* One transform: the plan's FFTW plans come from the cache, so repeated calls plan once. */
static kr_status kri_cpu_fft_run(const kr_ctx *ctx, const kri_fft_desc *d, const void *in,
                                 void *out)
{
    void *st = NULL;
    KRI_TRY(kri_cpu_fft_create(&st, ctx, d));
    kr_status s = kri_cpu_fft_execute(st, ctx, in, out);
    kri_cpu_fft_destroy(st);
    return s;
}

static int64_t kri_cpu_fft_plans_made(void)
{
    pthread_mutex_lock(&kri_fftw_lock);
    int64_t n = kri_fftw_made;
    pthread_mutex_unlock(&kri_fftw_lock);
    return n;
}

/* ---- centre shifts -------------------------------------------------------------------------- */
static void kri_swap_bytes(unsigned char *a, unsigned char *b, size_t len)
{
    unsigned char t[256];
    while (len) {
        size_t c = len < sizeof t ? len : sizeof t;
        memcpy(t, a, c);
        memcpy(a, b, c);
        memcpy(b, t, c);
        a += c, b += c, len -= c;
    }
}

/* Reverse rows [r0, r1) of `len` bytes each, rows `R` bytes apart. */
static void kri_reverse_rows(unsigned char *base, int64_t r0, int64_t r1, size_t R, size_t len)
{
    for (int64_t i = r0, k = r1 - 1; i < k; i++, k--)
        kri_swap_bytes(base + (size_t)i * R, base + (size_t)k * R, len);
}

/* out[(j + s) mod n] = in[j] along one axis: rows of R bytes (inner elements), `outer` blocks.
 * Parallel over (block, 64 KiB slice of a row); in place by three reversals. */
static void kri_rotate_axis(unsigned char *dst, const unsigned char *src, int64_t outer, int64_t n,
                            size_t R, int64_t s, int nt)
{
    const size_t chunk = (size_t)1 << 16;
    const int64_t nch = (int64_t)((R + chunk - 1) / chunk), tasks = outer * nch;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && tasks > 1)
    for (int64_t t = 0; t < tasks; t++) {
        size_t c0 = (size_t)(t % nch) * chunk, len = R - c0 < chunk ? R - c0 : chunk;
        size_t off = (size_t)(t / nch) * (size_t)n * R + c0;
        if (dst != src) {
            for (int64_t j = 0; j < n; j++)
                memcpy(dst + off + (size_t)((j + s) % n) * R, src + off + (size_t)j * R, len);
        } else {
            kri_reverse_rows(dst + off, 0, n, R, len);
            kri_reverse_rows(dst + off, 0, s, R, len);
            kri_reverse_rows(dst + off, s, n, R, len);
        }
    }
}

static kr_status kri_cpu_fft_shift(const kr_ctx *ctx, size_t es, int ndim, const int64_t *dims,
                                   unsigned ax, int inverse, const void *in, void *out)
{
    const unsigned char *src = in;
    unsigned char *dst = out;
    int nt = kri_threads(ctx);
    int64_t numel = 1, inner = 1;
    for (int d = 0; d < ndim; d++) numel *= dims[d];
    for (int d = 0; d < ndim; d++) {
        int64_t n = dims[d];
        if (ax & (1u << d)) {
            int64_t outer = numel / (inner * n);
            int64_t s = inverse ? n - n / 2 : n / 2;
            kri_rotate_axis(dst, src, outer, n, (size_t)inner * es, s, nt);
            src = dst; /* later axes in place */
        }
        inner *= n;
    }
    return KR_OK;
}

const kri_fft_backend kri_fft_cpu = {{"cpu", true},
                                     kri_cpu_fft_create,
                                     kri_cpu_fft_execute,
                                     kri_cpu_fft_destroy,
                                     kri_cpu_fft_run,
                                     kri_cpu_fft_cache_clear,
                                     kri_cpu_fft_plans_made,
                                     kri_cpu_fft_shift};
