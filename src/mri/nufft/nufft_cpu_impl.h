/* CPU NUFFT body, included by nufft_cpu_bodies.h with KRI_T = float (c64 plans) and with
 * KRI_T = double (c128 plans), KRI_V / KRI_VL its 32-byte vector and lanes; KRI_F(name) appends
 * the type and instruction-set suffix. Not a public header.
 *
 * Complex arrays are interleaved (re, im) KRI_T pairs. The grid is n[0] x n[1] x n[2], axis 0
 * fastest. Points are visited in the plan's sorted (tile) order; point i's footprint (first cell
 * l0, wrapped into [0, n_d), and offset s) is computed from its coordinates kxyz[i nd + d]. */

/* Coordinate d of sorted point i. */
static inline KRI_ALWAYS_INLINE double KRI_F(kcoord)(const kr_nufft_plan *p, int64_t i, int d)
{
    return p->kf32 ? (double)((const float *)p->kxyz)[i * p->ndim + d]
                   : ((const double *)p->kxyz)[i * p->ndim + d];
}

/* Footprint of coordinate k along one dim (r = n / N, hw = w / 2; nufft_internal.h's
 * arithmetic): returns l0 and sets *s. */
static inline KRI_ALWAYS_INLINE int64_t KRI_F(foot)(double k, double r, double hw, int64_t n,
                                                   KRI_T *s)
{
    double u = k * r;
    double a = u - hw, c = ceil(a);
    int64_t l = (int64_t)c;
    if (l < 0) l += n;
    if (l >= n) l -= n;
    *s = (KRI_T)(c - a);
    return l;
}

/* The first W kernel values of a point with offset s, in whole vectors (lanes >= w are 0: the
 * coefficients there are 0); W is a compile-time constant in the specialised callers. */
static inline KRI_ALWAYS_INLINE void KRI_F(kvals)(const KRI_T *restrict coef, int degree,
                                                  KRI_T s, KRI_T *restrict v, const int W)
{
    const int NV = (W + KRI_VL - 1) / KRI_VL;
    KRI_T z = (KRI_T)2 * s - (KRI_T)1;
    KRI_V acc[KRI_NUFFT_MAX_W];
    for (int j = 0; j < NV; j++) acc[j] = *(const KRI_V *)(coef + degree * KRI_NUFFT_MAX_W + j * KRI_VL);
    for (int d = degree - 1; d >= 0; d--)
        for (int j = 0; j < NV; j++)
            acc[j] = acc[j] * z + *(const KRI_V *)(coef + d * KRI_NUFFT_MAX_W + j * KRI_VL);
    for (int j = 0; j < NV; j++) *(KRI_V *)(v + j * KRI_VL) = acc[j];
}

/* Bounds of tile t: cells [lo[d], hi[d]) of the grid, along each dim. */
static inline void KRI_F(tile_box)(const kr_nufft_plan *p, int64_t t, int64_t *lo, int64_t *hi)
{
    int64_t r = t;
    for (int d = 0; d < 3; d++) {
        int64_t nt = p->ntile[d], td = r % nt;
        r /= nt;
        lo[d] = p->n[d] * td / nt;
        hi[d] = p->n[d] * (td + 1) / nt;
    }
}

/* Add row `src` of len complex values to the grid row `row` from cell x0 (may be negative or run
 * past n0: periodic). */
static inline void KRI_F(add_row)(KRI_T *restrict row, const KRI_T *restrict src, int64_t x0,
                                  int64_t len, int64_t n0)
{
    if (x0 >= 0 && x0 + len <= n0) {
        KRI_T *restrict r = row + 2 * x0;
        for (int64_t t = 0; t < 2 * len; t++) r[t] += src[t];
        return;
    }
    for (int64_t j = 0; j < len; j++) {
        int64_t ix = x0 + j;
        if (ix < 0) ix += n0;
        if (ix >= n0) ix -= n0;
        row[2 * ix] += src[2 * j];
        row[2 * ix + 1] += src[2 * j + 1];
    }
}

/* Spread the points of tile t (W = kernel width, a constant in each specialisation) into the
 * buffer `buf` (the tile plus its halo: cells lo - P .. hi - P + W - 2 along each dim, x
 * fastest, no wrapping), then add the buffer to the grid (periodic). */
