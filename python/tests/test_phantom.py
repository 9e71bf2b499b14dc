"""kray.phantom: closed forms (ellipse projections, chords, the J1 k-space, coil maps) and
the CLI's phantoms (bit-identical)."""
import numpy as np
import pytest

import kray
import kray.phantom as ph
from cli_util import run_cli


def test_builtin_sets_and_point_values():
    e = ph.ellipses("original")
    assert e.shape == (10, 6) and e[0].tolist() == [2, .69, .92, 0, 0, 0]
    assert ph.ellipses("modified")[1, 0] == -0.8
    z = ph.ellipsoids("modified")
    assert z.shape == (10, 8) and z[2, 7] == -108
    # centre of the head: 2 - 0.98 (original), 1 - 0.8 (modified); outside: 0
    np.testing.assert_allclose(ph.evaluate([[0, 0], [0.99, 0.99]], "original"), [1.02, 0])
    np.testing.assert_allclose(ph.evaluate([[0, 0.0, 0]], "modified"), [0.2])
    assert ph.evaluate(np.zeros((2, 3, 2))).shape == (2, 3)


def test_rasters_on_both_grids():
    n = 16
    img = ph.shepp_logan((n, n + 2), "original", dtype=np.float64)
    # pixel (row j, column i) is the point value at ((2i + 1 - N) / N, (2j + 1 - N) / N)
    xs = (2 * np.arange(n + 2) + 1 - (n + 2)) / (n + 2)
    ys = (2 * np.arange(n) + 1 - n) / n
    pts = np.stack(np.meshgrid(xs, ys), -1)
    np.testing.assert_array_equal(img, ph.evaluate(pts, "original"))
    fimg = ph.shepp_logan(n, grid="fft", dtype=np.float64)
    fx = (np.arange(n) - n // 2) * 2 / n
    np.testing.assert_array_equal(fimg, ph.evaluate(np.stack(np.meshgrid(fx, fx), -1)))
    vol = ph.shepp_logan((4, 6, 8), supersample=2)
    assert vol.shape == (4, 6, 8) and vol.dtype == np.float32
    one = ph.shepp_logan(8, ellipses=[[1.0, 0.5, 0.5, 0, 0, 0]], dtype=np.float64)
    x8 = (2 * np.arange(8) + 1 - 8) / 8
    assert one.sum() == np.sum(np.hypot(*np.meshgrid(x8, x8)) <= 0.5)
    with pytest.raises(kray.InvalidArgumentError):
        ph.shepp_logan(8, supersample=65)
    with pytest.raises(kray.InvalidArgumentError):
        ph.shepp_logan(8, "bright")
    with pytest.raises(kray.InvalidArgumentError):
        ph.shepp_logan(8, ellipses=np.ones((2, 5)))


def test_sinogram_of_one_ellipse_in_closed_form():
    rho, a, b, x0, y0, phi = 1.5, 0.4, 0.2, 0.1, -0.2, 30.0
    th = np.linspace(0, np.pi, 7)
    s = np.linspace(-0.9, 0.9, 11)
    got = ph.sinogram(th, s, ellipses=[[rho, a, b, x0, y0, phi]])
    T, S = np.meshgrid(th, s, indexing="ij")
    t = S - x0 * np.cos(T) - y0 * np.sin(T)
    w2 = a ** 2 * np.cos(T - np.radians(phi)) ** 2 + b ** 2 * np.sin(T - np.radians(phi)) ** 2
    want = np.where(t ** 2 <= w2, 2 * rho * a * b * np.sqrt(np.maximum(w2 - t ** 2, 0)) / w2, 0)
    assert got.shape == (7, 11)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-14)
    full = ph.sinogram(th, s, "original")
    assert full.shape == (7, 11) and full.max() > 1


def test_line_integrals_are_chords():
    sphere = [[2.0, 0.5, 0.5, 0.5, 0, 0, 0, 0]]
    src = np.array([[-1.0, 0, 0], [-1.0, 0.3, 0], [0, 0, -1]])
    dst = np.array([[1.0, 0, 0], [1.0, 0.3, 0], [0, 0, 0]])
    want = 2.0 * np.array([1.0, 2 * np.sqrt(0.25 - 0.09), 0.5]) * 3.0
    np.testing.assert_allclose(ph.line_integrals(src, dst, scale=3.0, ellipsoids=sphere), want,
                               rtol=1e-14)
    li = ph.line_integrals([[0, -1.0, 0]], [[0, 1.0, 0]], "original")
    # along y through the centre: 2 * 0.92 * 2 - 0.98 * 2 * 0.874 + the small inner objects
    assert li[0] == pytest.approx(ph.evaluate(np.c_[np.zeros(200001),
                                                    np.linspace(-1, 1, 200001),
                                                    np.zeros(200001)], "original").mean() * 2,
                                  rel=1e-4)


