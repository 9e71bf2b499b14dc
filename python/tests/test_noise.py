"""kray.noise: whitening (W Psi W^H = I), noise statistics, sample covariance as a direct sum."""
import numpy as np
import pytest

import kray
import kray.noise as kn


def psi3():
    L = np.array([[1.0, 0, 0], [0.3 + 0.2j, 0.8, 0], [-0.1j, 0.4, 0.6]])
    return L @ L.conj().T


def test_whitener():
    psi = psi3()
    W = kn.whitener(psi)
    assert np.allclose(np.triu(W, 1), 0)
    np.testing.assert_allclose(W @ psi @ W.conj().T, np.eye(3), atol=1e-13)
    with pytest.raises(kray.InvalidArgumentError):
        kn.whitener(np.array([[1.0, 2.0], [2.0, 1.0]]))  # not positive definite
    with pytest.raises(kray.DimensionError):
        kn.whitener(np.ones((2, 3)))


def test_noise_has_the_covariance_and_covariance_is_the_direct_sum():
    psi = psi3()
    d = np.zeros((3, 200, 100), np.complex64)
    n = kn.add(d, 0.5, psi, coil_axis=0, seed=7)
    assert not d.any() and n.shape == d.shape
    assert np.array_equal(n, kn.add(d, 0.5, psi, seed=7))
    assert not np.array_equal(n, kn.add(d, 0.5, psi, seed=8))
    c = kn.covariance(n, coil_axis=0)
    m = n.reshape(3, -1).astype(np.complex128)
    np.testing.assert_allclose(c, m @ m.conj().T / m.shape[1], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(c, 0.25 * psi, atol=0.01)
    # coil axis last, in place
    e = np.zeros((100, 50, 3), np.complex64)
    assert kn.add(e, 1.0, coil_axis=-1, inplace=True) is e and e.any()
    np.testing.assert_allclose(kn.covariance(e, coil_axis=2), np.eye(3), atol=0.05)
    with pytest.raises(kray.InvalidArgumentError):
        kn.add(e[:, ::2], 1.0, coil_axis=-1, inplace=True)
    with pytest.raises(kray.DTypeError):
        kn.add(np.zeros((3, 4)), 1.0)
