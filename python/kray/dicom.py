"""DICOM (kray/dicom.h): CT Image Storage export of reconstructed slices in Hounsfield units,
and import of single-frame greyscale CT/MR slices. Needs a libkray built with DCMTK (else
NotSupportedError).

Shapes: an image (ny, nx) is one file, a volume (nz, ny, nx) nz files "<stem>_0000.dcm", ...
DICOM row r is kray y index r (y index 0 at the top of the display). Attenuation (1/mm) is
converted to HU = 1000 (mu - mu_water) / mu_water unless values_are_hu.
"""
import os
from ctypes import POINTER, Structure, byref, c_char_p, c_double, c_int


from ._lib import fn, lib, parr, struct
from . import _array as A


@struct("kr_dicom_opts")
class DicomOpts(Structure):
    _fields_ = [("mu_water", c_double), ("values_are_hu", c_int),
                ("pixel_spacing_mm", c_double * 2), ("slice_thickness_mm", c_double),
                ("slice_spacing_mm", c_double), ("origin_mm", c_double * 3),
                ("window_center_hu", c_double), ("window_width_hu", c_double),
                ("patient_name", c_char_p), ("patient_id", c_char_p),
                ("study_description", c_char_p), ("series_description", c_char_p),
                ("series_number", c_int)]


fn("kr_dicom_opts_default", [POINTER(DicomOpts)], None)
fn("kr_write_dicom", [c_char_p, parr, POINTER(DicomOpts)])
fn("kr_read_dicom", [c_char_p, POINTER(POINTER(A.KrArray)), POINTER(c_double)])

_STR = ("patient_name", "patient_id", "study_description", "series_description")


def write(path, image, mu_water=None, values_are_hu=False, pixel_spacing_mm=None,
          slice_thickness_mm=None, slice_spacing_mm=None, origin_mm=None,
          window_center_hu=None, window_width_hu=None, patient_name=None, patient_id=None,
          study_description=None, series_description=None, series_number=None):
    """Write image (ny, nx) or volume (nz, ny, nx), float32/float64 (device arrays are copied
    to the host) as CT Image Storage file(s). mu_water in 1/mm (default 0.0193);
    pixel_spacing_mm (dx, dy); origin_mm (x, y, z) of the grid centre / slice 0; None keeps
    kray's defaults."""
    a = A.arg(A.to_host(image), "the image", dtypes=(A.KR_F32, A.KR_F64))
    o = DicomOpts()
    lib.kr_dicom_opts_default(byref(o))
    if mu_water is not None:
        o.mu_water = float(mu_water)
    o.values_are_hu = 1 if values_are_hu else 0
    if pixel_spacing_mm is not None:
        o.pixel_spacing_mm[0], o.pixel_spacing_mm[1] = (float(v) for v in pixel_spacing_mm)
    for k, v in (("slice_thickness_mm", slice_thickness_mm),
                 ("slice_spacing_mm", slice_spacing_mm), ("window_center_hu", window_center_hu),
                 ("window_width_hu", window_width_hu)):
        if v is not None:
            setattr(o, k, float(v))
    if origin_mm is not None:
        for i, v in enumerate(origin_mm):
            o.origin_mm[i] = float(v)
    keep = []
    for k, v in zip(_STR, (patient_name, patient_id, study_description, series_description)):
        if v is not None:
            b = v.encode()
            keep.append(b)
            setattr(o, k, b)
    if series_number is not None:
        o.series_number = int(series_number)
    lib.kr_write_dicom(os.fsencode(path), a.ref(), byref(o))


def read(path, spacing=False):
    """Read one single-frame DICOM image into float32 (ny, nx) = RescaleSlope * stored +
    RescaleIntercept (HU for CT). spacing=True also returns PixelSpacing as (dx, dy) mm (0
    when absent)."""
    p = POINTER(A.KrArray)()
    sp = (c_double * 2)()
    lib.kr_read_dicom(os.fsencode(path), byref(p), sp)
    a = A.adopt(p)
    return (a, (sp[0], sp[1])) if spacing else a
