/* Cartesian sequence builders: gradient echo and spin echo with hard pulses. */
#include "sim_internal.h"

#include <math.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

void kr_seq_cart_opts_default(kr_seq_cart_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->nx = o->ny = 64;
    o->fov_x_mm = o->fov_y_mm = 256.0;
    o->te_ms = 10.0;
    o->tr_ms = 100.0;
    o->flip_deg = 90.0;
    o->refocus_deg = 180.0;
    o->bw_hz_px = 400.0;
    o->rf_dur_s = 200e-6;
    o->raster_s = 10e-6;
    o->spoil = KR_SPOIL_RF_GRADIENT;
    o->spoil_cycles = 4.0;
    o->rf_spoil_deg = 117.0;
    o->ndummy = 0;
    kr_seq_limits_default(&o->limits);
}

double kri_ceil_r(double t, double r) { return ceil(t / r - 1e-9) * r; }

kri_trap kri_trap_min(double area, const kr_seq_limits *lim, double r)
{
    kri_trap t = {0, 0};
    double A = fabs(area), S = lim->smax_T_m_s * 1000.0, G = lim->gmax_mT_m;
    if (A <= 0) return t;
    double tri = sqrt(A * S);
    if (tri <= G) {
        t.rise = kri_ceil_r(tri / S, r);
    } else {
        t.rise = kri_ceil_r(G / S, r);
        t.flat = kri_ceil_r(A / G - t.rise, r);
        if (t.flat < 0) t.flat = 0;
    }
    return t;
}

typedef struct cart {
    const kr_seq_cart_opts *o;
    double dwell, gro, ro_rise, ro_dur, pre_area, pe_step, post_area;
    double rf_blk; /* RF block duration */
    kri_trap pre;      /* prephaser / phase encode timing */
    double pre_dur;
} cart;

kr_status kri_seq_check_common(int64_t nx, int64_t ny, double fov_x, double fov_y, double te,
                               double tr, double flip, double refocus, double bw, double rf_dur,
                               double raster)
{
    if (nx < 1 || ny < 1 || nx > 65536 || ny > 65536)
        return kri_fail(KR_ERR_INVALID_ARG, "matrix %lld x %lld (each 1 to 65536)",
                        (long long)nx, (long long)ny);
    if (!(fov_x > 0 && fov_y > 0 && isfinite(fov_x) && isfinite(fov_y)))
        return kri_fail(KR_ERR_INVALID_ARG, "field of view %g x %g mm must be > 0", fov_x, fov_y);
    if (!(te > 0 && tr > 0 && isfinite(te) && isfinite(tr)))
        return kri_fail(KR_ERR_INVALID_ARG, "TE %g ms and TR %g ms must be > 0", te, tr);
    if (!isfinite(flip) || !isfinite(refocus))
        return kri_fail(KR_ERR_INVALID_ARG, "flip angles must be finite");
    if (!(bw > 0 && isfinite(bw)) || !(rf_dur > 0 && isfinite(rf_dur)) ||
        !(raster > 0 && isfinite(raster)))
        return kri_fail(KR_ERR_INVALID_ARG,
                        "bandwidth %g Hz/px, RF duration %g s and raster %g s must be > 0", bw,
                        rf_dur, raster);
    return KR_OK;
}

static kr_status kri_seq_check_opts(const kr_seq_cart_opts *o)
{
    KRI_ARG_NOT_NULL(o);
    KRI_TRY(kri_seq_check_common(o->nx, o->ny, o->fov_x_mm, o->fov_y_mm, o->te_ms, o->tr_ms,
                                 o->flip_deg, o->refocus_deg, o->bw_hz_px, o->rf_dur_s,
                                 o->raster_s));
    if (!isfinite(o->rf_spoil_deg) || !isfinite(o->spoil_cycles))
        return kri_fail(KR_ERR_INVALID_ARG, "spoiling parameters must be finite");
    if ((int)o->spoil < 0 || o->spoil >= KR_SPOIL_COUNT || o->ndummy < 0)
        return kri_fail(KR_ERR_INVALID_ARG, "invalid spoiling mode %d or ndummy %d", (int)o->spoil,
                        o->ndummy);
    return KR_OK;
}

