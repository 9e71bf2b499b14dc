"""Ramp filters and 2-D filtered backprojection (kray/fbp.h).

Sinograms are (nviews, det) or a batch (nb, nviews, det) of line integrals (dimensionless);
images (ny, nx) or (nb, ny, nx) of attenuation in 1/mm. Filters run along the last axis (the
detector): any array whose last axis has ndet samples and ndet * nrows elements.
"""
from ctypes import POINTER, Structure, byref, c_char_p, c_double, c_int, c_int64, c_void_p

import numpy as np

from .._lib import fn, lib, parr, struct, InvalidArgumentError
from .. import _array as A
from .geometry import as_geometry, name_code
from .._plan import Plan, context, ctx_for, float_code
from .._staging import Staging

FILTERS = ("fft", "direct", "seed")
WINDOWS = ("ramlak", "shepp-logan", "cosine", "hamming", "hann")


@struct("kr_filter_opts")
class FilterOpts(Structure):
    _fields_ = [("method", c_int), ("window", c_int), ("cutoff", c_double),
                ("tau_mm", c_double), ("scale", c_double), ("seed_raw", c_int),
                ("equiangular_rad", c_double), ("dtype", c_int), ("pad_len", c_int64),
                ("pre_weight", POINTER(c_double)), ("pre_rows", c_int64),
                ("pre_row_div", c_int64), ("row_scale", POINTER(c_double)),
                ("row_scale_count", c_int64), ("row_scale_div", c_int64), ("fuse", c_int)]


@struct("kr_fbp_opts")
class FbpOpts(Structure):
    _fields_ = [("filter", c_int), ("window", c_int), ("cutoff", c_double), ("seed_raw", c_int),
                ("clamp_negative", c_int), ("short_scan", c_int), ("dtype", c_int)]


@struct("kr_fbp_info")
class FbpInfo(Structure):
    _fields_ = [("short_scan", c_int), ("arc_deg", c_double), ("fan_deg", c_double),
                ("pad_len", c_int64), ("view_groups", c_int), ("kernel", c_char_p)]


fn("kr_filter_method_name", [c_int], c_char_p)
fn("kr_filter_method_from_name", [c_char_p, POINTER(c_int)])
fn("kr_filter_window_name", [c_int], c_char_p)
fn("kr_filter_window_from_name", [c_char_p, POINTER(c_int)])
fn("kr_filter_opts_default", [POINTER(FilterOpts)], None)
fn("kr_filter_plan_create", [POINTER(c_void_p), c_void_p, c_int64, c_int64,
                             POINTER(FilterOpts)])
fn("kr_filter_execute", [c_void_p, parr, parr])
fn("kr_filter_plan_destroy", [c_void_p], None)
fn("kr_filter_pad_len", [c_void_p], c_int64)
fn("kr_filter_kernel", [c_void_p, POINTER(c_double), c_int64])
fn("kr_filter_response", [c_void_p, POINTER(c_double), c_int64])
fn("kr_fbp_opts_default", [POINTER(FbpOpts)], None)
fn("kr_fbp_plan_create", [POINTER(c_void_p), c_void_p, c_void_p, POINTER(FbpOpts)])
fn("kr_fbp_execute", [c_void_p, parr, parr])
fn("kr_fbp_plan_destroy", [c_void_p], None)
fn("kr_fbp_filter", [c_void_p, parr])
fn("kr_fbp_backproject", [c_void_p, parr])
fn("kr_fbp_plan_info", [c_void_p, POINTER(FbpInfo)])
fn("kr_fbp", [c_void_p, c_void_p, POINTER(FbpOpts), parr, parr])


def filter_code(name):
    return name_code(lib.kr_filter_method_from_name, name, "the filter", FILTERS)


def window_code(name):
    return name_code(lib.kr_filter_window_from_name, name, "the window", WINDOWS)


