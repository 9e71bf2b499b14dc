"""The per-call path of the binding: cached kr_array descriptors (keyed by pointer, dims, dtype
and place, never stale, never modified), data pointers read without __array_interface__,
PyTorch's lazy conjugate/negative views, and host arrays on CUDA plans (staged through device
buffers, page-locked on their second use; the CUDA part is skipped without a GPU)."""
import gc

import numpy as np
import pytest

import kray
import kray.ct as ct
from kray import _array as A
from kray import _staging
from kray._array import arg, redim
from conftest import HAVE_CUPY, needs_cuda, needs_torch


def described(a, x):
    """The descriptor of Arg a is x: its pointer, reversed shape, contiguous strides, dtype."""
    c = a.c
    shape = x.shape if x.ndim else (1,)
    dims = tuple(reversed(shape))
    assert (c.data or 0) == x.__array_interface__["data"][0]
    assert tuple(c.dims[:c.ndim]) == dims and c.dtype == A.kr_dtype(x.dtype)
    st = [1]
    for d in dims[:-1]:
        st.append(st[-1] * d)
    assert tuple(c.strides[:c.ndim]) == tuple(st) and c.loc == A.KR_HOST


def test_data_pointer_without_array_interface():
    base = np.arange(64, dtype=np.float64)
    for x in (base, base[3:], base.reshape(8, 8)[2:], np.ones(()), np.ones((3, 4)).T,
              np.empty(0), np.frombuffer(b"\x00" * 16, np.float32)):
        assert A.np_ptr(x) == (x.__array_interface__["data"][0] or 0)


def test_descriptors_are_cached_and_keyed_by_everything(rng):
    x = rng.random((5, 8)).astype(np.float32)
    a, b = arg(x), arg(x)
    assert a.c is b.c                      # the same operand again: the cached structure
    described(a, x)
    v = x.reshape(8, 5)                    # the same pointer, other dims
    assert arg(v).c is not a.c
    described(arg(v), v)
    described(arg(x[1:]), x[1:])           # another pointer
    z = x.view(np.complex64)               # the same pointer and bytes, another dtype
    assert arg(z).c is not a.c
    described(arg(z), z)
    x.shape = (40,)                        # the object's shape changed in place
    described(arg(x), x)


def test_pointer_is_read_each_call():
    x = np.zeros(1000)
    described(arg(x), x)
    x.resize(1 << 20, refcheck=False)     # reallocated in place: the same object, new memory
    described(arg(x), x)


def test_redim_leaves_the_shared_descriptor_alone(rng):
    x = rng.random((4, 6))
    a = arg(x)
    redim(a, [24])
    assert a.c.ndim == 1 and a.c.dims[0] == 24
    described(arg(x), x)                   # the cached one still describes (4, 6)
    with pytest.raises(kray.DimensionError):
        redim(arg(x), [25])


def test_calls_stay_right_when_the_cache_is_emptied(rng):
    m = rng.standard_normal((3, 3))
    A_ = kray.Linop.matrix(m)
    x = rng.standard_normal(3)
    y = np.zeros(3)
    for i in range(A._DESC_MAX + 10):      # more distinct operands than the table keeps
        arg(np.zeros(i % 50 + 1))
        if i % 97 == 0:
            A_.forward(x, out=y)
            np.testing.assert_allclose(y, m @ x, rtol=1e-14)
    assert len(A._DESC) <= A._DESC_MAX


def test_non_contiguous_and_cast_inputs_are_converted(rng):
    m = rng.standard_normal((4, 4))
    op = kray.Linop.matrix(m)
    x = rng.standard_normal((4, 2))
    np.testing.assert_allclose(op(x[:, 1]), m @ x[:, 1], rtol=1e-14)      # strided: copied
    with pytest.raises(kray.DTypeError):
        op(x[:, 1].astype(np.float32))
    with pytest.raises(kray.DTypeError):
        op(np.arange(4))


