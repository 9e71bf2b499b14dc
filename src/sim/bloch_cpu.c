/* Bloch simulation on the CPU (kri_sim_cpu, sim_internal.h): OpenMP over fixed chunks of
 * isochromats. Each chunk runs the whole program on its isochromats (structure of arrays,
 * float), sums each ADC sample over the chunk in a fixed order in float, and adds the sum,
 * converted to 64-bit fixed point, into the shared accumulator. Integer addition is
 * associative, so the result does not depend on the number of threads or the order in which
 * chunks finish. */
#include "sim_internal.h"

#include <math.h>
#include <omp.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define CHUNK 256 /* isochromats per chunk: fixed, never derived from the thread count */

typedef struct chunk {
    int64_t i0;
    int n;
    float x[CHUNK], y[CHUNK], z[CHUNK], df[CHUNK], r1[CHUNK], r2[CHUNK], m0[CHUNK];
    float mx[CHUNK], my[CHUNK], mz[CHUNK];
    float e1[CHUNK], e2[CHUNK]; /* cache for dt_cache */
    float zr[CHUNK], zi[CHUNK], c[CHUNK], sx[CHUNK], sy[CHUNK];
    float dt_cache;
} chunk;

/* Reduced phase: c - nearest integer, in [-1/2, 1/2]. */
static inline float reduce_cycles(float c) { return c - rintf(c); }

static void relax_cache(chunk *ch, float dt)
{
    if (dt == ch->dt_cache) return;
    for (int i = 0; i < ch->n; i++) {
        ch->e1[i] = expf(-dt * ch->r1[i]);
        ch->e2[i] = expf(-dt * ch->r2[i]);
    }
    ch->dt_cache = dt;
}

static void relax(chunk *ch)
{
    for (int i = 0; i < ch->n; i++) {
        ch->mx[i] *= ch->e2[i];
        ch->my[i] *= ch->e2[i];
        ch->mz[i] = ch->mz[i] * ch->e1[i] + ch->m0[i] * (1.0f - ch->e1[i]);
    }
}

static void step_rf(chunk *ch, const kri_sim_step *s)
{
    relax_cache(ch, 0.5f * s->dt);
    relax(ch);
    const float twopi = (float)(2.0 * M_PI);
    for (int i = 0; i < ch->n; i++) {
        float cz = s->kx * ch->x[i] + s->ky * ch->y[i] + s->kz * ch->z[i] + ch->df[i] * s->dt;
        float wx = twopi * s->bx, wy = twopi * s->by, wz = twopi * cz;
        float th = sqrtf(wx * wx + wy * wy + wz * wz);
        if (!(th > 1e-30f)) continue;
        float h = 0.5f * th;
        float sh = sinf(h), chh = cosf(h);
        float s1 = 2.0f * sh * chh / th;       /* sin(th) / th */
        float s2 = 2.0f * sh * sh / (th * th); /* (1 - cos th) / th^2 */
        float ct = 1.0f - 2.0f * sh * sh;      /* cos th */
        float mx = ch->mx[i], my = ch->my[i], mz = ch->mz[i];
        float cx = wy * mz - wz * my, cy = wz * mx - wx * mz, cc = wx * my - wy * mx; /* w x M */
        float d = (wx * mx + wy * my + wz * mz) * s2;
        ch->mx[i] = mx * ct - cx * s1 + wx * d;
        ch->my[i] = my * ct - cy * s1 + wy * d;
        ch->mz[i] = mz * ct - cc * s1 + wz * d;
    }
    relax(ch);
}

static void step_precess(chunk *ch, const kri_sim_step *s)
{
    relax_cache(ch, s->dt);
    const float twopi = (float)(2.0 * M_PI);
    for (int i = 0; i < ch->n; i++) {
        float c = s->kx * ch->x[i] + s->ky * ch->y[i] + s->kz * ch->z[i] + ch->df[i] * s->dt;
        float a = twopi * reduce_cycles(c);
        float co = cosf(a), si = sinf(a);
        float mx = ch->mx[i], my = ch->my[i], e2 = ch->e2[i];
        ch->mx[i] = (mx * co + my * si) * e2;
        ch->my[i] = (my * co - mx * si) * e2;
        ch->mz[i] = ch->mz[i] * ch->e1[i] + ch->m0[i] * (1.0f - ch->e1[i]);
    }
}

