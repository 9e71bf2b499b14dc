from .._handle import Handle
from ._seqtypes import IsoOpts
from .._typing import Array
from typing import Any, Optional, Sequence
import numpy as np

SPREAD: Any
GRIDS: Any
FIELDS: Any

def iso_opts(voxel_mm: Sequence[float] = ..., grid: str = ..., sub: Sequence[int] = ...,
        nfreq: int = ..., spread_hz: float = ..., spread: str = ..., decimate: int = ...,
        z_mm: float = ..., sine_amp_hz: float = ..., sine_cycles: float = ...,
        sine_axis: int = ...) -> IsoOpts: ...

class Isochromats(Handle):
    n: int
    def __init__(self, n: Optional[int] = ..., _ptr: Optional[Any] = ...) -> None: ...
    def __getattr__(self, name: str) -> np.ndarray[Any, Any]: ...
    def __setattr__(self, name: str, value: Any) -> None: ...
    def __len__(self) -> int: ...
    def equilibrium(self) -> Isochromats: ...
    @classmethod
    def from_maps(cls, t1_ms: Array, t2_ms: Array, pd: Array, df_hz: Optional[Array] = ...,
            **opts: Any) -> Isochromats: ...
    @classmethod
    def from_tissue(cls, tissue: Array, df_hz: Optional[Array] = ...,
            **opts: Any) -> Isochromats: ...