@needs_torch
def test_torch_lazy_views_are_resolved(rng):
    import torch
    m = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    op = kray.Linop.matrix(m)
    z = torch.randn(3, dtype=torch.complex128)
    for v, want in ((z.conj(), z.numpy().conj()), (z.conj().imag, -z.numpy().imag)):
        if v.dtype != torch.complex128:
            v, want = v.to(torch.complex128), want.astype(np.complex128)
        np.testing.assert_allclose(op(v).numpy(), m @ want, rtol=1e-13)
    assert arg(z).c.data == z.data_ptr()
    r = kray.Linop.matrix(m.real)
    w = z.conj().imag                      # a float64 view with the negative bit
    assert w.is_neg()
    np.testing.assert_allclose(r(w).numpy(), m.real @ (-z.numpy().imag), rtol=1e-13)
    with pytest.raises(kray.LocationError, match="meta"):
        r(torch.empty(3, dtype=torch.float64, device="meta"))
    with pytest.raises(kray.DTypeError, match="bfloat16"):
        r(torch.zeros(3, dtype=torch.bfloat16))


def test_pinning_is_harmless_without_a_device():
    if kray.has_cuda():
        pytest.skip("a GPU is present (the CUDA test covers pinning)")
    x = np.ones(1 << 17)                   # 1 MiB, seen twice: the lock is tried and fails
    for _ in range(3):
        assert _staging.pin(arg(x)) is False
    assert _staging.pinned_bytes() == 0


def _fbp_setup(rng, dt=np.float32):
    g = ct.Geometry.parallel(det_count=192, image_shape=(160, 160), nviews=400)
    x = rng.random(g.image_shape).astype(dt)
    sino = ct.Projector(g, dtype=dt)(x)
    return g, sino


@needs_cuda
def test_fbp_host_arrays_on_a_cuda_plan(rng):
    g, sino = _fbp_setup(rng)               # 300 KiB sinogram, 100 KiB image
    want = ct.FbpPlan(g)(sino)
    with ct.FbpPlan(g, device=0) as P:
        first = P(sino)
        assert isinstance(first, np.ndarray) and first.shape == want.shape
        assert np.abs(first - want).max() <= 1e-4 * np.abs(want).max()
        out = np.zeros((2,) + want.shape, np.float32)   # 100 KiB each: not locked
        o0, o1 = out
        before = _staging.pinned_bytes()
        for _ in range(3):                  # the same sinogram again: locked once, reused
            assert P.execute(sino, out=o0) is o0
        assert _staging.pinned_bytes() == before + sino.nbytes
        np.testing.assert_array_equal(o0, first)
        P.filter(sino)
        np.testing.assert_array_equal(P.backproject(out=o1), first)
        if HAVE_CUPY:
            import cupy as cp
            # CuPy copies from page-locked memory asynchronously and keeps the source alive
            # until it knows the copy is done: give it its own copy of the sinogram, so the
            # check below sees kray's unlock when `sino` goes away
            d = P(cp.asarray(sino.copy()))
            np.testing.assert_array_equal(cp.asnumpy(d), first)   # one kernel, same bits
            od = cp.zeros(want.shape, cp.float32)
            assert P(sino, out=od) is od                          # host in, device out
            np.testing.assert_array_equal(cp.asnumpy(od), first)
            o1[...] = 0
            assert P(cp.asarray(sino.copy()), out=o1) is o1       # device in, host out
            np.testing.assert_array_equal(o1, first)
    del sino
    gc.collect()
    assert _staging.pinned_bytes() == before     # unlocked when the array went away


@needs_cuda
def test_fdk_host_volume_locked_on_reuse(rng):
    g = ct.Geometry.cone((48, 64), (40, 48, 56), 120, 240, nviews=24, det_spacing_mm=1.2)
    proj = ct.phantom_projections(g)
    want = ct.FdkPlan(g)(proj)
    with ct.FdkPlan(g, device=0) as P:
        vol = np.empty(g.image_shape, np.float32)   # 420 KiB
        before = _staging.pinned_bytes()
        for _ in range(3):
            assert P.execute(proj, out=vol) is vol
        assert _staging.pinned_bytes() == before + vol.nbytes
        assert np.abs(vol - want).max() <= 1e-4 * np.abs(want).max()
    del vol
    gc.collect()
    assert _staging.pinned_bytes() == before
