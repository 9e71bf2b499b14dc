"""The binding's core: library, errors, array passing, contexts, the GIL, operators, solvers."""
import ctypes
import threading
import time

import numpy as np
import pytest

import kray
from kray import _lib
from kray._array import arg
from conftest import (HAVE_CUDA, needs_cuda, needs_cupy, needs_torch, needs_torch_cuda,
                      device_kinds, to_kind, to_numpy)


def test_version_and_features():
    assert kray.__version__.count(".") == 2
    assert "fftw" in kray.build_features


def test_every_status_has_its_exception():
    # The exception table follows kr_status's order (kr_status_string names each code).
    for code in range(1, len(_lib.ERRORS)):
        name = _lib.lib.kr_status_string(code).decode()
        assert _lib.ERRORS[code].status == name, (code, name)
    assert _lib.lib.kr_status_string(len(_lib.ERRORS)).decode() != "KR_ERR_INTERNAL"


def test_error_carries_kray_sentence(tmp_path):
    with pytest.raises(kray.KrayIOError) as e:
        kray.read(str(tmp_path / "missing.npy"))
    assert "missing.npy" in str(e.value) and isinstance(e.value, OSError)
    bad = tmp_path / "bad.npy"
    bad.write_bytes(b"\x93NUMPY\x01\x00garbage")
    with pytest.raises(kray.FormatError):
        kray.read(str(bad))


def test_shapes_are_python_order_and_zero_copy():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    a = arg(x)
    assert [a.c.dims[i] for i in range(a.c.ndim)] == [4, 3, 2]
    assert a.c.data == x.ctypes.data  # the same memory, no copy
    y = x[:, ::2, :]                    # non-contiguous: copied once
    b = arg(y)
    assert b.c.data != x.ctypes.data and np.array_equal(b.obj, y)


def test_dtype_rejected_with_sentence():
    with pytest.raises(kray.DTypeError) as e:
        arg(np.zeros(3, dtype=np.int64), "the sinogram")
    assert "the sinogram" in str(e.value)


def test_roundtrip_every_dtype(tmp_path):
    for dt in (np.float32, np.float64, np.complex64, np.complex128, np.uint8, np.uint16,
               np.int16):
        x = (np.arange(30) % 7).astype(dt).reshape(5, 6)
        for ext in (".npy", ".nrrd", ".mha"):
            p = str(tmp_path / ("a" + ext))
            kray.write(p, x)
            y = kray.read(p)
            assert y.dtype == x.dtype and y.shape == x.shape and np.array_equal(x, y), (dt, ext)
        np.testing.assert_array_equal(np.load(str(tmp_path / "a.npy")), x)


def test_read_meta(tmp_path):
    p = str(tmp_path / "v.nii")
    kray.write(p, np.ones((4, 5, 6), np.float32), spacing=(0.5, 0.75, 2.0), origin=(1, 2, 3))
    v, m = kray.read(p, meta=True)
    assert v.shape == (4, 5, 6)
    np.testing.assert_allclose(m["spacing"], (0.5, 0.75, 2.0))
    np.testing.assert_allclose(m["origin"], (1, 2, 3))


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128])
def test_matrix_operator_and_solvers(rng, dt):
    m = rng.standard_normal((7, 4)).astype(dt)
    if np.iscomplexobj(m):
        m = (m + 1j * rng.standard_normal((7, 4))).astype(dt)
    A = kray.Linop.matrix(m)
    assert A.shape_in == (4,) and A.shape_out == (7,) and A.dtype == dt
    tol = 1e-5 if dt in (np.float32, np.complex64) else 1e-13
    assert A.adjoint_test() < tol * 10
    x = rng.standard_normal(4).astype(dt)
    np.testing.assert_allclose(A(x), m @ x, rtol=tol, atol=tol)
    y = rng.standard_normal(7).astype(dt)
    np.testing.assert_allclose(A.adjoint(y), m.conj().T @ y, rtol=tol, atol=tol)
    np.testing.assert_allclose(A.normal(x), m.conj().T @ (m @ x), rtol=tol * 10, atol=tol * 10)
    r = kray.cgls(A, m @ x, max_iter=20, tol=tol)
    assert r.converged and r.history[0] == 1.0
    np.testing.assert_allclose(r.x, x, rtol=100 * tol, atol=100 * tol)
    r2 = kray.cg(A.N, A.adjoint(m @ x), max_iter=20, tol=tol)
    np.testing.assert_allclose(r2.x, x, rtol=100 * tol, atol=100 * tol)
    # warm start from the answer converges at once and leaves x0 untouched
    x0 = r.x.copy()
    r3 = kray.cgls(A, m @ x, x0=x0, max_iter=20, tol=1e-3)
    assert r3.iterations <= 1 and np.array_equal(x0, r.x)


def test_combinators(rng):
    a = rng.standard_normal((5, 3))
    b = rng.standard_normal((3, 3))
    A, B = kray.Linop.matrix(a), kray.Linop.matrix(b)
    x = rng.standard_normal(3)
    np.testing.assert_allclose((A @ B)(x), a @ b @ x, rtol=1e-12)
    np.testing.assert_allclose((B + B)(x), 2 * b @ x, rtol=1e-12)
    np.testing.assert_allclose((2.5 * A)(x), 2.5 * a @ x, rtol=1e-12)
    np.testing.assert_allclose(kray.stack(A, B)(x), np.concatenate([a @ x, b @ x]), rtol=1e-12)
    with pytest.raises(kray.DimensionError):
        A @ A
    with A:
        pass
    with pytest.raises(ValueError):
        A(x)