/* A run of nrep equal steps with a sample after each. */
static void step_run(chunk *ch, const kri_sim_step *s, const kri_sim_obj *obj, int64_t ns,
                     double scale, uint64_t *acc)
{
    const float twopi = (float)(2.0 * M_PI);
    const int n = ch->n, nrep = s->nrep;
    for (int i = 0; i < n; i++) {
        float c = s->kx * ch->x[i] + s->ky * ch->y[i] + s->kz * ch->z[i] + ch->df[i] * s->dt;
        ch->c[i] = c;
        float a = twopi * reduce_cycles(c);
        float e2 = expf(-s->dt * ch->r2[i]);
        ch->zr[i] = e2 * cosf(a);
        ch->zi[i] = -e2 * sinf(a);
        ch->sx[i] = ch->mx[i];
        ch->sy[i] = ch->my[i];
    }
    for (int q = 0; q < nrep; q++) {
        const int64_t sample = (int64_t)s->adc + q;
        float *mxa = ch->mx, *mya = ch->my;
        const float *zra = ch->zr, *zia = ch->zi;
        if (!obj->sens) { /* one coil of sensitivity 1: rotate and sum in one pass */
            float sr = 0.0f, si = 0.0f;
#pragma omp simd reduction(+ : sr, si)
            for (int i = 0; i < n; i++) {
                float mx = mxa[i], my = mya[i];
                float nx = mx * zra[i] - my * zia[i], ny = mx * zia[i] + my * zra[i];
                mxa[i] = nx;
                mya[i] = ny;
                sr += nx;
                si += ny;
            }
            acc[2 * sample] += (uint64_t)kri_fix(sr, scale);
            acc[2 * sample + 1] += (uint64_t)kri_fix(si, scale);
            continue;
        }
#pragma omp simd
        for (int i = 0; i < n; i++) {
            float mx = mxa[i], my = mya[i];
            mxa[i] = mx * zra[i] - my * zia[i];
            mya[i] = mx * zia[i] + my * zra[i];
        }
        for (int c = 0; c < obj->ncoils; c++) {
            float sr = 0.0f, si = 0.0f;
            const float *w = obj->sens + 2 * ((int64_t)c * obj->n + ch->i0);
#pragma omp simd reduction(+ : sr, si)
            for (int i = 0; i < n; i++) {
                sr += w[2 * i] * mxa[i] - w[2 * i + 1] * mya[i];
                si += w[2 * i] * mya[i] + w[2 * i + 1] * mxa[i];
            }
            uint64_t *a = acc + 2 * (sample + ns * c);
            a[0] += (uint64_t)kri_fix(sr, scale);
            a[1] += (uint64_t)kri_fix(si, scale);
        }
    }
    /* End state from the closed form (no accumulated rounding of the repeated products). */
    for (int i = 0; i < n; i++) {
        double cn = (double)ch->c[i] * (double)nrep;
        cn -= rint(cn);
        double a = 2.0 * M_PI * cn;
        double tt = (double)s->dt * (double)nrep;
        float e2 = (float)exp(-tt * (double)ch->r2[i]);
        float e1 = (float)exp(-tt * (double)ch->r1[i]);
        float co = (float)cos(a), si = (float)sin(a);
        float mx = ch->sx[i], my = ch->sy[i];
        ch->mx[i] = (mx * co + my * si) * e2;
        ch->my[i] = (my * co - mx * si) * e2;
        ch->mz[i] = ch->mz[i] * e1 + ch->m0[i] * (1.0f - e1);
    }
}