static inline KRI_ALWAYS_INLINE void KRI_F(spread_tile)(kr_nufft_plan *p, const KRI_T *restrict y,
                                                       int64_t t, KRI_T *restrict buf,
                                                       const int W)
{
    const KRI_T *coef = (const KRI_T *)KRI_COEF(&p->ker);
    const int deg = p->ker.degree, nd = p->ndim, P = p->ker.w / 2;
    const int64_t n0 = p->n[0], n1 = p->n[1], n2 = p->n[2];
    int64_t lo[3], hi[3];
    KRI_F(tile_box)(p, t, lo, hi);
    const int64_t bx = hi[0] - lo[0] + W - 1, by = hi[1] - lo[1] + W - 1;
    const int64_t bz = nd == 3 ? hi[2] - lo[2] + W - 1 : 1;
    const int wz = nd == 3 ? W : 1;
    const int64_t i0 = p->tile_start[t], i1 = p->tile_start[t + 1];
    if (i0 == i1) return;
    memset(buf, 0, (size_t)(bx * by * bz) * 2 * sizeof(KRI_T));
    const double hw = 0.5 * (double)W;
    const double r0 = p->gscale[0], r1 = p->gscale[1], r2 = p->gscale[2];
    KRI_T kx[KRI_NUFFT_MAX_W], ky[KRI_NUFFT_MAX_W], kz[KRI_NUFFT_MAX_W];
    /* one footprint row (2 W values) in whole vectors; the lanes past it are 0, so they add 0
     * to the next cells of the buffer (which has a vector of slack at its end) */
    const int NR = (2 * W + KRI_VL - 1) / KRI_VL;
    KRI_V kcv[2 * KRI_NUFFT_MAX_W / KRI_VL];
    KRI_T *kc = (KRI_T *)kcv;
    for (int q = 0; q < NR * KRI_VL; q++) kc[q] = 0;
    kz[0] = 1;
    for (int64_t i = i0; i < i1; i++) {
        const int64_t m = p->perm[i];
        /* the samples are read in sorted order, i.e. at random: fetch ahead */
        if (i + KRI_NF_AHEAD < i1) __builtin_prefetch(y + 2 * (int64_t)p->perm[i + KRI_NF_AHEAD]);
        KRI_T sx, sy, sz = 0;
        /* local corner: the footprint's centre cell relative to the tile's first cell */
        int64_t cx = KRI_F(foot)(KRI_F(kcoord)(p, i, 0), r0, hw, n0, &sx) + P;
        int64_t cy = KRI_F(foot)(KRI_F(kcoord)(p, i, 1), r1, hw, n1, &sy) + P, cz = 0;
        if (cx >= n0) cx -= n0;
        if (cy >= n1) cy -= n1;
        KRI_F(kvals)(coef, deg, sx, kx, W);
        KRI_F(kvals)(coef, deg, sy, ky, W);
        if (nd == 3) {
            cz = KRI_F(foot)(KRI_F(kcoord)(p, i, 2), r2, hw, n2, &sz) + P;
            KRI_F(kvals)(coef, deg, sz, kz, W);
            if (cz >= n2) cz -= n2;
            cz -= lo[2];
        }
        const KRI_T cre = y[2 * m], cim = y[2 * m + 1];
        for (int j = 0; j < W; j++) {
            kc[2 * j] = kx[j] * cre;
            kc[2 * j + 1] = kx[j] * cim;
        }
        KRI_T *restrict b0 = buf + 2 * ((cz * by + (cy - lo[1])) * bx + (cx - lo[0]));
        for (int jz = 0; jz < wz; jz++)
            for (int jy = 0; jy < W; jy++) {
                const KRI_T a = ky[jy] * kz[jz];
                KRI_V *r = (KRI_V *)(b0 + 2 * ((int64_t)jz * by + jy) * bx);
                for (int q = 0; q < NR; q++) r[q] += a * kcv[q];
            }
    }
    KRI_T *restrict g = (KRI_T *)p->grid;
    for (int64_t z = 0; z < bz; z++) {
        int64_t gz = 0;
        if (nd == 3) {
            gz = lo[2] - P + z;
            if (gz < 0) gz += n2;
            if (gz >= n2) gz -= n2;
        }
        for (int64_t yy = 0; yy < by; yy++) {
            int64_t gy = lo[1] - P + yy;
            if (gy < 0) gy += n1;
            if (gy >= n1) gy -= n1;
            KRI_F(add_row)(g + 2 * ((gz * n1 + gy) * n0), buf + 2 * ((z * by + yy) * bx),
                           lo[0] - P, bx, n0);
        }
    }
}

