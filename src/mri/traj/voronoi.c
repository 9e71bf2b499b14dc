/* Voronoi cell areas of 2-D k-space samples, one cell at a time.
 *
 * Method: the cell of point p is the clip region cut by the half-planes of the perpendicular
 * bisectors between p and its neighbours. Neighbours come from a uniform bin grid, visited in
 * square rings of bins around p's bin; a neighbour q farther than twice the largest distance
 * from p to a vertex of the current cell cannot cut it, and once a ring lies entirely beyond
 * that distance the cell is final. This needs no Delaunay triangulation, so the degenerate
 * configurations of MRI trajectories (Cartesian grids, collinear spokes, points on circles) are
 * harmless. Points within dup_tol of p (repeated samples, e.g. the centre of every radial
 * spoke) are not used as cutters: p's cell is computed as if they were absent and its area is
 * divided by 1 + their number, so exact duplicates share their cell equally.
 * Disk boundary: the cell starts as a regular 64-gon circumscribing the disk and its final
 * area is the exact area of (polygon intersect disk) (triangle-fan / circular-sector formula).
 * Box boundary: the cell starts as the box.
 */
#include "mri/mri_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define KRI_VOR_MAXV 1024 /* vertices of one cell polygon (cells have < 100 in practice) */
#define KRI_VOR_NGON 64

typedef struct kri_bins {
    double x0, y0, h;
    int64_t nx, ny;
    int64_t *start; /* nx * ny + 1 offsets into order */
    int64_t *order; /* point indices sorted by bin, ascending index within a bin */
} kri_bins;

static kr_status kri_bins_build(kri_bins *b, const double *x, const double *y, int64_t m,
                                double area)
{
    double xmin = x[0], xmax = x[0], ymin = y[0], ymax = y[0];
    for (int64_t i = 1; i < m; i++) {
        xmin = fmin(xmin, x[i]), xmax = fmax(xmax, x[i]);
        ymin = fmin(ymin, y[i]), ymax = fmax(ymax, y[i]);
    }
    double h = sqrt(area / (double)m) * 1.5;
    double w = fmax(xmax - xmin, ymax - ymin);
    if (!(h > 0.0)) h = w > 0.0 ? w : 1.0;
    if (h < w / 1024.0) h = w / 1024.0;
    b->h = h;
    b->x0 = xmin, b->y0 = ymin;
    b->nx = (int64_t)floor((xmax - xmin) / h) + 1;
    b->ny = (int64_t)floor((ymax - ymin) / h) + 1;
    int64_t nb = b->nx * b->ny;
    KRI_TRY(kri_alloc((void **)&b->start, (size_t)(nb + 1) * sizeof(int64_t), "Voronoi bins"));
    memset(b->start, 0, (size_t)(nb + 1) * sizeof(int64_t));
    kr_status s = kri_alloc((void **)&b->order, (size_t)m * sizeof(int64_t), "Voronoi bins");
    if (s != KR_OK) return s;
    for (int64_t i = 0; i < m; i++) {
        int64_t bx = (int64_t)floor((x[i] - b->x0) / h), by = (int64_t)floor((y[i] - b->y0) / h);
        if (bx >= b->nx) bx = b->nx - 1;
        if (by >= b->ny) by = b->ny - 1;
        b->start[by * b->nx + bx + 1]++;
    }
    for (int64_t i = 0; i < nb; i++) b->start[i + 1] += b->start[i];
    int64_t *fill = NULL;
    s = kri_alloc((void **)&fill, (size_t)nb * sizeof(int64_t), "Voronoi bins");
    if (s != KR_OK) return s;
    memcpy(fill, b->start, (size_t)nb * sizeof(int64_t));
    for (int64_t i = 0; i < m; i++) {
        int64_t bx = (int64_t)floor((x[i] - b->x0) / h), by = (int64_t)floor((y[i] - b->y0) / h);
        if (bx >= b->nx) bx = b->nx - 1;
        if (by >= b->ny) by = b->ny - 1;
        b->order[fill[by * b->nx + bx]++] = i;
    }
    kri_free(fill);
    return KR_OK;
}

