"""kray.mri.drft, kray.mri.nufft, kray.mri.goertzel: against the CLI (bit-identical), direct
sums, FINUFFT; adjoint tests; autograd; CUDA zero-copy."""
import os
import subprocess
import sys

import numpy as np
import pytest

import kray
from kray.mri import drft, goertzel, nufft, traj
from conftest import needs_cupy, needs_torch, needs_torch_cuda

HERE = os.path.dirname(os.path.abspath(__file__))


def direct(img, k, sign=-1):
    """Direct sum: y_m = sum_x img(x) exp(sign 2 pi i k_m . x / n), x = index - n//2."""
    ny, nx = img.shape
    yy, xx = np.meshgrid(np.arange(ny) - ny // 2, np.arange(nx) - nx // 2, indexing="ij")
    ph = np.exp(sign * 2j * np.pi * (np.outer(k[:, 0], xx.ravel()) / nx +
                                     np.outer(k[:, 1], yy.ravel()) / ny))
    return ph @ img.ravel()


def rimg(rng, shape, dt=np.complex128):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)


def run(cli, *args):
    subprocess.run([cli, *args, "-q", "--backend", "cpu"], check=True)


@pytest.fixture
def t16():
    return traj.radial(samples=16, spokes=10, oversampling=2)   # (10, 32, 3), |k| < 8


def test_drft_matches_direct_sum_f64(rng, t16):
    x = rimg(rng, (16, 16))
    with drft.DrftPlan((16, 16), t16) as p:
        y = p.forward(x)
        ref = direct(x, t16.reshape(-1, 3).astype(np.float64)).reshape(t16.shape[:-1])
        assert y.shape == (10, 32) and y.dtype == np.complex128
        np.testing.assert_allclose(y, ref, rtol=0, atol=1e-10 * np.abs(ref).max())
        d = rimg(rng, (10, 32))
        a = p.adjoint(d)
        k = t16.astype(np.float64)
        adj = np.array([[np.sum(d.ravel() * np.exp(2j * np.pi * (k[..., 0].ravel() * (i - 8) +
                                                                   k[..., 1].ravel() * (j - 8))
                                                     / 16)) for i in range(16)]
                        for j in range(16)])
        np.testing.assert_allclose(a, adj, rtol=0, atol=1e-10 * np.abs(adj).max())
        # Q on the image grid: the adjoint of all-ones data
        q = p.q(dtype=np.complex128)
        np.testing.assert_allclose(q, p.adjoint(np.ones((10, 32), np.complex128)), atol=1e-9)


def test_drft_batch_and_weights(rng, t16):
    w = traj.dcf(t16, "radial").astype(np.float32)
    x = rimg(rng, (3, 16, 16), np.complex64)
    with drft.DrftPlan((16, 16), t16, weights=w) as p:
        y = p.forward(x)
        assert y.shape == (3, 10, 32)
        for b in range(3):
            np.testing.assert_array_equal(y[b], p.forward(x[b]))
        a = p.adjoint(y)
        p.set_weights(None)
        a1 = p.adjoint(y * w)
        np.testing.assert_allclose(a, a1, rtol=1e-4, atol=1e-4 * np.abs(a).max())
    assert p._ptr is None


@pytest.mark.parametrize("prec", ["f32", "f64"])
def test_drft_and_nufft_bit_identical_to_cli(cli, tmp_path, rng, t16, prec):
    dt = np.complex64 if prec == "f32" else np.complex128
    x = rimg(rng, (16, 16), dt)
    tp, xp, yd, yn = (str(tmp_path / n) for n in ("t.npy", "x.npy", "yd.npy", "yn.npy"))
    np.save(tp, t16)
    np.save(xp, x)
    run(cli, "drft", "-F", "--precision", prec, tp, xp, yd)
    run(cli, "nufft", "-F", "--precision", prec, "--eps", "1e-5", tp, xp, yn)
    with drft.DrftPlan((16, 16), t16) as p:
        np.testing.assert_array_equal(p.forward(x), np.load(yd))
    with nufft.NufftPlan((16, 16), t16, dtype=dt, eps=1e-5) as p:
        y = p.forward(x)
        np.testing.assert_array_equal(y, np.load(yn))
        ap = str(tmp_path / "a.npy")
        run(cli, "nufft", "-a", "--precision", prec, "--eps", "1e-5", "--size", "16x16", tp,
            yn, ap)
        np.testing.assert_array_equal(p.adjoint(y), np.load(ap))


