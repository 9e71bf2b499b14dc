"""Host arrays on device plans: page-locked host memory and the plan's device buffers.

A CUDA plan that takes NumPy arrays (or PyTorch CPU tensors) copies them to the device and the
result back. Copies from ordinary (pageable) host memory run at a fraction of the bus speed,
because the driver first copies them through its own page-locked buffers; page-locked memory is
copied directly. kray therefore page-locks (``cudaHostRegister`` through ``kr_host_register``)
the memory of a host array the second time the same array object reaches a device plan, and
unlocks it when that object is freed. Arrays below 256 KiB are not locked (their copies are
short either way), and at most ``KRAY_PIN_MIB`` MiB (default: a quarter of the machine's
memory; 0 turns locking off) are locked at once. A failed lock only means a slower copy.

The device side of such a call uses buffers the plan allocates once and keeps for the next call
of the same shape (:class:`Staging`), the way kray's C benchmarks reuse theirs.
"""
import os
from ctypes import byref
import threading
import weakref
from math import prod

from ._handle import Handle
from ._lib import POINTER, KrayError, c_int, c_int64, c_size_t, fn, lib, parr, pparr, vp
from . import _array as A

fn("kr_host_register", [vp, c_size_t])
fn("kr_host_unregister", [vp])
fn("kr_array_create", [pparr, c_int, c_int, POINTER(c_int64), c_int, vp])
fn("kr_array_copy", [parr, parr, vp])

PIN_MIN = 1 << 18

_lock = threading.Lock()
_seen = {}      # data pointer -> (bytes, weak reference to the array object): used once
_pinned = {}    # data pointer -> (bytes, weakref.finalize of the object that unlocks it)
_state = {"total": 0, "limit": None}


def _limit():
    lim = _state["limit"]
    if lim is None:
        env = os.environ.get("KRAY_PIN_MIB")
        try:
            lim = int(float(env) * (1 << 20)) if env else None
        except ValueError:
            lim = None
        if lim is None:
            try:
                lim = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 4
            except (ValueError, OSError, AttributeError):
                lim = 1 << 30
        _state["limit"] = lim
    return lim


def _unpin(ptr, nbytes):
    with _lock:
        if _pinned.pop(ptr, None) is not None:
            _state["total"] -= nbytes
    try:
        lib.kr_host_unregister(ptr)
    except KrayError:
        pass


def pinned_bytes():
    """Bytes of host memory kray keeps page-locked now."""
    return _state["total"]


def pin(a):
    """Page-lock the memory of host operand Arg `a` when the same array object was seen here
    before (see the module's docstring); returns whether its memory is locked now."""
    obj = a.obj
    nbytes = prod(a.shape) * A.np_dtype(a.dtype).itemsize
    ptr = a.c.data
    if a.device >= 0 or not ptr or nbytes < PIN_MIN:
        return False
    p = _pinned.get(ptr)
    if p is not None:
        return nbytes <= p[0]
    with _lock:
        s = _seen.get(ptr)
        if s is None or s[0] != nbytes or s[1]() is not obj:
            try:
                _seen[ptr] = (nbytes, weakref.ref(obj))
            except TypeError:   # an object without weak references: never locked
                pass
            if len(_seen) > 256:
                for k in [k for k, v in _seen.items() if v[1]() is None]:
                    del _seen[k]
            return False
        del _seen[ptr]
        if _state["total"] + nbytes > _limit():
            return False
        try:
            lib.kr_host_register(ptr, nbytes)
        except KrayError:
            return False
        _state["total"] += nbytes
        f = weakref.finalize(obj, _unpin, ptr, nbytes)
        f.atexit = False     # the process's end releases the memory anyway
        _pinned[ptr] = (nbytes, f)
    return True


class _DeviceArray(Handle):
    """A kray-allocated device array (POINTER(KrArray)) of a plan's staging."""
    _destroy = lib.kr_array_destroy

    def __init__(self, ctx, code, shape):
        p = parr()
        dims = A.kdims(shape)
        lib.kr_array_create(byref(p), code, len(dims), dims, A.KR_DEVICE, ctx.ptr)
        self._ptr = p
        self.shape = tuple(shape)
        self.code = code


class Staging:
    """The device buffers a CUDA plan keeps for host operands: one per role ("in", "out"),
    made at first use and again when the shape changes; freed by :meth:`close`."""

    def __init__(self):
        self._bufs = {}

    def buffer(self, ctx, role, shape, code):
        b = self._bufs.get(role)
        if b is None or b.shape != tuple(shape) or b.code != code:
            if b is not None:
                b.close()
            b = self._bufs[role] = _DeviceArray(ctx, code, shape)
        return b.ptr

    def to_device(self, ctx, a, role="in"):
        """A device copy of host operand Arg `a` (in this staging's buffer `role`)."""
        pin(a)
        d = self.buffer(ctx, role, a.shape, a.dtype)
        lib.kr_array_copy(d, a.ref(), ctx.ptr)
        return d

    def to_host(self, ctx, d, oa):
        """Copy device buffer `d` into host operand Arg `oa`."""
        pin(oa)
        lib.kr_array_copy(oa.ref(), d, ctx.ptr)

    def close(self):
        for b in self._bufs.values():
            b.close()
        self._bufs = {}
