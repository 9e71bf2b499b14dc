"""kray.reg: operators (adjoint tests, closed forms), proximal maps against closed forms, the
solvers on small problems (FISTA-TV against CGLS on a CT phantom), and `kray ctreg`."""
import numpy as np
import pytest

import kray
from kray import reg
from cli_util import run_cli
from conftest import needs_cupy, needs_torch, needs_torch_cuda


# ---- operators -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-5), (np.float64, 1e-12),
                                       (np.complex64, 1e-5), (np.complex128, 1e-12)])
@pytest.mark.parametrize("bc", ["neumann", "periodic"])
def test_fdiff_adjoint(dtype, tol, bc):
    D = reg.fdiff((5, 6, 7), axes=(0, 2), boundary=bc, dtype=dtype)
    assert D.shape_in == (5, 6, 7) and D.shape_out == (2, 5, 6, 7)
    assert D.adjoint_test() < tol


def test_fdiff_values(rng):
    x = rng.standard_normal((6, 7))
    D = reg.fdiff(x.shape, dtype=np.float64)
    d = D(x)
    ref_x = np.zeros_like(x)
    ref_x[:, :-1] = x[:, 1:] - x[:, :-1]
    ref_y = np.zeros_like(x)
    ref_y[:-1] = x[1:] - x[:-1]
    np.testing.assert_allclose(d[0], ref_x, atol=1e-14)
    np.testing.assert_allclose(d[1], ref_y, atol=1e-14)
    P = reg.fdiff(x.shape, axes=-1, boundary="periodic", dtype=np.float64)
    np.testing.assert_allclose(P(x)[0], np.roll(x, -1, axis=1) - x, atol=1e-14)
    # the adjoint is minus the divergence: D^T applied to the explicit matrix
    M = np.stack([D(e.reshape(x.shape)).ravel() for e in np.eye(x.size)], axis=1)
    np.testing.assert_allclose(D.adjoint(d).ravel(), M.T @ d.ravel(), atol=1e-12)


@pytest.mark.parametrize("kind", reg.WAVELETS)
@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-5), (np.float64, 1e-12),
                                       (np.complex128, 1e-12)])
def test_wavelet_adjoint_and_inverse(kind, dtype, tol, rng):
    W = reg.wavelet((16, 32), kind=kind, levels=2, shift=(3, 5), dtype=dtype)
    assert W.adjoint_test() < tol
    x = rng.standard_normal((16, 32)).astype(dtype)
    c = W(x)
    np.testing.assert_allclose(np.linalg.norm(c), np.linalg.norm(x), rtol=tol * 10)
    np.testing.assert_allclose(W.adjoint(c), x, atol=tol * 10)


def test_haar_closed_form(rng):
    x = rng.standard_normal(8)
    W = reg.wavelet(8, kind="haar", levels=1, dtype=np.float64)
    c = W(x)
    s = np.sqrt(2.0)
    np.testing.assert_allclose(c[:4], (x[0::2] + x[1::2]) / s, atol=1e-14)
    np.testing.assert_allclose(c[4:], (x[0::2] - x[1::2]) / s, atol=1e-14)
    # a shift rolls the input first
    Ws = reg.wavelet(8, kind="haar", levels=1, shift=(1,), dtype=np.float64)
    np.testing.assert_allclose(Ws(x), W(np.roll(x, 1)), atol=1e-14)


def test_operator_errors():
    with pytest.raises(kray.DimensionError):
        reg.wavelet((6, 8), kind="haar", levels=2)
    with pytest.raises(kray.InvalidArgumentError):
        reg.fdiff((4, 4), axes=2)
    with pytest.raises(kray.InvalidArgumentError):
        reg.fdiff((4, 4), boundary="mirror")
    with pytest.raises(kray.InvalidArgumentError):
        reg.wavelet((8, 8), kind="db3")
    with pytest.raises(kray.DTypeError):
        reg.fdiff((4, 4), dtype=np.int32)


def test_norm2_estimate(rng):
    M = rng.standard_normal((12, 8))
    est = reg.norm2_estimate(kray.Linop.matrix(M), iters=200)
    assert est == pytest.approx(np.linalg.norm(M, 2) ** 2, rel=1e-9)
    # ||D||^2 <= 4 k
    D = reg.fdiff((16, 16), dtype=np.float64)
    assert 7.0 < reg.norm2_estimate(D, iters=100) <= 8.0


@needs_torch
def test_fdiff_gradcheck():
    import torch
    import kray.torch as kt
    D = reg.fdiff((4, 5), dtype=np.float64)
    x = torch.randn(4, 5, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda v: kt.apply(D, v), (x,))
    W = reg.wavelet((4, 8), kind="db2", levels=1, dtype=np.float64)
    x = torch.randn(4, 8, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda v: kt.apply(W, v), (x,))


