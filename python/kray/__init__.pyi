from . import (ct as ct, dicom as dicom, fft as fft, metrics as metrics, mri as mri,
               noise as noise, phantom as phantom, reg as reg)
from ._ctx import (Context as Context, cuda_device_count as cuda_device_count,
                   cuda_device_name as cuda_device_name)
from ._lib import (CudaError as CudaError, DTypeError as DTypeError,
                   DeviceMemoryError as DeviceMemoryError, DimensionError as DimensionError,
                   FFTError as FFTError, FormatError as FormatError,
                   GeometryError as GeometryError, HostMemoryError as HostMemoryError,
                   InternalError as InternalError, InvalidArgumentError as InvalidArgumentError,
                   KrayError as KrayError, KrayIOError as KrayIOError,
                   LocationError as LocationError, NoDeviceError as NoDeviceError,
                   NotConvergedError as NotConvergedError,
                   NotSupportedError as NotSupportedError)
from .io import read as read, write as write
from .linop import Linop as Linop, cg as cg, cgls as cgls, stack as stack

__version__: str
build_features: str
library_path: str

def has_cuda() -> bool: ...
