"""CT geometries (kray/ct.h): parallel, fan and cone beam, from parameters or per-view vectors,
to and from kray's JSON schema.

Units: millimetres and degrees. Array shapes are Python order (slowest first): a 2-D image is
(ny, nx), a sinogram (nviews, det_count), a cone-beam volume (nz, ny, nx) and its projections
(nviews, det_rows, det_count). Physical vectors (voxel sizes, offsets, view vectors) are given
per axis in x, y(, z) order, as in kray's JSON files. The scan angle theta turns
counter-clockwise seen from +z; at theta = 0 the source is on the -y side and detector
coordinate u grows with +x (docs/ct.md).
"""
import os
from ctypes import POINTER, Structure, byref, c_char_p, c_double, c_int, c_int64, c_size_t, \
    c_void_p, create_string_buffer

import numpy as np

from .._lib import fn, lib, parr, struct, InvalidArgumentError
from .._handle import Handle
from .. import _array as A
from .._plan import context

TYPES = ("parallel2d", "fan2d-flat", "fan2d-equiangular", "cone", "cone-vec")


@struct("kr_ct_grid")
class Grid(Structure):
    _fields_ = [("n", c_int64 * 3), ("voxel_mm", c_double * 3), ("offset_mm", c_double * 3)]


@struct("kr_ct_scan")
class Scan(Structure):
    _fields_ = [("type", c_int), ("nviews", c_int64), ("angles_deg", POINTER(c_double)),
                ("start_deg", c_double), ("stop_deg", c_double), ("det_count", c_int64),
                ("det_spacing_mm", c_double), ("det_offset_mm", c_double),
                ("cor_offset_mm", c_double), ("sod_mm", c_double), ("sdd_mm", c_double),
                ("det_rows", c_int64), ("det_spacing_v_mm", c_double),
                ("det_offset_v_mm", c_double)]


@struct("kr_ct_view")
class View(Structure):
    _fields_ = [("src", c_double * 3), ("ray", c_double * 3), ("det", c_double * 3),
                ("u", c_double * 3), ("v", c_double * 3)]


pgeom = POINTER(c_void_p)
fn("kr_ct_type_name", [c_int], c_char_p)
fn("kr_ct_type_from_name", [c_char_p, POINTER(c_int)])
fn("kr_ct_type_ndim", [c_int], c_int)
fn("kr_ct_type_is_cone", [c_int], c_int)
fn("kr_ct_type_is_parallel", [c_int], c_int)
fn("kr_ct_grid_2d", [POINTER(Grid), c_int64, c_int64, c_double], None)
fn("kr_ct_grid_3d", [POINTER(Grid), c_int64, c_int64, c_int64, c_double], None)
fn("kr_ct_scan_default", [POINTER(Scan)], None)
fn("kr_ct_scan_short_arc_deg", [POINTER(Scan), POINTER(c_double)])
fn("kr_ct_geom_create", [pgeom, POINTER(Scan), POINTER(Grid)])
fn("kr_ct_geom_create_views", [pgeom, c_int, c_int64, POINTER(View), c_int64, POINTER(Grid)])
fn("kr_ct_geom_create_views3d", [pgeom, c_int, c_int64, c_int64, POINTER(View), c_int64,
                                  POINTER(Grid)])
fn("kr_ct_geom_clone", [pgeom, c_void_p])
fn("kr_ct_geom_destroy", [c_void_p], None)
fn("kr_ct_geom_type", [c_void_p], c_int)
fn("kr_ct_geom_nviews", [c_void_p], c_int64)
fn("kr_ct_geom_det_count", [c_void_p], c_int64)
fn("kr_ct_geom_det_rows", [c_void_p], c_int64)
fn("kr_ct_geom_views", [c_void_p], POINTER(View))
fn("kr_ct_geom_grid", [c_void_p], POINTER(Grid))
fn("kr_ct_geom_scan", [c_void_p, POINTER(Scan)])
fn("kr_ct_geom_sino_dims", [c_void_p, POINTER(c_int64)], c_int)
fn("kr_ct_geom_image_dims", [c_void_p, POINTER(c_int64)], c_int)
fn("kr_ct_geom_check_fov", [c_void_p, c_void_p, POINTER(c_int64)])
fn("kr_ct_check_projections", [c_void_p, parr, c_void_p])
fn("kr_ct_geom_read_json", [pgeom, c_char_p])
fn("kr_ct_geom_parse_json", [pgeom, c_char_p, c_size_t, c_char_p])
fn("kr_ct_geom_write_json", [c_void_p, c_char_p, c_int])
fn("kr_ct_geom_to_json", [c_void_p, c_int, c_char_p, c_size_t, POINTER(c_size_t)])
fn("kr_ct_angles_parse", [c_char_p, POINTER(c_double), POINTER(c_double), POINTER(c_int64)])


