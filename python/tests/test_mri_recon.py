"""kray.mri.lsq, offres, cgsense, sense, coils, ismrmrd: against the CLI (bit-identical),
direct sums and closed forms; adjoint tests; autograd; CUDA variants."""
import subprocess

import numpy as np
import pytest

import kray
from kray.mri import cgsense, coils, drft, ismrmrd, lsq, nufft, offres, sense, traj
from conftest import needs_cupy, needs_torch, needs_torch_cuda


def rimg(rng, shape, dt=np.complex64):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)


def run(cli, *args):
    subprocess.run([cli, *args, "-q", "--backend", "cpu"], check=True)


@pytest.fixture(scope="module")
def maps4():
    cs, rings = coils.layout_mrxcat(4, 4, 40.0)
    assert rings == [4]
    return coils.maps(cs, (24, 24), voxel_mm=(2.0, 2.0, 5.0), norm="rss-centre")


@pytest.fixture(scope="module")
def obj():
    yy, xx = np.mgrid[-12:12, -12:12]
    return (np.exp(-(xx ** 2 / 20 + yy ** 2 / 14)) * (1 + 0.3j)).astype(np.complex64)


def test_coil_field_closed_form_and_layout():
    K, E = coils.elliptic_ke(0.0)
    assert abs(K - np.pi / 2) < 1e-15 and abs(E - np.pi / 2) < 1e-15
    K, E = coils.elliptic_ke(0.5)
    assert abs(K - 1.8540746773013719) < 1e-13 and abs(E - 1.3506438810476755) < 1e-13
    c = coils.Coil(centre_mm=(0, 0, 0), normal=(0, 0, 1), radius_mm=30.0)
    for z in (0.0, 10.0, 50.0):   # on the axis: B_z = mu0 a^2 / (2 (a^2 + z^2)^(3/2))
        b = coils.field(c, (0.0, 0.0, z), 1.0)
        a = 0.03
        ref = coils.MU0 * a * a / (2 * (a * a + (z / 1e3) ** 2) ** 1.5)
        assert abs(b[2] - ref) < 1e-12 * ref and abs(b[0]) < 1e-20
    cs, rings = coils.layout_mrxcat(16, 6, 200.0)
    assert rings == [5, 6, 5] and len(cs) == 16
    with pytest.raises(kray.InvalidArgumentError):
        coils.layout_mrxcat(0, 6, 200.0)


def test_coil_maps_points_and_multicoil(maps4, obj, rng):
    assert maps4.shape == (4, 24, 24) and maps4.dtype == np.complex64
    rss0 = np.sqrt(np.sum(np.abs(maps4[:, 12, 12]) ** 2))
    assert abs(rss0 - 1) < 1e-5                # normalised at the centre
    cs, _ = coils.layout_mrxcat(4, 4, 40.0)
    pts = np.array([[(i - 12) * 2.0, (j - 12) * 2.0, 0.0] for j, i in ((3, 5), (20, 11))])
    s = coils.sens_points(cs, pts, norm="rss-centre")
    assert s.shape == (4, 2)
    np.testing.assert_allclose(s[:, 0], maps4[:, 3, 5], rtol=1e-5)
    np.testing.assert_allclose(s[:, 1], maps4[:, 20, 11], rtol=1e-5)
    k = coils.kspace(obj, maps4)
    ref = np.fft.fftshift(np.fft.fft2(np.fft.ifftshift(maps4 * obj, axes=(-2, -1)),
                                      norm="ortho"), axes=(-2, -1))
    np.testing.assert_allclose(k, ref, atol=1e-5 * np.abs(ref).max())
    im = coils.images(k)
    np.testing.assert_allclose(im, maps4 * obj, atol=1e-5)
    np.testing.assert_allclose(coils.rss(im), np.sqrt(np.sum(np.abs(im) ** 2, 0)), rtol=1e-5,
                               atol=1e-6)
    comb = coils.combine(im, maps4)
    m = np.sum(np.abs(maps4) ** 2, 0) > 1e-6
    np.testing.assert_allclose(comb[m], obj[m], atol=1e-4)
    W = rimg(rng, (4, 4), np.complex128)
    np.testing.assert_allclose(coils.apply(im, W), np.einsum("rc,cyx->ryx", W, im), atol=1e-4)


