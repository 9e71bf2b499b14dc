"""kray.ct geometries: builders, vector form, JSON round trips, queries and errors."""
import numpy as np
import pytest

import kray
import kray.ct as ct


def test_parallel_views_follow_the_convention():
    g = ct.Geometry.parallel(8, (6, 10), voxel_mm=(0.5, 0.25), angles_deg=[0, 90, 30],
                             det_spacing_mm=2.0, offset_mm=(1.0, -2.0))
    assert g.type == "parallel2d" and g.ndim == 2 and g.nviews == 3 and g.det_rows == 1
    assert g.sino_shape == (3, 8) and g.image_shape == (6, 10)
    assert g.grid == {"shape": (6, 10), "voxel_mm": (0.5, 0.25), "offset_mm": (1.0, -2.0)}
    v = g.views
    th = np.radians([0, 90, 30])
    # ray e_d = (-sin, cos), pixel step u = spacing * e_u = spacing * (cos, sin)
    np.testing.assert_allclose(v["ray"][:, :2] / np.linalg.norm(v["ray"][:, :2], axis=1)[:, None],
                               np.stack([-np.sin(th), np.cos(th)], 1), atol=1e-15)
    np.testing.assert_allclose(v["u"][:, :2], 2.0 * np.stack([np.cos(th), np.sin(th)], 1),
                               atol=1e-15)
    s = g.scan
    assert s["type"] == "parallel2d" and s["det_count"] == 8
    np.testing.assert_array_equal(s["angles_deg"], [0, 90, 30])


def test_uniform_angles_and_parse():
    g = ct.Geometry.parallel(4, 4, nviews=8, start_deg=10, stop_deg=50)
    np.testing.assert_array_equal(g.scan["angles_deg"], ct.angles(10, 50, 8))
    assert ct.angles_parse("0:180:720") == (0.0, 180.0, 720)
    with pytest.raises(kray.KrayError):
        ct.angles_parse("0:180")


def test_fan_cone_and_short_arc_closed_form():
    g = ct.Geometry.fan(16, 16, sod_mm=100, sdd_mm=200, det_spacing_mm=2.0, nviews=36,
                        detector="equiangular")
    assert g.type == "fan2d-equiangular" and g.scan["sod_mm"] == 100
    # src = -sod e_d at theta = 0: (0, -100)
    np.testing.assert_allclose(g.views["src"][0, :2], [0, -100], atol=1e-12)
    f = ct.Geometry.fan(16, 16, 100, 200, det_spacing_mm=2.0)
    # flat: half-width h = 16 pixels of 2 mm / 2 = 16 mm: 180 + 2 atan(16 / 200)
    assert f.short_arc_deg() == pytest.approx(180 + 2 * np.degrees(np.arctan(16 / 200)),
                                              rel=1e-12)
    c = ct.Geometry.cone((10, 12), (6, 7, 8), 300, 500, voxel_mm=(1, 2, 3), nviews=4,
                         det_spacing_mm=(1.5, 2.5), det_offset_mm=(1, -1))
    assert c.type == "cone" and c.sino_shape == (4, 10, 12) and c.image_shape == (6, 7, 8)
    assert c.grid["voxel_mm"] == (1.0, 2.0, 3.0)
    v = c.views
    np.testing.assert_allclose(v["v"][0], [0, 0, 2.5])
    np.testing.assert_allclose(v["det"][0], [1, 200, -1], atol=1e-12)
    assert c.scan["det_rows"] == 10 and c.scan["det_spacing_v_mm"] == 2.5
    assert ct.type_ndim("cone") == 3 and ct.type_is_cone("cone-vec")
    assert ct.type_is_parallel("parallel2d") and not ct.type_is_parallel("fan2d-flat")
    assert ct.short_arc_deg({"type": "fan2d-flat", "det_count": 16, "det_spacing_mm": 2.0,
                             "sod_mm": 100, "sdd_mm": 200}) == pytest.approx(f.short_arc_deg())


@pytest.mark.parametrize("make", [
    lambda: ct.Geometry.parallel(9, (5, 7), 0.7, nviews=5, det_offset_mm=0.3, cor_offset_mm=0.1),
    lambda: ct.Geometry.fan(9, 8, 50.5, 120.25, angles_deg=[0, 1e-3, 33.3, 200]),
    lambda: ct.Geometry.cone((4, 6), (3, 4, 5), 40, 90, voxel_mm=0.5, nviews=3)])
def test_json_round_trip_is_bit_identical(tmp_path, make):
    g = make()
    for explicit in (False, True):
        text = g.to_json(explicit)
        h = ct.Geometry.parse(text)
        for k in ("src", "ray", "det", "u", "v"):
            assert np.array_equal(g.views[k], h.views[k])
        assert h.grid == g.grid and (h.scan is None) == explicit
        p = tmp_path / "g.json"
        g.write(p, explicit)
        assert p.read_text() == text
        r = ct.Geometry.read(str(p))
        assert r == g and r.to_json(explicit) == text
        # every function taking a geometry takes a JSON path or JSON text as well
        assert ct.Projector(str(p)).geometry == g and ct.Projector(text).geometry == g
    assert ct.Geometry.parse(g.to_json(True)).type in (g.type, "cone-vec")


