"""kray.mri.traj: generators and density compensation against the CLI (bit-identical) and
closed forms; units, checks, files."""
import subprocess

import numpy as np
import pytest

import kray
from kray.mri import traj


def run(cli, *args):
    subprocess.run([cli, *args, "-q", "--backend", "cpu"], check=True)


def test_radial_closed_form():
    t = traj.radial(samples=8, spokes=4)
    assert t.shape == (4, 8, 3) and t.dtype == np.float32
    ang = np.pi * np.arange(4) / 4
    r = np.arange(8) + 0.5 - 4
    ref = np.stack([np.outer(np.cos(ang), r), np.outer(np.sin(ang), r), np.zeros((4, 8))], -1)
    np.testing.assert_allclose(t, ref, atol=1e-6)
    s = traj.radial(samples=8, spokes=3, partitions=2, dc=True, dtype=np.float64)
    assert s.shape == (2, 3, 8, 3) and s.dtype == np.float64
    np.testing.assert_array_equal(s[1, :, :, 2], 0)
    np.testing.assert_array_equal(s[0, :, :, 2], -1)
    np.testing.assert_array_equal(s[0, :, 4, :2], 0)   # k = 0 sampled with dc
    g = traj.radial(samples=8, spokes=3, golden=True, dtype=np.float64)
    phi = (1 + 5 ** 0.5) / 2
    np.testing.assert_allclose(np.arctan2(g[:, -1, 1], g[:, -1, 0]) % np.pi,
                               (np.arange(3) * np.pi / phi) % np.pi, atol=1e-12)


def test_cartesian_extent_convert_check():
    c = traj.cartesian((4, 6))
    assert c.shape == (4, 6, 3)
    np.testing.assert_array_equal(c[..., 0], np.tile(np.arange(6) - 3, (4, 1)))
    np.testing.assert_array_equal(c[..., 1], np.tile((np.arange(4) - 2)[:, None], (1, 6)))
    ax, r = traj.extent(c)
    assert ax == (3.0, 2.0, 0.0) and r == pytest.approx(np.hypot(3, 2))
    p = traj.convert(c, "fov", "pixel", (4, 6))
    np.testing.assert_allclose(p[..., 0], c[..., 0] / 6)
    np.testing.assert_allclose(p[..., 1], c[..., 1] / 4)
    rad = traj.convert(c, "fov", "radians", (4, 6))
    np.testing.assert_allclose(rad[..., 0], 2 * np.pi * c[..., 0] / 6, rtol=1e-6)
    np.testing.assert_allclose(traj.convert(rad, "radians", "fov", (4, 6)), c, atol=1e-5)
    assert np.array_equal(c, traj.cartesian((4, 6)))       # the input is untouched
    traj.check(c, (4, 6))
    with pytest.raises(kray.GeometryError):
        traj.check(c, (4, 4))
    bad = c.copy()
    bad[1, 2, 0] = np.nan
    with pytest.raises(kray.GeometryError):
        traj.check(bad)
    with pytest.raises(kray.InvalidArgumentError):
        traj.convert(c, "fov", "furlongs", (4, 6))
    c3 = traj.cartesian((2, 3, 4), dtype=np.float64)
    assert c3.shape == (2, 3, 4, 3) and c3.dtype == np.float64


@pytest.mark.parametrize("kind", ["radial", "spiral", "koosh", "cartesian"])
def test_generators_bit_identical_to_cli(cli, tmp_path, kind):
    p = str(tmp_path / "t.npy")
    if kind == "radial":
        run(cli, "traj", "-k", "radial", "-x", "20", "-y", "7", "-o", "2", "-G", "--tiny", "3", p)
        t = traj.radial(samples=20, spokes=7, oversampling=2, golden=True, tiny=3)
    elif kind == "spiral":
        run(cli, "traj", "-k", "spiral", "--fov", "100", "--res", "3", "--interleaves", "4", "--vd", "1.5",
            p)
        t, info = traj.spiral(fov_mm=100, res_mm=3, interleaves=4, vd_factor=1.5)
        assert info["samples"] == t.shape[1] and info["matrix"] == int(2 * info["kmax"]) + 1
        assert info["gmax_used_mT_m"] <= 40 + 1e-9 and info["smax_used_T_m_s"] <= 150 + 1e-6
        assert info["kmax"] == pytest.approx(100 / 6)
    elif kind == "koosh":
        run(cli, "traj", "-k", "koosh", "-x", "10", "-y", "30", p)
        t = traj.koosh(samples=10, spokes=30)
    else:
        run(cli, "traj", "-k", "cartesian", "-n", "6x5", p)
        t = traj.cartesian((5, 6))
    np.testing.assert_array_equal(t, np.load(p))


@pytest.mark.parametrize("method", ["voronoi", "pipe", "radial"])
def test_dcf_bit_identical_to_cli(cli, tmp_path, method):
    t = traj.radial(samples=16, spokes=12, oversampling=2)
    tp, wp = str(tmp_path / "t.npy"), str(tmp_path / "w.npy")
    np.save(tp, t)
    run(cli, "dcf", "-m", {"pipe": "pipe-menon"}.get(method, method), tp, wp)
    w, info = traj.dcf(t, method, info=True)
    assert w.shape == (12, 32) and w.dtype == np.float32
    np.testing.assert_array_equal(w, np.load(wp))
    assert info["total"] == pytest.approx(float(np.sum(w, dtype=np.float64)), rel=1e-5)


def test_dcf_cartesian_is_one_and_spiral():
    c = traj.cartesian((8, 8), dtype=np.float64)
    w = traj.dcf(c, "voronoi", boundary="square")
    np.testing.assert_allclose(w, 1, atol=1e-12)
    s, info = traj.spiral(fov_mm=80, res_mm=4, interleaves=3)
    ws = traj.dcf(s, "spiral")
    assert ws.shape == s.shape[:-1] and np.all(ws >= 0)
    # The weights add up to about the area of the sampled disk of radius kmax.
    assert np.sum(ws) == pytest.approx(np.pi * info["kmax"] ** 2, rel=0.1)


def test_files_roundtrip(tmp_path):
    t = traj.radial(samples=8, spokes=5)
    for ext in (".cfl", ".npy"):
        p = str(tmp_path / ("t" + ext))
        traj.write(p, t)
        np.testing.assert_array_equal(traj.read(p), t)
    with pytest.raises(kray.KrayIOError):
        traj.read(str(tmp_path / "missing.cfl"))