typedef struct kri_poly {
    int n;
    double x[KRI_VOR_MAXV], y[KRI_VOR_MAXV];
} kri_poly;

/* Keep the part of `in` (coordinates relative to p) with v.d <= c; result in `out`. */
static int kri_poly_clip(const kri_poly *in, double dx, double dy, double c, kri_poly *out)
{
    out->n = 0;
    int n = in->n;
    for (int i = 0; i < n; i++) {
        int j = (i + 1) % n;
        double si = in->x[i] * dx + in->y[i] * dy - c, sj = in->x[j] * dx + in->y[j] * dy - c;
        if (si <= 0.0) {
            if (out->n >= KRI_VOR_MAXV) return -1;
            out->x[out->n] = in->x[i], out->y[out->n] = in->y[i], out->n++;
        }
        if ((si < 0.0 && sj > 0.0) || (si > 0.0 && sj < 0.0)) {
            double t = si / (si - sj);
            if (out->n >= KRI_VOR_MAXV) return -1;
            out->x[out->n] = in->x[i] + t * (in->x[j] - in->x[i]);
            out->y[out->n] = in->y[i] + t * (in->y[j] - in->y[i]);
            out->n++;
        }
    }
    return 0;
}

static double kri_poly_rmax2(const kri_poly *p)
{
    double r = 0.0;
    for (int i = 0; i < p->n; i++) r = fmax(r, p->x[i] * p->x[i] + p->y[i] * p->y[i]);
    return r;
}

static double kri_poly_area(const kri_poly *p, double ox, double oy)
{
    double a = 0.0;
    for (int i = 0; i < p->n; i++) {
        int j = (i + 1) % p->n;
        double xi = p->x[i] + ox, yi = p->y[i] + oy, xj = p->x[j] + ox, yj = p->y[j] + oy;
        a += xi * yj - xj * yi;
    }
    return 0.5 * a;
}

/* Signed area of (triangle 0, a, b) intersect (disk of radius R about 0). The segment a + t (b - a)
 * is inside the disk exactly for t in [t1, t2] (roots of |a + t d|^2 = R^2); each piece between
 * the breakpoints adds its triangle (inside) or circular sector (outside). Classifying a piece by
 * its parameter, not by the position of its midpoint, keeps tangent edges (those of the
 * circumscribed polygon) outside. */
static double kri_tri_disk(double ax, double ay, double bx, double by, double R)
{
    double dx = bx - ax, dy = by - ay;
    double A = dx * dx + dy * dy, B = ax * dx + ay * dy, C = ax * ax + ay * ay - R * R;
    double ts[4] = {0.0, 0.0, 0.0, 1.0}, t1 = 2.0, t2 = 1.0; /* empty inside interval */
    int nt = 1;
    if (A > 0.0) {
        double disc = B * B - A * C;
        if (disc > 0.0) {
            double sq = sqrt(disc);
            t1 = (-B - sq) / A, t2 = (-B + sq) / A;
            if (t1 > 0.0 && t1 < 1.0) ts[nt++] = t1;
            if (t2 > 0.0 && t2 < 1.0) ts[nt++] = t2;
        }
    } else if (C <= 0.0) {
        t1 = 0.0, t2 = 1.0; /* degenerate segment inside */
    }
    ts[nt++] = 1.0;
    double area = 0.0;
    for (int i = 0; i + 1 < nt; i++) {
        double px = ax + ts[i] * dx, py = ay + ts[i] * dy;
        double qx = ax + ts[i + 1] * dx, qy = ay + ts[i + 1] * dy;
        double tm = 0.5 * (ts[i] + ts[i + 1]);
        double cr = px * qy - py * qx;
        if (tm > t1 && tm < t2)
            area += 0.5 * cr;
        else
            area += 0.5 * R * R * atan2(cr, px * qx + py * qy);
    }
    return area;
}

