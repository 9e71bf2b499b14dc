"""Code shared by the plan classes: which context a plan runs on, and the CUDA stream a
call uses."""
import numpy as np

from ._lib import InvalidArgumentError, LocationError
from ._ctx import cpu_context, cuda_context
from . import _array as A


def ctx_for(device):
    """The context of `device`: None (or "cpu") = this thread's CPU context; a CUDA ordinal or
    "cuda" / "cuda:N" = this thread's context of that device."""
    if device is None or device == "cpu":
        return cpu_context()
    if isinstance(device, str) and device.startswith("cuda"):
        device = int(device.split(":")[1]) if ":" in device else 0
    if not isinstance(device, (int, np.integer)) or isinstance(device, bool) or device < 0:
        raise InvalidArgumentError("kray: device is None (the CPU), a CUDA ordinal or "
                                   "'cuda:N', not %r" % (device,))
    return cuda_context(int(device))


def use_stream(ctx, *args):
    """Before a call on CUDA context `ctx`: run on the caller's current stream of the first
    device operand among `args` (Args; None skipped), or on the legacy default stream when
    all of them live on the host. Device operands elsewhere than ctx's device are refused."""
    if not ctx.is_cuda:
        return
    for a in args:
        if a is not None and a.device >= 0:
            if a.device != ctx.device:
                raise LocationError("kray: the plan runs on CUDA device %d but an array lives "
                                    "on CUDA device %d" % (ctx.device, a.device))
            ctx.set_stream(A.current_stream(a.kind, a.device))
            return
    ctx.set_stream(0)


def float_code(dtype, what="dtype"):
    """kray code of a float32/float64 dtype (else DTypeError)."""
    try:
        c = A.kr_dtype(np.dtype(dtype)) if dtype is not None else None
    except TypeError:
        c = None
    if c not in (A.KR_F32, A.KR_F64):
        raise A.DTypeError("kray: %s must be float32 or float64, not %s" % (what, dtype))
    return c
