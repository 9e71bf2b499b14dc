"""Preconditioned CG/CGLS (kray.linop), CG-SENSE with a field map and preconditioners, the
calibration k-space of non-Cartesian data, 3-D ESPIRiT (kray.mri.cgsense, kray.mri.sense):
against the CLI (bit-identical), direct sums and dense solves; CUDA variants."""
import subprocess

import numpy as np
import pytest

import kray
from kray.linop import Linop, cg, cgls
from kray.mri import cgsense, coils, offres, sense, traj
from conftest import needs_cupy


def run(cli, *args):
    subprocess.run([cli, *args, "-q", "--backend", "cpu"], check=True)


@pytest.fixture(scope="module")
def maps4():
    cs, _ = coils.layout_mrxcat(4, 4, 40.0)
    return coils.maps(cs, (24, 24), voxel_mm=(2.0, 2.0, 5.0), norm="rss-centre")


@pytest.fixture(scope="module")
def obj():
    yy, xx = np.mgrid[-12:12, -12:12]
    return (np.exp(-(xx ** 2 / 20 + yy ** 2 / 14)) * (1 + 0.3j)).astype(np.complex64)


def fieldmap(n, amp):
    yy, xx = np.mgrid[0:n, 0:n]
    x, y = (xx - n // 2) / n, (yy - n // 2) / n
    return amp * (0.6 * np.cos(2 * np.pi * x) + 0.4 * np.sin(2 * np.pi * (x + y)))


def test_cg_and_cgls_with_a_diagonal_preconditioner(rng):
    m, n = 50, 30
    R = (rng.standard_normal((m, n)) + 3 * np.eye(m, n)) * np.logspace(0, 2, n)
    A = R.T @ R
    b = rng.standard_normal(n)
    lam = 0.5
    ref = np.linalg.solve(A + lam * np.eye(n), b)
    P = 1 / (np.diag(A) + lam)
    op = Linop.matrix(A)
    plain = cg(op, b, lam=lam, max_iter=500, tol=1e-12)
    pre = cg(op, b, lam=lam, max_iter=500, tol=1e-12, precond=P)
    assert pre.converged and plain.converged and pre.iterations < plain.iterations / 2
    np.testing.assert_allclose(pre.x, ref, rtol=1e-9, atol=1e-9 * np.abs(ref).max())
    np.testing.assert_allclose(plain.x, ref, rtol=1e-9, atol=1e-9 * np.abs(ref).max())
    y = rng.standard_normal(m)
    ref2 = np.linalg.solve(A + lam * np.eye(n), R.T @ y)
    r2 = cgls(Linop.matrix(R), y, lam=lam, max_iter=500, tol=1e-12, precond=P)
    np.testing.assert_allclose(r2.x, ref2, rtol=1e-8, atol=1e-8 * np.abs(ref2).max())
    with pytest.raises(kray.InvalidArgumentError):
        cg(op, b, precond=-P)
    with pytest.raises(kray.DimensionError):
        cg(op, b, precond=P[:-1])


def _spiral():
    t, info = traj.spiral(fov_mm=120, res_mm=5.0, interleaves=2, vd_factor=1.0)
    s = info["samples"]
    tm = np.tile(0.002 + 0.008 * np.arange(s) / (s - 1), t.size // 3 // s)
    return t, tm


def test_cgsense_fieldmap_and_precond_bit_identical_to_cli(cli, tmp_path, maps4, obj):
    t, tm = _spiral()
    fm = fieldmap(24, 60.0)
    with cgsense.CgsensePlan((24, 24), t, maps4, fieldmap=fm, times=tm, exact=True) as E:
        y = E.linop()(obj).reshape(4, -1)
    paths = {k: str(tmp_path / (k + ".npy")) for k in ("t", "y", "m", "f", "tm", "x")}
    for k, a in (("t", t), ("y", y), ("m", maps4), ("f", fm), ("tm", tm)):
        np.save(paths[k], a)
    run(cli, "cgsense", "--maps", paths["m"], "--fieldmap", paths["f"], "--times", paths["tm"],
        "--precond", "intensity", "-i", "8", "--tol", "1e-9", paths["t"], paths["y"], paths["x"])
    with cgsense.CgsensePlan((24, 24), t, maps4, fieldmap=fm, times=tm,
                             precond="intensity") as p:
        assert p.offres["segments"] >= 2 and p.offres["interp_err"] <= 1e-3
        r = p.solve(y, max_iter=8, tol=1e-9)
        np.testing.assert_array_equal(r.x, np.load(paths["x"]))
        assert p.linop().adjoint_test() < 1e-5
        r2 = p.solve(y, max_iter=60, tol=1e-7)
        assert np.linalg.norm(r2.x - obj) < 2e-2 * np.linalg.norm(obj)
        # an explicit preconditioner array overrides the plan's choice: same as "intensity"
        d = p.precond_diag("intensity")
        r3 = p.solve(y, max_iter=8, tol=1e-9, precond=d)
        np.testing.assert_array_equal(r3.x, r.x)
    with cgsense.CgsensePlan((24, 24), t, maps4) as q:
        plain = q.solve(y, max_iter=60, tol=1e-7)
    assert np.linalg.norm(plain.x - obj) > 3 * np.linalg.norm(r2.x - obj)


def test_cgsense_fieldmap_exact_is_the_direct_sum(maps4, obj, rng):
    n = 24
    t = np.stack([rng.uniform(-n / 2, n / 2, 80), rng.uniform(-n / 2, n / 2, 80),
                  np.zeros(80)], 1)
    tm = np.linspace(0, 0.01, 80)
    fm = fieldmap(n, 80.0)
    x = (rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))).astype(np.complex64)
    with cgsense.CgsensePlan((n, n), t, maps4, fieldmap=fm, times=tm, exact=True) as p:
        y = p.linop()(x)
    yy, xx = np.mgrid[0:n, 0:n]
    ph = (t[:, 0, None, None] * (xx - n // 2) / n + t[:, 1, None, None] * (yy - n // 2) / n +
          fm[None] * tm[:, None, None])
    E = np.exp(-2j * np.pi * ph)                          # (M, ny, nx)
    ref = np.einsum("myx,cyx,yx->cm", E, maps4.astype(np.complex128), x)
    np.testing.assert_allclose(y.reshape(ref.shape), ref, atol=2e-5 * np.abs(ref).max())
    O = offres.operator((n, n), t, fm, tm, exact=True, batch=4)
    assert O.shape_in == (4, n, n) and O.shape_out == (4, 80)
    np.testing.assert_allclose(O(maps4 * x).reshape(ref.shape), ref, atol=2e-5 * np.abs(ref).max())


def test_precond_diag_is_the_diagonal(maps4):
    t = traj.radial(samples=24, spokes=16)
    w = traj.dcf(t, "radial")
    with cgsense.CgsensePlan((24, 24), t, maps4, dcf=w, eps=1e-6) as p:
        d = p.precond_diag("jacobi", lam=2.0)
        N = p.normal_linop()
        for q in ((3, 4), (12, 12), (20, 7)):
            e = np.zeros((24, 24), np.complex64)
            e[q] = 1
            assert abs(1 / d[q] - (N(e)[q].real + 2.0)) < 1e-4 / d[q]
        s = np.sum(np.abs(maps4) ** 2, 0)
        np.testing.assert_allclose(p.precond_diag("intensity"), 1 / s, rtol=1e-5)


def test_calib_kspace_feeds_espirit(maps4, obj):
    t = traj.radial(samples=24, spokes=40)
    with cgsense.CgsensePlan((24, 24), t, maps4) as E:
        y = E.linop()(obj).reshape(4, -1)
    cal = cgsense.calib_kspace((24, 24), t, y, calib_radius=6)
    assert cal.shape == (4, 24, 24)
    nz = np.abs(cal).sum(0) > 0
    ky, kx = np.nonzero(nz)
    assert np.all(np.abs(ky - 12) < 6) and np.all(np.abs(kx - 12) < 6) and nz.sum() == 11 * 11
    m = sense.espirit(cal, calib=12, kernel=4)   # the kernel estimate_maps picks for 11^2
    est = cgsense.estimate_maps((24, 24), t, y, calib_radius=6, espirit=True)
    np.testing.assert_array_equal(m, est)
    # the Cartesian calibration samples of the truth, k = FFT(maps * obj) unnormalised
    ref = coils.kspace(obj, maps4) * 24
    np.testing.assert_allclose(cal[:, nz], ref[:, nz], atol=0.02 * np.abs(ref).max())


def test_espirit_3d_shapes():
    n = 16
    zz, yy, xx = np.mgrid[0:n, 0:n, 0:n] - n // 2
    img = np.exp(-(xx ** 2 + yy ** 2 + zz ** 2) / 30.0)
    S = np.stack([np.exp(-((xx - 12 * np.cos(a)) ** 2 + (yy - 12 * np.sin(a)) ** 2) / 300.0 +
                         0.1j * (xx * np.sin(a) - yy * np.cos(a)))
                  for a in np.linspace(0, 2 * np.pi, 4, endpoint=False)])
    k = np.fft.fftshift(np.fft.fftn(np.fft.ifftshift(S * img, axes=(1, 2, 3)), axes=(1, 2, 3)),
                        axes=(1, 2, 3)).astype(np.complex64)
    m, ev = sense.espirit(k, kernel=4, calib=10, eigenvalues=True)
    assert m.shape == (4, n, n, n) and ev.shape == (n, n, n)
    inside = img > 0.2
    proj = np.abs(np.sum(np.conj(m) * S, 0)) / np.sqrt(np.sum(np.abs(S) ** 2, 0))
    assert np.all(proj[inside] > 0.99)          # the maps span the true sensitivities


@needs_cupy
def test_cuda_fieldmap_precond_espirit(maps4, obj):
    import cupy as cp
    t, tm = _spiral()
    fm = fieldmap(24, 60.0)
    with cgsense.CgsensePlan((24, 24), t, maps4, fieldmap=fm, times=tm, exact=True) as E:
        y = E.linop()(obj).reshape(4, -1)
    for exact in (False, True):
        with cgsense.CgsensePlan((24, 24), t, cp.asarray(maps4), fieldmap=fm, times=tm,
                                 exact=exact, precond="jacobi") as g, \
                cgsense.CgsensePlan((24, 24), t, maps4, fieldmap=fm, times=tm, exact=exact,
                                    precond="jacobi") as h:
            rd = g.solve(cp.asarray(y), max_iter=10)
            r = h.solve(y, max_iter=10)
            np.testing.assert_allclose(rd.x.get(), r.x, atol=1e-3 * np.abs(r.x).max())
            assert g.linop().adjoint_test() < 1e-5
    tr = traj.radial(samples=24, spokes=40)
    with cgsense.CgsensePlan((24, 24), tr, maps4) as E:
        yr = E.linop()(obj).reshape(4, -1)
    ch = cgsense.calib_kspace((24, 24), tr, yr, calib_radius=6)
    cd = cgsense.calib_kspace((24, 24), tr, yr, calib_radius=6, device=0)
    np.testing.assert_allclose(cd, ch, atol=1e-4 * np.abs(ch).max())
    mh = sense.espirit(ch, calib=12, kernel=4)
    md = sense.espirit(ch, calib=12, kernel=4, ctx=kray.Context("cuda"))
    both = (np.abs(mh).sum(0) > 0) & (np.abs(md).sum(0) > 0)
    np.testing.assert_allclose(md[:, both], mh[:, both], atol=1e-4)
