"""Coil noise (kray/noise.h): complex Gaussian noise with a coil covariance Psi, the sample
covariance of noise scans, and whitening matrices. Host arrays only.

Psi is an (nc, nc) Hermitian positive definite NumPy matrix with Psi[r, c] = E[n_r conj(n_c)]
(ordinary matrix indexing; kray's Fortran-ordered [nc, nc] is transposed at the boundary).
The whitener W = L^-1 (Psi = L L^H, W lower triangular) makes W n white: W Psi W^H = I.
`coil_axis` is a Python axis of the data (default 0: data (nc, ...)).
"""
from ctypes import POINTER, byref, c_double, c_int, c_uint64, c_void_p

import numpy as np

from ._lib import fn, lib, parr, InvalidArgumentError
from . import _array as A
from ._ctx import cpu_context

fn("kr_noise_add", [c_void_p, parr, c_int, parr, c_double, c_uint64])
fn("kr_noise_covariance", [c_void_p, parr, c_int, POINTER(POINTER(A.KrArray))])
fn("kr_noise_whitener", [parr, POINTER(POINTER(A.KrArray))])


def _axis(a, coil_axis):
    n = len(a.shape)
    if not -n <= coil_axis < n:
        raise InvalidArgumentError("kray: coil_axis %d is out of range for data of %d "
                                   "dimensions" % (coil_axis, n))
    return n - 1 - (coil_axis % n)


def _psi_arg(psi):
    return A.matrix_arg(psi, "Psi", (A.KR_C64, A.KR_C128), cast=A.KR_C128)


def add(data, sigma, psi=None, coil_axis=0, seed=1, inplace=False):
    """data + complex Gaussian noise of covariance sigma^2 Psi (Psi None: identity) across
    the coil axis; complex64 host data. Deterministic for a seed. Returns a new array unless
    inplace (then data itself is changed and returned)."""
    if inplace:
        a = A.arg(data, "the data", dtypes=(A.KR_C64,))
        ptr = data.data_ptr() if A.kind_of(data) == "torch" else \
            getattr(getattr(data, "ctypes", None), "data", None)
        if a.c.data != ptr:
            raise InvalidArgumentError("kray: noise added in place needs C-contiguous "
                                       "complex64 host data")
    else:
        a = A.arg(A.copy_of(A.arg(data, "the data", dtypes=(A.KR_C64,)).obj), "the data")
        data = a.obj
    pa = _psi_arg(psi) if psi is not None else None
    lib.kr_noise_add(cpu_context().ptr, a.ref(), _axis(a, coil_axis),
                     pa.ref() if pa is not None else None, float(sigma), int(seed))
    return data


def covariance(noise, coil_axis=0):
    """Sample covariance (nc, nc) complex128 of noise-only samples (complex64, host):
    Psi = (1/n) sum_p n_p n_p^H."""
    a = A.arg(noise, "the noise samples", dtypes=(A.KR_C64,))
    p = POINTER(A.KrArray)()
    lib.kr_noise_covariance(cpu_context().ptr, a.ref(), _axis(a, coil_axis), byref(p))
    return np.ascontiguousarray(A.adopt(p).T)


def whitener(psi):
    """W = L^-1 (lower triangular, (nc, nc) complex128) for Psi = L L^H."""
    pa = _psi_arg(psi)
    p = POINTER(A.KrArray)()
    lib.kr_noise_whitener(pa.ref(), byref(p))
    return np.ascontiguousarray(A.adopt(p).T)
