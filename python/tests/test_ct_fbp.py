"""kray.ct filters and FBP: kernels and responses in closed form, direct sums, the CLI
(bit-identical) and scikit-image's iradon."""
import warnings

import numpy as np
import pytest

import kray
import kray.ct as ct
from cli_util import run_cli


def ramlak(n, tau):
    """Band-limited Ram-Lak kernel h(n) (1/mm^2)."""
    n = np.abs(np.asarray(n))
    h = np.where(n % 2 == 1, -1.0 / (np.maximum(n, 1) ** 2 * np.pi ** 2 * tau ** 2), 0.0)
    return np.where(n == 0, 1 / (4 * tau ** 2), h)


@pytest.mark.parametrize("method", ["direct", "seed"])
def test_kernels_in_closed_form(method):
    tau, scale, nd = 0.7, 1.3, 12
    F = ct.FilterPlan(nd, 1, method=method, tau_mm=tau, scale=scale, dtype=np.float64)
    lags = np.arange(nd)
    if method == "direct":
        want = scale * tau * ramlak(lags, tau)
    else:
        want = scale * tau * 2 / (np.pi ** 2 * tau ** 2) * (-1 / (4 * lags ** 2 - 1.0))
    np.testing.assert_allclose(F.kernel(), want, rtol=1e-14)
    assert F.pad_len == 0
    raw = ct.FilterPlan(nd, 1, method="seed", seed_raw=True, dtype=np.float64)
    np.testing.assert_allclose(raw.kernel(5), -1 / (4 * np.arange(5) ** 2 - 1.0), rtol=1e-15)


def test_fft_filter_is_the_direct_linear_convolution(rng):
    nd, rows, tau = 20, 3, 0.5
    x = rng.standard_normal((rows, nd))
    F = ct.FilterPlan(nd, rows, tau_mm=tau, dtype=np.float64)
    assert F.pad_len >= 2 * nd
    h = ramlak(np.arange(-nd + 1, nd), tau)
    want = np.array([tau * np.convolve(r, h)[nd - 1:2 * nd - 1] for r in x])
    np.testing.assert_allclose(F(x), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ct.FilterPlan(nd, rows, "direct", tau_mm=tau,
                                             dtype=np.float64)(x), want, rtol=1e-13, atol=1e-13)
    # the response is the DFT of the kernel; its inverse DFT's lags are kernel()
    r = F.response()
    assert r.shape == (F.pad_len,)
    np.testing.assert_allclose(np.fft.ifft(r).real[:nd], F.kernel(), atol=1e-14)
    # windows shape the response by W(nu), nu = |f| / Nyquist, zero beyond the cutoff (up to
    # the kernel's truncation to the detector's lags), and filtering is the linear convolution
    # with the effective kernel
    nu = np.abs(np.fft.fftfreq(F.pad_len)) * 2
    c = 0.8
    W = np.where(nu <= c, 0.5 + 0.5 * np.cos(np.pi * nu / c), 0.0)
    Fh = ct.FilterPlan(nd, rows, window="hann", cutoff=c, tau_mm=tau, dtype=np.float64)
    np.testing.assert_allclose(Fh.response(), r * W, atol=1e-3 * r.max())
    k = Fh.kernel()
    hk = np.concatenate([k[:0:-1], k])
    np.testing.assert_allclose(Fh(x), [np.convolve(v, hk)[nd - 1:2 * nd - 1] for v in x],
                               atol=1e-13)
    # in place
    y = x.copy()
    assert F.execute(y, out=y) is y and np.allclose(y, want, atol=1e-12)


