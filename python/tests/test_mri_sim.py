"""kray.mri.sim and kray.mri.fve: against the CLI (bit-identical) and closed forms."""
import subprocess

import numpy as np
import pytest

import kray
from kray.mri import coils, fve, sim, sim_iso
from conftest import needs_cupy


def run(cli, *args):
    subprocess.run([cli, *args, "-q", "--backend", "cpu"], check=True)


@pytest.fixture(scope="module")
def tissue(tmp_path_factory):
    import os
    cli = os.environ.get("KRAY")
    d = tmp_path_factory.mktemp("sim")
    p = str(d / "tis.npy")
    if cli and os.path.exists(cli):
        run(cli, "phantom", "--kind", "mr", "--grid", "fft", "-n", "16", p)
        return p, np.load(p)
    t = np.zeros((3, 16, 16), np.float32)
    t[0], t[1], t[2, 4:12, 4:12] = 900.0, 80.0, 1.0
    return None, t


def test_hard_pulse_closed_form():
    """A 90 degree hard pulse of phase 0 leaves Mxy = i M0; free precession and T2 decay."""
    s = sim.Sequence()
    amp = 0.25 / (sim.GAMMA_BAR_HZ_PER_T * 1e-6 * 100e-6)   # 90 degrees in 100 us
    s.add_block(100e-6, rf={"n": 1, "dt_s": 100e-6, "amp_uT": amp})
    s.add_block(10e-3, adc={"n": 4, "dwell_s": 2e-3})
    assert s.info["nblocks"] == 2 and s.info["nsamples"] == 4
    iso = sim.Isochromats(2)
    iso.t1_ms = 1e9
    iso.t2_ms = [50.0, 1e9]
    iso.m0 = [1.0, 0.0]
    iso.df_hz = [0.0, 25.0]
    iso.equilibrium()
    np.testing.assert_array_equal(iso.mz, [1.0, 0.0])
    with sim.SimPlan(s) as p:
        p.set_object(iso)
        assert p.info["niso"] == 2 and p.info["ncoils"] == 1
        k = p()
        p.get_state(iso)
    t = 50e-6 + (np.arange(4) + 0.5) * 2e-3       # from the pulse's centre
    np.testing.assert_allclose(k[0], 1j * np.exp(-t / 50e-3), atol=2e-6)
    assert abs(iso.mz[0]) < 1e-5 and iso.my[0] == pytest.approx(np.exp(-10.05e-3 / 50e-3), 1e-5)
    iso.m0 = [0.0, 1.0]                            # free precession at 25 Hz
    iso.equilibrium()
    with sim.SimPlan(s) as p:
        k2 = p.set_object(iso)()
    np.testing.assert_allclose(k2[0, 1:] / k2[0, :-1], np.exp(-2j * np.pi * 25 * 2e-3),
                               atol=1e-5)
    np.testing.assert_allclose(np.abs(k2), 1, atol=1e-3)
    k = k2
    np.testing.assert_array_equal(sim.simulate(s, iso), k)


def test_sequence_blocks_trap_and_errors(tmp_path):
    t, g = sim.trap(0.0, 10.0, 1e-4, 5e-4, 1e-4)
    np.testing.assert_allclose(t, [0, 1e-4, 6e-4, 7e-4])
    np.testing.assert_allclose(g, [0, 10, 10, 0])
    s = sim.Sequence()
    s.add_block(1e-3, grad=((t, g), None, None), adc={"n": 8, "dwell_s": 5e-5,
                                                     "delay_s": 1e-4, "line": 3})
    b = s.block(0)
    np.testing.assert_allclose(b["grad"][0][1], g)
    assert b["adc"]["line"] == 3 and b["grad"][1] is None and b["rf"] is None
    assert s.adc(0)[:2] == (0, 0)
    with pytest.raises(kray.InvalidArgumentError):
        s.add_block(1e-3, grad=((t, g * 100), None, None))   # beyond gmax
    assert s.info["nblocks"] == 1                            # unchanged
    with pytest.raises(kray.InvalidArgumentError):
        sim.Sequence.gre(nx=16, ny=16, te_ms=0.01)
    with pytest.raises(kray.InvalidArgumentError):
        sim.Sequence.gre(bogus=1)
    g2 = sim.Sequence.gre(nx=16, ny=16, fov_x_mm=16, fov_y_mm=16, te_ms=5, tr_ms=20,
                          bw_hz_px=625)
    p = str(tmp_path / "g.seq")
    g2.write_pulseq(p, name="gre")
    r = sim.Sequence.read_pulseq(p)
    assert r.info["nsamples"] == g2.info["nsamples"] == 256
    assert abs(r.info["duration_s"] - g2.info["duration_s"]) < 1e-9
    e = sim.Sequence.se_epi(nx=16, ny=16, fov_x_mm=64, fov_y_mm=64, te_ms=40, tr_ms=200,
                            bw_hz_px=1000)
    assert abs(e.se_line_time(8) - 40e-3) < 1e-6


