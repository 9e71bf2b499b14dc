from ctypes import Structure
from ._typing import Array
from typing import Any, Dict

class Metrics(Structure):
    mse: float
    psnr: float
    ssim: float
    nrmse: float
    maxerr: float
    range: float

pd: Any

def mse(x: Array, ref: Array) -> float: ...
def psnr(x: Array, ref: Array, range: float = ...) -> float: ...
def nrmse(x: Array, ref: Array) -> float: ...
def maxerr(x: Array, ref: Array) -> float: ...
def ssim(x: Array, ref: Array, range: float = ...) -> float: ...
def compute(x: Array, ref: Array, range: float = ...) -> Dict[str, float]: ...
