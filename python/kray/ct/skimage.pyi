from typing import Any, Optional

import numpy as np

from .._typing import Array, Device, DTypeLike
from .geometry import Geometry

def geometry(theta_deg: Array, det_count: int, output_size: Optional[int] = ...) -> Geometry: ...
def circle_mask(n: int) -> np.ndarray[Any, Any]: ...
def iradon(radon_image: Array, theta: Optional[Array] = ..., output_size: Optional[int] = ...,
           filter_name: str = ..., circle: bool = ..., dtype: Optional[DTypeLike] = ...,
           device: Device = ...) -> np.ndarray[Any, Any]: ...
