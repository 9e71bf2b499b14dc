"""CUDA variants of kray.ct, kray.metrics and kray.fft: CuPy arrays and PyTorch CUDA tensors
are passed by pointer (the same device memory), results come back as the same kind, and equal
the CPU's to float rounding. Skipped without a GPU."""
import numpy as np
import pytest

import kray
import kray.ct as ct
import kray.fft as kf
import kray.metrics as km
from kray._array import arg
from conftest import HAVE_CUDA, HAVE_CUPY, HAVE_TORCH, to_kind, to_numpy

KINDS = [pytest.param("cupy", marks=pytest.mark.skipif(not HAVE_CUPY, reason="no CuPy/GPU")),
         pytest.param("torch-cuda", marks=pytest.mark.skipif(
             not (HAVE_TORCH and HAVE_CUDA), reason="no PyTorch with a CUDA device"))]
pytestmark = pytest.mark.skipif(not HAVE_CUDA, reason="no usable CUDA device")


def ptr(x):
    return x.data_ptr() if hasattr(x, "data_ptr") else x.data.ptr


def empty_like_kind(kind, shape, dt):
    return to_kind(np.zeros(shape, dt), kind)


def close(dev, host, rtol):
    d = to_numpy(dev)
    assert d.shape == host.shape and d.dtype == host.dtype
    assert np.abs(d - host).max() <= rtol * max(np.abs(host).max(), 1e-30)


def g2():
    return ct.Geometry.fan(24, (20, 22), 50, 110, nviews=30, det_spacing_mm=1.2)


def g3():
    return ct.Geometry.cone((12, 16), (10, 12, 14), 60, 120, nviews=20, det_spacing_mm=1.4)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dt,tol", [(np.float32, 1e-5), (np.float64, 1e-12)])
def test_projectors_zero_copy_and_equal_to_cpu(kind, dt, tol, rng):
    for g in (g2(), g3()):
        for method in ("joseph", "siddon"):
            x = rng.random(g.image_shape).astype(dt)
            cpu = ct.Projector(g, method, dt)
            P = ct.Projector(g, method, dt, device=0)
            xd = to_kind(x, kind)
            out = empty_like_kind(kind, g.sino_shape, dt)
            assert P.forward(xd, out=out) is out and arg(xd).c.data == ptr(xd)
            close(out, cpu(x), tol)
            y = cpu(x)
            close(P.adjoint(to_kind(y, kind)), cpu.adjoint(y), 10 * tol)
            assert type(P(xd)) is type(xd)
            op = ct.operator(g, method, dt, device=0)
            assert op.on_device and op.adjoint_test() < (1e-4 if dt == np.float32 else 1e-10)
            with pytest.raises(kray.LocationError):
                P(x)


@pytest.mark.skipif(not (HAVE_TORCH and HAVE_CUDA), reason="no PyTorch with a CUDA device")
def test_gradcheck_on_cuda():
    import torch
    import kray.torch as kt
    for g, method in ((ct.Geometry.fan(7, 5, 20, 40, nviews=4), "joseph"),
                      (ct.Geometry.cone((3, 4), 3, 20, 40, nviews=3), "joseph"),
                      (ct.Geometry.cone((3, 4), 3, 20, 40, nviews=3), "siddon")):
        op = ct.operator(g, method, np.float64, device=0)
        x = torch.rand(g.image_shape, dtype=torch.float64, device="cuda", requires_grad=True)
        # the CUDA 3-D adjoint sums with atomics: a transpose to rounding
        assert torch.autograd.gradcheck(lambda t: kt.apply(op, t), (x,))


@pytest.mark.parametrize("kind", KINDS)
def test_fbp_filter_and_fdk_on_device(kind, rng):
    g = g2()
    s = rng.random((2,) + g.sino_shape)
    for dt, tol in ((np.float32, 1e-5), (np.float64, 1e-11)):
        sd = to_kind(s.astype(dt), kind)
        close(ct.fbp(sd, g), ct.fbp(s.astype(dt), g), tol)
        P = ct.FbpPlan(g, dtype=dt, device=0)
        out = empty_like_kind(kind, (2,) + g.image_shape, dt)
        assert P.execute(sd, out=out) is out
        close(out, ct.fbp(s.astype(dt), g), tol)
        assert P.info["kernel"] != "cpu"
        F = ct.FilterPlan(g.det_count, 2 * g.nviews, dtype=dt, device=0)
        close(F(sd), ct.FilterPlan(g.det_count, 2 * g.nviews, dtype=dt)(s.astype(dt)), tol)
    c = g3()
    p = ct.phantom_projections(c)
    host = ct.fdk(p, c)
    close(ct.fdk(to_kind(p, kind), c), host, 1e-4)
    hv = ct.fdk(p, c, device=0)            # host arrays through a CUDA plan
    assert isinstance(hv, np.ndarray)
    close(hv, host, 1e-4)
    with ct.FdkPlan(c, device=0, slab_z=3, batch_views=7) as P:   # out of core: z slabs
        close(P(to_kind(p, kind)), host, 1e-4)
        assert P.info["slabs"] > 1 and P.info["device_bytes"] > 0


@pytest.mark.parametrize("kind", KINDS)
def test_sirt_cgls_and_voxel_bp_on_device(kind, rng):
    c = g3()
    y = ct.phantom_projections(c)
    yd = to_kind(y, kind)
    close(ct.sirt(yd, c, max_iter=5).x, ct.sirt(y, c, max_iter=5).x, 1e-4)
    close(ct.cgls(yd, c, max_iter=4).x, ct.cgls(y, c, max_iter=4).x, 1e-3)
    close(ct.voxel_bp_operator(c, device=0)(yd), ct.voxel_bp_operator(c)(y), 1e-4)
    close(ct.sirt(yd, c, max_iter=3, backprojector="voxel").x,
          ct.sirt(y, c, max_iter=3, backprojector="voxel").x, 1e-4)


@pytest.mark.parametrize("kind", KINDS)
def test_metrics_and_fft_on_device(kind, rng):
    ref = rng.random((16, 18))
    x = ref + 0.1 * rng.standard_normal(ref.shape)
    m = km.compute(to_kind(x, kind), to_kind(ref, kind))
    h = km.compute(x, ref)
    for k in h:
        assert m[k] == pytest.approx(h[k], rel=1e-12)
    z = (x + 1j * ref).astype(np.complex64)
    zd = to_kind(z, kind)
    close(kf.fft(zd, axes=-1, centered=True),
          np.fft.fftshift(np.fft.fft(np.fft.ifftshift(z, -1), axis=-1), -1).astype(np.complex64),
          1e-5)
    assert np.array_equal(to_numpy(kf.fftshift(zd)), np.fft.fftshift(z))
    with kf.FFTPlan(z.shape, np.complex64, device=0) as P:
        close(P(zd), np.fft.fft2(z).astype(np.complex64), 1e-5)