def test_cartesian_lines_and_undersample(rng):
    f = sense.lines(12, accel=3, offset=1, nacs=4)
    assert [j for j in range(12) if f[j] & sense.IMAGING] == [1, 4, 7, 10]
    assert [j for j in range(12) if f[j] & sense.CALIBRATION] == [4, 5, 6, 7]
    assert sense.count(f) == 6 and sense.count(f, sense.CALIBRATION) == 4
    k = rimg(rng, (2, 12, 5))
    u = sense.undersample(k, f)
    np.testing.assert_array_equal(u[:, f == 0], 0)
    np.testing.assert_array_equal(u[:, f != 0], k[:, f != 0])
    assert np.all(k != 0)                       # the input is untouched
    sense.undersample(k, f, inplace=True)
    np.testing.assert_array_equal(k, u)


def test_sense_bit_identical_to_cli_and_gfactor(cli, tmp_path, maps4, obj):
    k = coils.kspace(obj, maps4)
    k = sense.undersample(k, sense.lines(24, 2))
    mp, kp, xp, gp = (str(tmp_path / n) for n in ("m.npy", "k.npy", "x.npy", "g.npy"))
    np.save(mp, maps4)
    np.save(kp, k)
    run(cli, "sense", "--maps", mp, "-R", "2", "--gfactor-out", gp, kp, xp)
    with sense.SensePlan(maps4, accel=2) as p:
        assert p.info["method"] == "lattice" and p.info["fold"] == 2
        x, g = p(k, gfactor=True)
        np.testing.assert_array_equal(x, np.load(xp))
        np.testing.assert_array_equal(g, np.load(gp))
        np.testing.assert_array_equal(p.gfactor(), g)
        np.testing.assert_array_equal(p.unfold(coils.images(k)), x)
        m = np.sum(np.abs(maps4) ** 2, 0) > 1e-3
        np.testing.assert_allclose(x[m], obj[m], atol=1e-3)
        assert np.all(g[m] >= 1 - 1e-5)
    with sense.SensePlan(maps4, lines=sense.lines(24, 2), lam=0.0) as p:
        np.testing.assert_array_equal(p(k), x)


def test_espirit_bit_identical_to_cli(cli, tmp_path, maps4, obj):
    k = coils.kspace(obj, maps4)
    kp, xp, mp = (str(tmp_path / n) for n in ("k.npy", "x.npy", "m.npy"))
    np.save(kp, k)
    run(cli, "sense", "--calib", "12", "--maps-out", mp, kp, xp)
    m, ev = sense.espirit(k, calib=12, eigenvalues=True)
    assert m.shape == (4, 24, 24) and ev.shape == (24, 24)
    np.testing.assert_array_equal(m, np.load(mp))


def test_sense_operator_adjoint_and_cg(maps4, obj):
    E = sense.operator(maps4, sense.lines(24, 2, nacs=6))
    assert E.shape_out[-3:] == (4, 24, 24)
    tol = 1e-5
    assert E.adjoint_test() < tol
    y = E(obj)
    r = kray.cg(E.N, E.adjoint(y), max_iter=60, tol=1e-7)
    m = np.sum(np.abs(maps4) ** 2, 0) > 1e-3
    np.testing.assert_allclose(r.x.reshape(24, 24)[m], obj[m], atol=2e-3)


def _cg_data(maps4, obj):
    t = traj.radial(samples=24, spokes=30, oversampling=2)
    with nufft.NufftPlan((24, 24), t, batch=4, eps=1e-6) as p:
        y = p.forward(maps4 * obj)
    return t, y


