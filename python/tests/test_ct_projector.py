"""kray.ct projectors, operators, SIRT and CGLS: closed forms, adjoint tests, gradcheck, the
CLI (bit-identical) and scikit-image's radon."""
import warnings

import numpy as np
import pytest

import kray
import kray.ct as ct
from conftest import needs_torch
from cli_util import run_cli


def chord(p, d, lo, hi):
    """Length of the line p + t d (|d| = 1) inside the box [lo, hi] (slab method)."""
    t0, t1 = -np.inf, np.inf
    for a in range(len(p)):
        if abs(d[a]) < 1e-300:
            if not lo[a] <= p[a] <= hi[a]:
                return 0.0
            continue
        u, w = (lo[a] - p[a]) / d[a], (hi[a] - p[a]) / d[a]
        t0, t1 = max(t0, min(u, w)), min(t1, max(u, w))
    return max(t1 - t0, 0.0)


def geoms2d():
    return [ct.Geometry.parallel(13, (9, 11), voxel_mm=(0.8, 1.1), nviews=7, det_offset_mm=0.3),
            ct.Geometry.fan(15, (10, 10), 40, 90, nviews=9, det_spacing_mm=1.5,
                            cor_offset_mm=0.2),
            ct.Geometry.fan(15, (10, 10), 40, 90, nviews=9, detector="equiangular")]


def cone():
    return ct.Geometry.cone((7, 9), (5, 6, 7), 40, 80, voxel_mm=(1.0, 0.9, 1.1), nviews=6,
                            det_spacing_mm=(1.7, 1.6), det_offset_mm=(0.4, -0.3))


@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_siddon_of_a_constant_image_is_the_chord_length(dt):
    # Siddon sums exact intersection lengths: a constant image projects to the ray's chord
    # through the image box (parallel and fan 2-D, cone 3-D).
    tol = 1e-12 if dt == np.float64 else 2e-5
    for g in geoms2d() + [cone()]:
        img = np.full(g.image_shape, 2.0, dt)
        p = ct.Projector(g, "siddon", dt)(img)
        gr, v = g.grid, g.views
        nd = g.ndim
        n = np.array(gr["shape"][::-1], float)
        vox, off = np.array(gr["voxel_mm"]), np.array(gr["offset_mm"])
        lo, hi = off - n * vox / 2, off + n * vox / 2
        want = np.zeros(p.shape)
        for iv in range(g.nviews):
            for idx in np.ndindex(p.shape[1:]):
                a = idx[-1]
                pos = v["det"][iv] + (a - (g.det_count - 1) / 2) * v["u"][iv]
                if nd == 3:
                    pos = pos + (idx[0] - (g.det_rows - 1) / 2) * v["v"][iv]
                if g.type == "parallel2d":
                    d = v["ray"][iv]
                elif g.type == "fan2d-equiangular":
                    R = np.linalg.norm(v["det"][iv] - v["src"][iv])
                    gam = (a - (g.det_count - 1) / 2) * np.linalg.norm(v["u"][iv]) / R
                    nrm = (v["det"][iv] - v["src"][iv]) / R
                    d = np.cos(gam) * nrm + np.sin(gam) * v["u"][iv] / np.linalg.norm(v["u"][iv])
                    pos = v["src"][iv]
                else:
                    d = pos - v["src"][iv]
                d = d[:nd] / np.linalg.norm(d[:nd])
                want[(iv,) + idx] = 2.0 * chord(pos[:nd], d, lo, hi)
        np.testing.assert_allclose(p, want, rtol=tol, atol=tol * 10, err_msg=g.type)


def test_exact_phantom_projections_are_the_phantom_line_integrals():
    g = ct.Geometry.cone((5, 6), (8, 8, 8), 30, 60, voxel_mm=1.0, nviews=3)
    p = ct.phantom_projections(g, "modified", 1, np.float64)
    v = g.views
    src, dst = [], []
    for iv in range(3):
        for b in range(5):
            for a in range(6):
                pix = v["det"][iv] + (a - 2.5) * v["u"][iv] + (b - 2) * v["v"][iv]
                src.append(v["src"][iv])
                dst.append(2 * pix - v["src"][iv])
    h = 4.0  # half-width of the volume box in mm: the phantom's unit
    li = kray.phantom.line_integrals(np.array(src) / h, np.array(dst) / h, "modified", scale=h)
    assert p.shape == (3, 5, 6) and np.abs(p).max() > 1
    np.testing.assert_allclose(p.ravel(), li, rtol=1e-11, atol=1e-11)


