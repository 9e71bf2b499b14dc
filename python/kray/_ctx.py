"""kray contexts: which backend runs a call, on which device and CUDA stream.

Every call picks its context from where its arrays live: host arrays (NumPy, PyTorch CPU
tensors) run on the CPU backend (OpenMP), device arrays (CuPy, PyTorch CUDA tensors, anything
with ``__cuda_array_interface__``) on the CUDA backend of the array's device, on the caller's
current stream (CuPy's ``cupy.cuda.get_current_stream()``, PyTorch's
``torch.cuda.current_stream()``), so kray's kernels are ordered with the caller's own work and no
synchronisation is needed. Contexts are cached per thread, so two threads never share one.
"""
import threading
from ctypes import byref, c_char_p, c_int, c_void_p, create_string_buffer, c_size_t

from ._lib import fn, lib, KrayError, NoDeviceError
from ._handle import Handle

KR_BACKEND_AUTO, KR_BACKEND_CPU_SERIAL, KR_BACKEND_CPU, KR_BACKEND_CUDA = 0, 1, 2, 3
_BACKENDS = {"auto": 0, "cpu-serial": 1, "cpu": 2, "cuda": 3}

fn("kr_ctx_create", [c_void_p, c_int])
fn("kr_ctx_destroy", [c_void_p], None)
fn("kr_ctx_backend", [c_void_p], c_int)
fn("kr_ctx_threads", [c_void_p], c_int)
fn("kr_ctx_device", [c_void_p], c_int)
fn("kr_ctx_set_threads", [c_void_p, c_int])
fn("kr_ctx_set_device", [c_void_p, c_int])
fn("kr_ctx_set_devices_spec", [c_void_p, c_char_p])
fn("kr_ctx_ndevices", [c_void_p], c_int)
fn("kr_ctx_device_at", [c_void_p, c_int], c_int)
fn("kr_ctx_set_stream", [c_void_p, c_void_p])
fn("kr_ctx_set_log_level", [c_void_p, c_int])
fn("kr_ctx_set_quiet", [c_void_p, c_int])
fn("kr_cuda_device_count", [c_void_p])
fn("kr_cuda_device_name", [c_int, c_char_p, c_size_t])


class Context(Handle):
    """A kray context (kr_ctx): backend ("cpu", "cpu-serial", "cuda"), CUDA device, CPU
    threads (0 = OpenMP's default), log level (0 quiet .. 4 debug) and progress output.

    Most users never create one: every function picks the context that fits its arrays. Pass
    one explicitly (``ctx=``, or as a plan's ``device=``) to choose the thread count, the serial
    reference backend, or several devices: ``devices=[0, 1]`` (or "0,1", "all") gives the
    context a device list, over which the plans that divide their work (FDK, the cone-beam
    projectors, batched NUFFTs) divide it, with arrays on the first device (docs/scaling.md).
    On the CPU a list divides the work into parts whose result is the undivided one.
    """
    _destroy = lib.kr_ctx_destroy

    def __init__(self, backend="cpu", device=0, threads=0, quiet=True, log_level=2,
                 devices=None):
        self._stream = None
        if backend not in _BACKENDS:
            raise ValueError("kray: unknown backend %r (one of %s)" %
                             (backend, ", ".join(_BACKENDS)))
        self._ptr = c_void_p()
        lib.kr_ctx_create(byref(self._ptr), _BACKENDS[backend])
        try:
            if lib.kr_ctx_backend(self._ptr) == KR_BACKEND_CUDA and device:
                lib.kr_ctx_set_device(self._ptr, device)
            if devices is not None:
                if isinstance(devices, str):
                    spec = devices
                else:
                    spec = ",".join(str(int(d)) for d in devices)
                lib.kr_ctx_set_devices_spec(self._ptr, spec.encode())
            if threads:
                lib.kr_ctx_set_threads(self._ptr, threads)
            lib.kr_ctx_set_log_level(self._ptr, log_level)
            lib.kr_ctx_set_quiet(self._ptr, 1 if quiet else 0)
        except KrayError:
            self.close()
            raise

    @property
    def backend(self):
        b = lib.kr_ctx_backend(self.ptr)
        return {v: k for k, v in _BACKENDS.items()}[b]

    @property
    def is_cuda(self):
        return lib.kr_ctx_backend(self.ptr) == KR_BACKEND_CUDA

    @property
    def device(self):
        return lib.kr_ctx_device(self.ptr)

    @property
    def devices(self):
        """The device list (one entry unless set with ``devices=``)."""
        return [lib.kr_ctx_device_at(self.ptr, i) for i in range(lib.kr_ctx_ndevices(self.ptr))]

    @property
    def threads(self):
        return lib.kr_ctx_threads(self.ptr)

    def set_stream(self, stream):
        """Run on CUDA stream `stream` (an integer handle; 0 = the legacy default stream)."""
        if stream != self._stream:
            lib.kr_ctx_set_stream(self.ptr, c_void_p(stream or None))
            self._stream = stream

    def __repr__(self):
        return "kray.Context(%r, device=%d, threads=%d)" % (self.backend, self.device,
                                                             self.threads)


_local = threading.local()


def cpu_context():
    """This thread's CPU context."""
    c = getattr(_local, "cpu", None)
    if c is None:
        c = _local.cpu = Context("cpu")
    return c


def cuda_context(device, stream=0):
    """This thread's CUDA context for `device`, set to run on `stream` (0: the legacy default
    stream). Callers pass the current stream of the arrays they run on (kray._plan); without
    one the context forgets the stream of its last call, which may be destroyed by now."""
    try:
        c = _local.cuda[device]
    except (AttributeError, KeyError):
        d = getattr(_local, "cuda", None)
        if d is None:
            d = _local.cuda = {}
        c = d[device] = Context("cuda", device=device)
    c.set_stream(stream)
    return c


def cuda_device_count():
    """Number of usable CUDA devices (0 without a GPU, driver or CUDA build)."""
    n = c_int(0)
    try:
        lib.kr_cuda_device_count(byref(n))
    except NoDeviceError:
        return 0
    return n.value


def cuda_device_name(device=0):
    buf = create_string_buffer(256)
    lib.kr_cuda_device_name(device, buf, 256)
    return buf.value.decode()
