/* Bloch simulator plans: compile once, set the object, execute; the work is the backend table's
 * of the context (sim_internal.h): bloch_cpu.c or bloch_cuda.cu. */
#include "sim_internal.h"

#include <math.h>
#include <string.h>

struct kr_sim_plan {
    const kr_ctx *ctx;
    kr_loc loc; /* where k-space goes: the context's location */
    kr_sim_opts opts;
    kri_sim_prog prog;
    const kri_sim_backend *be;
    void *state; /* the backend's */
    kri_simm *multi; /* a context of several devices: the parts (bloch_multi.c; be is NULL) */
    /* object (host copy, structure of arrays) */
    int64_t n;
    int ncoils;
    float *buf;  /* one allocation: x y z df r1 r2 m0 mx0 my0 mz0 mx my mz (13 n floats) */
    float *sens; /* 2 n ncoils floats or NULL */
    double scale;
    int have_state;
};

void kr_sim_opts_default(kr_sim_opts *o)
{
    if (!o) return;
    o->fast_math = 1;
    o->rf_max_dt_s = 0.0;
    o->iso_per_thread = 0;
}

kr_status kr_sim_plan_create(kr_sim_plan **plan, const kr_ctx *ctx, const kr_seq *seq,
                             const kr_sim_opts *opts)
{
    kr_sim_opts o;
    kr_sim_opts_default(&o);
    if (opts) o = *opts;
    KRI_ARG_NOT_NULL(plan);
    *plan = NULL;
    KRI_ARG_NOT_NULL(ctx);
    KRI_ARG_NOT_NULL(seq);
    if (o.iso_per_thread != 0 && o.iso_per_thread != 1 && o.iso_per_thread != 2 &&
        o.iso_per_thread != 4)
        return kri_fail(KR_ERR_INVALID_ARG, "iso_per_thread = %d (0, 1, 2 or 4)", o.iso_per_thread);
    kr_sim_plan *p = kri_calloc(1, sizeof *p);
    if (!p) return kri_fail(KR_ERR_OOM_HOST, "out of host memory creating a simulation plan");
    p->ctx = ctx;
    p->loc = kri_ctx_loc(ctx);
    p->opts = o;
    kr_status st = kri_sim_compile(seq, o.rf_max_dt_s, &p->prog);
    if (st == KR_OK && kr_ctx_ndevices(ctx) > 1) {
        st = kri_simm_create(&p->multi, ctx, &p->prog, &o);
    } else {
        if (st == KR_OK)
            st = kri_backend_pick(&p->be, p->loc, &kri_sim_cpu, &kri_sim_cuda,
                                  "Bloch simulation");
        if (st == KR_OK) st = p->be->create(&p->state, ctx, &p->prog, &o);
    }
    if (st != KR_OK) {
        kr_sim_plan_destroy(p);
        return st;
    }
    kr_log(ctx, KR_LOG_DEBUG, "sim: %lld steps, %lld intervals, %lld ADC samples",
           (long long)p->prog.nsteps, (long long)p->prog.nintervals, (long long)p->prog.nsamples);
    *plan = p;
    return KR_OK;
}

void kr_sim_plan_destroy(kr_sim_plan *plan)
{
    if (!plan) return;
    if (plan->be) plan->be->destroy(plan->state);
    kri_simm_destroy(plan->multi);
    kri_sim_prog_free(&plan->prog);
    kri_free(plan->buf);
    kri_free(plan->sens);
    kri_free(plan);
}

static kr_status check_iso(const kr_iso *iso)
{
    KRI_ARG_NOT_NULL(iso);
    if (iso->n < 1)
        return kri_fail(KR_ERR_INVALID_ARG, "the object has %lld isochromats", (long long)iso->n);
    if (!iso->x_mm || !iso->y_mm || !iso->z_mm || !iso->df_hz || !iso->t1_ms || !iso->t2_ms ||
        !iso->m0 || !iso->mx || !iso->my || !iso->mz)
        return kri_fail(KR_ERR_INVALID_ARG, "the object has a NULL field array");
    for (int64_t i = 0; i < iso->n; i++) {
        float m0 = iso->m0[i];
        if (!(isfinite(m0) && m0 >= 0))
            return kri_fail(KR_ERR_INVALID_ARG, "isochromat %lld has m0 = %g (must be >= 0)",
                            (long long)i, (double)m0);
        if (!isfinite(iso->x_mm[i]) || !isfinite(iso->y_mm[i]) || !isfinite(iso->z_mm[i]) ||
            !isfinite(iso->df_hz[i]) || !isfinite(iso->mx[i]) || !isfinite(iso->my[i]) ||
            !isfinite(iso->mz[i]))
            return kri_fail(KR_ERR_INVALID_ARG,
                            "isochromat %lld has a non-finite position, off-resonance or "
                            "magnetisation",
                            (long long)i);
        if (m0 > 0) {
            float t1 = iso->t1_ms[i], t2 = iso->t2_ms[i];
            if (!(isfinite(t1) && t1 > 0) || !(isfinite(t2) && t2 > 0))
                return kri_fail(KR_ERR_INVALID_ARG,
                                "isochromat %lld has T1 = %g ms, T2 = %g ms (both must be finite "
                                "and > 0 where m0 > 0)",
                                (long long)i, (double)t1, (double)t2);
        }
    }
    return KR_OK;
}