@pytest.mark.parametrize("dt,tol", [(np.float32, 1e-5), (np.float64, 1e-13)])
@pytest.mark.parametrize("method", ["joseph", "siddon"])
def test_every_projector_operator_passes_the_adjoint_test(dt, tol, method):
    for g in geoms2d() + [cone()]:
        for rays in ((1, 2) if g.ndim == 3 else (1,)):
            op = ct.operator(g, method, dt, rays)
            assert op.shape_in == g.image_shape and op.shape_out == g.sino_shape
            assert op.dtype == dt
            assert op.adjoint_test() < tol, (g.type, method, rays)


def test_plan_operator_and_batches_agree(rng):
    g = geoms2d()[1]
    P = ct.Projector(g, "joseph", np.float64)
    op = ct.operator(g, "joseph", np.float64)
    x = rng.random((3,) + g.image_shape)
    y = P(x)
    assert y.shape == (3,) + g.sino_shape
    for i in range(3):
        assert np.array_equal(y[i], op(x[i]))
    s = rng.random(g.sino_shape)
    assert np.array_equal(P.adjoint(s), op.adjoint(s))
    out = np.empty(g.sino_shape)
    assert P.forward(x[0], out=out) is out and np.array_equal(out, y[0])
    with pytest.raises(kray.DTypeError):
        P(x.astype(np.float32))
    with pytest.raises(kray.DimensionError):
        P(np.zeros((4, 4)))
    assert P.geometry == g and P.geometry.to_json() == g.to_json()
    with P:
        pass
    with pytest.raises(ValueError):
        P(x[0])


@needs_torch
def test_gradcheck_2d_and_3d():
    import torch
    import kray.torch as kt
    for g, method in ((ct.Geometry.fan(7, 5, 20, 40, nviews=4), "joseph"),
                      (ct.Geometry.parallel(7, 5, nviews=4), "siddon"),
                      (ct.Geometry.cone((3, 4), 3, 20, 40, nviews=3), "joseph"),
                      (ct.Geometry.cone((3, 4), 3, 20, 40, nviews=3), "siddon")):
        op = ct.operator(g, method, np.float64, ray_factor=2 if g.ndim == 3 else 1)
        x = torch.rand(g.image_shape, dtype=torch.float64, requires_grad=True)
        assert torch.autograd.gradcheck(lambda t: kt.apply(op, t), (x,))
        y = torch.rand(g.sino_shape, dtype=torch.float64, requires_grad=True)
        assert torch.autograd.gradcheck(lambda t: kt.apply_adjoint(op, t), (y,))