def test_filter_pre_weights_and_row_scales(rng):
    nd, rows = 8, 6
    x = rng.standard_normal((rows, nd))
    pw = rng.random((2, nd)) + 0.5
    rs = np.array([1.0, 2.0, 3.0])
    F = ct.FilterPlan(nd, rows, dtype=np.float64, pre_weight=pw, pre_row_div=1, row_scale=rs,
                      row_scale_div=2)
    plain = ct.FilterPlan(nd, rows, dtype=np.float64)
    r = np.arange(rows)
    w = pw[r % 2] * rs[(r // 2) % 3][:, None]
    np.testing.assert_allclose(F(x), plain(x * w), rtol=1e-13, atol=1e-13)
    with pytest.raises(kray.DimensionError):
        ct.FilterPlan(nd, rows, pre_weight=np.ones((2, nd + 1)))
    with pytest.raises(kray.KrayError):
        ct.FilterPlan(nd, rows, window="gauss")


def test_names():
    assert [ct.filter_name(i) for i in range(3)] == list(ct.FILTERS)
    assert [ct.window_name(i) for i in range(5)] == list(ct.WINDOWS)
    from kray.ct.fbp import window_code
    assert window_code("ramp") == window_code("ramlak") == 0


def test_fbp_agrees_with_iradon():
    iradon = pytest.importorskip("skimage.transform").iradon
    n, nv = 64, 90
    # iradon's axis is at pixel n // 2: kray's detector and image move by half a pixel, and
    # iradon's angle is -theta (tests/test_fbp_skimage.c).
    g = ct.Geometry.parallel(n, n, 1.0, nviews=nv, det_offset_mm=-0.5, offset_mm=(-0.5, -0.5))
    sino = ct.Projector(g, dtype=np.float64)(kray.phantom.shepp_logan(n, dtype=np.float64))
    r = ct.fbp(sino, g)
    assert r.dtype == np.float64
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ri = iradon(sino.T, theta=-np.arange(nv) * 180.0 / nv, output_size=n,
                    filter_name="ramp", interpolation="linear", circle=True)
    yy, xx = np.mgrid[:n, :n] - n // 2
    inside = xx ** 2 + yy ** 2 < (0.98 * n / 2) ** 2
    assert np.abs(r - ri)[inside].max() < 1e-12


def test_plan_split_batch_and_info(rng):
    g = ct.Geometry.fan(24, 20, 60, 120, nviews=40, start_deg=0, stop_deg=220, voxel_mm=0.6)
    sino = rng.random((2,) + g.sino_shape).astype(np.float32)
    one = ct.fbp(sino, g, window="cosine")
    with ct.FbpPlan(g, window="cosine") as P:
        assert np.array_equal(P(sino), one)
        assert np.array_equal(P(sino[1]), one[1])
        P.filter(sino[0])
        assert np.array_equal(P.backproject(), one[0])
        i = P.info
    assert i["short_scan"] and i["kernel"] == "cpu" and i["pad_len"] >= 48
    assert i["arc_deg"] == pytest.approx(220 - 220 / 40)
    # the fan of the outermost pixel centres: 2 atan(11.5 mm / sdd)
    assert i["fan_deg"] == pytest.approx(2 * np.degrees(np.arctan(11.5 / 120)), rel=1e-12)
    assert ct.FbpPlan(g, short_scan="off").info["short_scan"] is False
    clamp = ct.fbp(sino[0] - 0.5, g, clamp=True)
    assert clamp.min() == 0.0
    with pytest.raises(kray.DTypeError):
        ct.fbp(sino.astype(np.int16), g)


@pytest.mark.parametrize("prec", ["f32", "f64"])
def test_fbp_equals_the_cli(cli, tmp_path, rng, prec):
    dt = np.float32 if prec == "f32" else np.float64
    for g, opts, kw in [
            (ct.Geometry.parallel(32, (30, 28), 0.9, nviews=45, cor_offset_mm=0.4), [], {}),
            (ct.Geometry.fan(40, 32, 80, 160, nviews=60, detector="equiangular"),
             ["--filter-window", "hann", "--cutoff", "0.8"], {"window": "hann", "cutoff": 0.8}),
            (ct.Geometry.fan(40, 32, 80, 160, nviews=30, stop_deg=240),
             ["--filter", "seed", "--nonneg"], {"filter": "seed", "clamp": True})]:
        g.write(tmp_path / "g.json")
        sino = (rng.random((3,) + g.sino_shape) * 5).astype(dt)
        np.save(tmp_path / "s.npy", sino)
        run_cli(cli, "fbp", "--geom", tmp_path / "g.json", "--precision", prec, *opts,
                tmp_path / "s.npy", tmp_path / "r.npy")
        assert np.array_equal(np.load(tmp_path / "r.npy"), ct.fbp(sino, g, **kw)), g.type
