from ctypes import Structure
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union
import numpy as np
from ._plan import Plan
from ._typing import Array, Axes, Device, DTypeLike, GeometryLike, ShapeLike
from .linop import Linop, SolveResult

BOUNDARIES: Dict[str, int]
WAVELETS: Tuple[str, ...]

class WaveletOpts(Structure):
    kind: int
    axes: int
    levels: int
    shift: Any

class RegTerm(Structure):
    K: Any
    g: Any

class RegOpts(Structure):
    max_iter: int
    tol: float
    warm_start: int
    objective: Any
    residual: Any
    show_progress: int
    step: float
    power_iter: int
    monotone: int
    normal_form: int
    rho: float
    cg_iter: int
    sigma: float
    tau: float
    seed: int

class RegInfo(Structure):
    iterations: int
    objective: float
    rel_change: float
    primal_res: float
    dual_res: float
    lipschitz: float
    converged: int

class CtRegOpts(Structure):
    max_iter: int
    subsets: int
    relax: float
    nonneg: int
    tv_iter: int
    alpha: float
    alpha_red: float
    r_max: float
    residual: Any
    warm_start: int
    show_progress: int

def wavelet_kind(name: str) -> int: ...
def wavelet_opts(kind: str = ..., axes: Axes = ..., levels: int = ...,
                 shift: Optional[Sequence[int]] = ..., nd: int = ...) -> WaveletOpts: ...
def fdiff(shape: ShapeLike, axes: Axes = ..., boundary: str = ..., dtype: DTypeLike = ...,
          device: Device = ...) -> Linop: ...
def wavelet(shape: ShapeLike, kind: str = ..., axes: Axes = ..., levels: int = ...,
            shift: Optional[Sequence[int]] = ..., dtype: DTypeLike = ...,
            device: Device = ...) -> Linop: ...
def norm2_estimate(op: Linop, iters: int = ..., seed: int = ...) -> float: ...

class Prox(Plan):
    shape: Tuple[int, ...]
    dtype: np.dtype[Any]
    name: str
    def __init__(self, create: Callable[..., Any], shape: ShapeLike, dtype: DTypeLike,
                 device: Device, *extra: Any, keep: Sequence[Any] = ...) -> None: ...
    def apply(self, v: Array, t: float = ..., out: Optional[Array] = ...) -> Array: ...
    def __call__(self, v: Array, t: float = ..., out: Optional[Array] = ...) -> Array: ...
    def value(self, x: Array) -> float: ...

def l1(shape: ShapeLike, lam: float, dtype: DTypeLike = ..., device: Device = ...) -> Prox: ...
def l21(shape: ShapeLike, lam: float, dtype: DTypeLike = ..., device: Device = ...) -> Prox: ...
def l2ball(shape: ShapeLike, radius: float, center: Optional[Array] = ...,
           dtype: DTypeLike = ..., device: Device = ...) -> Prox: ...
def box(shape: ShapeLike, lo: float = ..., hi: float = ..., dtype: DTypeLike = ...,
        device: Device = ...) -> Prox: ...
def llr(shape: ShapeLike, lam: float, axis: int = ..., block: int = ...,
        shift: Optional[Sequence[int]] = ..., dtype: DTypeLike = ...,
        device: Device = ...) -> Prox: ...
def l1_wavelet(shape: ShapeLike, lam: float, kind: str = ..., axes: Axes = ...,
               levels: int = ..., seed: int = ..., dtype: DTypeLike = ...,
               device: Device = ...) -> Prox: ...
def tv(shape: ShapeLike, lam: float, axes: Axes = ..., lo: float = ..., hi: float = ...,
       inner: int = ..., dtype: DTypeLike = ..., device: Device = ...) -> Prox: ...

class RegResult(SolveResult):
    objective: float
    rel_change: float
    primal_res: float
    dual_res: float
    lipschitz: float
    residuals: Any
    def __init__(self, x: Array, info: Any, obj: Any, res: Any) -> None: ...  # type: ignore[override]

def fista(op: Linop, y: Array, g: Optional[Prox] = ..., x0: Optional[Array] = ...,
          max_iter: int = ..., tol: float = ..., step: float = ..., monotone: bool = ...,
          power_iter: int = ..., seed: Optional[int] = ..., normal_form: bool = ...,
          progress: bool = ...) -> RegResult: ...
def admm(op: Linop, y: Array, terms: Any, x0: Optional[Array] = ...,
         max_iter: int = ..., tol: float = ..., rho: float = ..., cg_iter: int = ...,
         progress: bool = ...) -> RegResult: ...
def pdhg(op: Linop, y: Array, terms: Any, x0: Optional[Array] = ...,
         max_iter: int = ..., tol: float = ..., sigma: float = ..., tau: float = ...,
         power_iter: int = ..., seed: Optional[int] = ...,
         progress: bool = ...) -> RegResult: ...
def os_sart(y: Array, geom: GeometryLike, max_iter: int = ..., subsets: int = ...,
            relax: float = ..., nonneg: bool = ..., x0: Optional[Array] = ...,
            method: str = ..., ray_factor: int = ..., progress: bool = ...) -> SolveResult: ...
def asd_pocs(y: Array, geom: GeometryLike, max_iter: int = ..., subsets: int = ...,
             relax: float = ..., nonneg: bool = ..., tv_iter: int = ..., alpha: float = ...,
             alpha_red: float = ..., r_max: float = ..., x0: Optional[Array] = ...,
             method: str = ..., ray_factor: int = ..., progress: bool = ...) -> SolveResult: ...
