"""Where a call runs: the context of a device argument or of the operands, the caller's current
CUDA stream, and the base class of the plan objects.

Placement rules, shared by every module: a function runs where its array operands live (all on
the host, or all on one CUDA device); a plan runs on `device` (None: the CPU, or where the
operands given to its constructor live -- each class documents which; an ordinal, "cuda" or
"cuda:N": that CUDA device) and then takes operands that live there. Device calls run on the
caller's current stream (CuPy's or PyTorch's, after the operand's kind).
"""
import sys

import numpy as np

from ._lib import InvalidArgumentError, LocationError
from ._ctx import Context, cpu_context, cuda_context
from ._handle import Handle
from . import _array as A


def device_index(device):
    """-1 for the host (None or "cpu"), else the CUDA ordinal of an int, "cuda" or "cuda:N"."""
    if device is None or device == "cpu":
        return -1
    if isinstance(device, Context):
        return device.device if device.is_cuda else -1
    if isinstance(device, str) and device.startswith("cuda"):
        try:
            device = int(device.split(":")[1]) if ":" in device else 0
        except ValueError:
            pass
    if not isinstance(device, (int, np.integer)) or isinstance(device, bool) or device < 0:
        raise InvalidArgumentError("kray: device is None (the CPU), a CUDA ordinal or "
                                   "'cuda:N', not %r" % (device,))
    return int(device)


def ctx_for(device):
    """This thread's context of `device` (see :func:`device_index`)."""
    if isinstance(device, Context):
        return device
    d = device_index(device)
    return cpu_context() if d < 0 else cuda_context(d)


def where(dev):
    return "host memory" if dev < 0 else "CUDA device %d" % dev


_STREAM = {}


def _stream_getter(kind):
    """A function dev -> the caller's current stream handle for arrays of `kind`: PyTorch's raw
    stream query or CuPy's per-device current stream where the installed version has them
    (one call, no Python objects made), else the general forms."""
    if kind == "torch":
        t = sys.modules["torch"]
        raw = getattr(t._C, "_cuda_getCurrentRawStream", None)
        if raw is not None:
            return raw
        return lambda dev: t.cuda.current_stream(dev).cuda_stream
    cp = sys.modules.get("cupy")
    if cp is None:
        return lambda dev: 0
    try:
        cp.cuda.get_current_stream(cp.cuda.runtime.getDevice())
        return lambda dev: cp.cuda.get_current_stream(dev).ptr
    except Exception:   # CuPy without the device argument (TypeError)

        def get(dev):
            with cp.cuda.Device(dev):
                return cp.cuda.get_current_stream().ptr
        return get


def current_stream(kind, dev):
    """The caller's current CUDA stream handle for arrays of `kind` on `dev`."""
    k = "torch" if kind == "torch" else "cupy"
    f = _STREAM.get(k)
    if f is None:
        if k == "cupy" and "cupy" not in sys.modules:
            return 0
        f = _STREAM[k] = _stream_getter(k)
    return f(dev)


def context(*args, ctx=None):
    """The context for operands `args` (Args; None skipped): all on the host (CPU context) or
    all on one CUDA device (that device's context, on the caller's current stream); an
    explicit `ctx` is returned as it is once the operands agree."""
    dev = None
    kind = None
    for a in args:
        if a is None:
            continue
        if dev is None:
            dev, kind = a.device, a.kind
        elif a.device != dev:
            raise LocationError("kray: operands live in different places (%s and %s); move "
                                "them to one device first" % (where(dev), where(a.device)))
    if ctx is not None:
        return ctx
    if dev is None or dev < 0:
        return cpu_context()
    return cuda_context(dev, current_stream(kind, dev))