/* Common readout / prephaser design. */
static kr_status design(cart *c, const kr_seq_cart_opts *o)
{
    const double r = o->raster_s, gb = KR_GAMMA_BAR_HZ_PER_T;
    const kr_seq_limits *lim = &o->limits;
    c->o = o;
    c->dwell = 1.0 / (o->bw_hz_px * (double)o->nx);
    /* one k step (1 / FOV) per dwell: G = 1 / (gamma-bar FOV dwell), in mT/m */
    c->gro = 1e3 / (gb * o->fov_x_mm * 1e-3 * c->dwell);
    if (c->gro > lim->gmax_mT_m)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "the readout needs %g mT/m, beyond gmax %g mT/m: lower the bandwidth or "
                        "enlarge the FOV",
                        c->gro, lim->gmax_mT_m);
    c->ro_rise = kri_ceil_r(c->gro / (lim->smax_T_m_s * 1000.0), r);
    c->ro_dur = kri_ceil_r(2.0 * c->ro_rise + (double)o->nx * c->dwell, r);
    const double mid = (double)(o->nx / 2) + 0.5;
    c->pre_area = -c->gro * (0.5 * c->ro_rise + mid * c->dwell);
    c->post_area = c->gro * (0.5 * c->ro_rise + ((double)o->nx - mid) * c->dwell);
    c->pe_step = 1e3 / (gb * o->fov_y_mm * 1e-3); /* mT/m s per line */
    double pe_max =
        c->pe_step *
        (double)(o->ny / 2 > (o->ny - 1 - o->ny / 2) ? o->ny / 2 : o->ny - 1 - o->ny / 2);
    c->pre = kri_trap_min(fmax(fabs(c->pre_area), pe_max), lim, r);
    c->pre_dur = 2.0 * c->pre.rise + c->pre.flat;
    c->rf_blk = kri_ceil_r(o->rf_dur_s, r);
    return KR_OK;
}

static kr_status add_rf(kr_seq *s, double dur_blk, double rf_dur, double flip_deg, double phase)
{
    kr_seq_block b;
    kr_seq_block_init(&b);
    b.duration_s = dur_blk;
    b.rf.n = 1;
    b.rf.dt_s = rf_dur;
    b.rf.amp_uT = flip_deg / 360.0 / (KR_GAMMA_BAR_HZ_PER_T * rf_dur) * 1e6;
    b.rf.phase_rad = phase;
    return kr_seq_add_block(s, &b);
}

static kr_status add_delay(kr_seq *s, double dur, int spoil)
{
    if (dur <= KRI_SEQ_TIME_TOL) {
        if (!spoil) return KR_OK;
        dur = KRI_SEQ_TIME_TOL * 10; /* a spoil needs a block */
    }
    kr_seq_block b;
    kr_seq_block_init(&b);
    b.duration_s = dur;
    b.spoil = spoil;
    return kr_seq_add_block(s, &b);
}

/* Two-axis gradient block of the shared trapezoid timing t with areas ax, ay (mT/m s). */
static kr_status add_grad2(kr_seq *s, kri_trap t, double ax, double ay)
{
    double dur = 2.0 * t.rise + t.flat;
    if (dur <= 0) return KR_OK;
    kr_seq_block b;
    kr_seq_block_init(&b);
    b.duration_s = dur;
    double tx[4], gx[4], ty[4], gy[4];
    if (ax != 0) kr_seq_trap(&b.grad[0], tx, gx, 0, ax / (t.rise + t.flat), t.rise, t.flat, t.rise);
    if (ay != 0) kr_seq_trap(&b.grad[1], ty, gy, 0, ay / (t.rise + t.flat), t.rise, t.flat, t.rise);
    return kr_seq_add_block(s, &b);
}