static void KRI_F(spread_tile_any)(kr_nufft_plan *p, const KRI_T *restrict y, int64_t t,
                                   KRI_T *restrict buf)
{
    switch (p->ker.w) {
    case 2: KRI_F(spread_tile)(p, y, t, buf, 2); break;
    case 3: KRI_F(spread_tile)(p, y, t, buf, 3); break;
    case 4: KRI_F(spread_tile)(p, y, t, buf, 4); break;
    case 5: KRI_F(spread_tile)(p, y, t, buf, 5); break;
    case 6: KRI_F(spread_tile)(p, y, t, buf, 6); break;
    case 7: KRI_F(spread_tile)(p, y, t, buf, 7); break;
    case 8: KRI_F(spread_tile)(p, y, t, buf, 8); break;
    default: KRI_F(spread_tile)(p, y, t, buf, p->ker.w); break;
    }
}

/* Spread one batch member (kspace: M complex values in original point order) onto the grid,
 * which the caller has zeroed. Tiles of one colour are at least w cells apart, so their
 * buffers (tile + w - 1 cells) never overlap and the threads of a phase never touch the same
 * cell; each cell receives its contributions in the fixed order (phase, tile, point) for any
 * thread count. */
void KRI_F(spread)(kr_nufft_plan *p, const KRI_T *restrict y)
{
    const int ntx = p->ntile[0], nty = p->ntile[1], ntz = p->ntile[2];
    const int nphase = 1 << p->ndim;
    const int hx = ntx / 2, hy = nty / 2, hz = ntz > 1 ? ntz / 2 : 1;
    const int64_t per_phase = (int64_t)hx * hy * hz;
#pragma omp parallel num_threads(p->nthreads)
    {
        KRI_T *buf = (KRI_T *)p->tbuf + 2 * p->tbuf_cells * omp_get_thread_num();
        for (int ph = 0; ph < nphase; ph++) {
            const int px = ph & 1, py = (ph >> 1) & 1, pz = (ph >> 2) & 1;
#pragma omp for schedule(dynamic, 1)
            for (int64_t q = 0; q < per_phase; q++) {
                int tx = 2 * (int)(q % hx) + px;
                int ty = 2 * (int)((q / hx) % hy) + py;
                int tz = ntz > 1 ? 2 * (int)(q / ((int64_t)hx * hy)) + pz : 0;
                KRI_F(spread_tile_any)(p, y, ((int64_t)tz * nty + ty) * ntx + tx, buf);
            }
        }
    }
}

/* Interpolate sorted points [i0, i1) of one batch member from the grid:
 * y[m] = sum over the footprint of m, accumulated in vectors of (re, im) lanes (summed in a fixed
 * order at the end). Each point is computed by one thread from reads only. */
