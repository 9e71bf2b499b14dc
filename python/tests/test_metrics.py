"""kray.metrics: direct sums in NumPy, scikit-image's SSIM and the CLI."""
import numpy as np
import pytest

import kray
import kray.metrics as km
from cli_util import run_cli


def test_against_direct_sums(rng):
    ref = rng.random((20, 24))
    x = (ref + 0.05 * rng.standard_normal(ref.shape)).astype(np.float32)
    d = x.astype(np.float64) - ref
    L = ref.max() - ref.min()
    mse = np.mean(d ** 2)
    assert km.mse(x, ref) == pytest.approx(mse, rel=1e-13)
    assert km.psnr(x, ref) == pytest.approx(10 * np.log10(L ** 2 / mse), rel=1e-13)
    assert km.psnr(x, ref, range=2.0) == pytest.approx(10 * np.log10(4 / mse), rel=1e-13)
    assert km.nrmse(x, ref) == pytest.approx(np.linalg.norm(d) / np.linalg.norm(ref), rel=1e-13)
    assert km.maxerr(x, ref) == pytest.approx(np.abs(d).max(), rel=1e-15)
    m = km.compute(x, ref)
    assert m["mse"] == pytest.approx(mse, rel=1e-13) and m["range"] == pytest.approx(L)
    assert m["ssim"] == km.ssim(x, ref)
    assert km.psnr(ref, ref) == np.inf
    # complex values are compared by magnitude
    z = ref * np.exp(1j * rng.random(ref.shape))
    assert km.mse(z.astype(np.complex64), x) == pytest.approx(
        np.mean((np.abs(z.astype(np.complex64)) - x) ** 2), rel=1e-6)


def test_ssim_matches_scikit_image(rng):
    ssim = pytest.importorskip("skimage.metrics").structural_similarity
    ref = rng.random((3, 16, 20))
    x = ref + 0.1 * rng.standard_normal(ref.shape)
    want = np.mean([ssim(x[i], ref[i], gaussian_weights=True, sigma=1.5,
                         use_sample_covariance=False, data_range=1.0) for i in range(3)])
    assert km.ssim(x, ref, 1.0) == pytest.approx(want, rel=1e-12)
    assert np.isnan(km.compute(x[:, :8, :8], ref[:, :8, :8])["ssim"])
    with pytest.raises(kray.DimensionError):
        km.ssim(x[:, :8, :8], ref[:, :8, :8])


def test_bad_inputs():
    with pytest.raises(kray.DimensionError):
        km.mse(np.zeros(4), np.zeros(5))
    with pytest.raises(kray.InvalidArgumentError):
        km.psnr(np.zeros(4), np.ones(4))  # constant reference and no range
    with pytest.raises(kray.InvalidArgumentError):
        km.psnr(np.zeros(4), np.arange(4.0), range=-1)


def test_equal_the_cli(cli, tmp_path, rng):
    ref = rng.random((14, 18)).astype(np.float32)
    x = (ref + 0.05 * rng.standard_normal(ref.shape)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "r.npy", ref)
    j = run_cli(cli, "metrics", "--json", "--range", "1.5", tmp_path / "x.npy",
                tmp_path / "r.npy", want_json=True)
    m = km.compute(x, ref, 1.5)
    for k, jk in (("mse", "mse"), ("psnr", "psnr_db"), ("ssim", "ssim"), ("nrmse", "nrmse"),
                  ("maxerr", "maxerr"), ("range", "range")):
        assert m[k] == pytest.approx(j[jk], rel=1e-11), k