static double kri_poly_disk_area(const kri_poly *p, double ox, double oy, double R)
{
    double a = 0.0;
    for (int i = 0; i < p->n; i++) {
        int j = (i + 1) % p->n;
        a += kri_tri_disk(p->x[i] + ox, p->y[i] + oy, p->x[j] + ox, p->y[j] + oy, R);
    }
    return a;
}

/* The starting polygon (relative to p). */
static void kri_poly_start(kri_poly *p, const kri_voronoi_cfg *cfg, double px, double py)
{
    if (cfg->disk) {
        double rc = cfg->radius / cos(KRI_PI / KRI_VOR_NGON);
        p->n = KRI_VOR_NGON;
        for (int i = 0; i < KRI_VOR_NGON; i++) {
            double t = 2.0 * KRI_PI * (double)i / KRI_VOR_NGON;
            p->x[i] = rc * cos(t) - px, p->y[i] = rc * sin(t) - py;
        }
    } else {
        p->n = 4;
        p->x[0] = cfg->lo[0] - px, p->y[0] = cfg->lo[1] - py;
        p->x[1] = cfg->hi[0] - px, p->y[1] = cfg->lo[1] - py;
        p->x[2] = cfg->hi[0] - px, p->y[2] = cfg->hi[1] - py;
        p->x[3] = cfg->lo[0] - px, p->y[3] = cfg->hi[1] - py;
    }
}

typedef struct kri_vor_scratch {
    kri_poly a, b;
} kri_vor_scratch;

/* Area of the cell of point i; *ndup = points within dup_tol (excluding i); *clip = 1 when the
 * boundary cuts the cell. Returns -1 on polygon overflow. */
static int kri_voronoi_cell(const kri_bins *bins, const double *x, const double *y, int64_t i,
                            const kri_voronoi_cfg *cfg, kri_vor_scratch *sc, double *area,
                            int64_t *ndup, int *clip)
{
    const double px = x[i], py = y[i], tol2 = cfg->dup_tol * cfg->dup_tol;
    kri_poly *cur = &sc->a, *nxt = &sc->b;
    kri_poly_start(cur, cfg, px, py);
    double rmax2 = kri_poly_rmax2(cur);
    int64_t bx = (int64_t)floor((px - bins->x0) / bins->h), by = (int64_t)floor((py - bins->y0) / bins->h);
    if (bx >= bins->nx) bx = bins->nx - 1;
    if (by >= bins->ny) by = bins->ny - 1;
    int64_t dups = 0;
    int64_t rmax_ring = bins->nx > bins->ny ? bins->nx : bins->ny;
    for (int64_t ring = 0; ring <= rmax_ring; ring++) {
        for (int64_t jy = by - ring; jy <= by + ring; jy++) {
            if (jy < 0 || jy >= bins->ny) continue;
            int64_t step = (jy == by - ring || jy == by + ring) ? 1 : 2 * ring;
            for (int64_t jx = bx - ring; jx <= bx + ring; jx += step > 0 ? step : 1) {
                if (jx < 0 || jx >= bins->nx) continue;
                int64_t b = jy * bins->nx + jx;
                for (int64_t t = bins->start[b]; t < bins->start[b + 1]; t++) {
                    int64_t q = bins->order[t];
                    if (q == i) continue;
                    double dx = x[q] - px, dy = y[q] - py, d2 = dx * dx + dy * dy;
                    if (d2 <= tol2) {
                        dups++;
                        continue;
                    }
                    if (d2 >= 4.0 * rmax2) continue;
                    if (kri_poly_clip(cur, dx, dy, 0.5 * d2, nxt) != 0) return -1;
                    kri_poly *tmp = cur;
                    cur = nxt, nxt = tmp;
                    rmax2 = kri_poly_rmax2(cur);
                    if (cur->n == 0) break;
                }
            }
        }
        /* unvisited points lie in bins beyond this ring, at least ring * h from p */
        double reach = (double)ring * bins->h;
        if (cur->n == 0 || reach * reach >= 4.0 * rmax2) break;
    }
    double a;
    int c = 0;
    if (cur->n == 0) {
        a = 0.0;
    } else if (cfg->disk) {
        a = kri_poly_disk_area(cur, px, py, cfg->radius);
        double r2 = cfg->radius * cfg->radius;
        for (int v = 0; v < cur->n && !c; v++) {
            double vx = cur->x[v] + px, vy = cur->y[v] + py;
            if (vx * vx + vy * vy > r2 * (1.0 - 1e-12)) c = 1;
        }
    } else {
        a = kri_poly_area(cur, px, py);
        double e = 1e-12 * (fabs(cfg->hi[0] - cfg->lo[0]) + fabs(cfg->hi[1] - cfg->lo[1]));
        for (int v = 0; v < cur->n && !c; v++) {
            double vx = cur->x[v] + px, vy = cur->y[v] + py;
            if (vx <= cfg->lo[0] + e || vx >= cfg->hi[0] - e || vy <= cfg->lo[1] + e ||
                vy >= cfg->hi[1] - e)
                c = 1;
        }
    }
    *area = fabs(a) / (double)(dups + 1);
    *ndup = dups;
    *clip = c;
    return 0;
}