static inline KRI_ALWAYS_INLINE void KRI_F(interp_range)(kr_nufft_plan *p, KRI_T *restrict y,
                                                        int64_t i0, int64_t i1, const int W)
{
    const KRI_T *restrict g = (const KRI_T *)p->grid;
    const KRI_T *coef = (const KRI_T *)KRI_COEF(&p->ker);
    const int deg = p->ker.degree, nd = p->ndim;
    const int wz = nd == 3 ? W : 1;
    const int64_t n0 = p->n[0], n1 = p->n[1], n2 = p->n[2];
    const double hw = 0.5 * (double)W;
    for (int64_t i = i0; i < i1; i++) {
        KRI_T kx[KRI_NUFFT_MAX_W], ky[KRI_NUFFT_MAX_W], kz[KRI_NUFFT_MAX_W];
        KRI_T sx, sy, sz = 0;
        /* the outputs are written in sorted order, i.e. at random: fetch ahead */
        if (i + KRI_NF_AHEAD < i1) __builtin_prefetch(y + 2 * (int64_t)p->perm[i + KRI_NF_AHEAD], 1);
        const int64_t x0 = KRI_F(foot)(KRI_F(kcoord)(p, i, 0), p->gscale[0], hw, n0, &sx);
        const int64_t y0 = KRI_F(foot)(KRI_F(kcoord)(p, i, 1), p->gscale[1], hw, n1, &sy);
        const int64_t z0 = nd == 3 ? KRI_F(foot)(KRI_F(kcoord)(p, i, 2), p->gscale[2], hw, n2, &sz) : 0;
        kz[0] = 1;
        KRI_F(kvals)(coef, deg, sx, kx, W);
        KRI_F(kvals)(coef, deg, sy, ky, W);
        if (nd == 3) KRI_F(kvals)(coef, deg, sz, kz, W);
        /* rows of 2 W values in whole vectors, weighted by kx duplicated per (re, im) (zero past
         * the footprint: the grid has a vector of zero slack at its end) */
        const int NR = (2 * W + KRI_VL - 1) / KRI_VL;
        KRI_V kxv[2 * KRI_NUFFT_MAX_W / KRI_VL], acc[2 * KRI_NUFFT_MAX_W / KRI_VL];
        KRI_T *kxx = (KRI_T *)kxv;
        for (int q = 0; q < NR * KRI_VL; q++) kxx[q] = q < 2 * W ? kx[q / 2] : (KRI_T)0;
        for (int q = 0; q < NR; q++) acc[q] = kxv[q] * (KRI_T)0;
        const int wrapx = x0 + W > n0;
        KRI_V tmpv[2 * KRI_NUFFT_MAX_W / KRI_VL];
        KRI_T *tmp = (KRI_T *)tmpv;
        for (int q = 0; q < NR * KRI_VL; q++) tmp[q] = 0;
        for (int jz = 0; jz < wz; jz++) {
            int64_t iz = z0 + jz;
            if (iz >= n2) iz -= n2;
            for (int jy = 0; jy < W; jy++) {
                int64_t iy = y0 + jy;
                if (iy >= n1) iy -= n1;
                const KRI_T *restrict row = g + 2 * ((iz * n1 + iy) * n0);
                const KRI_V *r = (const KRI_V *)(row + 2 * x0);
                if (wrapx) {
                    for (int j = 0; j < W; j++) {
                        int64_t ix = x0 + j >= n0 ? x0 + j - n0 : x0 + j;
                        tmp[2 * j] = row[2 * ix];
                        tmp[2 * j + 1] = row[2 * ix + 1];
                    }
                    r = tmpv;
                }
                const KRI_T a = ky[jy] * kz[jz];
                for (int q = 0; q < NR; q++) acc[q] += a * (r[q] * kxv[q]);
            }
        }
        const KRI_T *pa = (const KRI_T *)acc;
        KRI_T are = 0, aim = 0;
        for (int q = 0; q < NR * KRI_VL; q += 2) {
            are += pa[q];
            aim += pa[q + 1];
        }
        int64_t m = p->perm[i];
        y[2 * m] = are;
        y[2 * m + 1] = aim;
    }
}

void KRI_F(interp)(kr_nufft_plan *p, KRI_T *restrict y)
{
    const int64_t M = p->M, chunk = 1024, nchunk = (M + chunk - 1) / chunk;
#pragma omp parallel for schedule(static) num_threads(p->nthreads)
    for (int64_t c = 0; c < nchunk; c++) {
        int64_t i0 = c * chunk, i1 = i0 + chunk < M ? i0 + chunk : M;
        switch (p->ker.w) {
        case 2: KRI_F(interp_range)(p, y, i0, i1, 2); break;
        case 3: KRI_F(interp_range)(p, y, i0, i1, 3); break;
        case 4: KRI_F(interp_range)(p, y, i0, i1, 4); break;
        case 5: KRI_F(interp_range)(p, y, i0, i1, 5); break;
        case 6: KRI_F(interp_range)(p, y, i0, i1, 6); break;
        case 7: KRI_F(interp_range)(p, y, i0, i1, 7); break;
        case 8: KRI_F(interp_range)(p, y, i0, i1, 8); break;
        default: KRI_F(interp_range)(p, y, i0, i1, p->ker.w); break;
        }
    }
}

