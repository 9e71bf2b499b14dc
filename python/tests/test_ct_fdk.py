"""kray.ct FDK: one call, plans, per-view vectors and the CLI (bit-identical); accuracy on the
exact projections of the 3-D Shepp-Logan phantom."""
import numpy as np
import pytest

import kray
import kray.ct as ct
from cli_util import run_cli


def geom(**kw):
    return ct.Geometry.cone((24, 32), (16, 20, 20), 120, 240, voxel_mm=1.0, nviews=40, **kw)


def test_fdk_reconstructs_the_phantom():
    g = ct.Geometry.cone((40, 48), (24, 32, 32), 150, 300, voxel_mm=1.0, nviews=90,
                         det_spacing_mm=1.6)
    p = ct.phantom_projections(g, "modified", 1, np.float32)
    v = ct.fdk(p, g)
    truth = kray.phantom.shepp_logan((24, 32, 32), "modified", supersample=2)
    assert v.shape == truth.shape and v.dtype == np.float32
    # the central slice, inside the head: FDK is exact in the mid-plane up to sampling
    c = slice(8, 24)
    err = np.abs(v[12, c, c] - truth[12, c, c]).mean()
    assert err < 0.05, err
    assert kray.metrics.nrmse(v[12], truth[12]) < 0.3


def test_plan_views_and_one_call_agree(rng):
    g = geom()
    p = rng.random(g.sino_shape).astype(np.float32)
    one = ct.fdk(p, g, window="hamming")
    with ct.FdkPlan(g, window="hamming") as P:
        assert np.array_equal(P(p), one)
        info = P.info
    assert info["fast_path"] and not info["short_scan"] and info["kernel"].startswith("cpu")
    assert info["arc_deg"] == pytest.approx(360 - 9)
    v = g.views
    args = dict(src=v["src"], det=v["det"], u=v["u"], v=v["v"])
    assert np.array_equal(ct.fdk_views(p, volume_shape=g.image_shape, window="hamming", **args),
                          one)
    Q = ct.FdkPlan.from_views((24, 32), volume_shape=g.image_shape, window="hamming", **args)
    assert np.array_equal(Q(p), one)
    out = np.empty(g.image_shape, np.float32)
    assert Q.execute(p, out=out) is out and np.array_equal(out, one)
    with pytest.raises(kray.DTypeError):
        ct.fdk(p.astype(np.float64), g)
    with pytest.raises(kray.DimensionError):
        ct.fdk(p[:, :, :-1], g)
    bad = p.copy()
    bad[3, 4, 5] = np.inf
    with pytest.raises(kray.InvalidArgumentError) as e:
        ct.fdk(bad, g)
    assert "infinite" in str(e.value)
    with pytest.raises(kray.GeometryError):
        ct.FdkPlan(ct.Geometry.parallel(8, 8))


def test_short_scan_parker():
    g = ct.Geometry.cone((24, 32), (16, 20, 20), 120, 240, nviews=30, start_deg=0,
                         stop_deg=220)
    P = ct.FdkPlan(g)
    assert P.info["short_scan"]
    assert not ct.FdkPlan(g, short_scan="off").info["short_scan"]


@pytest.mark.parametrize("opts,kw", [([], {}),
                                     (["--filter", "seed"], {"filter": "seed"}),
                                     (["--filter-window", "hann", "--cutoff", "0.7"],
                                      {"window": "hann", "cutoff": 0.7})])
def test_fdk_equals_the_cli(cli, tmp_path, rng, opts, kw):
    g = geom(det_offset_mm=(1.5, -0.5), cor_offset_mm=0.3)
    g.write(tmp_path / "g.json")
    p = rng.random(g.sino_shape).astype(np.float32)
    np.save(tmp_path / "p.npy", p)
    run_cli(cli, "fdk", "--geom", tmp_path / "g.json", *opts, tmp_path / "p.npy",
            tmp_path / "v.npy")
    assert np.array_equal(np.load(tmp_path / "v.npy"), ct.fdk(p, g, **kw))


def test_fdk_backprojector_equals_the_cli(cli, tmp_path, rng):
    g = geom()
    g.write(tmp_path / "g.json")
    p = rng.random(g.sino_shape).astype(np.float32)
    np.save(tmp_path / "p.npy", p)
    run_cli(cli, "backproject", "--backprojector", "fdk", "--geom", tmp_path / "g.json",
            tmp_path / "p.npy", tmp_path / "b.npy")
    b = ct.FdkPlan(g).backproject(p)
    assert np.array_equal(np.load(tmp_path / "b.npy"), b)
    # q = 1 everywhere: every voxel sums 1 / lambda^2 over the views, lambda = depth / sdd
    odd = ct.Geometry.cone((24, 32), (15, 19, 19), 120, 240, nviews=40)
    ones = ct.FdkPlan(odd).backproject(np.ones(odd.sino_shape, np.float32))
    v = odd.views
    n = (v["det"] - v["src"]) / np.linalg.norm(v["det"] - v["src"], axis=1)[:, None]
    sdd = np.einsum("ij,ij->i", v["det"] - v["src"], n)
    lam = np.einsum("ij,ij->i", -v["src"], n) / sdd   # the voxel at the origin
    assert ones[7, 9, 9] == pytest.approx(np.sum(1 / lam ** 2), rel=1e-5)


def test_fdk_over_a_device_list_equals_one_part(rng):
    """A context with a device list (here the CPU's: 3 parts) divides FDK into z slabs; the
    volume is the undivided one bit for bit (docs/scaling.md)."""
    g = ct.Geometry.cone((24, 32), (40, 20, 20), 120, 240, voxel_mm=1.0, nviews=40)
    p = rng.standard_normal(g.sino_shape).astype(np.float32)
    ctx = kray.Context("cpu", devices=[0, 1, 2])
    assert ctx.devices == [0, 1, 2] and kray.Context("cpu").devices == [0]
    one = ct.FdkPlan(g).execute(p)
    three = ct.FdkPlan(g, device=ctx).execute(p)
    assert np.array_equal(one, three)
    with pytest.raises(kray.KrayError):
        kray.Context("cpu", devices="0,,1")
