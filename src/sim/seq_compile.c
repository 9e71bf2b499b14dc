/* Sequence -> piecewise-constant steps for the Bloch kernels.
 *
 * Within a block the step boundaries are the block edges, the RF raster edges (each raster
 * sample split into equal parts no longer than rf_max_dt when asked) and the ADC sample times.
 * A step carries the exact gradient moment over its interval (so free precession is exact
 * for any gradient shape) and, during RF, the sample's B1 (with its phase and frequency
 * offset at the sample's centre). Consecutive steps without RF or ADC are summed into one
 * (z rotations and relaxation compose exactly); a step without RF or ADC followed by an ADC
 * step is summed into it; equal consecutive ADC steps become one run. Sums are made in double
 * and rounded to float once. */
#include "sim_internal.h"

#include <math.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct pend {
    double dt, k[3], bx, by;
    int64_t nrep, adc;
    int rf, valid;
} pend;

typedef struct builder {
    kri_sim_step *s;
    int64_t n, cap, nint;
    pend p;
} builder;

static kr_status push(builder *b, const pend *q)
{
    if (b->n == b->cap) {
        int64_t cap = b->cap ? 2 * b->cap : 1024;
        kri_sim_step *ns = kri_malloc((size_t)cap * sizeof *ns);
        if (!ns) return kri_fail(KR_ERR_OOM_HOST, "out of host memory compiling a sequence");
        if (b->n) memcpy(ns, b->s, (size_t)b->n * sizeof *ns);
        kri_free(b->s);
        b->s = ns;
        b->cap = cap;
    }
    if (q->nrep > INT32_MAX)
        return kri_fail(KR_ERR_INVALID_ARG, "a run of %lld equal steps is too long",
                        (long long)q->nrep);
    kri_sim_step *s = &b->s[b->n++];
    s->dt = (float)q->dt;
    s->kx = (float)q->k[0];
    s->ky = (float)q->k[1];
    s->kz = (float)q->k[2];
    s->bx = (float)q->bx;
    s->by = (float)q->by;
    s->nrep = (int32_t)q->nrep;
    s->adc = (int32_t)q->adc;
    b->nint += q->nrep;
    return KR_OK;
}

static kr_status flush(builder *b)
{
    if (!b->p.valid) return KR_OK;
    b->p.valid = 0;
    return push(b, &b->p);
}

static int near_rel(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)) + 1e-300;
}

/* Add one interval (nrep 1). */
static kr_status add(builder *b, double dt, const double k[3], double bx, double by, int rf,
                     int64_t adc)
{
    pend *p = &b->p;
    if (p->valid && !p->rf && !rf) {
        if (p->adc < 0 && p->nrep == 1) { /* sum into one step (exact composition) */
            p->dt += dt;
            for (int a = 0; a < 3; a++)
                p->k[a] += k[a];
            p->adc = adc;
            return KR_OK;
        }
        if (p->adc >= 0 && adc == p->adc + p->nrep && near_rel(dt, p->dt)) {
            double kmax = fmax(fmax(fabs(p->k[0]), fabs(p->k[1])), fabs(p->k[2]));
            int same = 1;
            for (int a = 0; a < 3; a++)
                if (fabs(k[a] - p->k[a]) > 1e-9 * kmax + 1e-300) same = 0;
            if (same) {
                p->nrep++;
                return KR_OK;
            }
        }
    }
    KRI_TRY(flush(b));
    p->dt = dt;
    for (int a = 0; a < 3; a++)
        p->k[a] = k[a];
    p->bx = bx;
    p->by = by;
    p->rf = rf;
    p->adc = adc;
    p->nrep = 1;
    p->valid = 1;
    return KR_OK;
}

static kr_status add_spoil(builder *b)
{
    KRI_TRY(flush(b));
    pend q;
    memset(&q, 0, sizeof q);
    q.adc = -1;
    q.nrep = 0;
    return push(b, &q);
}

/* gamma-bar * (mT/m * s) -> cycles per mm */
static const double K_SCALE = KR_GAMMA_BAR_HZ_PER_T * 1e-6;
/* gamma-bar * (uT * s) -> cycles */
static const double B_SCALE = KR_GAMMA_BAR_HZ_PER_T * 1e-6;