/* Forward: grid = 0; grid[(x mod n)] = f[x] * D(x) for the centred image coordinate x. */
void KRI_F(pad)(kr_nufft_plan *p, const KRI_T *restrict f)
{
    KRI_T *restrict g = (KRI_T *)p->grid;
    const int64_t N0 = p->N[0], N1 = p->N[1], N2 = p->N[2];
    const int64_t n0 = p->n[0], n1 = p->n[1], n2 = p->n[2];
    const KRI_T *D0 = (const KRI_T *)p->dpre[0], *D1 = (const KRI_T *)p->dpre[1],
                *D2 = (const KRI_T *)p->dpre[2];
#pragma omp parallel num_threads(p->nthreads)
    {
#pragma omp for schedule(static)
        for (int64_t r = 0; r < n1 * n2; r++)
            memset(g + 2 * r * n0, 0, (size_t)n0 * 2 * sizeof(KRI_T));
#pragma omp for schedule(static)
        for (int64_t r = 0; r < N1 * N2; r++) {
            int64_t i1 = r % N1, i2 = r / N1;
            int64_t g1 = (i1 - N1 / 2 + n1) % n1, g2 = (i2 - N2 / 2 + n2) % n2;
            KRI_T d12 = D1[i1] * D2[i2];
            const KRI_T *src = f + 2 * (r * N0);
            KRI_T *dst = g + 2 * ((g2 * n1 + g1) * n0);
            for (int64_t i0 = 0; i0 < N0; i0++) {
                int64_t g0 = i0 - N0 / 2;
                if (g0 < 0) g0 += n0;
                KRI_T d = D0[i0] * d12;
                dst[2 * g0] = src[2 * i0] * d;
                dst[2 * g0 + 1] = src[2 * i0 + 1] * d;
            }
        }
    }
}

/* Adjoint: f[x] = grid[(x mod n)] * D(x). */
void KRI_F(crop)(kr_nufft_plan *p, KRI_T *restrict f)
{
    const KRI_T *restrict g = (const KRI_T *)p->grid;
    const int64_t N0 = p->N[0], N1 = p->N[1], N2 = p->N[2];
    const int64_t n0 = p->n[0], n1 = p->n[1], n2 = p->n[2];
    const KRI_T *D0 = (const KRI_T *)p->dpre[0], *D1 = (const KRI_T *)p->dpre[1],
                *D2 = (const KRI_T *)p->dpre[2];
#pragma omp parallel for schedule(static) num_threads(p->nthreads)
    for (int64_t r = 0; r < N1 * N2; r++) {
        int64_t i1 = r % N1, i2 = r / N1;
        int64_t g1 = (i1 - N1 / 2 + n1) % n1, g2 = (i2 - N2 / 2 + n2) % n2;
        KRI_T d12 = D1[i1] * D2[i2];
        KRI_T *dst = f + 2 * (r * N0);
        const KRI_T *src = g + 2 * ((g2 * n1 + g1) * n0);
        for (int64_t i0 = 0; i0 < N0; i0++) {
            int64_t g0 = i0 - N0 / 2;
            if (g0 < 0) g0 += n0;
            KRI_T d = D0[i0] * d12;
            dst[2 * i0] = src[2 * g0] * d;
            dst[2 * i0 + 1] = src[2 * g0 + 1] * d;
        }
    }
}

void KRI_F(zero_grid)(kr_nufft_plan *p, int64_t n0)
{
    KRI_T *restrict g = (KRI_T *)p->grid;
    const int64_t rows = p->n[1] * p->n[2];
#pragma omp parallel for schedule(static) num_threads(p->nthreads)
    for (int64_t r = 0; r < rows; r++) memset(g + 2 * r * n0, 0, (size_t)n0 * 2 * sizeof(KRI_T));
}

/* ---- set_points passes (nufft_cpu.c's counting sort), specialised per trajectory shape ------ */
/* Validate points [m0, m1) (coordinates of type float when f32, else double; nc per point) and
 * store each one's tile (that of its footprint's centre cell) in tile[m]; cnt[t] counts them.
 * Returns the first invalid coordinate index m nc + d, or -1. */