def test_nufft_against_drft_1e6(rng):
    t = traj.spiral(fov_mm=64, res_mm=2, interleaves=4, dtype=np.float64)[0]
    x = rimg(rng, (2, 32, 32))
    with nufft.NufftPlan((32, 32), t, dtype=np.complex128, eps=1e-9, batch=2) as p, \
            drft.DrftPlan((32, 32), t) as d:
        y, yr = p.forward(x), d.forward(x)
        assert np.linalg.norm(y - yr) / np.linalg.norm(yr) < 1e-6
        a, ar = p.adjoint(yr), d.adjoint(yr)
        assert np.linalg.norm(a - ar) / np.linalg.norm(ar) < 1e-6
        info = p.info
        assert info["npoints"] == t.shape[0] * t.shape[1] and info["batch"] == 2
        assert info["shape"] == (32, 32) and info["grid"][0] >= 64
    # The one-shot functions give the same bits as the plan.
    np.testing.assert_array_equal(nufft.nufft(x, t, eps=1e-9), y)
    np.testing.assert_array_equal(nufft.nufft_adjoint(yr, t, (32, 32), eps=1e-9), a)


def test_nufft_batch_is_per_member_and_3d(rng):
    t = traj.radial(samples=8, spokes=6, oversampling=1)
    x = rimg(rng, (3, 8, 8), np.complex64)
    with nufft.NufftPlan((8, 8), t, batch=3) as pb, nufft.NufftPlan((8, 8), t) as p1:
        yb = pb.forward(x)
        for b in range(3):
            np.testing.assert_array_equal(yb[b], p1.forward(x[b]))
    k = traj.koosh(samples=8, spokes=12, dtype=np.float64)
    v = rimg(rng, (8, 8, 8))
    with nufft.NufftPlan((8, 8, 8), k, dtype=np.complex128, eps=1e-10) as p, \
            drft.DrftPlan((8, 8, 8), k) as d:
        y = p.forward(v)
        np.testing.assert_allclose(y, d.forward(v), atol=1e-7 * np.abs(y).max())


def test_finufft_1e6(tmp_path, rng):
    """kray's NUFFT against FINUFFT (PyPI wheel, installed into a venv under the build dir)."""
    base = os.environ.get("KRAY_BUILD") or os.environ.get("KRAY_TMP") or str(tmp_path)
    venv = os.path.join(base, "pyvenv-finufft")
    py = os.path.join(venv, "bin", "python")
    if not os.path.exists(py):
        r = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv],
                           capture_output=True)
        if r.returncode != 0:
            pytest.skip("cannot create a virtual environment: %s" % r.stderr.decode()[-200:])
    if subprocess.run([py, "-c", "import finufft"], capture_output=True).returncode != 0:
        try:
            r = subprocess.run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                                "finufft"], capture_output=True, timeout=240)
        except subprocess.TimeoutExpired:
            pytest.skip("pip could not install finufft from PyPI in 240 s")
        if r.returncode != 0:
            pytest.skip("pip could not install finufft from PyPI (no network?): %s" %
                        r.stderr.decode().strip().splitlines()[-1:])
    t = traj.radial(samples=24, spokes=20, oversampling=2, dtype=np.float64)
    x = rimg(rng, (24, 24))
    np.save(str(tmp_path / "t.npy"), t)
    np.save(str(tmp_path / "x.npy"), x)
    script = (
        "import numpy as np, finufft, sys\n"
        "d = sys.argv[1]; t = np.load(d + '/t.npy').reshape(-1, 3); x = np.load(d + '/x.npy')\n"
        "ky, kx = 2 * np.pi * t[:, 1] / 24, 2 * np.pi * t[:, 0] / 24\n"
        "np.save(d + '/y.npy', finufft.nufft2d2(ky, kx, x, isign=-1, eps=1e-12))\n"
        "yk = np.load(d + '/yk.npy')\n"
        "np.save(d + '/a.npy', finufft.nufft2d1(ky, kx, yk, (24, 24), isign=1, eps=1e-12))\n")
    with nufft.NufftPlan((24, 24), t, dtype=np.complex128, eps=1e-9) as p:
        y = p.forward(x)
        yk = rimg(rng, y.shape)
        np.save(str(tmp_path / "yk.npy"), yk.ravel())
        subprocess.run([py, "-c", script, str(tmp_path)], check=True)
        yf = np.load(str(tmp_path / "y.npy"))
        assert np.linalg.norm(y.ravel() - yf) / np.linalg.norm(yf) < 1e-6
        af = np.load(str(tmp_path / "a.npy"))
        a = p.adjoint(yk)
        assert np.linalg.norm(a - af) / np.linalg.norm(af) < 1e-6


def test_goertzel_is_unnormalised_centred_idft(rng):
    k = rimg(rng, (2, 6, 8))
    ref = np.fft.fftshift(np.fft.ifft2(np.fft.ifftshift(k, axes=(-2, -1))), axes=(-2, -1)) * 48
    np.testing.assert_allclose(goertzel.image(k), ref, atol=1e-12 * np.abs(ref).max())
    xy = np.array([[0.0, 0.0], [1.5, -2.0], [3.0, 2.0]])
    pts = goertzel.points(k, xy)
    assert pts.shape == (2, 3)
    np.testing.assert_allclose(pts[:, 0], ref[:, 3, 4], atol=1e-12 * np.abs(ref).max())
    np.testing.assert_allclose(pts[:, 2], ref[:, 5, 7], atol=1e-12 * np.abs(ref).max())
    yy, xx = np.meshgrid(np.arange(6) - 3, np.arange(8) - 4, indexing="ij")
    d = np.exp(2j * np.pi * (xx * 1.5 / 8 + yy * -2.0 / 6))
    np.testing.assert_allclose(pts[0, 1], np.sum(k[0] * d), atol=1e-12 * np.abs(ref).max())
    with pytest.raises(kray.InvalidArgumentError):
        goertzel.points(k, [[100.0, 0.0]])


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_adjoint_tests(t16, dt):
    tol = 1e-5 if dt == np.complex64 else 1e-12
    with nufft.NufftPlan((16, 16), t16, dtype=dt, batch=2) as p:
        assert p.linop().adjoint_test() < tol
    w = traj.dcf(t16, "radial")
    assert drft.operator((16, 16), t16, w, dtype=dt, batch=2).adjoint_test() < tol