def test_from_views_equals_the_parametric_geometry():
    g = ct.Geometry.fan(12, 10, 80, 160, det_spacing_mm=1.3, nviews=7, voxel_mm=0.9)
    v = g.views
    h = ct.Geometry.from_views("fan2d-flat", 12, (10, 10), 0.9, src=v["src"][:, :2],
                               det=v["det"][:, :2], u=v["u"][:, :2])
    assert h.scan is None and h.to_json(True) == g.to_json(True)
    x = np.random.default_rng(1).random((10, 10)).astype(np.float32)
    assert np.array_equal(ct.Projector(g)(x), ct.Projector(h)(x))
    c = ct.Geometry.cone((5, 6), 4, 50, 100, nviews=3)
    w = c.views
    d = ct.Geometry.from_views("cone-vec", 6, (4, 4, 4), 1.0, det_rows=5, src=w["src"],
                               det=w["det"], u=w["u"], v=w["v"])
    assert d.type == "cone-vec" and d.to_json(True) == c.to_json(True)


def test_bad_geometries_raise_with_a_sentence(tmp_path):
    with pytest.raises(kray.GeometryError) as e:
        ct.Geometry.fan(8, 8, sod_mm=200, sdd_mm=100)
    assert "sod" in str(e.value) or "sdd" in str(e.value)
    with pytest.raises(kray.InvalidArgumentError):
        ct.Geometry.parallel(8, (8, 8, 8))
    with pytest.raises(kray.KrayError):
        ct.Geometry.from_scan({"type": "helix"}, 8)
    with pytest.raises(kray.InvalidArgumentError):
        ct.Geometry.from_views("parallel2d", 4, 4, ray=np.zeros((3, 2)), det=np.zeros((3, 2)))
    with pytest.raises(kray.FormatError) as e:
        ct.Geometry.parse(ct.Geometry.parallel(4, 4).to_json().replace("{", '{"colour": 1,', 1))
    assert "colour" in str(e.value)
    with pytest.raises(kray.KrayIOError):
        ct.Geometry.read(str(tmp_path / "none.json"))
    with pytest.raises(kray.InvalidArgumentError):
        ct.Projector(42)


def test_check_projections_and_fov():
    c = ct.Geometry.cone((8, 8), 16, 50, 100, nviews=4)
    assert c.check_fov() == 4
    p = np.zeros((4, 8, 8), np.float32)
    c.check_projections(p)
    p[1, 2, 3] = np.nan
    with pytest.raises(kray.InvalidArgumentError) as e:
        c.check_projections(p)
    assert "NaN" in str(e.value)
    with pytest.raises(kray.DimensionError):
        c.check_projections(np.zeros((4, 8, 9), np.float32))
    with pytest.raises(kray.NotSupportedError):
        ct.Geometry.parallel(4, 4).check_fov()


def test_builders_equal_the_cli_geometries(cli, tmp_path):
    from cli_util import run_cli
    np.save(tmp_path / "s.npy", np.zeros((90, 32), np.float32))
    run_cli(cli, "fbp", "--type", "fan2d-equiangular", "--sod", 500, "--sdd", 1000,
            "--pitch", 1.2, "--det-offset", 0.3, "--cor", -0.2, "--angles",
            "10:370:90", "--voxel", 0.6, "--geom-out", tmp_path / "f.json", tmp_path / "s.npy",
            tmp_path / "r.npy")
    f = ct.Geometry.fan(32, 32, 500, 1000, 0.6, "equiangular", nviews=90, start_deg=10,
                        stop_deg=370, det_spacing_mm=1.2, det_offset_mm=0.3, cor_offset_mm=-0.2)
    assert ct.Geometry.read(tmp_path / "f.json").to_json() == f.to_json()
    np.save(tmp_path / "v.npy", np.zeros((12, 16, 16), np.float32))
    run_cli(cli, "project", "--sod", 100, "--sdd", 200, "--det", "20x18", "--pitch", "1.5,1.25",
            "--angles", "0:360:30", "--voxel", "1,1,2", "--det-offset", "0.5,-0.25", "--cor", 0.1,
            "--vol-offset", "1,2,3", "--geom-out", tmp_path / "c.json", tmp_path / "v.npy",
            tmp_path / "p.npy")
    c = ct.Geometry.cone((18, 20), (12, 16, 16), 100, 200, (1, 1, 2), nviews=30,
                         det_spacing_mm=(1.5, 1.25), det_offset_mm=(0.5, -0.25),
                         cor_offset_mm=0.1, offset_mm=(1, 2, 3))
    r = ct.Geometry.read(tmp_path / "c.json")
    assert r.to_json() == c.to_json() and r.to_json(True) == c.to_json(True)