# ---- proximal maps -------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_soft_threshold(dtype, rng):
    v = rng.standard_normal(50)
    if np.iscomplexobj(np.zeros(1, dtype)):
        v = v + 1j * rng.standard_normal(50)
    v = v.astype(dtype)
    g = reg.l1(50, 0.4, dtype=dtype)
    x = g(v, t=1.5)
    ref = np.maximum(0, 1 - 0.6 / np.maximum(np.abs(v), 1e-300)) * v
    np.testing.assert_allclose(x, ref, atol=1e-6 if v.real.dtype == np.float32 else 1e-14)
    assert g.value(v) == pytest.approx(0.4 * np.abs(v).sum(), rel=1e-5)


def test_l21_group_threshold(rng):
    v = rng.standard_normal((2, 6, 7))
    x = reg.l21(v.shape, 0.5, dtype=np.float64)(v, t=2.0)
    n = np.sqrt((v ** 2).sum(axis=0))
    np.testing.assert_allclose(x, np.maximum(0, 1 - 1.0 / n) * v, atol=1e-14)


def test_box_and_ball(rng):
    v = 3 * rng.standard_normal(40)
    b = reg.box(40, lo=-1.0, hi=2.0, dtype=np.float64)
    np.testing.assert_array_equal(b(v), np.clip(v, -1, 2))
    assert b.value(np.clip(v, -1, 2)) == 0 and b.value(v) == np.inf
    c = rng.standard_normal(40)
    ball = reg.l2ball(40, 0.5, center=c, dtype=np.float64)
    x = ball(v)
    d = v - c
    np.testing.assert_allclose(x, c + d * 0.5 / np.linalg.norm(d), atol=1e-13)
    inside = c + 0.1 * d / np.linalg.norm(d)
    np.testing.assert_allclose(ball(inside), inside, atol=1e-15)
    assert ball.value(x) == 0 and ball.value(v) == np.inf
    nn = reg.box(40, dtype=np.float32)
    np.testing.assert_array_equal(nn(v.astype(np.float32)), np.maximum(v, 0).astype(np.float32))


def test_l1_wavelet_is_thresholded_coefficients(rng):
    v = rng.standard_normal((16, 16))
    g = reg.l1_wavelet(v.shape, 0.3, kind="db2", levels=2, dtype=np.float64)
    W = reg.wavelet(v.shape, kind="db2", levels=2, dtype=np.float64)
    c = W(v)
    ref = W.adjoint(np.sign(c) * np.maximum(np.abs(c) - 0.3, 0))
    np.testing.assert_allclose(g(v), ref, atol=1e-12)
    assert g.value(v) == pytest.approx(0.3 * np.abs(c).sum(), rel=1e-12)


def test_llr_single_block_is_svt(rng):
    v = rng.standard_normal((5, 4, 4)) + 1j * rng.standard_normal((5, 4, 4))
    g = reg.llr(v.shape, 0.7, axis=0, block=4, dtype=np.complex128)
    x = g(v)
    M = v.reshape(5, 16).T
    u, s, vh = np.linalg.svd(M, full_matrices=False)
    ref = (u * np.maximum(s - 0.7, 0)) @ vh
    np.testing.assert_allclose(x.reshape(5, 16).T, ref, atol=1e-10)
    assert g.value(v) == pytest.approx(0.7 * s.sum(), rel=1e-10)


def test_tv_prox_of_a_constant_and_its_value(rng):
    g = reg.tv((8, 8), 0.2, inner=50, dtype=np.float64)
    c = np.full((8, 8), 1.5)
    np.testing.assert_allclose(g(c), c, atol=1e-12)
    x = rng.standard_normal((8, 8))
    d = reg.fdiff(x.shape, dtype=np.float64)(x)
    assert g.value(x) == pytest.approx(0.2 * np.sqrt((d ** 2).sum(axis=0)).sum(), rel=1e-12)
    # the prox decreases the TV and moves towards the mean
    y = g(x, t=1.0)
    assert g.value(y) < g.value(x)
    assert abs(y.mean() - x.mean()) < 1e-10