def bind(ctx, dev, args, name, host_ok=False, kind=None):
    """Before a call on `ctx` (CUDA device `dev`, -1 for the CPU): refuse operands `args`
    (Args; None skipped) that live elsewhere (host operands too unless `host_ok`), then run on
    the caller's current stream of the first device operand (or of arrays of `kind`; the
    legacy default stream without either). `name` names the runner in the sentence."""
    first = None
    for a in args:
        if a is None:
            continue
        if a.device != dev and not (host_ok and a.device < 0):
            raise LocationError("kray: the %s lives in %s, an operand in %s" %
                                (name, where(dev), where(a.device)))
        if first is None and a.device >= 0:
            first = a
    if dev >= 0:
        k = first.kind if first is not None else kind
        ctx.set_stream(current_stream(k, dev) if k else 0)


def device_kind():
    """The array kind for device outputs made without a device input: CuPy when it is
    imported (or importable), else PyTorch."""
    if "cupy" in sys.modules:
        return "cupy"
    if "torch" in sys.modules:
        return "torch"
    try:
        import cupy  # noqa: F401
        return "cupy"
    except ImportError:
        return "torch"


def like(kind, device):
    """An Arg-like placeholder for A.out: arrays of `kind` on `device` (-1 = host)."""
    a = A.Arg()
    a.kind = kind
    a.device = device
    return a


def place(device=None, ctx=None, args=()):
    """(ctx, kind, device) for a plan: an explicit ctx, else `device` (see
    :func:`device_index`; None: where the array operands `args` (Args or None) live, the CPU
    without any)."""
    devs = [a for a in args if a is not None and a.device >= 0]
    kind = devs[0].kind if devs else None
    if ctx is not None:
        dev = ctx.device if ctx.is_cuda else -1
        return ctx, (kind or device_kind() if dev >= 0 else "numpy"), dev
    d = device_index(device)
    if d >= 0:
        kind = kind or device_kind()
        return cuda_context(d, current_stream(kind, d)), kind, d
    if device is None and devs:
        return context(*devs), kind, devs[0].device
    return cpu_context(), "numpy", -1


class Plan(Handle):
    """Base of kray's plan objects: a C pointer (freed by `_destroy`), the context `ctx` it
    runs on, its `device` (-1: the host) and the array kind of the outputs it makes without
    an input. Operands must live where the plan does (host operands are also accepted by a
    CUDA plan whose class sets `_host_ok`)."""
    _host_ok = False
    device = -1
    _kind = "numpy"

    def _init(self, ptr, ctx, kind=None, device=None, keep=()):
        self._ptr = ptr
        self.ctx = ctx
        self.device = (ctx.device if ctx.is_cuda else -1) if device is None else device
        self._kind = kind if kind is not None else ("numpy" if self.device < 0 else None)
        self._keep = tuple(keep)

    @property
    def on_device(self):
        return self.device >= 0

    def _args(self, *args):
        """Check that operand Args live where the plan does; set the caller's stream."""
        bind(self.ctx, self.device, args, type(self).__name__, self._host_ok, self._kind)

    def _like(self, args=()):
        for a in args:
            if a is not None:
                return a
        if self._kind is None:
            self._kind = device_kind()
        return like(self._kind, self.device)

    def _run(self, f, x, what, shape, out, code):
        """out = f(x) for input x of dtype `code` and a new output of `shape` (a tuple, or a
        function of x's shape) like x, or into `out`; returns the output."""
        codes = (code,)
        xa = A.arg(x, what, codes)
        if out is None:
            oa = A.out(xa, shape(xa.shape) if callable(shape) else shape, code)
        else:
            oa = A.arg(out, "out", codes)
        if self.device >= 0 or xa.device >= 0 or oa.device >= 0:   # else all on the host
            self._args(xa, oa)
        f(self._ptr or self.ptr, xa.r, oa.r)
        return oa.obj if out is None else out


def float_code(dtype, what="dtype"):
    """kray code of a float32/float64 dtype (else DTypeError)."""
    return A.dtype_code(dtype, (A.KR_F32, A.KR_F64), what)


def choice(value, table, what):
    """The code of `value` (a name in `table`, a dict name -> code; or one of its codes)."""
    if isinstance(value, int) and not isinstance(value, bool) and value in table.values():
        return value
    if not isinstance(value, str) or value not in table:
        raise InvalidArgumentError("kray: %s must be one of %s, not %r" %
                                   (what, ", ".join(table), value))
    return table[value]