def test_cgsense_bit_identical_to_cli(cli, tmp_path, maps4, obj):
    t, y = _cg_data(maps4, obj)
    w = traj.dcf(t, "radial")
    tp, yp, mp, wp, xp, ap = (str(tmp_path / n) for n in ("t.npy", "y.npy", "m.npy", "w.npy",
                                                          "x.npy", "a.npy"))
    for a, p in ((t, tp), (y, yp), (maps4, mp), (w, wp)):
        np.save(p, a)
    run(cli, "cgsense", "--maps", mp, "-w", wp, "-i", "8", "--tol", "1e-9", "--adjoint-out", ap,
        tp, yp, xp)
    with cgsense.CgsensePlan((24, 24), t, maps4, dcf=w) as p:
        assert p.coils == 4 and p.samples == t.shape[0] * t.shape[1]
        r = p.solve(y, max_iter=8, tol=1e-9)
        assert r.iterations == 8
        np.testing.assert_array_equal(r.x, np.load(xp))
        np.testing.assert_array_equal(p.adjoint_image(y), np.load(ap))
        assert p.linop().adjoint_test() < 1e-5 and p.normal_linop().adjoint_test() < 1e-5
        r2 = p.solve(y, max_iter=40, tol=1e-6)
        assert np.linalg.norm(r2.x - obj) < 5e-3 * np.linalg.norm(obj)
        # rhs = E^H D y by the encoding operator: A = D^(1/2) E, so A^H (sqrt(D) y)
        A = p.linop()
        b = A.adjoint((y * np.sqrt(w)).astype(np.complex64).reshape(A.shape_out))
        np.testing.assert_allclose(b.reshape(24, 24), p.rhs(y), rtol=1e-4,
                                   atol=1e-4 * np.abs(b).max())


def test_cgsense_toeplitz_and_maps(maps4, obj):
    t, y = _cg_data(maps4, obj)
    w = traj.dcf(t, "radial")
    with cgsense.CgsensePlan((24, 24), t, maps4, dcf=w, normal="toeplitz") as p:
        T = lsq.ToeplitzPlan((24, 24), t, w).linop()
        p.set_fhf(T)
        N = p.normal_linop()
        x = obj.astype(np.complex64)
        with cgsense.CgsensePlan((24, 24), t, maps4, dcf=w) as q:
            ref = q.normal_linop()(x)
        np.testing.assert_allclose(N(x), ref, atol=1e-3 * np.abs(ref).max())
    est = cgsense.estimate_maps((24, 24), t, y, dcf=w, calib_radius=6)
    assert est.shape == (4, 24, 24)
    m = np.abs(obj) > 0.1
    r = np.sqrt(np.sum(np.abs(est) ** 2, 0))
    np.testing.assert_allclose(r[m], 1, atol=1e-4)


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_lsq_toeplitz_offres_adjoint_and_values(rng, dt):
    t = traj.radial(samples=12, spokes=10, oversampling=1, dtype=np.float64)
    w = traj.dcf(t, "radial")
    tol = 1e-5 if dt == np.complex64 else 1e-11
    x = rimg(rng, (12, 12), dt)
    d = drft.DrftPlan((12, 12), t, weights=w)
    ref = d.adjoint(d.forward(x.astype(np.complex128)))  # F^H W F (phi = 1)
    if True:
        with lsq.ToeplitzPlan((12, 12), t, w, dtype=dt, qmethod="drft") as T:
            np.testing.assert_allclose(T(x), ref, atol=1e-4 * np.abs(ref).max())
            np.testing.assert_allclose(T.q(), d.q(twice=True, dtype=dt),
                                       atol=1e-4 * np.abs(T.q()).max())
            mp = rimg(rng, (2, 12, 12), dt)
            s = T.execute_maps(mp, x)
            r2 = sum(np.conj(mp[c]) * T(mp[c] * x) for c in range(2))
            np.testing.assert_allclose(s, r2, atol=1e-5 * np.abs(r2).max())
            L = T.linop()
        assert L.adjoint_test() < tol
    for normal in ("toeplitz", "drft", "nufft"):
        with lsq.LsqPlan((12, 12), t, w, dtype=dt, normal=normal) as p:
            assert p.samples == 120
            np.testing.assert_allclose(p.normal(x), ref, atol=2e-3 * np.abs(ref).max())
            assert p.linop().adjoint_test() < tol
            assert p.normal_linop().adjoint_test() < tol
            y = rimg(rng, (10, 12), dt)
            np.testing.assert_allclose(p.rhs(y), d.adjoint(y.astype(np.complex128)),
                                       atol=1e-3 * np.abs(p.rhs(y)).max())
    fm = rng.uniform(-30, 30, (12, 12))
    tm = np.linspace(0, 4e-3, 120).reshape(10, 12)
    E = offres.operator((12, 12), t, fm, tm, dtype=dt, exact=True)
    S, info = offres.operator((12, 12), t, fm, tm, dtype=dt, tol=1e-5, info=True)
    assert info["segments"] >= 1 and info["interp_err"] <= 1e-5
    assert E.adjoint_test() < tol and S.adjoint_test() < tol
    # exact operator against the direct sum
    kk = t.reshape(-1, 3)
    yy, xx = np.meshgrid(np.arange(12) - 6, np.arange(12) - 6, indexing="ij")
    ph = np.exp(-2j * np.pi * (np.outer(kk[:, 0], xx.ravel()) / 12 +
                               np.outer(kk[:, 1], yy.ravel()) / 12 +
                               np.outer(tm.ravel(), fm.ravel())))
    ref = ph @ x.ravel().astype(np.complex128)
    got = np.asarray(E(x)).ravel()
    np.testing.assert_allclose(got, ref, atol=1e-4 * np.abs(ref).max())
    np.testing.assert_allclose(np.asarray(S(x)).ravel(), ref, atol=1e-3 * np.abs(ref).max())
    b = offres.interp([0.0, 1e-3], [0.0, 10.0], [1.0, 1.0], [0.0, 1e-3])
    np.testing.assert_allclose(b, [[1, 0], [0, 1]], atol=1e-9)


