"""kray.mri.mrreg: regularised reconstruction of analytic multi-coil data (Cartesian and radial),
the same bits as `kray mrreg`, frames with LLR, and bad input."""
import numpy as np
import pytest

import kray
from kray.mri import mrreg as M
from kray.mri import traj as T
from cli_util import run_cli
from conftest import needs_cupy


def _phantom(n):
    return kray.phantom.shepp_logan(n, grid="fft", supersample=2).astype(np.complex128)


def _cart(n=48, nc=6, frames=1, seed=3):
    """Cartesian k-space (frames, coils, ny, nx) of the phantom under smooth maps, a third of the
    lines and the centre kept, noise; the maps (coils, ny, nx)."""
    maps = kray.phantom.coil_maps(n, nc).astype(np.complex64)
    x = _phantom(n)
    rng = np.random.default_rng(seed)
    k = np.fft.fftshift(np.fft.fft2(np.fft.ifftshift(maps * x, axes=(1, 2)), norm="ortho"),
                        axes=(1, 2))
    out = []
    for _ in range(frames):
        keep = rng.random(n) < 0.35
        keep[n // 2 - 4:n // 2 + 4] = True
        nz = 0.01 * abs(k).max() * (rng.standard_normal(k.shape) + 1j * rng.standard_normal(k.shape))
        out.append(np.where(keep[None, :, None], k + nz, 0))
    return np.array(out, dtype=np.complex64).squeeze(0) if frames == 1 else \
        np.array(out, dtype=np.complex64), maps, x


def _nrmse(a, b):
    a = np.asarray(a).ravel()
    b = np.asarray(b).ravel()
    s = np.vdot(a, b) / np.vdot(a, a)
    return np.linalg.norm(s * a - b) / np.linalg.norm(b)


def test_term_syntax():
    t = M.term("tv:0.5:xt")
    assert t.kind == 1 and t.lambda_ == 0.5 and t.axes == 9
    assert M.term("llr:2:6").block == 6
    for bad in ("tv", "tv:-1", "wavelet:1", "llr:1:0"):
        with pytest.raises(kray.InvalidArgumentError):
            M.term(bad)


def test_cartesian_tv_and_wavelet_beat_zero_filling():
    k, maps, x = _cart()
    zf = (np.conj(maps) * np.fft.fftshift(np.fft.ifft2(np.fft.ifftshift(k, axes=(1, 2)),
                                                      norm="ortho"), axes=(1, 2))).sum(0)
    e0 = _nrmse(zf, x)
    tv = M.mrreg(k, maps, "tv:0.02", rho=0.1, max_iter=40)
    wl = M.mrreg(k, maps, "l1-wavelet:0.01", max_iter=40)
    assert tv.method == "admm" and wl.method == "fista" and tv.norm == 1.0
    assert tv.x.shape == x.shape and tv.x.dtype == np.complex64
    assert _nrmse(tv.x, x) < 0.6 * e0 and _nrmse(wl.x, x) < 0.8 * e0
    assert wl.history[0] >= wl.history[-1] > 0


def test_radial_l1_wavelet_beats_cgsense():
    n, nc = 48, 6
    maps = kray.phantom.coil_maps(n, nc).astype(np.complex64)
    t = T.radial(samples=n, spokes=16, oversampling=2)
    x = _phantom(n)
    ci = (maps * x).astype(np.complex64)
    k = kray.mri.nufft.NufftPlan((n, n), t, batch=nc).forward(ci)
    rng = np.random.default_rng(1)
    k = (k + 0.02 * abs(k).max() * (rng.standard_normal(k.shape) + 1j *
                                    rng.standard_normal(k.shape))).astype(np.complex64)
    cg = kray.mri.CgsensePlan((n, n), t, maps).solve(k, max_iter=8, tol=0).x
    r = M.mrreg(k, maps, "l1-wavelet:0.005", traj=t, max_iter=50)
    assert r.norm == pytest.approx(n) and r.scale > 0
    assert _nrmse(r.x, x) < 0.85 * _nrmse(cg, x)
    # a given scale is used as it is, and the NUFFT normal gives the same image
    r2 = M.mrreg(k, maps, "l1-wavelet:0.005", traj=t, max_iter=50, scale=r.scale,
                 normal="nufft")
    assert r2.scale == r.scale and _nrmse(r2.x, r.x) < 2e-3


def test_llr_frames():
    k, maps, x = _cart(frames=2)
    r = M.mrreg(k, maps, "llr:0.005:8", max_iter=40)
    assert r.x.shape == (2,) + x.shape
    r0 = M.mrreg(k, maps, "llr:0:8", max_iter=40)
    for f in range(2):
        assert _nrmse(r.x[f], x) < 0.85 * _nrmse(r0.x[f], x)


def test_same_as_cli(cli, tmp_path):
    k, maps, _ = _cart()
    np.save(tmp_path / "k.npy", k)
    np.save(tmp_path / "maps.npy", maps)
    run_cli(cli, "mrreg", "--maps", tmp_path / "maps.npy", "--reg", "l1-wavelet:0.01", "--reg",
            "tv:0.01", "-i", 6, tmp_path / "k.npy", tmp_path / "x.npy")
    want = kray.read(tmp_path / "x.npy")
    got = M.mrreg(k, maps, ["l1-wavelet:0.01", "tv:0.01"], max_iter=6).x
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@needs_cupy
def test_cupy_matches_numpy():
    import cupy as cp
    k, maps, _ = _cart()
    a = M.mrreg(k, maps, ["l1-wavelet:0.01", "tv:0.01"], max_iter=10).x
    b = M.mrreg(cp.asarray(k), cp.asarray(maps), ["l1-wavelet:0.01", "tv:0.01"], max_iter=10).x
    assert isinstance(b, cp.ndarray)
    assert _nrmse(cp.asnumpy(b), a) < 1e-3
    n, nc = 32, 4
    m = kray.phantom.coil_maps(n, nc).astype(np.complex64)
    t = T.radial(samples=n, spokes=10, oversampling=2)
    kr = (np.random.default_rng(2).standard_normal((nc, 10, 2 * n)) * (1 + 1j)).astype(np.complex64)
    a = M.mrreg(kr, m, "l1-wavelet:0.01", traj=t, max_iter=10).x
    b = M.mrreg(cp.asarray(kr), m, "l1-wavelet:0.01", traj=t, max_iter=10).x
    assert _nrmse(cp.asnumpy(b), a) < 1e-3


def test_bad_input():
    k, maps, _ = _cart()
    with pytest.raises(kray.InvalidArgumentError):
        M.mrreg(k, maps, "tv:1", method="fista")
    with pytest.raises(kray.InvalidArgumentError):
        M.mrreg(k, maps, [])
    with pytest.raises(kray.DimensionError):
        M.mrreg(k[:, :-2], maps, "tv:1")
    with pytest.raises(kray.InvalidArgumentError):
        M.mrreg(k, maps, "tv:1", wavelet="db8")
