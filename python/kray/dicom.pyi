import ctypes
from ctypes import Structure
from ._typing import Array, PathLike
from typing import Any, Optional

class DicomOpts(Structure):
    mu_water: float
    values_are_hu: int
    pixel_spacing_mm: ctypes.Array[Any]
    slice_thickness_mm: float
    slice_spacing_mm: float
    origin_mm: ctypes.Array[Any]
    window_center_hu: float
    window_width_hu: float
    patient_name: Optional[bytes]
    patient_id: Optional[bytes]
    study_description: Optional[bytes]
    series_description: Optional[bytes]
    series_number: int

def write(path: PathLike, image: Array, mu_water: Optional[Any] = ..., values_are_hu: bool = ...,
        pixel_spacing_mm: Optional[Any] = ..., slice_thickness_mm: Optional[Any] = ...,
        slice_spacing_mm: Optional[Any] = ..., origin_mm: Optional[Any] = ...,
        window_center_hu: Optional[Any] = ..., window_width_hu: Optional[Any] = ...,
        patient_name: Optional[Any] = ..., patient_id: Optional[Any] = ...,
        study_description: Optional[Any] = ..., series_description: Optional[Any] = ...,
        series_number: Optional[Any] = ...) -> None: ...

def read(path: PathLike, spacing: bool = ...) -> Array: ...