static void run_chunk(chunk *ch, const kri_sim_prog *prog, const kri_sim_obj *obj, double scale,
                      uint64_t *acc)
{
    ch->dt_cache = -1.0f;
    for (int64_t k = 0; k < prog->nsteps; k++) {
        const kri_sim_step *s = &prog->steps[k];
        if (KRI_STEP_IS_SPOIL(*s)) {
            for (int i = 0; i < ch->n; i++)
                ch->mx[i] = ch->my[i] = 0.0f;
        } else if (s->bx != 0.0f || s->by != 0.0f) {
            step_rf(ch, s);
            if (s->adc >= 0) {
                kri_sim_step z = *s;
                z.dt = 0.0f;
                z.kx = z.ky = z.kz = 0.0f;
                z.nrep = 1;
                step_run(ch, &z, obj, prog->nsamples, scale, acc);
            }
        } else if (s->adc < 0) {
            step_precess(ch, s);
        } else {
            step_run(ch, s, obj, prog->nsamples, scale, acc);
        }
    }
}

/* acc_out receives 2 * nsamples * ncoils int64 (re, im), [sample, coil] sample fastest; ws is
 * scratch of nthreads * 2 * nsamples * ncoils int64 (nthreads from kri_cpu_bloch_threads).
 * Bit-identical for any nthreads >= 1. */
static kr_status kri_cpu_bloch(const kri_sim_prog *prog, const kri_sim_obj *obj, double scale,
                               int nthreads, int64_t *acc_out, int64_t *ws)
{
    const int64_t nacc = 2 * prog->nsamples * (int64_t)obj->ncoils;
    const int64_t nchunks = (obj->n + CHUNK - 1) / CHUNK;
    if (nthreads < 1) nthreads = 1;
    if (nthreads > nchunks) nthreads = (int)(nchunks > 0 ? nchunks : 1);
    uint64_t *wsu = (uint64_t *)ws; /* nthreads * nacc: one private accumulator per thread */
    if (nacc > 0) memset(wsu, 0, (size_t)(nacc * nthreads) * sizeof *wsu);
    int fail = 0;
#pragma omp parallel num_threads(nthreads)
    {
        chunk *ch = kri_malloc(sizeof *ch);
        if (!ch) {
#pragma omp atomic write
            fail = 1;
        }
        uint64_t *acc = wsu + (int64_t)omp_get_thread_num() * nacc;
#pragma omp for schedule(dynamic, 1)
        for (int64_t b = 0; b < nchunks; b++) {
            if (!ch) continue;
            const int64_t i0 = b * CHUNK;
            const int n = (int)((obj->n - i0) < CHUNK ? (obj->n - i0) : CHUNK);
            ch->i0 = i0;
            ch->n = n;
            for (int i = 0; i < n; i++) {
                int64_t j = i0 + i;
                ch->x[i] = obj->x[j];
                ch->y[i] = obj->y[j];
                ch->z[i] = obj->z[j];
                ch->df[i] = obj->df[j];
                ch->r1[i] = obj->r1[j];
                ch->r2[i] = obj->r2[j];
                ch->m0[i] = obj->m0[j];
                ch->mx[i] = obj->mx0[j];
                ch->my[i] = obj->my0[j];
                ch->mz[i] = obj->mz0[j];
            }
            run_chunk(ch, prog, obj, scale, acc);
            for (int i = 0; i < n; i++) {
                obj->mx[i0 + i] = ch->mx[i];
                obj->my[i0 + i] = ch->my[i];
                obj->mz[i0 + i] = ch->mz[i];
            }
        }
        kri_free(ch);
    }
    if (fail) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for Bloch simulation buffers");
    /* integer sums: the same whatever chunk went to whichever thread */
    uint64_t *out = (uint64_t *)acc_out;
#pragma omp parallel for schedule(static) num_threads(nthreads)
    for (int64_t j = 0; j < nacc; j++) {
        uint64_t v = 0;
        for (int t = 0; t < nthreads; t++)
            v += wsu[(int64_t)t * nacc + j];
        out[j] = v;
    }
    return KR_OK;
}

/* Threads kri_cpu_bloch will use (<= the number of chunks). */
static int kri_cpu_bloch_threads(const kri_sim_obj *obj, int nthreads)
{
    const int64_t nchunks = (obj->n + CHUNK - 1) / CHUNK;
    if (nthreads < 1) nthreads = 1;
    if (nthreads > nchunks) nthreads = (int)(nchunks > 0 ? nchunks : 1);
    return nthreads;
}

