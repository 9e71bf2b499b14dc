/* CPU NUFFT body, included twice by nufft_cpu.c: once with KRI_T = float (c64 plans) and once
 * with KRI_T = double (c128 plans); KRI_F(name) appends the type suffix. Not a public header.
 *
 * Complex arrays are interleaved (re, im) KRI_T pairs. The grid is n[0] x n[1] x n[2], axis 0
 * fastest. Points are visited in the plan's sorted (tile) order; point i's footprint starts at
 * cell l0[d][i] (already wrapped into [0, n_d)) and its kernel values come from frac[d][i]. */

/* The first W kernel values of a point with offset s (W is a compile-time constant in the
 * specialised callers, so the lane loops unroll and vectorise). */
static inline KRI_ALWAYS_INLINE void KRI_F(kvals)(const KRI_T *restrict coef, int degree,
                                                  KRI_T s, KRI_T *restrict v, const int W)
{
    /* lanes up to a multiple of 4 (coefficients of lanes >= w are 0) */
    enum { L = 4 };
    const int WP = (W + L - 1) / L * L;
    KRI_T z = (KRI_T)2 * s - (KRI_T)1;
    for (int j = 0; j < WP; j++) v[j] = coef[degree * KRI_NUFFT_MAX_W + j];
    for (int d = degree - 1; d >= 0; d--) {
        const KRI_T *c = coef + d * KRI_NUFFT_MAX_W;
        for (int j = 0; j < WP; j++) v[j] = v[j] * z + c[j];
    }
}

/* Add c * kx[jx] * ky[jy] * kz[jz] to the footprint of one point (nz = 1 and w_z = 1 in 2-D). */
static inline KRI_ALWAYS_INLINE void KRI_F(spread_point)(KRI_T *restrict g, const int64_t *n,
                                                        const int w, const int wz,
                                       int32_t x0, int32_t y0, int32_t z0, const KRI_T *kx,
                                       const KRI_T *ky, const KRI_T *kz, KRI_T cre, KRI_T cim)
{
    KRI_T kc[2 * KRI_NUFFT_MAX_W];
    for (int j = 0; j < w; j++) {
        kc[2 * j] = kx[j] * cre;
        kc[2 * j + 1] = kx[j] * cim;
    }
    const int64_t n0 = n[0], n1 = n[1], n2 = n[2];
    const int wrapx = x0 + w > n0;
    for (int jz = 0; jz < wz; jz++) {
        int64_t iz = z0 + jz;
        if (iz >= n2) iz -= n2;
        for (int jy = 0; jy < w; jy++) {
            int64_t iy = y0 + jy;
            if (iy >= n1) iy -= n1;
            KRI_T a = ky[jy] * kz[jz];
            KRI_T *restrict row = g + 2 * ((iz * n1 + iy) * n0);
            if (!wrapx) {
                KRI_T *restrict r = row + 2 * (int64_t)x0;
                for (int t = 0; t < 2 * w; t++) r[t] += a * kc[t];
            } else {
                for (int j = 0; j < w; j++) {
                    int64_t ix = x0 + j;
                    if (ix >= n0) ix -= n0;
                    row[2 * ix] += a * kc[2 * j];
                    row[2 * ix + 1] += a * kc[2 * j + 1];
                }
            }
        }
    }
}

/* Spread the points of tile t (W = kernel width, a constant in each specialisation). */
static inline KRI_ALWAYS_INLINE void KRI_F(spread_tile)(kr_nufft_plan *p, const KRI_T *restrict y,
                                                       int64_t t, const int W)
{
    KRI_T *restrict g = (KRI_T *)p->grid;
    const KRI_T *coef = (const KRI_T *)KRI_COEF(&p->ker);
    const int deg = p->ker.degree, nd = p->ndim;
    const KRI_T *fx = (const KRI_T *)p->frac[0], *fy = (const KRI_T *)p->frac[1],
                *fz = (const KRI_T *)p->frac[2];
    KRI_T kx[KRI_NUFFT_MAX_W], ky[KRI_NUFFT_MAX_W], kz[KRI_NUFFT_MAX_W];
    kz[0] = 1;
    for (int64_t i = p->tile_start[t]; i < p->tile_start[t + 1]; i++) {
        int64_t m = p->perm[i];
        KRI_F(kvals)(coef, deg, fx[i], kx, W);
        KRI_F(kvals)(coef, deg, fy[i], ky, W);
        if (nd == 3) {
            KRI_F(kvals)(coef, deg, fz[i], kz, W);
            KRI_F(spread_point)(g, p->n, W, W, p->l0[0][i], p->l0[1][i], p->l0[2][i], kx, ky,
                                kz, y[2 * m], y[2 * m + 1]);
        } else {
            KRI_F(spread_point)(g, p->n, W, 1, p->l0[0][i], p->l0[1][i], 0, kx, ky, kz,
                                y[2 * m], y[2 * m + 1]);
        }
    }
}

static void KRI_F(spread_tile_any)(kr_nufft_plan *p, const KRI_T *restrict y, int64_t t)
{
    switch (p->ker.w) {
    case 2: KRI_F(spread_tile)(p, y, t, 2); break;
    case 3: KRI_F(spread_tile)(p, y, t, 3); break;
    case 4: KRI_F(spread_tile)(p, y, t, 4); break;
    case 5: KRI_F(spread_tile)(p, y, t, 5); break;
    case 6: KRI_F(spread_tile)(p, y, t, 6); break;
    case 7: KRI_F(spread_tile)(p, y, t, 7); break;
    case 8: KRI_F(spread_tile)(p, y, t, 8); break;
    default: KRI_F(spread_tile)(p, y, t, p->ker.w); break;
    }
}