static kr_status compile_block(builder *bld, const kri_seq_block *b, double rf_max_dt)
{
    const double tol = KRI_SEQ_TIME_TOL;
    int64_t nsub = 1;
    if (b->rf_n > 0 && rf_max_dt > 0 && b->rf_dt > rf_max_dt) {
        double q = ceil(b->rf_dt / rf_max_dt - 1e-9);
        if (q > 1e6)
            return kri_fail(KR_ERR_INVALID_ARG,
                            "rf_max_dt %g s would split each RF sample into more than 1e6 parts",
                            rf_max_dt);
        nsub = (int64_t)q;
    }
    const int64_t nedge = b->rf_n > 0 ? b->rf_n * nsub + 1 : 0;
    const double sub_dt = b->rf_n > 0 ? b->rf_dt / (double)nsub : 0.0;
    int64_t je = 0, ka = 0;
    double t = 0.0;
    for (;;) {
        /* next boundary */
        double te = je < nedge ? b->rf_delay + (double)je * sub_dt : INFINITY;
        double ta = ka < b->adc.n ? b->adc.delay_s + ((double)ka + 0.5) * b->adc.dwell_s : INFINITY;
        double tn = fmin(fmin(te, ta), b->dur);
        int is_adc = ta <= tn + tol;
        if (te <= tn + tol) je++;
        if (is_adc) ka++;
        double dt = tn - t;
        if (dt > tol) {
            double k[3];
            for (int a = 0; a < 3; a++)
                k[a] = kri_seq_grad_area(b, a, t, tn) * K_SCALE;
            double bx = 0, by = 0;
            int rf = 0;
            double tm = 0.5 * (t + tn);
            if (b->rf_n > 0 && tm > b->rf_delay && tm < b->rf_delay + (double)b->rf_n * b->rf_dt) {
                int64_t j = (int64_t)floor((tm - b->rf_delay) / b->rf_dt);
                if (j < 0) j = 0;
                if (j >= b->rf_n) j = b->rf_n - 1;
                double re = b->rf_b1[2 * j], im = b->rf_b1[2 * j + 1];
                double ph = b->rf_phase + 2.0 * M_PI * b->rf_freq * ((double)j + 0.5) * b->rf_dt;
                double c = cos(ph), s = sin(ph);
                bx = (re * c - im * s) * B_SCALE * dt;
                by = (re * s + im * c) * B_SCALE * dt;
                rf = (bx != 0.0 || by != 0.0);
            }
            KRI_TRY(add(bld, dt, k, bx, by, rf, is_adc ? b->adc_first + ka - 1 : -1));
        } else if (is_adc) {
            /* a sample at (almost) the same instant as the previous boundary */
            if (bld->p.valid && bld->p.adc < 0 && bld->p.nrep == 1) {
                bld->p.adc = b->adc_first + ka - 1;
            } else {
                double z[3] = {0, 0, 0};
                KRI_TRY(add(bld, 0.0, z, 0, 0, 0, b->adc_first + ka - 1));
            }
        }
        t = fmax(t, tn);
        if (tn >= b->dur - tol) break;
    }
    if (ka != b->adc.n)
        return kri_fail(KR_ERR_INTERNAL, "compiling a block: %lld of %lld ADC samples placed",
                        (long long)ka, (long long)b->adc.n);
    if (b->spoil) KRI_TRY(add_spoil(bld));
    return KR_OK;
}

kr_status kri_sim_compile(const kr_seq *seq, double rf_max_dt, kri_sim_prog *prog)
{
    KRI_ARG_NOT_NULL(seq);
    KRI_ARG_NOT_NULL(prog);
    memset(prog, 0, sizeof *prog);
    KRI_TRY(kr_seq_check(seq));
    if (!(isfinite(rf_max_dt) && rf_max_dt >= 0))
        return kri_fail(KR_ERR_INVALID_ARG, "rf_max_dt_s %g must be finite and >= 0", rf_max_dt);
    builder bld;
    memset(&bld, 0, sizeof bld);
    kr_status st = KR_OK;
    double tprev = 0.0;
    for (int64_t i = 0; i < seq->n && st == KR_OK; i++) {
        const kri_seq_block *b = &seq->b[i];
        if (b->start > tprev + KRI_SEQ_TIME_TOL) { /* gap: free precession, no gradient */
            double z[3] = {0, 0, 0};
            st = add(&bld, b->start - tprev, z, 0, 0, 0, -1);
        }
        if (st == KR_OK) st = compile_block(&bld, b, rf_max_dt);
        tprev = b->start + b->dur;
    }
    if (st == KR_OK) st = flush(&bld);
    if (st == KR_OK && bld.n == 0) st = kri_fail(KR_ERR_INVALID_ARG, "the sequence is empty");
    float *rx = NULL;
    if (st == KR_OK && seq->nsamples > 0)
        st = kri_alloc((void **)&rx, (size_t)seq->nsamples * 2 * sizeof(float), "receiver phases");
    if (st != KR_OK) {
        kri_free(bld.s);
        return st;
    }
    for (int64_t i = 0; i < seq->n; i++) {
        const kri_seq_block *b = &seq->b[i];
        for (int64_t k = 0; k < b->adc.n; k++) {
            double ph =
                b->adc.phase_rad + 2.0 * M_PI * b->adc.freq_hz * ((double)k + 0.5) * b->adc.dwell_s;
            rx[2 * (b->adc_first + k)] = (float)cos(ph);
            rx[2 * (b->adc_first + k) + 1] = (float)-sin(ph);
        }
    }
    prog->steps = bld.s;
    prog->nsteps = bld.n;
    prog->nintervals = bld.nint;
    prog->nsamples = seq->nsamples;
    prog->rx = rx;
    return KR_OK;
}

void kri_sim_prog_free(kri_sim_prog *prog)
{
    if (!prog) return;
    kri_free(prog->steps);
    kri_free(prog->rx);
    memset(prog, 0, sizeof *prog);
}