static inline KRI_ALWAYS_INLINE int64_t KRI_F(tiles_body)(const kr_nufft_plan *p, const void *kv,
                                                         const int f32, const int nd,
                                                         const int nc, int64_t m0, int64_t m1,
                                                         int32_t *restrict tile,
                                                         int64_t *restrict cnt)
{
    const double hw = 0.5 * (double)p->ker.w;
    const int64_t P = p->ker.w / 2;
    double h[3], r[3];
    const int32_t *tab[3];
    int64_t nt[3];
    for (int d = 0; d < 3; d++) {
        h[d] = d < nd ? 0.5 * (double)p->N[d] : 0.0;
        r[d] = p->gscale[d];
        tab[d] = p->cell_tile[d];
        nt[d] = p->ntile[d];
    }
    int64_t cur = 0, run = 0;
    for (int64_t m = m0; m < m1; m++) {
        double k[3];
        for (int d = 0; d < nc; d++)
            k[d] = f32 ? (double)((const float *)kv)[m * nc + d] : ((const double *)kv)[m * nc + d];
        int ok = 1;
        for (int d = 0; d < nc; d++) ok &= fabs(k[d]) <= h[d];
        if (!ok)
            for (int d = 0; d < nc; d++)
                if (!KRI_NUFFT_COORD_OK(k[d], d, nd, p->N[d])) return m * nc + d;
        int64_t tt = 0;
        for (int d = nd - 1; d >= 0; d--) {
            /* centre cell ceil(u - w/2) + P, in (-n, 2 n): the table covers that range */
            int64_t c = (int64_t)ceil(k[d] * r[d] - hw) + P;
            tt = tt * nt[d] + tab[d][c];
        }
        tile[m] = (int32_t)tt;
        /* count runs of one tile in a register: trajectories in acquisition order keep
         * neighbours in one tile, and an increment in memory per point would wait on the
         * previous one's store */
        if (tt != cur) {
            cnt[cur] += run;
            cur = tt;
            run = 0;
        }
        run++;
    }
    cnt[cur] += run;
    return -1;
}

int64_t KRI_F(tiles_of)(const kr_nufft_plan *p, const void *kv, int f32, int nc, int64_t m0,
                        int64_t m1, int32_t *tile, int64_t *cnt)
{
    if (p->ndim == 3) return f32 ? KRI_F(tiles_body)(p, kv, 1, 3, 3, m0, m1, tile, cnt)
                                 : KRI_F(tiles_body)(p, kv, 0, 3, 3, m0, m1, tile, cnt);
    if (nc == 2) return f32 ? KRI_F(tiles_body)(p, kv, 1, 2, 2, m0, m1, tile, cnt)
                            : KRI_F(tiles_body)(p, kv, 0, 2, 2, m0, m1, tile, cnt);
    return f32 ? KRI_F(tiles_body)(p, kv, 1, 2, 3, m0, m1, tile, cnt)
               : KRI_F(tiles_body)(p, kv, 0, 2, 3, m0, m1, tile, cnt);
}

/* Points [m0, m1) to their sorted places: cur[t] is the next place of tile t. */
static inline KRI_ALWAYS_INLINE void KRI_F(scatter_body)(kr_nufft_plan *p, const void *kv,
                                                        const int f32, const int nd, const int nc,
                                                        int64_t m0, int64_t m1,
                                                        const int32_t *restrict tile,
                                                        int64_t *restrict cur)
{
    int32_t *restrict perm = p->perm;
    int32_t t = m0 < m1 ? tile[m0] : 0;
    int64_t i = cur[t]; /* the cursor of the current run's tile, kept in a register */
    for (int64_t m = m0; m < m1; m++, i++) {
        if (tile[m] != t) {
            cur[t] = i;
            t = tile[m];
            i = cur[t];
        }
        perm[i] = (int32_t)m;
        for (int d = 0; d < nd; d++) {
            if (f32)
                ((float *)p->kxyz)[i * nd + d] = ((const float *)kv)[m * nc + d];
            else
                ((double *)p->kxyz)[i * nd + d] = ((const double *)kv)[m * nc + d];
        }
    }
}

void KRI_F(scatter)(kr_nufft_plan *p, const void *kv, int f32, int nc, int64_t m0, int64_t m1,
                    const int32_t *tile, int64_t *cur)
{
    if (p->ndim == 3) {
        if (f32) KRI_F(scatter_body)(p, kv, 1, 3, 3, m0, m1, tile, cur);
        else KRI_F(scatter_body)(p, kv, 0, 3, 3, m0, m1, tile, cur);
    } else if (nc == 2) {
        if (f32) KRI_F(scatter_body)(p, kv, 1, 2, 2, m0, m1, tile, cur);
        else KRI_F(scatter_body)(p, kv, 0, 2, 2, m0, m1, tile, cur);
    } else {
        if (f32) KRI_F(scatter_body)(p, kv, 1, 2, 3, m0, m1, tile, cur);
        else KRI_F(scatter_body)(p, kv, 0, 2, 3, m0, m1, tile, cur);
    }
}
