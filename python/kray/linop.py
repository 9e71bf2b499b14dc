"""Linear operators (kr_linop) and the solvers that use them.

Every projector, NUFFT, DrFT, SENSE/CG-SENSE encoding and Toeplitz operator of kray is a
:class:`Linop`: ``A(x)`` / ``A.forward(x)``, ``A.adjoint(y)``, ``A.normal(x)``, composable with
``@`` (chain), ``+`` (sum), scalar ``*`` and :func:`stack`, and usable by :func:`cg` and
:func:`cgls`. Shapes are Python order (``A.shape_in``, ``A.shape_out``, slowest first). An
operator lives in one place (host or one CUDA device) and takes arrays of its dtype there.
:mod:`kray.torch` turns any Linop into a differentiable PyTorch function.
"""
from ctypes import POINTER, Structure, byref, c_char_p, c_double, c_int, c_int64, c_uint64, \
    c_void_p, pointer

import numpy as np

from ._lib import fn, lib, parr, struct
from . import _array as A
from ._plan import Plan, ctx_for

fn("kr_linop_destroy", [c_void_p], None)
fn("kr_linop_retain", [c_void_p])
fn("kr_linop_dtype", [c_void_p], c_int)
fn("kr_linop_loc", [c_void_p], c_int)
fn("kr_linop_in_dims", [c_void_p, POINTER(c_int64)], c_int)
fn("kr_linop_out_dims", [c_void_p, POINTER(c_int64)], c_int)
fn("kr_linop_name", [c_void_p], c_char_p)
fn("kr_linop_forward", [c_void_p, parr, parr])
fn("kr_linop_adjoint", [c_void_p, parr, parr])
fn("kr_linop_normal", [c_void_p, parr, parr])
fn("kr_linop_chain", [POINTER(c_void_p), c_void_p, c_void_p])
fn("kr_linop_stack", [POINTER(c_void_p), c_void_p, c_void_p])
fn("kr_linop_sum", [POINTER(c_void_p), c_void_p, c_void_p])
fn("kr_linop_scale", [POINTER(c_void_p), c_void_p, c_double, c_double])
fn("kr_linop_normal_op", [POINTER(c_void_p), c_void_p])
fn("kr_linop_identity", [POINTER(c_void_p), c_void_p, c_int, c_int, POINTER(c_int64), c_int])
fn("kr_linop_matrix", [POINTER(c_void_p), c_void_p, c_int, c_int64, c_int64, c_void_p, c_int])
fn("kr_linop_adjoint_test", [c_void_p, c_uint64, POINTER(c_double)])
_FORWARD, _ADJOINT, _NORMAL = lib.kr_linop_forward, lib.kr_linop_adjoint, lib.kr_linop_normal


@struct("kr_solve_opts")
class SolveOpts(Structure):
    _fields_ = [("max_iter", c_int), ("tol", c_double), ("lambda_", c_double),
                ("warm_start", c_int), ("history", POINTER(c_double)),
                ("show_progress", c_int), ("precond", parr)]


@struct("kr_solve_info")
class SolveInfo(Structure):
    _fields_ = [("iterations", c_int), ("rel_residual", c_double), ("converged", c_int)]


fn("kr_solve_opts_default", [POINTER(SolveOpts)], None)
fn("kr_cg", [c_void_p, c_void_p, parr, parr, POINTER(SolveOpts), POINTER(SolveInfo)])
fn("kr_cgls", [c_void_p, c_void_p, parr, parr, POINTER(SolveOpts), POINTER(SolveInfo)])


class Linop(Plan):
    """A kray linear operator. Made by the operator constructors of kray.ct, kray.mri, ...
    (or :meth:`matrix`, :meth:`identity`); freed by :meth:`close`, ``with``, or the garbage
    collector. `keep` holds the Python objects (plans, contexts) the operator borrows."""
    _destroy = lib.kr_linop_destroy

    def __init__(self, ptr, ctx, keep=()):
        on_device = lib.kr_linop_loc(ptr) == A.KR_DEVICE
        self._init(ptr, ctx, None, ctx.device if on_device else -1, keep)
        self._code = lib.kr_linop_dtype(ptr)
        self.dtype = A.np_dtype(self._code)
        self.shape_in = A.shape_of(lib.kr_linop_in_dims, ptr)
        self.shape_out = A.shape_of(lib.kr_linop_out_dims, ptr)
        self.name = lib.kr_linop_name(ptr).decode()

    def close(self):
        if self._ptr and self.on_device:
            self.ctx.set_stream(0)   # the last stream used may be gone by now
        super().close()

    def __repr__(self):
        where = "cuda:%d" % self.device if self.on_device else "cpu"
        return "kray.Linop(%r, %s -> %s, %s, %s)" % (self.name, self.shape_in, self.shape_out,
                                                      self.dtype, where)

    def forward(self, x, out=None):
        """y = A x (x of shape shape_in; returns shape_out, same kind as x)."""
        return self._run(_FORWARD, x, "the operator's input", self.shape_out, out, self._code)

    __call__ = forward

    def adjoint(self, y, out=None):
        """x = A^H y."""
        return self._run(_ADJOINT, y, "the adjoint's input", self.shape_in, out, self._code)

    def normal(self, x, out=None):
        """z = A^H A x."""
        return self._run(_NORMAL, x, "the normal's input", self.shape_in, out, self._code)

    def _combine(self, f, other, *extra):
        p = c_void_p()
        f(byref(p), self.ptr, other.ptr, *extra) if other is not None else \
            f(byref(p), self.ptr, *extra)
        keep = (self,) + ((other,) if other is not None else ())
        return Linop(p, self.ctx, keep)

    def __matmul__(self, other):
        """A @ B: x -> A(B(x))."""
        return other._combine(lib.kr_linop_chain, self)

    def __add__(self, other):
        return self._combine(lib.kr_linop_sum, other)

    def __mul__(self, s):
        s = complex(s)
        return self._combine(lib.kr_linop_scale, None, s.real, s.imag)

    __rmul__ = __mul__

    @property
    def N(self):
        """The normal operator A^H A as an operator (uses A's own normal, e.g. Toeplitz)."""
        return self._combine(lib.kr_linop_normal_op, None)

    def adjoint_test(self, seed=1):
        """|<Ax, y> - <x, A^H y>| / max(|Ax||y|, |x||A^H y|) for random x, y."""
        r = c_double()
        lib.kr_linop_adjoint_test(self.ptr, seed, byref(r))
        return r.value

    @staticmethod
    def matrix(m, device=None):
        """A dense matrix (2-D array, any float or complex dtype) as an operator."""
        m = np.ascontiguousarray(m)
        code = A.kr_dtype(m.dtype)
        ctx = ctx_for(device)
        p = c_void_p()
        lib.kr_linop_matrix(byref(p), ctx.ptr, code, m.shape[0], m.shape[1],
                            m.ctypes.data, A.KR_DEVICE if ctx.is_cuda else A.KR_HOST)
        return Linop(p, ctx)

    @staticmethod
    def identity(shape, dtype=np.float32, device=None):
        """The identity on arrays of `shape` (Python order) and `dtype`."""
        ctx = ctx_for(device)
        p = c_void_p()
        lib.kr_linop_identity(byref(p), ctx.ptr, A.kr_dtype(dtype), len(shape), A.kdims(shape),
                              A.KR_DEVICE if ctx.is_cuda else A.KR_HOST)
        return Linop(p, ctx)