static kr_status add_readout(kr_seq *s, const cart *c, int64_t line, double phase, int adc)
{
    const kr_seq_cart_opts *o = c->o;
    kr_seq_block b;
    kr_seq_block_init(&b);
    b.duration_s = c->ro_dur;
    double t[4], g[4];
    kr_seq_trap(&b.grad[0], t, g, 0, c->gro, c->ro_rise, (double)o->nx * c->dwell, c->ro_rise);
    if (adc) {
        b.adc.n = o->nx;
        b.adc.delay_s = c->ro_rise;
        b.adc.dwell_s = c->dwell;
        b.adc.phase_rad = phase;
        b.adc.line = (int32_t)line;
    }
    return kr_seq_add_block(s, &b);
}

static double pe_area(const cart *c, int64_t line)
{
    return c->pe_step * (double)(line - c->o->ny / 2);
}

kr_status kr_seq_gre(kr_seq **seq, const kr_seq_cart_opts *o)
{
    KRI_ARG_NOT_NULL(seq);
    *seq = NULL;
    KRI_TRY(kri_seq_check_opts(o));
    cart c;
    KRI_TRY(design(&c, o));
    const double te = o->te_ms * 1e-3, tr = o->tr_ms * 1e-3, r = o->raster_s;
    const double gb = KR_GAMMA_BAR_HZ_PER_T;
    /* spoiler / rewinder block */
    double sp_area = 0.0;
    if (o->spoil == KR_SPOIL_GRADIENT || o->spoil == KR_SPOIL_RF_GRADIENT)
        sp_area = o->spoil_cycles * 1e3 / (gb * (o->fov_x_mm / (double)o->nx) * 1e-3);
    else if (o->spoil == KR_SPOIL_NONE)
        sp_area = -c.post_area;
    double pe_max = c.pe_step * (double)(o->ny / 2);
    kri_trap post = kri_trap_min(fmax(fabs(sp_area), pe_max), &o->limits, r);
    double post_dur = 2.0 * post.rise + post.flat;
    const double te_min = 0.5 * o->rf_dur_s + (c.rf_blk - o->rf_dur_s) + c.pre_dur + c.ro_rise +
                          ((double)(o->nx / 2) + 0.5) * c.dwell;
    if (te < te_min - 1e-12)
        return kri_fail(KR_ERR_INVALID_ARG, "TE %g ms is shorter than the minimum %g ms", o->te_ms,
                        te_min * 1e3);
    const double fill_te = te - te_min;
    const double used = c.rf_blk + fill_te + c.pre_dur + c.ro_dur + post_dur;
    if (tr < used - 1e-12)
        return kri_fail(KR_ERR_INVALID_ARG, "TR %g ms is shorter than the minimum %g ms", o->tr_ms,
                        used * 1e3);
    kr_seq *s = NULL;
    KRI_TRY(kr_seq_create(&s, &o->limits));
    kr_status st = KR_OK;
    const int64_t ntr = o->ny + o->ndummy;
    for (int64_t j = 0; j < ntr && st == KR_OK; j++) {
        int adc = j >= o->ndummy;
        int64_t line = adc ? j - o->ndummy : o->ny / 2;
        double phase = 0.0;
        if (o->spoil == KR_SPOIL_RF_GRADIENT) {
            double deg = o->rf_spoil_deg * 0.5 * (double)j * (double)(j + 1);
            phase = fmod(deg, 360.0) * M_PI / 180.0;
        }
        double start = (double)j * tr;
        kr_seq_block b;
        kr_seq_block_init(&b);
        b.start_s = start;
        b.duration_s = c.rf_blk;
        b.rf.n = 1;
        b.rf.dt_s = o->rf_dur_s;
        b.rf.amp_uT = o->flip_deg / 360.0 / (gb * o->rf_dur_s) * 1e6;
        b.rf.phase_rad = phase;
        st = kr_seq_add_block(s, &b);
        if (st == KR_OK) st = add_delay(s, fill_te, 0);
        if (st == KR_OK) st = add_grad2(s, c.pre, c.pre_area, pe_area(&c, line));
        if (st == KR_OK) st = add_readout(s, &c, line, phase, adc);
        if (st == KR_OK && o->spoil != KR_SPOIL_IDEAL)
            st = add_grad2(s, post, sp_area, -pe_area(&c, line));
        if (st == KR_OK) {
            double end = start + c.rf_blk + fill_te + c.pre_dur + c.ro_dur +
                         (o->spoil != KR_SPOIL_IDEAL ? post_dur : 0.0);
            st = add_delay(s, start + tr - end, o->spoil == KR_SPOIL_IDEAL);
        }
    }
    if (st != KR_OK) {
        kr_seq_destroy(s);
        return kri_fail_prefix(st, "building the gradient echo");
    }
    *seq = s;
    return KR_OK;
}

