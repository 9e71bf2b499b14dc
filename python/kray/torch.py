"""kray's linear operators inside PyTorch autograd.

``apply(op, x)`` computes ``op.forward(x)`` and records it for autograd; its backward is kray's
exact adjoint, ``op.adjoint(grad)`` (the vector-Jacobian product of a linear map, also for
complex tensors in PyTorch's conjugate-Wirtinger convention). :class:`Operator` is the same as
a ``torch.nn.Module`` that holds the kray operator. Tensors may live on the CPU or on the CUDA
device of the operator; they are passed to kray without a copy.
"""
import torch

from .linop import Linop


class _Apply(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, op, adjoint):
        ctx.op = op
        ctx.adjoint = adjoint
        return op.adjoint(x) if adjoint else op.forward(x)

    @staticmethod
    def backward(ctx, g):
        op = ctx.op
        g = g.contiguous()
        gx = op.forward(g) if ctx.adjoint else op.adjoint(g)
        return gx, None, None


def apply(op, x):
    """op(x) with autograd: the gradient flows back through op's adjoint."""
    return _Apply.apply(x, op, False)


def apply_adjoint(op, y):
    """op^H(y) with autograd: the gradient flows back through op's forward."""
    return _Apply.apply(y, op, True)


class Operator(torch.nn.Module):
    """A kray :class:`~kray.linop.Linop` as a module: ``Operator(op)(x)`` is ``op(x)`` with
    autograd; ``.H`` is the module of its adjoint. The module keeps the operator (and the plan
    it borrows) alive."""

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