def filter_name(code):
    """The name of a kr_filter_method code ("fft", "direct", "seed")."""
    return lib.kr_filter_method_name(code).decode()


def window_name(code):
    """The name of a kr_filter_window code ("ramlak", ..., "hann")."""
    return lib.kr_filter_window_name(code).decode()


def _short(short_scan):
    m = {None: -1, "auto": -1, False: 0, "off": 0, True: 1, "on": 1}
    try:
        return m[short_scan]
    except (KeyError, TypeError):
        raise InvalidArgumentError("kray: short_scan is 'auto' (None), 'on' (True) or 'off' "
                                   "(False), not %r" % (short_scan,)) from None


def _table(x, what):
    a = np.ascontiguousarray(x, dtype=np.float64)
    if a.size == 0:
        raise InvalidArgumentError("kray: %s is empty" % what)
    return a


class FilterPlan(Plan):
    """A ramp-filter plan (kr_filter_plan) for nrows rows of ndet samples spaced tau_mm:
    out = scale * tau * (h * x) per row, h the band-limited Ram-Lak kernel (method "fft" with a
    window and cutoff, or "direct"), or the seed kernel (method "seed"). equiangular_rad > 0
    modulates the kernel for equiangular fan detectors. pre_weight: optional (pre_rows, ndet)
    table multiplying row r by table row (r // pre_row_div) % pre_rows; row_scale: optional
    per-row factors used as (r // row_scale_div) % len. dtype float32/float64; device: None
    (CPU) or a CUDA ordinal. fuse: CUDA cuFFT callbacks (-1 never, 0 auto, 1 always)."""
    _destroy = lib.kr_filter_plan_destroy

    def __init__(self, ndet, nrows=1, method="fft", window="ramlak", cutoff=1.0, tau_mm=1.0,
                 scale=1.0, seed_raw=False, equiangular_rad=0.0, dtype=np.float32, pad_len=0,
                 pre_weight=None, pre_row_div=1, row_scale=None, row_scale_div=1, fuse=0,
                 device=None):
        o = FilterOpts()
        lib.kr_filter_opts_default(byref(o))
        o.method = filter_code(method)
        o.window = window_code(window)
        o.cutoff, o.tau_mm, o.scale = float(cutoff), float(tau_mm), float(scale)
        o.seed_raw = 1 if seed_raw else 0
        o.equiangular_rad = float(equiangular_rad)
        o.dtype = float_code(dtype)
        o.pad_len = int(pad_len)
        o.fuse = int(fuse)
        keep = []
        if pre_weight is not None:
            t = _table(pre_weight, "pre_weight")
            if t.shape[-1] != ndet:
                raise A.DimensionError("kray: pre_weight has rows of %d values; the filter has "
                                       "%d detector samples" % (t.shape[-1], ndet))
            keep.append(t)
            o.pre_weight = t.ctypes.data_as(POINTER(c_double))
            o.pre_rows = t.size // ndet
            o.pre_row_div = int(pre_row_div)
        if row_scale is not None:
            t = _table(row_scale, "row_scale")
            keep.append(t)
            o.row_scale = t.ctypes.data_as(POINTER(c_double))
            o.row_scale_count = t.size
            o.row_scale_div = int(row_scale_div)
        ctx = ctx_for(device)
        self._code = o.dtype
        self.dtype = A.np_dtype(o.dtype)
        self.ndet, self.nrows = int(ndet), int(nrows)
        p = c_void_p()
        lib.kr_filter_plan_create(byref(p), ctx.ptr, self.ndet, self.nrows, byref(o))
        self._init(p, ctx)

    def execute(self, x, out=None):
        """Filter every row of x (last axis = ndet samples, ndet * nrows elements); returns a
        new array like x (or fills `out`, which may be x itself)."""
        return self._run(lib.kr_filter_execute, x, "the rows to filter", lambda s: s, out,
                         self._code)

    __call__ = execute

    @property
    def pad_len(self):
        """FFT length L (0 for the direct methods)."""
        return lib.kr_filter_pad_len(self.ptr)

    def kernel(self, count=None):
        """The effective spatial kernel scale * tau * h(n) at lags n = 0 .. count-1 (count <=
        ndet; default ndet), float64."""
        n = self.ndet if count is None else int(count)
        h = np.zeros(max(n, 0))
        lib.kr_filter_kernel(self.ptr, h.ctypes.data_as(POINTER(c_double)), n)
        return h

    def response(self):
        """The real frequency response (incl. scale * tau) at the pad_len FFT bins (FFT plans)."""
        n = self.pad_len
        r = np.zeros(max(n, 1))
        lib.kr_filter_response(self.ptr, r.ctypes.data_as(POINTER(c_double)), n)
        return r[:n]