kr_status kr_sim_set_object(kr_sim_plan *plan, const kr_iso *iso, const kr_array *sens)
{
    KRI_ARG_NOT_NULL(plan);
    KRI_TRY(check_iso(iso));
    const int64_t n = iso->n;
    int ncoils = 1;
    if (sens) {
        KRI_TRY(kri_check_operand("kr_sim_set_object", "the coil sensitivities", sens, KR_C64,
                                  KR_HOST));
        int64_t ne = kr_array_numel(sens);
        if (sens->dims[0] != n || ne % n != 0 || ne / n < 1 || ne / n > 65536)
            return kri_fail(KR_ERR_DIM,
                            "coil sensitivities have %lld values with first dim %lld; expected "
                            "[%lld, ncoils] for %lld isochromats",
                            (long long)ne, (long long)sens->dims[0], (long long)n, (long long)n);
        ncoils = (int)(ne / n);
        const float *w = sens->data;
        for (int64_t j = 0; j < 2 * ne; j++)
            if (!isfinite(w[j]))
                return kri_fail(KR_ERR_INVALID_ARG, "coil sensitivity value %lld is not finite",
                                (long long)(j / 2));
    }
    int64_t nbuf = 0, nacc = 0;
    if (!kri_mul_ok(n, 13, &nbuf) || !kri_mul_ok(2 * plan->prog.nsamples, ncoils, &nacc))
        return kri_fail(KR_ERR_DIM, "simulation problem too large");
    float *buf = NULL, *sv = NULL;
    KRI_TRY(kri_alloc((void **)&buf, (size_t)n * 13 * sizeof(float), "isochromat buffers"));
    kr_status st = KR_OK;
    if (sens)
        st = kri_alloc((void **)&sv, (size_t)n * (size_t)ncoils * 2 * sizeof(float),
                       "coil sensitivities");
    if (st != KR_OK) {
        kri_free(buf);
        kri_free(sv);
        return st;
    }
    float *x = buf, *y = buf + n, *z = buf + 2 * n, *df = buf + 3 * n, *r1 = buf + 4 * n,
          *r2 = buf + 5 * n, *m0 = buf + 6 * n, *mx0 = buf + 7 * n, *my0 = buf + 8 * n,
          *mz0 = buf + 9 * n;
    double bound = 0.0;
    for (int64_t i = 0; i < n; i++) {
        x[i] = iso->x_mm[i];
        y[i] = iso->y_mm[i];
        z[i] = iso->z_mm[i];
        df[i] = iso->df_hz[i];
        m0[i] = iso->m0[i];
        mx0[i] = iso->mx[i];
        my0[i] = iso->my[i];
        mz0[i] = iso->mz[i];
        /* rates in 1/s; inert isochromats (m0 = 0) relax with any rate, take 1/s */
        r1[i] = iso->m0[i] > 0 ? (float)(1000.0 / (double)iso->t1_ms[i]) : 1.0f;
        r2[i] = iso->m0[i] > 0 ? (float)(1000.0 / (double)iso->t2_ms[i]) : 1.0f;
        double mag = fmax((double)m0[i], sqrt((double)mx0[i] * mx0[i] + (double)my0[i] * my0[i] +
                                              (double)mz0[i] * mz0[i]));
        double wmax = 1.0;
        if (sens) {
            const float *w = sens->data;
            wmax = 0.0;
            for (int c = 0; c < ncoils; c++) {
                int64_t j = i + n * (int64_t)c;
                wmax = fmax(wmax, hypot(w[2 * j], w[2 * j + 1]));
            }
        }
        bound += mag * wmax;
    }
    if (sens) memcpy(sv, sens->data, (size_t)n * (size_t)ncoils * 2 * sizeof(float));
    /* scale: a power of two with 64x headroom below 2^62 for the largest possible sum */
    double scale = 1.0;
    if (bound > 0) {
        int e;
        frexp(bound * 64.0, &e);
        scale = ldexp(1.0, 62 - e);
    }
    kri_sim_obj o = {n,   ncoils, x,   y,   z,   df, r1, r2, m0, mx0, my0, mz0, /* initial */
                     buf + 10 * n, buf + 11 * n, buf + 12 * n, /* final state (CPU) */
                     sv};
    st = plan->multi ? kri_simm_set_object(plan->multi, &o) : plan->be->set_object(plan->state, &o);
    if (st != KR_OK) {
        kri_free(buf);
        kri_free(sv);
        return st;
    }
    kri_free(plan->buf);
    kri_free(plan->sens);
    plan->buf = buf;
    plan->sens = sv;
    plan->n = n;
    plan->ncoils = ncoils;
    plan->scale = scale;
    plan->have_state = 0;
    return KR_OK;
}