kr_status kri_voronoi_areas(const double *x, const double *y, int64_t m, const kri_voronoi_cfg *cfg,
                            int nthreads, double *area, int64_t *duplicates, int64_t *clipped,
                            double *support)
{
    if (m < 1) return kri_fail(KR_ERR_DIM, "Voronoi: no points");
    double region;
    if (cfg->disk) {
        if (!(cfg->radius > 0.0) || !isfinite(cfg->radius))
            return kri_fail(KR_ERR_INVALID_ARG, "Voronoi: disk radius %g must be finite and > 0",
                            cfg->radius);
        region = KRI_PI * cfg->radius * cfg->radius;
    } else {
        if (!(cfg->hi[0] > cfg->lo[0]) || !(cfg->hi[1] > cfg->lo[1]))
            return kri_fail(KR_ERR_INVALID_ARG, "Voronoi: box [%g, %g] x [%g, %g] is empty",
                            cfg->lo[0], cfg->hi[0], cfg->lo[1], cfg->hi[1]);
        region = (cfg->hi[0] - cfg->lo[0]) * (cfg->hi[1] - cfg->lo[1]);
    }
    kri_bins bins;
    memset(&bins, 0, sizeof bins);
    kr_status s = kri_bins_build(&bins, x, y, m, region);
    int64_t ndup = 0, nclip = 0, bad = -1;
    if (s == KR_OK) {
        int nt = nthreads > 0 ? nthreads : 1;
        /* each thread owns one scratch; every area is written by exactly one iteration */
        kri_vor_scratch *scr = kri_calloc((size_t)nt, sizeof *scr);
        if (!scr) {
            s = kri_fail(KR_ERR_OOM_HOST, "Voronoi: out of memory for %d scratch polygons", nt);
        } else {
#pragma omp parallel for num_threads(nt) schedule(dynamic, 64) reduction(+ : ndup, nclip)
            for (int64_t i = 0; i < m; i++) {
                int tid = 0;
#ifdef _OPENMP
                tid = omp_get_thread_num();
#endif
                int64_t d = 0;
                int c = 0;
                if (kri_voronoi_cell(&bins, x, y, i, cfg, &scr[tid], &area[i], &d, &c) != 0) {
#pragma omp critical(kri_voronoi_bad)
                    if (bad < 0 || i < bad) bad = i;
                    area[i] = 0.0;
                }
                ndup += d > 0 ? 1 : 0;
                nclip += c;
            }
            kri_free(scr);
            if (bad >= 0)
                s = kri_fail(KR_ERR_INTERNAL, "Voronoi: cell of sample %lld has more than %d "
                             "vertices", (long long)bad, KRI_VOR_MAXV);
        }
    }
    kri_free(bins.start);
    kri_free(bins.order);
    if (duplicates) *duplicates = ndup;
    if (clipped) *clipped = nclip;
    if (support) *support = region;
    return s;
}