def fbp_opts(filter="fft", window="ramlak", cutoff=1.0, seed_raw=False, clamp=False,
             short_scan="auto", dtype=np.float32):
    o = FbpOpts()
    lib.kr_fbp_opts_default(byref(o))
    o.filter = filter_code(filter)
    o.window = window_code(window)
    o.cutoff = float(cutoff)
    o.seed_raw = 1 if seed_raw else 0
    o.clamp_negative = 1 if clamp else 0
    o.short_scan = _short(short_scan)
    o.dtype = float_code(dtype)
    return o


class FbpPlan(Plan):
    """A 2-D FBP plan (kr_fbp_plan) for a parallel or fan geometry: filters, view weights and
    buffers made once; :meth:`execute` reconstructs a sinogram (nviews, det) or a batch (nb,
    nviews, det) into an image (ny, nx) / (nb, ny, nx) in 1/mm. filter: "fft", "direct" or
    "seed"; window/cutoff for "fft"; clamp: negative pixels to 0; short_scan: "auto", "on"
    (Parker weights) or "off"; dtype float32/float64; device None (CPU) or a CUDA ordinal.
    One execute at a time per plan."""
    _destroy = lib.kr_fbp_plan_destroy
    _held = None
    _staging = None

    def __init__(self, geom, filter="fft", window="ramlak", cutoff=1.0, seed_raw=False,
                 clamp=False, short_scan="auto", dtype=np.float32, device=None):
        g = as_geometry(geom)
        o = fbp_opts(filter, window, cutoff, seed_raw, clamp, short_scan, dtype)
        ctx = ctx_for(device)
        self._code = o.dtype
        self.dtype = A.np_dtype(o.dtype)
        self.image_shape = g.image_shape
        self.sino_shape = g.sino_shape
        p = c_void_p()
        lib.kr_fbp_plan_create(byref(p), ctx.ptr, g.ptr, byref(o))
        self._init(p, ctx)

    def _place(self, *args):
        """Check operand Args against the plan; on a CUDA plan, host operands are staged
        (returns whether any is)."""
        staged = self.on_device and any(a.device < 0 for a in args)
        self._args(*(a for a in args if not (staged and a.device < 0)))
        return staged

    def _staged(self):
        """The device buffers of host operands (a CUDA plan given host arrays)."""
        if self._staging is None:
            self._staging = Staging()
        return self._staging

    def execute(self, sino, out=None):
        """The image (ny, nx) or (nb, ny, nx), same kind as sino (or `out`, filled). A CUDA
        plan also takes a host sinogram (NumPy or a CPU tensor; the image is then a host array
        too) and a host `out`: host arrays are copied through device buffers the plan keeps,
        from page-locked memory when the same arrays come again (kray._staging)."""
        sa = A.arg(sino, "the sinogram", dtypes=(self._code,))
        shape = ((sa.shape[0],) if len(sa.shape) == 3 else ()) + tuple(self.image_shape)
        host_in = self.on_device and sa.device < 0
        oa = A.out(sa, shape, self._code, zero=not host_in) if out is None else \
            A.arg(out, "out", dtypes=(self._code,))
        if not self._place(sa, oa):
            lib.kr_fbp_execute(self.ptr, sa.ref(), oa.ref())
            return A.result(out, oa)
        st = self._staged()
        si = st.to_device(self.ctx, sa) if sa.device < 0 else sa.ref()
        if oa.device >= 0:
            lib.kr_fbp_execute(self.ptr, si, oa.ref())
        else:
            do = st.buffer(self.ctx, "out", shape, self._code)
            lib.kr_fbp_execute(self.ptr, si, do)
            st.to_host(self.ctx, do, oa)
        return A.result(out, oa)

    __call__ = execute

    def filter(self, sino):
        """Weight and filter one sinogram (nviews, det) into the plan's buffer (for
        :meth:`backproject`); a CUDA plan also takes a host sinogram (copied)."""
        sa = A.arg(sino, "the sinogram", dtypes=(self._code,))
        self._held = sa
        if self._place(sa):
            lib.kr_fbp_filter(self.ptr, self._staged().to_device(self.ctx, sa))
        else:
            lib.kr_fbp_filter(self.ptr, sa.ref())

    def backproject(self, like=None, out=None):
        """Backproject the buffer that :meth:`filter` filled into a new image (ny, nx) of the
        kind of `like` (default: the last filtered sinogram) or into `out` (a CUDA plan fills
        a host array through a device buffer)."""
        if out is not None:
            oa = A.arg(out, "out", dtypes=(self._code,))
        else:
            ref = A.arg(like, "like", dtypes=(self._code,)) if like is not None else \
                getattr(self, "_held", None)
            if ref is None:
                raise InvalidArgumentError("kray: call filter() before backproject()")
            oa = A.out(ref, tuple(self.image_shape), self._code)
        if self._place(oa):
            st = self._staged()
            do = st.buffer(self.ctx, "out", tuple(self.image_shape), self._code)
            lib.kr_fbp_backproject(self.ptr, do)
            st.to_host(self.ctx, do, oa)
        else:
            lib.kr_fbp_backproject(self.ptr, oa.ref())
        return A.result(out, oa)

    @property
    def info(self):
        """dict: short_scan, arc_deg, fan_deg, pad_len, view_groups, kernel."""
        i = FbpInfo()
        lib.kr_fbp_plan_info(self.ptr, byref(i))
        return {"short_scan": bool(i.short_scan), "arc_deg": i.arc_deg, "fan_deg": i.fan_deg,
                "pad_len": i.pad_len, "view_groups": i.view_groups,
                "kernel": (i.kernel or b"").decode()}

    def close(self):
        super().close()
        self._held = None
        if self._staging is not None:
            self._staging.close()
            self._staging = None


def fbp(sino, geom, filter="fft", window="ramlak", cutoff=1.0, seed_raw=False, clamp=False,
        short_scan="auto", out=None):
    """Filtered backprojection of sinogram (nviews, det) or (nb, nviews, det) (float32 or
    float64; NumPy, CuPy or torch) for a parallel or fan geometry; returns the image (ny, nx)
    or (nb, ny, nx) in 1/mm as the same kind on the same device, in sino's precision.
    Options as :class:`FbpPlan`."""
    g = as_geometry(geom)
    sa = A.arg(sino, "the sinogram", dtypes=(A.KR_F32, A.KR_F64))
    o = fbp_opts(filter, window, cutoff, seed_raw, clamp, short_scan, A.np_dtype(sa.dtype))
    shape = ((sa.shape[0],) if len(sa.shape) == 3 else ()) + tuple(g.image_shape)
    oa = A.output(out, sa, shape, sa.dtype)
    ctx = context(sa, oa)
    lib.kr_fbp(ctx.ptr, g.ptr, byref(o), sa.ref(), oa.ref())
    return A.result(out, oa)