def name_code(f, name, what, choices):
    """The code C parser f(name, &code) gives a name (one of `choices`; kray's sentence for
    an unknown name)."""
    if not isinstance(name, str):
        raise InvalidArgumentError("kray: %s is one of %s, not %r" % (what, ", ".join(choices),
                                                                      name))
    c = c_int()
    f(name.encode(), byref(c))
    return c.value


def type_code(name):
    """kr_ct_type of a type name ("parallel2d", "fan2d-flat", "fan2d-equiangular", "cone",
    "cone-vec")."""
    return name_code(lib.kr_ct_type_from_name, name, "a CT geometry type", TYPES)


def type_name(code):
    return lib.kr_ct_type_name(code).decode()


def type_ndim(name):
    """2 for the 2-D types, 3 for cone beam."""
    return lib.kr_ct_type_ndim(type_code(name))


def type_is_cone(name):
    return bool(lib.kr_ct_type_is_cone(type_code(name)))


def type_is_parallel(name):
    return bool(lib.kr_ct_type_is_parallel(type_code(name)))


def angles_parse(spec):
    """Parse "start:stop:count" (degrees, stop exclusive) into (start, stop, count)."""
    a, b, n = c_double(), c_double(), c_int64()
    lib.kr_ct_angles_parse(spec.encode(), byref(a), byref(b), byref(n))
    return a.value, b.value, n.value


def angles(start=0.0, stop=180.0, count=180):
    """The uniform angles (degrees) kray's scans use: start + i (stop - start) / count,
    i = 0 .. count-1 (stop exclusive), as a float64 array."""
    return start + np.arange(count) * ((stop - start) / count)


def _vec(v, n, what):
    v = np.broadcast_to(np.asarray(v, dtype=np.float64), (n,)) if np.ndim(v) == 0 else \
        np.asarray(v, dtype=np.float64)
    if v.shape != (n,):
        raise InvalidArgumentError("kray: %s needs %d values (x, y%s), not %r" %
                                   (what, n, ", z" if n == 3 else "", v.tolist()))
    return v


def _int(v, what):
    try:
        i = int(v)
    except (TypeError, ValueError):
        raise InvalidArgumentError("kray: %s must be an integer, not %r" % (what, v)) from None
    if i != v:
        raise InvalidArgumentError("kray: %s must be an integer, not %r" % (what, v))
    return i


def _grid(shape, voxel_mm, offset_mm, ndim):
    """Grid of `shape` (Python order: (ny, nx) or (nz, ny, nx))."""
    shape = tuple(_int(s, "the image shape") for s in np.atleast_1d(shape))
    if len(shape) == 1:
        shape = shape * ndim
    if len(shape) != ndim:
        raise InvalidArgumentError("kray: the %s shape needs %d sizes (%s), not %r" %
                                   ("image" if ndim == 2 else "volume", ndim,
                                    "ny, nx" if ndim == 2 else "nz, ny, nx", shape))
    g = Grid()
    n = tuple(reversed(shape))
    vox = _vec(voxel_mm, ndim, "voxel_mm")
    off = _vec(offset_mm, ndim, "offset_mm")
    if ndim == 2:
        lib.kr_ct_grid_2d(byref(g), n[0], n[1], vox[0])
    else:
        lib.kr_ct_grid_3d(byref(g), n[0], n[1], n[2], vox[0])
    for i in range(ndim):  # anisotropic voxels and off-centre grids
        g.voxel_mm[i] = vox[i]
        g.offset_mm[i] = off[i]
    return g


