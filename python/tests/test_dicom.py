"""kray.dicom: CT slices written in HU and read back."""
import numpy as np
import pytest

import kray
import kray.dicom as kd

pytestmark = pytest.mark.skipif("dcmtk" not in kray.build_features,
                                reason="libkray was built without DCMTK")


def test_round_trip_in_hounsfield_units(tmp_path, rng):
    mu = 0.0193 * (1 + rng.uniform(-1, 1, (12, 10)))
    p = tmp_path / "s.dcm"
    kd.write(p, mu, pixel_spacing_mm=(0.5, 0.75), patient_name="Test^kray")
    hu, sp = kd.read(p, spacing=True)
    assert hu.shape == (12, 10) and hu.dtype == np.float32 and sp == (0.5, 0.75)
    np.testing.assert_allclose(hu, 1000 * (mu - 0.0193) / 0.0193, atol=0.5 + 1e-3)
    kd.write(p, np.full((4, 4), 50.0, np.float32), values_are_hu=True)
    assert np.array_equal(kd.read(p), np.full((4, 4), 50.0, np.float32))


def test_volume_writes_one_file_per_slice(tmp_path):
    v = np.stack([np.full((5, 6), 0.0193 * (1 + k / 10)) for k in range(3)])
    kd.write(tmp_path / "v.dcm", v, slice_spacing_mm=2.0)
    for k in range(3):
        np.testing.assert_allclose(kd.read(tmp_path / ("v_%04d.dcm" % k)), 100 * k, atol=0.5)
    with pytest.raises(kray.KrayIOError):
        kd.read(tmp_path / "none.dcm")
    with pytest.raises(kray.DTypeError):
        kd.write(tmp_path / "x.dcm", np.zeros((4, 4), np.int16))