/* Run the simulation; out (2 ns nc floats at the plan's location) may be NULL when ns == 0. */
static kr_status sim_exec(kr_sim_plan *plan, float *out)
{
    if (plan->multi)
        KRI_TRY(kri_simm_execute(plan->multi, &plan->prog, plan->scale, plan->loc, plan->ctx, out));
    else
        KRI_TRY(plan->be->execute(plan->state, plan->scale, out, NULL));
    plan->have_state = 1;
    return KR_OK;
}

kr_status kr_sim_execute(kr_sim_plan *plan, kr_array *kspace)
{
    KRI_ARG_NOT_NULL(plan);
    if (!plan->buf)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_sim_execute: no object (call kr_sim_set_object)");
    const int64_t ns = plan->prog.nsamples, nc = plan->ncoils;
    if (ns == 0 && !kspace) return sim_exec(plan, NULL); /* no ADC: only the final state */
    KRI_TRY(kri_check_operand("kr_sim_execute", "the k-space output", kspace, KR_C64, plan->loc));
    if (kr_array_numel(kspace) != ns * nc)
        return kri_fail(KR_ERR_DIM,
                        "k-space output has %lld values; the simulation gives %lld samples x "
                        "%lld coils",
                        (long long)kr_array_numel(kspace), (long long)ns, (long long)nc);
    return sim_exec(plan, kspace->data);
}

kr_status kr_sim_get_state(const kr_sim_plan *plan, kr_iso *iso)
{
    KRI_ARG_NOT_NULL(plan);
    KRI_ARG_NOT_NULL(iso);
    if (!plan->have_state)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_sim_get_state: nothing was executed yet");
    if (iso->n != plan->n || !iso->mx || !iso->my || !iso->mz)
        return kri_fail(KR_ERR_DIM, "the object has %lld isochromats, the plan %lld",
                        (long long)iso->n, (long long)plan->n);
    if (plan->multi) return kri_simm_get_state(plan->multi, iso->mx, iso->my, iso->mz);
    return plan->be->get_state(plan->state, iso->mx, iso->my, iso->mz);
}

kr_status kr_sim_get_info(const kr_sim_plan *plan, kr_sim_info *info)
{
    KRI_ARG_NOT_NULL(plan);
    KRI_ARG_NOT_NULL(info);
    info->nsteps = plan->prog.nsteps;
    info->nintervals = plan->prog.nintervals;
    info->nsamples = plan->prog.nsamples;
    info->niso = plan->n;
    info->ncoils = plan->buf ? plan->ncoils : 0;
    info->iso_steps = (double)plan->n * (double)plan->prog.nintervals;
    return KR_OK;
}

kr_status kr_sim(const kr_ctx *ctx, const kr_seq *seq, const kr_iso *iso, const kr_array *sens,
                     kr_array **kspace)
{
    KRI_ARG_NOT_NULL(kspace);
    *kspace = NULL;
    kr_sim_plan *plan = NULL;
    KRI_TRY(kr_sim_plan_create(&plan, ctx, seq, NULL));
    kr_status st = kr_sim_set_object(plan, iso, sens);
    kr_array *out = NULL;
    if (st == KR_OK) {
        int64_t dims[2] = {plan->prog.nsamples > 0 ? plan->prog.nsamples : 1, plan->ncoils};
        if (plan->prog.nsamples == 0)
            st = kri_fail(KR_ERR_INVALID_ARG, "the sequence has no ADC samples");
        else
            st = kr_array_create(&out, KR_C64, 2, dims, plan->loc, ctx);
    }
    if (st == KR_OK) st = kr_sim_execute(plan, out);
    kr_sim_plan_destroy(plan);
    if (st != KR_OK) {
        kr_array_destroy(out);
        return st;
    }
    *kspace = out;
    return KR_OK;
}