def _views(type_, nd, arrays):
    """ctypes View array from per-view vector arrays of shape (nviews, nd)."""
    need = {"parallel2d": ("ray", "det", "u"), "fan2d-flat": ("src", "det", "u"),
            "fan2d-equiangular": ("src", "det", "u"), "cone-vec": ("src", "det", "u", "v")}
    if type_ not in need:
        raise InvalidArgumentError("kray: per-view geometries are of type parallel2d, "
                                   "fan2d-flat, fan2d-equiangular or cone-vec, not %r" % (type_,))
    names = need[type_]
    vals = {}
    nv = None
    for k in names:
        if arrays.get(k) is None:
            raise InvalidArgumentError("kray: a %s geometry needs the per-view vectors %s "
                                       "(missing: %s)" % (type_, ", ".join(names), k))
        a = np.asarray(arrays[k], dtype=np.float64)
        if a.ndim != 2 or a.shape[1] != nd:
            raise InvalidArgumentError("kray: the views' %s must have shape (nviews, %d), not %s"
                                       % (k, nd, a.shape))
        if nv is None:
            nv = a.shape[0]
        elif a.shape[0] != nv:
            raise InvalidArgumentError("kray: the views' %s has %d rows where %s has %d" %
                                       (k, a.shape[0], names[0], nv))
        vals[k] = a
    extra = [k for k in arrays if arrays[k] is not None and k not in names]
    if extra:
        raise InvalidArgumentError("kray: a %s geometry takes the view vectors %s, not %s" %
                                   (type_, ", ".join(names), ", ".join(extra)))
    if nv == 0:
        raise InvalidArgumentError("kray: a geometry needs at least one view")
    buf = np.zeros((nv, 5, 3))  # kr_ct_view: src, ray, det, u, v, 3 doubles each
    for k in names:
        buf[:, ("src", "ray", "det", "u", "v").index(k), :nd] = vals[k]
    return (View * nv).from_buffer_copy(buf), nv