def test_prox_errors():
    g = reg.l1((4, 4), 1.0)
    with pytest.raises(kray.DimensionError):
        g(np.zeros((4, 5), np.float32))
    with pytest.raises(kray.DTypeError):
        g(np.zeros((4, 4), np.float64))
    with pytest.raises(kray.InvalidArgumentError):
        g(np.zeros((4, 4), np.float32), t=0)
    with pytest.raises(kray.InvalidArgumentError):
        reg.l1(4, -1.0)
    with pytest.raises(kray.InvalidArgumentError):
        reg.fista(g, np.zeros((4, 4), np.float32))
    I = kray.Linop.identity((4, 4))
    for bad in ("x", [(1, g)], [g, 3], (g, g, g)):
        with pytest.raises(kray.InvalidArgumentError):
            reg.pdhg(I, np.zeros((4, 4), np.float32), bad)
    with pytest.raises(kray.InvalidArgumentError):   # two terms without K
        reg.pdhg(I, np.zeros((4, 4), np.float32), (g, reg.box((4, 4))))
    g.close()
    with pytest.raises(kray.InvalidArgumentError):
        g(np.zeros((4, 4), np.float32))


# ---- solvers -------------------------------------------------------------------------------

def test_fista_lasso_matches_optimality(rng):
    M = rng.standard_normal((30, 20))
    x_true = np.zeros(20)
    x_true[[2, 7, 11]] = [1.0, -2.0, 0.5]
    y = M @ x_true
    A_op = kray.Linop.matrix(M)
    lam = 0.5
    r = reg.fista(A_op, y, reg.l1(20, lam, dtype=np.float64), max_iter=3000, tol=1e-13)
    x = r.x
    g = M.T @ (M @ x - y)
    on = np.abs(x) > 1e-8
    np.testing.assert_allclose(g[on], -lam * np.sign(x[on]), atol=1e-6)
    assert np.all(np.abs(g[~on]) <= lam + 1e-6)
    assert r.history.shape == (r.iterations + 1,) and r.history[-1] == pytest.approx(
        r.objective)
    assert r.objective == pytest.approx(0.5 * np.sum((M @ x - y) ** 2) + lam * np.abs(x).sum())
    # ADMM and PDHG reach the same minimiser
    for res in (reg.admm(A_op, y, [reg.l1(20, lam, dtype=np.float64)], max_iter=2000,
                         tol=1e-12, cg_iter=20),
                reg.pdhg(A_op, y, [(None, reg.l1(20, lam, dtype=np.float64))],
                         max_iter=5000, tol=1e-14)):
        np.testing.assert_allclose(res.x, x, atol=1e-4)


def test_fista_without_prox_is_least_squares(rng):
    M = rng.standard_normal((25, 10))
    y = rng.standard_normal(25)
    r = reg.fista(kray.Linop.matrix(M), y, max_iter=2000, tol=1e-14, power_iter=500)
    np.testing.assert_allclose(r.x, np.linalg.lstsq(M, y, rcond=None)[0], atol=1e-8)
    assert r.lipschitz == pytest.approx(1.01 * np.linalg.norm(M, 2) ** 2, rel=1e-6)
    r = reg.fista(kray.Linop.matrix(M), y, max_iter=5, step=0.01, monotone=True)
    assert r.lipschitz == pytest.approx(100.0) and r.iterations == 5
    assert np.all(np.diff(r.history) <= 0)


def _ct_problem():
    n = 64
    g = kray.ct.Geometry.parallel(96, (n, n), nviews=30)
    ph = kray.phantom.shepp_logan(n, dtype=np.float64)
    A_op = kray.ct.operator(g, dtype=np.float64)
    y = A_op(ph)
    y = y + 0.02 * np.abs(y).max() * np.random.default_rng(7).standard_normal(y.shape)
    return g, ph, A_op, y


def test_tv_fista_beats_cgls_on_ct():
    g, ph, A_op, y = _ct_problem()
    peak = float(ph.max())
    cg = kray.cgls(A_op, y, max_iter=20)
    tvp = reg.tv(ph.shape, 0.5, lo=0.0, inner=10, dtype=np.float64)
    fr = reg.fista(A_op, y, tvp, max_iter=60, tol=0)
    p_cg = kray.metrics.psnr(cg.x, ph, peak)
    p_tv = kray.metrics.psnr(fr.x, ph, peak)
    assert p_tv > p_cg + 2, (p_tv, p_cg)
    assert np.all(np.diff(fr.history[5:]) < 1e-6 * fr.history[5])


def test_ct_algorithms_reduce_the_residual():
    g, ph, A_op, y = _ct_problem()
    for f in (reg.os_sart, reg.asd_pocs):
        r = f(y, g, max_iter=8, subsets=5, nonneg=True)
        assert r.iterations == 8 and r.history[0] == 1.0
        assert r.history[-1] < 0.1 and r.x.min() >= 0
        assert r.rel_residual == pytest.approx(
            np.linalg.norm(A_op(r.x) - y) / np.linalg.norm(y), rel=1e-6)