def test_wrong_shape_and_dtype_raise(rng):
    A = kray.Linop.matrix(rng.standard_normal((5, 3)))
    with pytest.raises(kray.DimensionError):
        A(np.zeros(4))
    with pytest.raises(kray.DTypeError):
        A(np.zeros(3, np.float32))


def test_gil_released_during_calls():
    # A long kray call in one thread must not stop Python code in another.
    # (CGLS on a random matrix with tol 0 runs all its iterations; the work grows until the
    # call lasts 0.1 s, so the test means the same on fast and slow machines.)
    n = 1000
    A = kray.Linop.matrix(np.random.default_rng(0).standard_normal((n, n)))
    y = np.ones(n)
    iters = 20
    while True:
        done = threading.Event()
        counter = [0]

        def work():
            kray.cgls(A, y, max_iter=iters, tol=0.0)
            done.set()

        t = threading.Thread(target=work)
        t0 = time.perf_counter()
        t.start()
        while not done.is_set():
            counter[0] += 1
        t.join()
        dt = time.perf_counter() - t0
        if dt > 0.1 or iters > 20000:
            break
        iters *= 4
    assert dt > 0.1
    assert counter[0] > 1000, counter[0]


def test_threads_get_their_own_context():
    from kray._ctx import cpu_context
    mine = cpu_context()
    other = []
    t = threading.Thread(target=lambda: other.append(cpu_context()))
    t.start()
    t.join()
    assert other[0] is not mine and cpu_context() is mine


def test_context_explicit():
    c = kray.Context("cpu-serial")
    assert c.backend == "cpu-serial" and c.threads == 1
    with pytest.raises(ValueError):
        kray.Context("tpu")
    if not HAVE_CUDA:
        with pytest.raises(kray.NoDeviceError):
            kray.Context("cuda")


@needs_torch
def test_torch_cpu_in_torch_out(rng):
    import torch
    A = kray.Linop.matrix(rng.standard_normal((5, 3)))
    x = torch.randn(3, dtype=torch.float64)
    y = A(x)
    assert isinstance(y, torch.Tensor) and y.dtype == torch.float64
    np.testing.assert_allclose(y.numpy(), A(x.numpy()), rtol=0, atol=0)


@needs_torch
@pytest.mark.parametrize("dt", ["float64", "complex128"])
def test_autograd_gradcheck(rng, dt):
    import torch
    import kray.torch as kt
    m = rng.standard_normal((6, 4)) + (1j * rng.standard_normal((6, 4)) if dt == "complex128"
                                       else 0)
    A = kray.Linop.matrix(m)
    x = torch.randn(4, dtype=getattr(torch, dt), requires_grad=True)
    assert torch.autograd.gradcheck(lambda v: kt.apply(A, v), (x,))
    y = torch.randn(6, dtype=getattr(torch, dt), requires_grad=True)
    assert torch.autograd.gradcheck(lambda v: kt.apply_adjoint(A, v), (y,))
    mod = kt.Operator(A)
    loss = (mod(x).abs() ** 2).sum()
    loss.backward()
    want = 2 * m.conj().T @ (m @ x.detach().numpy())
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-10)


@needs_cupy
def test_cupy_zero_copy_same_pointer(rng):
    import cupy
    m = rng.standard_normal((5, 3))
    A = kray.Linop.matrix(m, device=0)
    x = cupy.asarray(rng.standard_normal(3))
    out = cupy.empty(5)
    y = A.forward(x, out=out)
    assert y is out and arg(x).c.data == x.data.ptr
    np.testing.assert_allclose(cupy.asnumpy(out), m @ cupy.asnumpy(x), rtol=1e-12)
    assert isinstance(A(x), cupy.ndarray)


@needs_cupy
def test_cupy_runs_on_current_stream(rng):
    import cupy
    m = rng.standard_normal((64, 64))
    A = kray.Linop.matrix(m, device=0)
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        x = cupy.asarray(rng.standard_normal(64))
        y = A(x)
        z = y * 2   # ordered after kray's kernel on the same stream
    s.synchronize()
    np.testing.assert_allclose(cupy.asnumpy(z), 2 * m @ cupy.asnumpy(x), rtol=1e-12)
    assert A.ctx._stream == s.ptr      # the operator's context ran on the caller's stream


@needs_torch_cuda
def test_torch_cuda_zero_copy_and_autograd(rng):
    import torch
    import kray.torch as kt
    m = rng.standard_normal((6, 4))
    A = kray.Linop.matrix(m, device=0)
    x = torch.randn(4, dtype=torch.float64, device="cuda", requires_grad=True)
    out = torch.empty(6, dtype=torch.float64, device="cuda")
    assert A.forward(x.detach(), out=out) is out
    assert arg(x).c.data == x.data_ptr()
    assert torch.autograd.gradcheck(lambda v: kt.apply(A, v), (x,))


def test_cfl_image_axes(tmp_path):
    # axes="image" stores BART's (row, column) order: the file's dims are the NumPy shape
    # reversed only after the swap of the first two, i.e. a (ny, nx) image is BART [ny, nx].
    x = (np.arange(12, dtype=np.complex64) + 1j).reshape(3, 4)
    p = str(tmp_path / "im")
    kray.write(p + ".cfl", x, axes="image")
    dims = open(p + ".hdr").read().split("\n")[1].split()
    assert dims[:2] == ["3", "4"]
    np.testing.assert_array_equal(kray.read(p + ".cfl", axes="image"), x)
    assert kray.read(p + ".cfl").shape == (4, 3)
    kray.write(p + "s.cfl", x)
    assert open(p + "s.hdr").read().split("\n")[1].split()[:2] == ["4", "3"]
    with pytest.raises(ValueError):
        kray.read(p + ".cfl", axes="rows")