def test_bad_input_raises(t16):
    with pytest.raises(kray.DimensionError):
        drft.DrftPlan((16, 16), t16[..., :1])
    with pytest.raises(kray.DTypeError):
        nufft.NufftPlan((16, 16), t16.astype(np.int32))
    with pytest.raises(kray.GeometryError):
        nufft.NufftPlan((8, 8), t16)
    with nufft.NufftPlan((16, 16)) as p:
        with pytest.raises(kray.InvalidArgumentError):
            p.forward(np.zeros((16, 16), np.complex64))
        p.set_points(t16)
        with pytest.raises(kray.DimensionError):
            p.forward(np.zeros((15, 16), np.complex64))
        with pytest.raises(kray.DTypeError):
            p.forward(np.zeros((16, 16), np.complex128))
    with pytest.raises(kray.InvalidArgumentError):
        p.forward(np.zeros((16, 16), np.complex64))  # closed


@needs_torch
def test_gradcheck_nufft_drft(t16):
    import torch
    from kray.torch import apply
    t = traj.radial(samples=6, spokes=4, oversampling=1, dtype=np.float64)
    for op in (nufft.NufftPlan((6, 6), t, dtype=np.complex128, eps=1e-12).linop(),
               drft.operator((6, 6), t, dtype=np.complex128)):
        x = torch.randn(6, 6, dtype=torch.complex128, requires_grad=True)
        assert torch.autograd.gradcheck(lambda v: apply(op, v), (x,), eps=1e-6, atol=1e-6)
        # torch CPU tensors in and out, no copy of a contiguous input
        y = op(x.detach())
        assert isinstance(y, torch.Tensor) and y.shape == tuple(op.shape_out)


@needs_cupy
def test_cuda_cupy_zero_copy_and_cpu_agreement(t16, rng):
    import cupy as cp
    x = rimg(rng, (2, 16, 16), np.complex64)
    xd = cp.asarray(x)
    with nufft.NufftPlan((16, 16), t16, batch=2) as pc, \
            nufft.NufftPlan((16, 16), cp.asarray(t16), batch=2) as pg:
        assert pg.on_device
        yd = pg.forward(xd)
        assert isinstance(yd, cp.ndarray)
        y = pc.forward(x)
        np.testing.assert_allclose(yd.get(), y, atol=2e-4 * np.abs(y).max())
        out = cp.zeros_like(yd)
        assert pg.forward(xd, out=out) is out  # written in place: the same device pointer
        a = pg.adjoint(yd)
        np.testing.assert_allclose(a.get(), pc.adjoint(y), atol=2e-4 * float(np.abs(a).max()))
    with drft.DrftPlan((16, 16), cp.asarray(t16)) as d, drft.DrftPlan((16, 16), t16) as h:
        np.testing.assert_allclose(d.forward(xd).get(), h.forward(x),
                                   atol=1e-4 * np.abs(h.forward(x)).max())
    kk = cp.asarray(rimg(rng, (6, 8)))
    np.testing.assert_allclose(goertzel.image(kk).get(), goertzel.image(kk.get()), atol=1e-9)


@needs_torch_cuda
def test_cuda_torch_zero_copy_and_gradcheck():
    import torch
    from kray.torch import apply
    t = traj.radial(samples=8, spokes=6)
    x = torch.randn(8, 8, dtype=torch.complex64, device="cuda")
    with nufft.NufftPlan((8, 8), t, device=0) as p:
        out = torch.zeros(6, 8, dtype=torch.complex64, device="cuda")
        ptr = out.data_ptr()
        y = p.forward(x, out=out)
        assert y.data_ptr() == ptr and y.is_cuda
        with nufft.NufftPlan((8, 8), t) as pc:
            np.testing.assert_allclose(y.cpu().numpy(), pc.forward(x.cpu()).numpy(),
                                       atol=2e-4 * float(y.abs().max()))
    op = drft.operator((6, 6), traj.radial(6, 4, dtype=np.float64), dtype=np.complex128,
                       device=0)
    xd = torch.randn(6, 6, dtype=torch.complex128, device="cuda", requires_grad=True)
    assert torch.autograd.gradcheck(lambda v: apply(op, v), (xd,), eps=1e-6, atol=1e-6)