@pytest.mark.parametrize("method", ["fista", "pdhg", "ossart", "asd-pocs"])
def test_same_as_cli(cli, tmp_path, method):
    g, ph, _, y = _ct_problem()
    y = y.astype(np.float32)
    g.write(tmp_path / "g.json")
    np.save(tmp_path / "y.npy", y)
    run_cli(cli, "ctreg", "--geom", tmp_path / "g.json", "-m", method, "--reg", "tv:0.5",
            "--nonneg", "-i", 6, "--inner", 5, "--subsets", 5, tmp_path / "y.npy",
            tmp_path / "x.npy")
    want = kray.read(tmp_path / "x.npy")
    A_op = kray.ct.operator(g)
    if method == "fista":
        got = reg.fista(A_op, y, reg.tv(ph.shape, 0.5, lo=0.0, inner=5), max_iter=6, tol=0).x
    elif method == "pdhg":
        D = reg.fdiff(ph.shape)
        got = reg.pdhg(A_op, y, [(D, reg.l21(D.shape_out, 0.5)), reg.box(ph.shape)],
                       max_iter=6, tol=0).x
    elif method == "ossart":
        got = reg.os_sart(y, g, max_iter=6, subsets=5, nonneg=True).x
    else:
        got = reg.asd_pocs(y, g, max_iter=6, subsets=5, nonneg=True, tv_iter=5).x
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@needs_torch
def test_torch_cpu_inputs_give_torch_outputs(rng):
    import torch
    g, ph, A_op, y = _ct_problem()
    v = rng.standard_normal((6, 7))
    x = reg.l1(v.shape, 0.3, dtype=np.float64)(torch.from_numpy(v))
    assert isinstance(x, torch.Tensor)
    np.testing.assert_array_equal(x.numpy(), reg.l1(v.shape, 0.3, dtype=np.float64)(v))
    r = reg.os_sart(torch.from_numpy(y), g, max_iter=2, subsets=3)
    assert isinstance(r.x, torch.Tensor)
    np.testing.assert_array_equal(r.x.numpy(), reg.os_sart(y, g, max_iter=2, subsets=3).x)
    f = reg.fista(A_op, torch.from_numpy(y), max_iter=3)
    assert isinstance(f.x, torch.Tensor)


# ---- CUDA ----------------------------------------------------------------------------------

@needs_cupy
def test_cuda_operators_and_prox_match_cpu(rng):
    import cupy as cp
    x = rng.standard_normal((16, 16))
    for op in (reg.fdiff, lambda s, dtype, device: reg.wavelet(s, "db2", dtype=dtype,
                                                                  device=device)):
        H = op((16, 16), dtype=np.float64, device=None)
        G = op((16, 16), dtype=np.float64, device=0)
        assert G.adjoint_test() < 1e-12
        np.testing.assert_allclose(G(cp.asarray(x)).get(), H(x), atol=1e-12)
    v = rng.standard_normal((16, 16))
    for mk in (lambda d: reg.l1((16, 16), 0.3, dtype=np.float64, device=d),
               lambda d: reg.tv((16, 16), 0.3, inner=10, dtype=np.float64, device=d),
               lambda d: reg.llr((16, 16), 0.3, axis=0, block=4, dtype=np.float64,
                                 device=d)):
        np.testing.assert_allclose(mk(0)(cp.asarray(v)).get(), mk(None)(v), atol=1e-10)


@needs_cupy
def test_cuda_fista_matches_cpu():
    import cupy as cp
    g, ph, A_op, y = _ct_problem()
    Ad = kray.ct.operator(g, dtype=np.float64, device=0)
    r_h = reg.fista(A_op, y, reg.tv(ph.shape, 0.5, lo=0, inner=5, dtype=np.float64),
                    max_iter=10, tol=0)
    r_d = reg.fista(Ad, cp.asarray(y), reg.tv(ph.shape, 0.5, lo=0, inner=5,
                                               dtype=np.float64, device=0), max_iter=10, tol=0)
    assert isinstance(r_d.x, cp.ndarray)
    np.testing.assert_allclose(r_d.x.get(), r_h.x, atol=1e-7)
    s = reg.os_sart(cp.asarray(y), g, max_iter=3, subsets=5)
    np.testing.assert_allclose(s.x.get(), reg.os_sart(y, g, max_iter=3, subsets=5).x,
                               atol=1e-8)


@needs_torch_cuda
def test_cuda_fdiff_gradcheck():
    import torch
    import kray.torch as kt
    D = reg.fdiff((4, 5), dtype=np.float64, device=0)
    x = torch.randn(4, 5, dtype=torch.float64, device="cuda", requires_grad=True)
    assert torch.autograd.gradcheck(lambda v: kt.apply(D, v), (x,))