def stack(a, b):
    """[A; B]: x -> concat(A x, B x) flattened (A's part first)."""
    return a._combine(lib.kr_linop_stack, b)


class SolveResult:
    """x: the solution; iterations; rel_residual; converged; history (relative residual after
    each iteration, from 0)."""

    def __init__(self, x, info, hist):
        self.x = x
        self.iterations = info.iterations
        self.rel_residual = info.rel_residual
        self.converged = bool(info.converged)
        self.history = np.array(hist[:info.iterations + 1])

    def __repr__(self):
        return ("SolveResult(iterations=%d, rel_residual=%.3g, converged=%s)" %
                (self.iterations, self.rel_residual, self.converged))


def cg_opts(lam):
    """kr_solve_opts with kray's defaults and Tikhonov weight lam."""
    o = SolveOpts()
    lib.kr_solve_opts_default(byref(o))
    o.lambda_ = lam
    return o


def run_solver(f, head, y, x, o, max_iter, tol, warm, progress):
    """Run solver f(*head, y, x, &o, &info) (y, x Args; o a kr_solve_opts or kr_sirt_opts with
    its own fields set) for max_iter, tol, warm start and progress output; returns the
    :class:`SolveResult` (x, the info, the history)."""
    hist = (c_double * (int(max_iter) + 1))()
    o.max_iter, o.tol = int(max_iter), float(tol)
    o.warm_start = 1 if warm else 0
    o.history = hist
    o.show_progress = 1 if progress else 0
    info = SolveInfo()
    f(*head, y.ref(), x.ref(), byref(o), byref(info))
    return SolveResult(x.obj, info, hist)


def start(like, x0, shape, code):
    """The Arg an iterative solver writes its solution to: zeros of `shape` like Arg `like`,
    or a copy of x0 (which is not modified)."""
    if x0 is None:
        return A.out(like, shape, code, "x")
    return A.arg(A.copy_of(A.arg(x0, "x0", dtypes=(code,)).obj), "x0")


def precond_arg(p, code):
    """The Arg of a diagonal preconditioner for an operator of dtype `code` (real of its
    precision; the caller keeps it alive while the solver runs and checks its place); None
    passes through."""
    if p is None:
        return None
    real = A.KR_F32 if code in (A.KR_F32, A.KR_C64) else A.KR_F64
    return A.arg(p, "the preconditioner", dtypes=(real,), cast=real)


def _solve(f, op, rhs, x0, shape, max_iter, tol, lam, progress, precond):
    ra = A.arg(rhs, "the right-hand side", dtypes=(op._code,))
    xa = start(ra, x0, shape, op._code)
    pa = precond_arg(precond, op._code)
    op._args(*((ra, xa) if pa is None else (ra, xa, pa)))
    o = cg_opts(lam)
    if pa is not None:
        o.precond = pointer(pa.c)
    return run_solver(f, (op.ctx.ptr, op.ptr), ra, xa, o, max_iter, tol, x0 is not None,
                      progress)


def cg(op, b, x0=None, max_iter=50, tol=1e-6, lam=0.0, progress=False, precond=None):
    """Conjugate gradients for (A + lam I) x = b, A Hermitian positive (semi-)definite
    (e.g. ``B.N``). Returns a :class:`SolveResult`; x0 (not modified) warm-starts. precond: a
    diagonal preconditioner P ~ (A + lam I)^-1 (real, one value >= 0 per element of x, where
    the operator lives): preconditioned CG, the same solution in fewer iterations when P
    fits."""
    return _solve(lib.kr_cg, op, b, x0, op.shape_in, max_iter, tol, lam, progress, precond)


def cgls(op, y, x0=None, max_iter=50, tol=1e-6, lam=0.0, progress=False, precond=None):
    """CGLS for min ||A x - y||^2 + lam ||x||^2. Returns a :class:`SolveResult`. precond: a
    diagonal preconditioner P ~ (A^H A + lam I)^-1 (as for :func:`cg`)."""
    return _solve(lib.kr_cgls, op, y, x0, op.shape_in, max_iter, tol, lam, progress, precond)