def test_kspace_closed_form():
    j1 = pytest.importorskip("scipy.special").j1
    n = 24
    rho, a, b, x0, y0, phi = 1.0, 0.5, 0.3, 0.2, 0.1, 20.0
    k = np.array([[0.0, 0.0], [1.5, -2.0], [3.0, 4.0], [-7.0, 0.5]])
    got = ph.kspace(k, n, ellipses=[[rho, a, b, x0, y0, phi]])
    c, s = np.cos(np.radians(phi)), np.sin(np.radians(phi))
    ku, kv = k[:, 0] * c + k[:, 1] * s, -k[:, 0] * s + k[:, 1] * c
    r = np.sqrt((a * ku) ** 2 + (b * kv) ** 2) / 2
    z = 2 * np.pi * r
    jinc = np.where(z > 0, 2 * j1(z) / np.where(z > 0, z, 1), 1.0)
    want = (n / 2) ** 2 * rho * np.pi * a * b * jinc * np.exp(-1j * np.pi * (k[:, 0] * x0 +
                                                                             k[:, 1] * y0))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    e = ph.ellipses("original")
    assert ph.kspace([[0, 0]], n, "original")[0] == pytest.approx(
        (n / 2) ** 2 * np.sum(e[:, 0] * np.pi * e[:, 1] * e[:, 2]), rel=1e-13)
    kc = ph.kspace(ph.cartesian_k(8), 8, coils=3)
    assert kc.shape == (3, 8, 8) and kc.dtype == np.complex128


def test_coil_maps_closed_form():
    n, nc = 12, 5
    S = ph.coil_maps(n, nc)
    x = (np.arange(n) - n // 2) * 2 / n
    X, Y = np.meshgrid(x, x)

    def P(t):
        return 1 + 0.6 * np.cos(np.pi * t / 2) + 0.5j * np.sin(np.pi * t / 2)
    for c in range(nc):
        al = 2 * np.pi * c / nc
        want = np.exp(1j * al) * P(X - np.cos(al)) * P(Y - np.sin(al))
        np.testing.assert_allclose(S[c], want, rtol=1e-13, atol=1e-13)


def test_mr_phantom_values():
    # Gach et al.: T1 = A B0^C seconds (CSF fixed at 4200 ms), T2 and PD per tissue
    A_C = [(0.324, 0.137), (0.533, 0.088), (0.857, 0.376), (0.583, 0.382), (0.926, 0.217)]
    for b0 in (1.5, 3.0):
        m = ph.mr(32, b0_tesla=b0)
        assert m.shape == (3, 32, 32) and m.dtype == np.float32
        inside = m[2] > 0
        want_t1 = [1000 * a * b0 ** c for a, c in A_C] + [4200.0]
        for t1 in np.unique(m[0][inside]):
            assert np.min(np.abs(np.array(want_t1) - t1)) < 1e-3 * t1, (b0, t1)
        assert set(np.unique(m[1][inside])) <= {70, 50, 1990, 100, 80}
        assert set(np.unique(m[2][inside].astype(np.float64)).round(4)) <= {0.8, 0.12, 0.98, 0.745,
                                                                          0.617, 0.95}
        assert not m[:, ~inside].any()
    # at 1.5 T the table's values
    t1 = np.unique(ph.mr(64)[0])
    for v in (342.5, 552.4, 4200, 998.1, 680.7, 1011.2):
        assert np.min(np.abs(t1 - v)) < 0.06


@pytest.mark.parametrize("args,make", [
    (["--size", "20x14", "--contrast", "original", "-S", "2", "--precision", "f64"],
     lambda: ph.shepp_logan((14, 20), "original", 2, np.float64)),
    (["--3d", "--size", "10x8x6"], lambda: ph.shepp_logan((6, 8, 10))),
    (["--grid", "fft", "--size", "15"], lambda: ph.shepp_logan(15, grid="fft")),
    (["--kind", "kspace", "--size", "16", "--out-dtype", "c128"],
     lambda: ph.kspace(ph.cartesian_k(16), 16)),
    (["--kind", "kspace", "--size", "16", "--coils", "3", "--out-dtype", "c128"],
     lambda: ph.kspace(ph.cartesian_k(16), 16, coils=3)),
    (["--kind", "coils", "--size", "16", "--coils", "3", "--out-dtype", "c128"],
     lambda: ph.coil_maps(16, 3)),
    (["--kind", "mr", "--size", "18", "-S", "3", "--b0", "3"],
     lambda: ph.mr(18, 3, b0_tesla=3.0)),
    (["--kind", "sinogram", "--size", "16", "--views", "9", "--arc", "360", "--units", "norm",
      "--out-dtype", "f64"],
     lambda: ph.sinogram(np.arange(9) * 2 * np.pi / 9, (np.arange(16) - 7.5) / 8))])
def test_phantoms_equal_the_cli(cli, tmp_path, args, make):
    run_cli(cli, "phantom", *args, tmp_path / "p.npy")
    got = make()
    want = np.load(tmp_path / "p.npy")
    assert want.shape == got.shape and want.dtype == got.dtype
    assert np.array_equal(want, got)