/* Spread one batch member (kspace: M complex values in original point order) onto the grid,
 * which the caller has zeroed. Tiles of one colour are at least w cells apart, so the threads
 * of a phase never touch the same cell; each cell receives its contributions in the fixed
 * order (phase, tile, point) for any thread count. */
static void KRI_F(spread)(kr_nufft_plan *p, const KRI_T *restrict y)
{
    const int ntx = p->ntile[0], nty = p->ntile[1], ntz = p->ntile[2];
    const int nphase = 1 << p->ndim;
    const int hx = ntx / 2, hy = nty / 2, hz = ntz > 1 ? ntz / 2 : 1;
    const int64_t per_phase = (int64_t)hx * hy * hz;
#pragma omp parallel num_threads(p->nthreads)
    for (int ph = 0; ph < nphase; ph++) {
        const int px = ph & 1, py = (ph >> 1) & 1, pz = (ph >> 2) & 1;
#pragma omp for schedule(dynamic, 1)
        for (int64_t q = 0; q < per_phase; q++) {
            int tx = 2 * (int)(q % hx) + px;
            int ty = 2 * (int)((q / hx) % hy) + py;
            int tz = ntz > 1 ? 2 * (int)(q / ((int64_t)hx * hy)) + pz : 0;
            KRI_F(spread_tile_any)(p, y, ((int64_t)tz * nty + ty) * ntx + tx);
        }
    }
}

/* Interpolate sorted points [i0, i1) of one batch member from the grid:
 * y[m] = sum over the footprint of m. Each point is computed by one thread from reads only. */
static inline KRI_ALWAYS_INLINE void KRI_F(interp_range)(kr_nufft_plan *p, KRI_T *restrict y,
                                                        int64_t i0, int64_t i1, const int W)
{
    const KRI_T *restrict g = (const KRI_T *)p->grid;
    const KRI_T *coef = (const KRI_T *)KRI_COEF(&p->ker);
    const int deg = p->ker.degree, nd = p->ndim;
    const int wz = nd == 3 ? W : 1;
    const int64_t n0 = p->n[0], n1 = p->n[1], n2 = p->n[2];
    const KRI_T *fx = (const KRI_T *)p->frac[0], *fy = (const KRI_T *)p->frac[1],
                *fz = (const KRI_T *)p->frac[2];
    for (int64_t i = i0; i < i1; i++) {
        KRI_T kx[KRI_NUFFT_MAX_W], ky[KRI_NUFFT_MAX_W], kz[KRI_NUFFT_MAX_W];
        kz[0] = 1;
        KRI_F(kvals)(coef, deg, fx[i], kx, W);
        KRI_F(kvals)(coef, deg, fy[i], ky, W);
        if (nd == 3) KRI_F(kvals)(coef, deg, fz[i], kz, W);
        const int32_t x0 = p->l0[0][i], y0 = p->l0[1][i], z0 = nd == 3 ? p->l0[2][i] : 0;
        int64_t ix[KRI_NUFFT_MAX_W];
        for (int j = 0; j < W; j++) ix[j] = x0 + j >= n0 ? x0 + j - n0 : x0 + j;
        const int wrapx = x0 + W > n0;
        KRI_T are = 0, aim = 0;
        for (int jz = 0; jz < wz; jz++) {
            int64_t iz = z0 + jz;
            if (iz >= n2) iz -= n2;
            KRI_T zre = 0, zim = 0;
            for (int jy = 0; jy < W; jy++) {
                int64_t iy = y0 + jy;
                if (iy >= n1) iy -= n1;
                const KRI_T *restrict row = g + 2 * ((iz * n1 + iy) * n0);
                KRI_T rre = 0, rim = 0;
                if (!wrapx) {
                    const KRI_T *restrict r = row + 2 * (int64_t)x0;
                    for (int j = 0; j < W; j++) {
                        rre += r[2 * j] * kx[j];
                        rim += r[2 * j + 1] * kx[j];
                    }
                } else {
                    for (int j = 0; j < W; j++) {
                        rre += row[2 * ix[j]] * kx[j];
                        rim += row[2 * ix[j] + 1] * kx[j];
                    }
                }
                zre += ky[jy] * rre;
                zim += ky[jy] * rim;
            }
            are += kz[jz] * zre;
            aim += kz[jz] * zim;
        }
        int64_t m = p->perm[i];
        y[2 * m] = are;
        y[2 * m + 1] = aim;
    }
}

static void KRI_F(interp)(kr_nufft_plan *p, KRI_T *restrict y)
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
static void KRI_F(pad)(kr_nufft_plan *p, const KRI_T *restrict f)
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
static void KRI_F(crop)(kr_nufft_plan *p, KRI_T *restrict f)
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

static void KRI_F(zero_grid)(kr_nufft_plan *p)
{
    KRI_T *restrict g = (KRI_T *)p->grid;
    const int64_t n0 = p->n[0], rows = p->n[1] * p->n[2];
#pragma omp parallel for schedule(static) num_threads(p->nthreads)
    for (int64_t r = 0; r < rows; r++) memset(g + 2 * r * n0, 0, (size_t)n0 * 2 * sizeof(KRI_T));
}
