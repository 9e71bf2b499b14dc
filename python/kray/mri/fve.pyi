import ctypes
from .._lib import fields
from ctypes import Structure
from .._typing import Array, PathLike, ShapeLike
from .._ctx import Context
from typing import Any, Dict, Optional, Tuple
import numpy as np

MAX_VESSELS: int

class Params(Structure):
    n: int
    fov_mm: float
    vfov_cm_s: float
    encodes: int
    def as_dict(self) -> Dict[str, Any]: ...

class Vessel(Structure):
    x0: float
    y0: float
    dx_slice: float
    radius: float
    vpeak_cm_s: float
    diastole: float
    phase: float
    rho: float

class SimOpts(Structure):
    enc: Params
    slices: int
    frames: int
    coils: int
    interleaves: int
    rings: int
    nvessels: int
    vessel: ctypes.Array[Any]
    tissue_scale: float

def params(n: int = ..., fov_mm: float = ..., vfov_cm_s: float = ...,
        encodes: int = ...) -> Params: ...

def velocity_axis(p: Params) -> np.ndarray[Any, Any]: ...
def params_write(path: PathLike, p: Params, sim: Optional[SimOpts] = ...) -> None: ...
def params_read(path: PathLike) -> Params: ...
def sim_opts(small: bool = ..., **fields: Any) -> SimOpts: ...
def simulate(opts: Optional[SimOpts] = ..., weights: bool = ..., ctx: Optional[Context] = ...
             ) -> Tuple[np.ndarray[Any, Any], np.ndarray[Any, Any],
                        Optional[np.ndarray[Any, Any]]]: ...

def true_velocity(opts: SimOpts, x: float, y: float, slice: int,
        frame: int) -> Tuple[float, bool]: ...

def vmax(vessel: Vessel, frame: int, frames: int) -> float: ...
def voxels(traj: Array, weights: Array, data: Array, n: int, vox: Array, gridded: bool = ...,
        eps: float = ..., ctx: Optional[Context] = ...) -> Array: ...

def spectra(vox_img: Array, ctx: Optional[Context] = ...) -> Array: ...