class Geometry(Handle):
    """A CT geometry (kr_ct_geom): the views of a scan in vector form and the image grid.

    Build one with :meth:`parallel`, :meth:`fan`, :meth:`cone`, :meth:`from_views`,
    :meth:`read` or :meth:`parse`. Geometries are immutable; plans copy what they need, so a
    geometry may be dropped once a plan is made."""
    _destroy = lib.kr_ct_geom_destroy

    def __init__(self, ptr):
        self._ptr = ptr

    # ---- builders --------------------------------------------------------------------------
    @classmethod
    def _from_scan(cls, s, grid, angles_deg):
        keep = None
        if angles_deg is not None:
            keep = np.ascontiguousarray(angles_deg, dtype=np.float64).ravel()
            if keep.size == 0:
                raise InvalidArgumentError("kray: a scan needs at least one angle")
            s.angles_deg = keep.ctypes.data_as(POINTER(c_double))
            s.nviews = keep.size
        p = c_void_p()
        lib.kr_ct_geom_create(byref(p), byref(s), byref(grid))
        return cls(p)

    @staticmethod
    def _scan(type_, det_count, angles_deg, nviews, start, stop, det_spacing_mm, det_offset_mm,
              cor_offset_mm, sod_mm=0.0, sdd_mm=0.0):
        s = Scan()
        lib.kr_ct_scan_default(byref(s))
        s.type = type_code(type_)
        s.det_count = _int(det_count, "det_count")
        if angles_deg is None:
            s.nviews = _int(nviews, "nviews")
            s.start_deg, s.stop_deg = float(start), float(stop)
        s.det_spacing_mm = float(det_spacing_mm)
        s.det_offset_mm = float(det_offset_mm)
        s.cor_offset_mm = float(cor_offset_mm)
        s.sod_mm, s.sdd_mm = float(sod_mm), float(sdd_mm)
        return s

    @classmethod
    def parallel(cls, det_count, image_shape, voxel_mm=1.0, angles_deg=None, nviews=180,
                 start_deg=0.0, stop_deg=180.0, det_spacing_mm=1.0, det_offset_mm=0.0,
                 cor_offset_mm=0.0, offset_mm=(0.0, 0.0)):
        """2-D parallel beam: det_count detector pixels of det_spacing_mm; angles_deg (an
        array) or nviews uniform angles over [start_deg, stop_deg); an image of image_shape
        (ny, nx) pixels of voxel_mm (a number or (dx, dy)) centred at offset_mm (x, y)."""
        s = cls._scan("parallel2d", det_count, angles_deg, nviews, start_deg, stop_deg,
                      det_spacing_mm, det_offset_mm, cor_offset_mm)
        return cls._from_scan(s, _grid(image_shape, voxel_mm, offset_mm, 2), angles_deg)

    @classmethod
    def fan(cls, det_count, image_shape, sod_mm, sdd_mm, voxel_mm=1.0, detector="flat",
            angles_deg=None, nviews=360, start_deg=0.0, stop_deg=360.0, det_spacing_mm=1.0,
            det_offset_mm=0.0, cor_offset_mm=0.0, offset_mm=(0.0, 0.0)):
        """2-D fan beam with a flat or equiangular detector (for the equiangular one,
        det_spacing_mm is the arc length of a pixel at radius sdd_mm). sod_mm: source to
        rotation axis, sdd_mm: source to detector (0 < sod < sdd). Other arguments as
        :meth:`parallel`."""
        if detector not in ("flat", "equiangular"):
            raise InvalidArgumentError("kray: detector is 'flat' or 'equiangular', not %r" %
                                       (detector,))
        s = cls._scan("fan2d-" + detector, det_count, angles_deg, nviews, start_deg, stop_deg,
                      det_spacing_mm, det_offset_mm, cor_offset_mm, sod_mm, sdd_mm)
        return cls._from_scan(s, _grid(image_shape, voxel_mm, offset_mm, 2), angles_deg)

    @classmethod
    def cone(cls, det_shape, volume_shape, sod_mm, sdd_mm, voxel_mm=1.0, angles_deg=None,
             nviews=360, start_deg=0.0, stop_deg=360.0, det_spacing_mm=1.0,
             det_offset_mm=(0.0, 0.0), cor_offset_mm=0.0, offset_mm=(0.0, 0.0, 0.0)):
        """Circular cone beam with a flat detector of det_shape (rows, columns) pixels;
        det_spacing_mm: a number (square pixels) or (du, dv); det_offset_mm: (u, v) shift;
        volume_shape (nz, ny, nx) of voxels voxel_mm (a number or (dx, dy, dz)) centred at
        offset_mm (x, y, z). Projections have shape (nviews, rows, columns)."""
        ds = np.atleast_1d(np.asarray(det_shape))
        if ds.shape != (2,):
            raise InvalidArgumentError("kray: det_shape is (rows, columns), not %r" %
                                       (det_shape,))
        sp = _vec(det_spacing_mm, 2, "det_spacing_mm")
        off = _vec(det_offset_mm, 2, "det_offset_mm")
        s = cls._scan("cone", ds[1], angles_deg, nviews, start_deg, stop_deg, sp[0], off[0],
                      cor_offset_mm, sod_mm, sdd_mm)
        s.det_rows = _int(ds[0], "the detector rows")
        s.det_spacing_v_mm = sp[1]
        s.det_offset_v_mm = off[1]
        return cls._from_scan(s, _grid(volume_shape, voxel_mm, offset_mm, 3), angles_deg)

    @classmethod
    def from_scan(cls, scan, shape, voxel_mm=1.0, offset_mm=None):
        """From a dict of kr_ct_scan fields (as :attr:`scan` returns: type, angles_deg or
        nviews/start_deg/stop_deg, det_count, det_spacing_mm, ...) and a grid."""
        s = _scan_of(scan)
        angles_deg = scan.get("angles_deg")
        nd = lib.kr_ct_type_ndim(s.type)
        if offset_mm is None:
            offset_mm = (0.0,) * nd
        return cls._from_scan(s, _grid(shape, voxel_mm, offset_mm, nd), angles_deg)

    @classmethod
    def from_views(cls, type, det_count, shape, voxel_mm=1.0, offset_mm=None, src=None,
                   ray=None, det=None, u=None, v=None, det_rows=None):
        """A geometry given view by view (vector form, any scanner). 2-D types
        ("parallel2d": ray, det, u; "fan2d-flat" / "fan2d-equiangular": src, det, u) take
        arrays of shape (nviews, 2); "cone-vec" takes src, det, u, v of shape (nviews, 3) and
        det_rows. det: the detector centre; u (and v): one detector pixel as a mm vector."""
        cone = type == "cone-vec"
        nd = 3 if cone else 2
        vs, nv = _views(type, nd, {"src": src, "ray": ray, "det": det, "u": u, "v": v})
        g = _grid(shape, voxel_mm, offset_mm if offset_mm is not None else (0.0,) * nd, nd)
        p = c_void_p()
        if cone:
            if det_rows is None:
                raise InvalidArgumentError("kray: a cone-vec geometry needs det_rows")
            lib.kr_ct_geom_create_views3d(byref(p), type_code(type), _int(det_count, "det_count"),
                                          _int(det_rows, "det_rows"), vs, nv, byref(g))
        else:
            if det_rows not in (None, 1):
                raise InvalidArgumentError("kray: 2-D geometries have one detector row")
            lib.kr_ct_geom_create_views(byref(p), type_code(type), _int(det_count, "det_count"),
                                        vs, nv, byref(g))
        return cls(p)

    @classmethod
    def read(cls, path):
        """Read a geometry JSON file (kray/ct.h schema)."""
        p = c_void_p()
        lib.kr_ct_geom_read_json(byref(p), os.fsencode(path))
        return cls(p)

    @classmethod
    def parse(cls, text, name="<string>"):
        """Parse geometry JSON text (str or bytes); `name` appears in error messages."""
        b = text.encode() if isinstance(text, str) else bytes(text)
        p = c_void_p()
        lib.kr_ct_geom_parse_json(byref(p), b, len(b), name.encode())
        return cls(p)

    def write(self, path, explicit_views=False):
        """Write as JSON; explicit_views writes the vector form even for a parametric scan."""
        lib.kr_ct_geom_write_json(self.ptr, os.fsencode(path), 1 if explicit_views else 0)

    def to_json(self, explicit_views=False):
        """The JSON text of :meth:`write`."""
        n = c_size_t()
        ev = 1 if explicit_views else 0
        lib.kr_ct_geom_to_json(self.ptr, ev, None, 0, byref(n))
        buf = create_string_buffer(n.value + 1)
        lib.kr_ct_geom_to_json(self.ptr, ev, buf, n.value + 1, byref(n))
        return buf.value.decode()

    def clone(self):
        p = c_void_p()
        lib.kr_ct_geom_clone(byref(p), self.ptr)
        return Geometry(p)

    # ---- queries ----------------------------------------------------------------------------
    @property
    def type(self):
        return type_name(lib.kr_ct_geom_type(self.ptr))

    @property
    def ndim(self):
        """2 (fan, parallel) or 3 (cone)."""
        return lib.kr_ct_type_ndim(lib.kr_ct_geom_type(self.ptr))

    @property
    def nviews(self):
        return lib.kr_ct_geom_nviews(self.ptr)

    @property
    def det_count(self):
        return lib.kr_ct_geom_det_count(self.ptr)

    @property
    def det_rows(self):
        return lib.kr_ct_geom_det_rows(self.ptr)

    @property
    def sino_shape(self):
        """Shape of the sinogram (nviews, det_count) or projections (nviews, rows, cols)."""
        return A.shape_of(lib.kr_ct_geom_sino_dims, self.ptr)

    @property
    def image_shape(self):
        """Shape of the image (ny, nx) or volume (nz, ny, nx)."""
        return A.shape_of(lib.kr_ct_geom_image_dims, self.ptr)

    @property
    def grid(self):
        """dict: shape (Python order), voxel_mm and offset_mm ((x, y) or (x, y, z))."""
        g = lib.kr_ct_geom_grid(self.ptr).contents
        nd = self.ndim
        return {"shape": tuple(g.n[nd - 1 - i] for i in range(nd)),
                "voxel_mm": tuple(g.voxel_mm[:nd]), "offset_mm": tuple(g.offset_mm[:nd])}

    @property
    def views(self):
        """dict of float64 arrays (nviews, 3): src, ray, det, u, v (unused vectors are 0)."""
        nv = self.nviews
        p = lib.kr_ct_geom_views(self.ptr)
        a = np.ctypeslib.as_array(_doubles(p, nv * 15), (nv * 15,)).reshape(nv, 5, 3).copy()
        return {k: a[:, i, :] for i, k in enumerate(("src", "ray", "det", "u", "v"))}

    @property
    def scan(self):
        """The physical description as a dict (None for vector geometries)."""
        s = Scan()
        try:
            lib.kr_ct_geom_scan(self.ptr, byref(s))
        except NotImplementedError:
            lib.kr_clear_error()
            return None
        d = {k: getattr(s, k) for k, _ in Scan._fields_ if k not in ("type", "angles_deg")}
        d["type"] = type_name(s.type)
        d["angles_deg"] = np.array(s.angles_deg[:s.nviews])
        return d

    def short_arc_deg(self):
        """Arc of a short scan (180 degrees plus the fan angle) for this fan or cone scan."""
        s = Scan()
        lib.kr_ct_geom_scan(self.ptr, byref(s))
        r = c_double()
        lib.kr_ct_scan_short_arc_deg(byref(s), byref(r))
        return r.value

    def check_fov(self):
        """Cone beam: the number of views in which part of the volume projects off the
        detector (kray also logs a warning naming the first)."""
        n = c_int64()
        lib.kr_ct_geom_check_fov(self.ptr, None, byref(n))
        return n.value

    def check_projections(self, proj):
        """Raise when `proj` (any kind) does not fit this geometry (shape, dtype f32/f64) or
        holds NaN or infinite values (the sentence counts them)."""
        a = A.arg(proj, "the projections")
        ctx = context(a)
        lib.kr_ct_check_projections(self.ptr, a.ref(), ctx.ptr if a.device >= 0 else None)

    def __eq__(self, other):
        return isinstance(other, Geometry) and self.to_json(True) == other.to_json(True)

    __hash__ = None

    def __repr__(self):
        return "kray.ct.Geometry(%r, views=%d, detector=%s, image=%s)" % (
            self.type, self.nviews,
            "%dx%d" % (self.det_rows, self.det_count) if self.ndim == 3 else self.det_count,
            self.image_shape)


