"""kray's linear operators inside PyTorch autograd.

``apply(op, x)`` computes ``op.forward(x)`` and records it for autograd; its backward is kray's
exact adjoint, ``op.adjoint(grad)`` (the vector-Jacobian product of a linear map, also for
complex tensors in PyTorch's conjugate-Wirtinger convention). :class:`Operator` is the same as
a ``torch.nn.Module`` that holds the kray operator. Tensors may live on the CPU or on the CUDA
device of the operator; they are passed to kray without a copy.

**Batches.** An operator takes tensors of its own shape (``op.shape_in`` for the forward,
``op.shape_out`` for the adjoint) or a batch of them: any leading axes before that shape, e.g.
``(batch, *op.shape_in)``. A batch is computed by one kray call per member, each writing into
its slice of one output tensor of shape ``(batch..., *op.shape_out)``; the backward loops the
same way. Leading axes of length 1 in the operator's own shape may be left out of the members
(a NUFFT operator of one transform has ``shape_in == (1, ny, nx)`` and takes ``(b, ny, nx)``).
Where kray batches inside one call (NUFFT plans made with ``batch=coils`` transform all coils
at once), build the operator with that batch and loop over the rest.
"""
import torch

from .linop import Linop


def _core(shape):
    """`shape` without its leading axes of length 1 (at least its last axis)."""
    i = 0
    while i < len(shape) - 1 and shape[i] == 1:
        i += 1
    return tuple(shape[i:])


def batch_shape(x, shape):
    """The leading batch axes of tensor `x` over an operand shape `shape` (see the module's
    docstring), or None when x is one operand (or does not end with the shape: then kray
    judges its shape)."""
    s = tuple(x.shape)
    if s == tuple(shape):
        return None
    c = _core(shape)
    n = len(c)
    if len(s) > n and s[len(s) - n:] == c:
        return s[:len(s) - n]
    return None


def _map(op, adjoint, x):
    """op(x) (op^H(x) when `adjoint`), looped over the leading batch axes of x."""
    if adjoint:
        f, shape_in, shape_out = op.adjoint, op.shape_out, op.shape_in
    else:
        f, shape_in, shape_out = op.forward, op.shape_in, op.shape_out
    lead = batch_shape(x, shape_in)
    if lead is None:
        return f(x)
    core_in, core_out = _core(shape_in), _core(shape_out)
    xs = x.reshape((-1,) + core_in)
    out = torch.empty(lead + core_out, dtype=getattr(torch, op.dtype.name), device=x.device)
    outs = out.view((-1,) + core_out)
    for i in range(xs.shape[0]):
        f(xs[i], out=outs[i])
    return out


class _Apply(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, op, adjoint):
        ctx.op = op
        ctx.adjoint = adjoint
        return _map(op, adjoint, x)

    @staticmethod
    def backward(ctx, g):
        gx = _map(ctx.op, not ctx.adjoint, g.contiguous())
        return gx, None, None


def apply(op, x):
    """op(x) with autograd: the gradient flows back through op's adjoint. x has shape
    op.shape_in or (batch..., *op.shape_in); the result (batch..., *op.shape_out)."""
    return _Apply.apply(x, op, False)


def apply_adjoint(op, y):
    """op^H(y) with autograd: the gradient flows back through op's forward. y has shape
    op.shape_out or (batch..., *op.shape_out)."""
    return _Apply.apply(y, op, True)


class Operator(torch.nn.Module):
    """A kray :class:`~kray.linop.Linop` as a module: ``Operator(op)(x)`` is ``op(x)`` with
    autograd, for x of shape ``op.shape_in`` or a batch ``(batch..., *op.shape_in)``; ``.H`` is
    the module of its adjoint. The module keeps the operator (and the plan it borrows)
    alive."""

    def __init__(self, op, adjoint=False):
        super().__init__()
        if not isinstance(op, Linop):
            raise TypeError("kray: Operator needs a kray Linop, not %s" % type(op).__name__)
        self.op = op
        self.adjoint = adjoint

    def forward(self, x):
        return _Apply.apply(x, self.op, self.adjoint)

    @property
    def H(self):
        return Operator(self.op, not self.adjoint)

    def extra_repr(self):
        return repr(self.op) + (" (adjoint)" if self.adjoint else "")
