"""kray.fft against numpy.fft: signs, scaling, centring, axes, plans and shifts."""
import numpy as np
import pytest

import kray
import kray.fft as kf


@pytest.mark.parametrize("dt,tol", [(np.complex64, 2e-6), (np.complex128, 1e-13)])
def test_against_numpy(rng, dt, tol):
    x = (rng.standard_normal((3, 5, 6)) + 1j * rng.standard_normal((3, 5, 6))).astype(dt)
    s = np.abs(x).sum()

    def close(a, b):
        assert a.dtype == dt and np.abs(a - b).max() <= tol * s
    close(kf.fft(x), np.fft.fftn(x))
    close(kf.ifft(x), np.fft.ifftn(x) * x.size)
    close(kf.fft(x, axes=(1, 2)), np.fft.fftn(x, axes=(1, 2)))
    close(kf.fft(x, axes=-1, unitary=True), np.fft.fft(x, axis=-1, norm="ortho"))
    c = np.fft.fftshift(np.fft.fftn(np.fft.ifftshift(x, axes=(0, 1)), axes=(0, 1)), axes=(0, 1))
    close(kf.fft(x, axes=(0, 1), centered=True), c)
    with kf.FFTPlan(x.shape, dt, axes=(0, 2), inverse=True, unitary=True) as P:
        close(P(x), np.fft.ifftn(x, axes=(0, 2), norm="ortho"))
        y = x.copy()
        assert P.execute(y, out=y) is y
        close(y, np.fft.ifftn(x, axes=(0, 2), norm="ortho"))


def test_real_input_and_shifts(rng):
    x = rng.standard_normal((4, 7))
    y = kf.fft(x)
    assert y.dtype == np.complex128
    np.testing.assert_allclose(y, np.fft.fft2(x), atol=1e-12)
    assert kf.fft(x.astype(np.float32)).dtype == np.complex64
    for axes in (None, 0, (1,), (0, 1)):
        np.testing.assert_array_equal(kf.fftshift(x, axes), np.fft.fftshift(x, axes))
        np.testing.assert_array_equal(kf.ifftshift(x, axes), np.fft.ifftshift(x, axes))
    u = np.arange(9, dtype=np.uint16)
    np.testing.assert_array_equal(kf.fftshift(u), np.fft.fftshift(u))
    kf.cache_clear()


def test_bad_inputs(rng):
    with pytest.raises(kray.InvalidArgumentError):
        kf.fft(np.zeros((2, 2), np.complex64), axes=2)
    with pytest.raises(kray.DTypeError):
        kf.FFTPlan((4,), np.float32)
    P = kf.FFTPlan((4, 4))
    with pytest.raises(kray.DimensionError):
        P(np.zeros((4, 5), np.complex64))
    with pytest.raises(kray.DTypeError):
        P(np.zeros((4, 4), np.complex128))