kr_status kr_seq_se(kr_seq **seq, const kr_seq_cart_opts *o)
{
    KRI_ARG_NOT_NULL(seq);
    *seq = NULL;
    KRI_TRY(kri_seq_check_opts(o));
    cart c;
    KRI_TRY(design(&c, o));
    const double te = o->te_ms * 1e-3, tr = o->tr_ms * 1e-3;
    const double h = 0.5 * o->rf_dur_s; /* both pulses have the same duration */
    const double first = h + (c.rf_blk - o->rf_dur_s) + h;
    const double second =
        (c.rf_blk - h) + c.pre_dur + c.ro_rise + ((double)(o->nx / 2) + 0.5) * c.dwell;
    const double te_min = 2.0 * fmax(first, second);
    if (te < te_min - 1e-12)
        return kri_fail(KR_ERR_INVALID_ARG, "TE %g ms is shorter than the minimum %g ms", o->te_ms,
                        te_min * 1e3);
    const double d1 = 0.5 * te - first, d2 = 0.5 * te - second;
    const double used = 2.0 * c.rf_blk + d1 + d2 + c.pre_dur + c.ro_dur;
    if (tr < used - 1e-12)
        return kri_fail(KR_ERR_INVALID_ARG, "TR %g ms is shorter than the minimum %g ms", o->tr_ms,
                        used * 1e3);
    kr_seq *s = NULL;
    KRI_TRY(kr_seq_create(&s, &o->limits));
    kr_status st = KR_OK;
    const int64_t ntr = o->ny + o->ndummy;
    for (int64_t j = 0; j < ntr && st == KR_OK; j++) {
        int adc = j >= o->ndummy;
        int64_t line = adc ? j - o->ndummy : o->ny / 2;
        double start = (double)j * tr;
        kr_seq_block b;
        kr_seq_block_init(&b);
        b.start_s = start;
        b.duration_s = c.rf_blk;
        b.rf.n = 1;
        b.rf.dt_s = o->rf_dur_s;
        b.rf.amp_uT = o->flip_deg / 360.0 / (KR_GAMMA_BAR_HZ_PER_T * o->rf_dur_s) * 1e6;
        st = kr_seq_add_block(s, &b);
        if (st == KR_OK) st = add_delay(s, d1, 0);
        if (st == KR_OK) st = add_rf(s, c.rf_blk, o->rf_dur_s, o->refocus_deg, 0.5 * M_PI);
        if (st == KR_OK) st = add_delay(s, d2, 0);
        if (st == KR_OK) st = add_grad2(s, c.pre, c.pre_area, pe_area(&c, line));
        if (st == KR_OK) st = add_readout(s, &c, line, 0.0, adc);
        if (st == KR_OK) st = add_delay(s, start + tr - (start + used), 1);
    }
    if (st != KR_OK) {
        kr_seq_destroy(s);
        return kri_fail_prefix(st, "building the spin echo");
    }
    *seq = s;
    return KR_OK;
}