@needs_torch
def test_gradcheck_cgsense_toeplitz(maps4):
    import torch
    from kray.torch import apply
    t = traj.radial(samples=6, spokes=5, dtype=np.float64)
    m = np.ascontiguousarray(maps4[:, 9:15, 9:15])
    with cgsense.CgsensePlan((6, 6), t, m, eps=1e-6) as p:
        E = p.linop()
        x = torch.randn(6, 6, dtype=torch.complex64, requires_grad=True)
        y = apply(E, x)
        y.abs().sum().backward()
        assert x.grad.shape == (6, 6)
        # The same encoding in float64: coil maps, then a batched complex128 NUFFT.
        F = nufft.NufftPlan((6, 6), t, dtype=np.complex128, eps=1e-12, batch=4).linop()
        S = torch.from_numpy(m.astype(np.complex128))
        enc = lambda v: apply(F, (S * v).reshape(F.shape_in))  # noqa: E731
        x64 = x.detach().to(torch.complex128).requires_grad_()
        ref = E(x.detach()).numpy()
        assert np.abs(enc(x64).detach().numpy().reshape(ref.shape) - ref).max() < \
            1e-5 * np.abs(ref).max()
        assert torch.autograd.gradcheck(enc, (x64,), eps=1e-6, atol=1e-6)
    T = lsq.ToeplitzPlan((6, 6), t, dtype=np.complex128, qmethod="drft").linop()
    S = sense.operator(m.astype(np.complex64))
    x = torch.randn(6, 6, dtype=torch.complex128, requires_grad=True)
    assert torch.autograd.gradcheck(lambda v: apply(T, v), (x,), eps=1e-6, atol=1e-6)
    L = lsq.LsqPlan((6, 6), t, dtype=np.complex128, normal="drft").linop()
    assert torch.autograd.gradcheck(lambda v: apply(L, v), (x,), eps=1e-6, atol=1e-6)
    O = offres.operator((6, 6), t, np.full((6, 6), 20.0), np.linspace(0, 1e-3, t.size // 3),
                        dtype=np.complex128, exact=True)
    assert torch.autograd.gradcheck(lambda v: apply(O, v), (x,), eps=1e-6, atol=1e-6)
    xs = torch.randn(6, 6, dtype=torch.complex64, requires_grad=True)
    ys = apply(S, xs)
    g = torch.randn_like(ys)
    (ys * g.conj()).real.sum().backward()
    ref = torch.from_numpy(np.asarray(S.adjoint(g.numpy())))
    assert torch.allclose(xs.grad.reshape(ref.shape), ref, atol=1e-5)


def test_ismrmrd_roundtrip_or_not_supported(tmp_path, maps4, obj):
    k = coils.kspace(obj, maps4)
    f = sense.lines(24, 2, nacs=8)
    p = str(tmp_path / "d.h5")
    if not ismrmrd.available():
        with pytest.raises(kray.NotSupportedError):
            ismrmrd.write(p, k, f)
        return
    noise = (np.random.default_rng(3).standard_normal((4, 256)) * (1 + 0j)).astype(np.complex64)
    ismrmrd.write(p, k, f, noise=noise, accel=2)
    d = ismrmrd.read(p)
    u = sense.undersample(k, f)
    np.testing.assert_array_equal(d["kspace"], u)
    np.testing.assert_array_equal(d["lines"], f)
    assert d["nc"] == 4 and d["accel"] == 2 and d["noise"].shape == (4, 256)
    np.testing.assert_allclose(d["psi"], d["psi"].conj().T)
    np.testing.assert_allclose(np.diag(d["psi"]).real, np.var(noise, axis=1), rtol=0.05)


@needs_cupy
def test_cuda_cupy_sense_cgsense_coils(maps4, obj):
    import cupy as cp
    k = sense.undersample(coils.kspace(obj, maps4), sense.lines(24, 2))
    md, kd = cp.asarray(maps4), cp.asarray(k)
    with sense.SensePlan(md, accel=2) as g, sense.SensePlan(maps4, accel=2) as h:
        xd, gd = g(kd, gfactor=True)
        x, gg = h(k, gfactor=True)
        np.testing.assert_allclose(xd.get(), x, atol=1e-4)
        np.testing.assert_allclose(gd.get(), gg, rtol=1e-4)
    np.testing.assert_allclose(coils.images(kd).get(), coils.images(k), atol=1e-5)
    t, y = _cg_data(maps4, obj)
    with cgsense.CgsensePlan((24, 24), t, md) as g, cgsense.CgsensePlan((24, 24), t, maps4) as h:
        rd = g.solve(cp.asarray(y), max_iter=10)
        r = h.solve(y, max_iter=10)
        np.testing.assert_allclose(rd.x.get(), r.x, atol=1e-3 * np.abs(r.x).max())
        assert g.linop().adjoint_test() < 1e-5
    tr = traj.radial(samples=12, spokes=10, dtype=np.float64)
    w = traj.dcf(tr, "radial")
    x = (obj[6:18, 6:18] * 1).astype(np.complex64)
    with lsq.ToeplitzPlan((12, 12), tr, w, device=0) as Td, lsq.ToeplitzPlan((12, 12), tr, w) as T:
        ref = T(x)
        np.testing.assert_allclose(Td(cp.asarray(x)).get(), ref, atol=1e-4 * np.abs(ref).max())
    with lsq.LsqPlan((12, 12), tr, w, device=0) as Ld:
        assert Ld.linop().adjoint_test() < 1e-5
    fm = np.full((12, 12), 15.0)
    tm = np.linspace(0, 2e-3, tr.size // 3)
    Od = offres.operator((12, 12), tr, fm, tm, device=0)
    Oh = offres.operator((12, 12), tr, fm, tm)
    assert Od.adjoint_test() < 1e-5
    ref = Oh(x)
    np.testing.assert_allclose(Od(cp.asarray(x)).get(), ref, atol=1e-4 * np.abs(ref).max())
    cs, _ = coils.layout_mrxcat(4, 4, 40.0)
    np.testing.assert_allclose(coils.maps(cs, (24, 24), (2.0, 2.0, 5.0), norm="rss-centre",
                                          device=0).get(), maps4, atol=1e-4)


@pytest.mark.parametrize("dev", ["cpu", pytest.param("cuda", marks=needs_torch_cuda)])
@needs_torch
def test_torch_cgsense_gradient(maps4, dev):
    """d/dx |E x|^2 = 2 E^H E x (PyTorch's convention for complex inputs), on CPU and CUDA
    tensors (the plan lives where the maps do)."""
    import torch
    from kray.torch import Operator
    t = traj.radial(samples=6, spokes=5)
    m = torch.from_numpy(np.ascontiguousarray(maps4[:, 9:15, 9:15])).to(dev)
    with cgsense.CgsensePlan((6, 6), t, m) as p:
        E = Operator(p.linop())
        x = torch.randn(6, 6, dtype=torch.complex64, device=dev, requires_grad=True)
        y = E(x)
        assert y.device == x.device and tuple(y.shape) == tuple(E.op.shape_out)
        y.abs().pow(2).sum().backward()
        ref = 2 * E.op.normal(x.detach())
        assert torch.allclose(x.grad.reshape(ref.shape), ref,
                              atol=1e-4 * float(ref.abs().max()))