def test_against_scikit_image_radon():
    radon = pytest.importorskip("skimage.transform").radon
    n, nv = 48, 30
    # iradon's frame: the axis at pixel n // 2 (kray: image and detector shifted by half a pixel),
    # its angle -theta.
    g = ct.Geometry.parallel(n, n, 1.0, nviews=nv, det_offset_mm=-0.5, offset_mm=(-0.5, -0.5))
    yy, xx = np.mgrid[:n, :n] - n // 2
    blob = np.exp(-((xx - 5) ** 2 + (yy + 3) ** 2) / 40.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk = radon(blob, theta=-np.arange(nv) * 180.0 / nv, circle=True).T
    kr = ct.Projector(g, "joseph", np.float64)(blob)
    assert np.abs(sk - kr).max() < 5e-3 * np.abs(kr).max()


def _cone_files(tmp_path, rng):
    g = cone()
    gp = tmp_path / "g.json"
    g.write(gp)
    vol = rng.random(g.image_shape).astype(np.float32)
    np.save(tmp_path / "vol.npy", vol)
    return g, str(gp), vol


@pytest.mark.parametrize("method,rays", [("joseph", 1), ("siddon", 2)])
def test_project_and_backproject_equal_the_cli(cli, tmp_path, rng, method, rays):
    g, gp, vol = _cone_files(tmp_path, rng)
    P = ct.Projector(g, method, np.float32, rays)
    proj = P(vol)
    run_cli(cli, "project", "--geom", gp, "-m", method, "--rays", rays, tmp_path / "vol.npy",
            tmp_path / "p.npy")
    assert np.array_equal(np.load(tmp_path / "p.npy"), proj)
    run_cli(cli, "backproject", "--geom", gp, "-m", method, "--rays", rays, tmp_path / "p.npy",
            tmp_path / "b.npy")
    assert np.array_equal(np.load(tmp_path / "b.npy"), P.adjoint(proj))
    run_cli(cli, "backproject", "--backprojector", "voxel", "--geom", gp, tmp_path / "p.npy",
            tmp_path / "bv.npy")
    B = ct.voxel_bp_operator(g)
    assert B.shape_in == g.sino_shape and B.shape_out == g.image_shape
    assert np.array_equal(np.load(tmp_path / "bv.npy"), B(proj))
    with pytest.raises(kray.NotSupportedError):
        B.adjoint(vol)


def test_phantom_projections_equal_the_cli(cli, tmp_path):
    g = cone()
    g.write(tmp_path / "g.json")
    run_cli(cli, "project", "--geom", tmp_path / "g.json", "--phantom", "original", "--rays", 2,
            tmp_path / "p.npy")
    assert np.array_equal(np.load(tmp_path / "p.npy"),
                          ct.phantom_projections(g, "original", 2, np.float32))


def test_sirt_and_cgls_equal_the_cli(cli, tmp_path, rng):
    g, gp, vol = _cone_files(tmp_path, rng)
    y = ct.Projector(g)(vol)
    np.save(tmp_path / "y.npy", y)
    run_cli(cli, "sirt", "--geom", gp, "--iters", 6, "--nonneg", tmp_path / "y.npy",
            tmp_path / "s.npy")
    r = ct.sirt(y, g, max_iter=6, nonneg=True)
    assert r.iterations == 6 and r.history[0] == 1.0 and r.history[6] < r.history[1]
    assert np.array_equal(np.load(tmp_path / "s.npy"), r.x)
    run_cli(cli, "sirt", "--geom", gp, "--iters", 4, "--backprojector", "voxel",
            tmp_path / "y.npy", tmp_path / "sv.npy")
    rv = ct.sirt(y, g, max_iter=4, backprojector="voxel")
    assert np.array_equal(np.load(tmp_path / "sv.npy"), rv.x)
    run_cli(cli, "cgls", "--geom", gp, "--iters", 5, "--lambda", 0.1, tmp_path / "y.npy",
            tmp_path / "c.npy")
    c = ct.cgls(y, g, max_iter=5, lam=0.1)
    assert np.array_equal(np.load(tmp_path / "c.npy"), c.x)


def test_sirt_plan_reuse_and_warm_start(rng):
    g = geoms2d()[0]
    op = ct.operator(g, "siddon", np.float64)
    x = rng.random(g.image_shape)
    y = op(x)
    with ct.Sirt(op) as s:
        a = s.run(y, max_iter=30)
        b = s.run(y, x0=a.x, max_iter=30)
    assert b.rel_residual < a.rel_residual < 0.2
    z = ct.sirt(np.zeros_like(y), g, max_iter=5, method="siddon")
    assert z.iterations == 0 and not z.x.any()
    r = kray.cgls(op, y, max_iter=200, tol=1e-10)
    assert np.linalg.norm(op(r.x) - y) < 1e-5 * np.linalg.norm(y)


@needs_torch
def test_torch_cpu_tensors_in_and_out(rng):
    import torch
    g = geoms2d()[0]
    x = rng.random(g.image_shape).astype(np.float32)
    P = ct.Projector(g)
    y = P(torch.from_numpy(x))
    assert isinstance(y, torch.Tensor) and np.array_equal(y.numpy(), P(x))
    r = ct.fbp(y, g)
    assert isinstance(r, torch.Tensor) and np.array_equal(r.numpy(), ct.fbp(P(x), g))
    c = cone()
    p = ct.phantom_projections(c)
    v = ct.fdk(torch.from_numpy(p), c)
    assert isinstance(v, torch.Tensor) and np.array_equal(v.numpy(), ct.fdk(p, c))
    # a non-contiguous view is copied once, not misread
    xt = torch.from_numpy(np.ascontiguousarray(x.T)).T
    assert np.array_equal(P(xt).numpy(), P(x))


@needs_torch
def test_torch_module_gradient_is_the_backprojected_residual(rng):
    import torch
    import kray.torch as kt
    c = cone()
    A = kt.Operator(ct.operator(c, "joseph", np.float64))
    y = torch.from_numpy(rng.random(c.sino_shape))
    x = torch.zeros(c.image_shape, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.SGD([x], lr=2e-3)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = ((A(x) - y) ** 2).sum()
        loss.backward()
        if not losses:
            P = ct.Projector(c, dtype=np.float64)
            want = 2 * P.adjoint(P(x.detach().numpy()) - y.numpy())
            np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12, atol=1e-12)
        losses.append(loss.item())
        opt.step()
    assert all(b < a for a, b in zip(losses, losses[1:]))
    assert isinstance(A.H(y), torch.Tensor) and A.H(y).shape == c.image_shape