def _doubles(p, n):
    import ctypes
    return ctypes.cast(p, POINTER(c_double * n)).contents


def short_arc_deg(scan):
    """Short-scan arc (degrees) of a scan dict (see :meth:`Geometry.from_scan`)."""
    s = _scan_of(scan)
    r = c_double()
    lib.kr_ct_scan_short_arc_deg(byref(s), byref(r))
    return r.value


def _scan_of(scan):
    """A Scan from a dict of its fields (type a name, default parallel2d; angles_deg is left
    to the caller)."""
    s = Scan()
    lib.kr_ct_scan_default(byref(s))
    for k, v in scan.items():
        if k in ("type", "angles_deg"):
            continue
        if not hasattr(s, k) or k.startswith("_"):
            raise InvalidArgumentError("kray: kr_ct_scan has no field %r" % k)
        setattr(s, k, v)
    s.type = type_code(scan.get("type", "parallel2d"))
    return s


def as_geometry(g):
    """A Geometry from a Geometry, a JSON path, or JSON text."""
    if isinstance(g, Geometry):
        return g
    if isinstance(g, (str, bytes, os.PathLike)):
        s = os.fsdecode(g) if not isinstance(g, str) else g
        if s.lstrip().startswith("{"):
            return Geometry.parse(s)
        return Geometry.read(s)
    raise InvalidArgumentError("kray: expected a kray.ct.Geometry (or a JSON path), not %s" %
                               type(g).__name__)