@pytest.mark.parametrize("seq", ["gre", "se-epi"])
def test_sim_bit_identical_to_cli(cli, tmp_path, tissue, seq):
    path, tis = tissue
    if path is None:
        pytest.skip("no CLI")
    out = str(tmp_path / "k.npy")
    args = ["sim", "--object", path, "--seq", seq, "--coils", "3", "--rbody", "40", out]
    if seq == "gre":
        args[1:1] = ["--te", "5", "--tr", "20", "--sub", "2"]
    run(cli, *args)
    iso = sim.Isochromats.from_tissue(tis, voxel_mm=(1, 1, 5), sub=(2, 2, 1) if seq == "gre"
                                      else (1, 1, 1))
    if seq == "gre":
        s = sim.Sequence.gre(nx=16, ny=16, fov_x_mm=16, fov_y_mm=16, te_ms=5, tr_ms=20)
    else:
        s = sim.Sequence.se_epi(nx=16, ny=16, fov_x_mm=16, fov_y_mm=16, ndummy=1)
    cs, _ = coils.layout_mrxcat(3, 8, 40.0)
    xyz = np.stack([iso.x_mm, iso.y_mm, iso.z_mm], -1)
    sens = coils.sens_points(cs, xyz, norm="rss-centre")
    k = sim.simulate(s, iso, sens)
    if seq == "se-epi":
        k = s.sort_kspace(k, 16, 16)
    ref = np.load(out)
    np.testing.assert_array_equal(k.reshape(ref.shape), ref)


def test_iso_from_maps_and_tissue(tissue):
    _, tis = tissue
    a = sim.Isochromats.from_tissue(tis, voxel_mm=(2, 2, 5))
    b = sim.Isochromats.from_maps(tis[0], tis[1], tis[2], voxel_mm=(2, 2, 5))
    n = int(np.sum(tis[2] > 0))
    assert len(a) == len(b) == n
    for f in sim_iso.FIELDS:
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    j = np.flatnonzero(tis[2].ravel() > 0)
    np.testing.assert_array_equal(a.voxel, j)              # row-major index (y * nx + x)
    np.testing.assert_allclose(a.x_mm, ((j % 16) - 8) * 2.0)
    np.testing.assert_allclose(a.y_mm, ((j // 16) - 8) * 2.0)
    np.testing.assert_allclose(a.t1_ms, tis[0].ravel()[j])
    c = sim.Isochromats.from_maps(tis[0], tis[1], tis[2], sub=(2, 1, 1), nfreq=3,
                                  spread_hz=10.0)
    assert len(c) == 6 * n
    np.testing.assert_allclose(np.sort(c.df_hz[:6]), np.array([-1, -1, 0, 0, 1, 1]) * 10 / 3,
                               atol=1e-5)
    with pytest.raises(kray.InvalidArgumentError):
        sim.Isochromats.from_maps(tis[0], -tis[1] - 1, tis[2])
    with pytest.raises(kray.DimensionError):
        sim.Isochromats.from_maps(tis[0], tis[1][:8], tis[2])


def test_fve_simulate_voxels_spectra(tmp_path):
    o = fve.sim_opts(small=True, frames=2, coils=2, slices=1)
    assert o.enc.n == 48 and o.enc.encodes == 16
    v = fve.velocity_axis(o.enc)
    np.testing.assert_allclose(v, (np.arange(16) - 8) * o.enc.vfov_cm_s / 16)
    p = str(tmp_path / "p.json")
    fve.params_write(p, o.enc, o)
    assert fve.params_read(p).as_dict() == o.enc.as_dict()
    t, d, w = fve.simulate(o)
    assert t.shape[-1] == 3 and d.shape == (2, 2, 16, 1) + t.shape[:-1]
    assert w.shape == t.shape[:-1]
    ves = o.vessel[0]
    x, y = ves.x0 * 24, ves.y0 * 24            # the vessel's centre in pixel coordinates
    vox = np.array([[x, y, 0], [0.0, 0.0, 0]])
    m = fve.voxels(t, w, d, 48, vox)
    assert m.shape == (2, 2, 2, 16)
    mg = fve.voxels(t, w, d, 48, vox, gridded=True, eps=1e-6)
    assert np.abs(mg - m).max() < 1e-5 * np.abs(m).max()
    s = fve.spectra(m)
    assert s.shape == (2, 2, 16)
    vel, inside = fve.true_velocity(o, ves.x0, ves.y0, 0, 0)
    assert inside and abs(vel - fve.vmax(ves, 0, 2)) < 0.05 * abs(vel) + 1e-9
    # The vessel voxel's spectrum spreads over [0, vmax]; the static voxel sits at v = 0.
    peak_static = np.argmax(np.abs(s[1, 0]))
    assert v[peak_static] == 0.0
    band = (v >= -o.enc.vfov_cm_s / 16) & (v <= vel + o.enc.vfov_cm_s / 16)
    assert np.sum(np.abs(s[0, 0, band]) ** 2) > 0.9 * np.sum(np.abs(s[0, 0]) ** 2)


@needs_cupy
def test_cuda_sim_and_fve():
    import cupy as cp
    s = sim.Sequence.gre(nx=8, ny=8, fov_x_mm=8, fov_y_mm=8, te_ms=5, tr_ms=20)
    t = np.zeros((3, 8, 8), np.float32)
    t[0], t[1], t[2, 2:6, 2:6] = 900, 80, 1
    iso = sim.Isochromats.from_tissue(t)
    kd = sim.simulate(s, iso, device=0)
    assert isinstance(kd, cp.ndarray)
    k = sim.simulate(s, iso)
    np.testing.assert_allclose(kd.get(), k, atol=1e-4 * np.abs(k).max())
    o = fve.sim_opts(small=True, frames=1, coils=1, slices=1)
    tr, d, w = fve.simulate(o)
    vox = np.array([[0.0, 0.0, 0]])
    md = fve.voxels(cp.asarray(tr), cp.asarray(w), cp.asarray(d), 48, vox)
    ref = fve.voxels(tr, w, d, 48, vox)
    np.testing.assert_allclose(md.get(), ref, atol=1e-4 * np.abs(ref).max())
