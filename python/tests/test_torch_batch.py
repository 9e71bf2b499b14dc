"""kray.torch on batches: tensors with leading axes before an operator's shape are mapped member
by member (forward, adjoint, backward), equal to the single calls (bit for bit on the CPU);
gradcheck in float64/complex128 and the adjoint identity <A x, y> = <x, A^H y> in float32 and
float64 on batched inputs, for a CT projector, a NUFFT and a dense matrix; CPU here, CUDA on a
GPU."""
import numpy as np
import pytest

import kray
import kray.ct as ct
import kray.mri as mri
from conftest import HAVE_CUDA, HAVE_TORCH

pytestmark = pytest.mark.skipif(not HAVE_TORCH, reason="PyTorch is not installed")
DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not HAVE_CUDA, reason="no PyTorch with a CUDA device"))]


def torch_dt(np_dt):
    import torch
    return getattr(torch, np.dtype(np_dt).name)


def ops(dt, device):
    """Small operators of float dtype dt (complex ones for the MRI operators)."""
    dev = 0 if device == "cuda" else None
    cdt = np.complex64 if dt == np.float32 else np.complex128
    g = ct.Geometry.parallel(det_count=9, image_shape=(7, 8), nviews=5)
    t = mri.traj.radial(samples=6, spokes=4, oversampling=1, dtype=np.float64)
    eps = 1e-4 if dt == np.float32 else 1e-12
    plan = mri.NufftPlan((6, 6), t, dtype=cdt, eps=eps, device=dev)
    m = np.random.default_rng(3).standard_normal((4, 3)).astype(dt)
    return [ct.operator(g, "joseph", dt, device=dev), plan.linop(),
            kray.Linop.matrix(m, device=dev)]


def same(a, b):
    """a equals b: bit for bit on the CPU; to rounding on a GPU, whose adjoints accumulate
    with atomics in no fixed order."""
    import torch
    if a.device.type == "cpu":
        return torch.equal(a, b)
    tol = 1e-5 if a.dtype in (torch.float32, torch.complex64) else 1e-12
    return a.shape == b.shape and bool(torch.allclose(a, b, rtol=0, atol=tol * float(
        b.abs().max())))


def rand(shape, dt, device, seed):
    import torch
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, dtype=torch.float64, generator=gen)
    if np.dtype(dt).kind == "c":
        x = torch.complex(x, torch.randn(shape, dtype=torch.float64, generator=gen))
    return x.to(torch_dt(dt)).to(device)


@pytest.mark.parametrize("device", DEVICES)
def test_batches_equal_the_single_calls(device):
    import torch
    import kray.torch as kt
    for op in ops(np.float64, device):
        for lead in ((3,), (2, 2)):
            x = rand(lead + tuple(op.shape_in), op.dtype, device, 1)
            y = kt.apply(op, x)
            assert y.shape == lead + tuple(op.shape_out) and y.dtype == torch_dt(op.dtype)
            flat = x.reshape((-1,) + tuple(op.shape_in))
            want = torch.stack([op(flat[i]) for i in range(flat.shape[0])])
            assert same(y.reshape(want.shape), want)
            z = kt.Operator(op).H(y)
            assert z.shape == x.shape
            yf = y.reshape((-1,) + tuple(op.shape_out))
            assert same(z.reshape(flat.shape),
                        torch.stack([op.adjoint(yf[i]) for i in range(yf.shape[0])]))
        # one member with the operator's own shape is one call, as before
        x = rand(tuple(op.shape_in), op.dtype, device, 2)
        assert same(kt.apply(op, x), op(x))
        with pytest.raises(kray.DimensionError):
            kt.apply(op, rand((2, 3) + tuple(op.shape_in)[:-1] + (1,), op.dtype, device, 3))


@pytest.mark.parametrize("device", DEVICES)
def test_leading_unit_axes_of_the_operator_may_be_left_out(device):
    import torch
    import kray.torch as kt
    op = ops(np.float64, device)[1]         # a NUFFT of one transform: shape_in (1, 6, 6)
    assert op.shape_in[0] == 1 and len(op.shape_in) == 3
    x = rand((4, 6, 6), op.dtype, device, 4)
    y = kt.apply(op, x)
    assert y.shape == (4,) + tuple(op.shape_out)[1:]
    for i in range(4):
        assert same(y[i], op(x[i]).reshape(y[i].shape))


@pytest.mark.parametrize("device", DEVICES)
def test_gradcheck_on_batches(device):
    import torch
    import kray.torch as kt
    for op in ops(np.float64, device):
        x = rand((2,) + tuple(op.shape_in), op.dtype, device, 5).requires_grad_()
        assert torch.autograd.gradcheck(lambda v: kt.apply(op, v), (x,), eps=1e-6, atol=1e-6)
        y = rand((2,) + tuple(op.shape_out), op.dtype, device, 6).requires_grad_()
        assert torch.autograd.gradcheck(lambda v: kt.apply_adjoint(op, v), (y,), eps=1e-6,
                                        atol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dt,tol", [(np.float32, 1e-4), (np.float64, 1e-10)])
def test_adjoint_identity_on_batches(device, dt, tol):
    import torch
    import kray.torch as kt
    for op in ops(dt, device):
        A = kt.Operator(op)
        x = rand((3, 2) + tuple(op.shape_in), op.dtype, device, 7)
        y = rand((3, 2) + tuple(op.shape_out), op.dtype, device, 8)
        ax, ahy = A(x), A.H(y)
        lhs = torch.vdot(y.reshape(-1), ax.reshape(-1))
        rhs = torch.vdot(ahy.reshape(-1), x.reshape(-1))
        scale = float(torch.linalg.vector_norm(ax) * torch.linalg.vector_norm(y))
        assert abs(complex(lhs - rhs)) <= tol * scale
        # the gradient of <A x, y> (real part) through the batch is A^H y
        xg = x.clone().requires_grad_()
        torch.vdot(y.reshape(-1), A(xg).reshape(-1)).real.backward()
        assert float(torch.linalg.vector_norm(xg.grad - ahy)) <= \
            tol * float(torch.linalg.vector_norm(ahy))