/* ---- the backend table (sim_internal.h) ---------------------------------------------------- */
typedef struct kri_cpu_sim {
    const kr_ctx *ctx;
    const kri_sim_prog *prog;
    kri_sim_obj obj; /* the plan's host arrays; the final state goes to obj.mx, my, mz */
    int64_t *acc;    /* 2 nsamples ncoils */
    int64_t *ws;     /* per-thread accumulators, ws_n int64 */
    int64_t ws_n;
} kri_cpu_sim;

static kr_status kri_cpu_sim_create(void **state, const kr_ctx *ctx, const kri_sim_prog *prog,
                                    const kr_sim_opts *opts)
{
    (void)opts;
    *state = NULL;
    kri_cpu_sim *s = kri_calloc(1, sizeof *s);
    if (!s) return kri_fail(KR_ERR_OOM_HOST, "out of host memory creating a simulation plan");
    s->ctx = ctx;
    s->prog = prog;
    *state = s;
    return KR_OK;
}

static kr_status kri_cpu_sim_set_object(void *state, const kri_sim_obj *obj)
{
    kri_cpu_sim *s = state;
    const int64_t nacc = 2 * s->prog->nsamples * (int64_t)obj->ncoils;
    int64_t *acc = NULL;
    if (nacc > 0)
        KRI_TRY(kri_alloc((void **)&acc, (size_t)nacc * sizeof(int64_t), "ADC accumulators"));
    kri_free(s->acc);
    s->acc = acc;
    s->obj = *obj;
    return KR_OK;
}

static kr_status kri_cpu_sim_execute(void *state, double scale, float *out, int64_t *acc)
{
    kri_cpu_sim *s = state;
    const kri_sim_prog *prog = s->prog;
    const int64_t ns = prog->nsamples, nc = s->obj.ncoils;
    const int nth = kri_cpu_bloch_threads(&s->obj, kri_threads(s->ctx));
    int64_t need = 0;
    if (!kri_mul_ok(2 * ns * nc, nth, &need))
        return kri_fail(KR_ERR_DIM, "simulation accumulators too large");
    if (need > s->ws_n) { /* grown once, reused by later executes */
        kri_free(s->ws);
        s->ws = NULL;
        s->ws_n = 0;
        KRI_TRY(kri_alloc((void **)&s->ws, (size_t)need * sizeof(int64_t),
                          "per-thread ADC accumulators"));
        s->ws_n = need;
    }
    KRI_TRY(kri_cpu_bloch(prog, &s->obj, scale, nth, s->acc, s->ws));
    if (acc && ns * nc > 0)
        memcpy(acc, s->acc, (size_t)(2 * ns * nc) * sizeof(int64_t));
    else if (out)
        kri_sim_finish(prog, s->acc, nc, scale, out);
    return KR_OK;
}

void kri_sim_finish(const kri_sim_prog *prog, const int64_t *acc, int64_t nc, double scale,
                    float *out)
{
    const int64_t ns = prog->nsamples;
    const double inv = 1.0 / scale;
    for (int64_t c = 0; c < nc; c++)
        for (int64_t k = 0; k < ns; k++) {
            int64_t j = k + ns * c;
            double re = (double)acc[2 * j] * inv, im = (double)acc[2 * j + 1] * inv;
            double cr = prog->rx[2 * k], ci = prog->rx[2 * k + 1];
            out[2 * j] = (float)(re * cr - im * ci);
            out[2 * j + 1] = (float)(re * ci + im * cr);
        }
}

static void kri_cpu_sim_destroy(void *state)
{
    kri_cpu_sim *s = state;
    if (!s) return;
    kri_free(s->acc);
    kri_free(s->ws);
    kri_free(s);
}

static kr_status kri_cpu_sim_get_state(const void *state, float *mx, float *my, float *mz)
{
    const kri_cpu_sim *s = state;
    const size_t bytes = (size_t)s->obj.n * sizeof(float);
    memcpy(mx, s->obj.mx, bytes);
    memcpy(my, s->obj.my, bytes);
    memcpy(mz, s->obj.mz, bytes);
    return KR_OK;
}

const kri_sim_backend kri_sim_cpu = {{"cpu", true},          kri_cpu_sim_create,
                                     kri_cpu_sim_set_object, kri_cpu_sim_execute,
                                     kri_cpu_sim_get_state,  kri_cpu_sim_destroy};
