"""kray: GPU-accelerated reconstruction and simulation of medical images (CT and MRI).

Arrays: NumPy arrays on the CPU, CuPy arrays and PyTorch tensors on the CPU or a CUDA device,
passed to kray without a copy when C-contiguous; results come back as the same kind of array on
the same device. Shapes are Python order, slowest first: an image is (y, x), a volume (z, y, x),
multi-coil data (coil, y, x). See docs/python.md.

Modules: kray.io (files), kray.linop (operators, CG, CGLS), kray.torch (autograd), kray.ct
(CT geometries, projectors, FBP, FDK, SIRT, CGLS), kray.phantom (analytic phantoms, exact
projections, k-space, coil maps), kray.metrics (MSE, PSNR, SSIM, ...), kray.fft (FFT and
shifts), kray.dicom (DICOM slices), kray.noise (coil noise and whitening), kray.mri
(trajectories, DrFT, NUFFT, Goertzel, FVE, least squares, off-resonance, CG-SENSE, SENSE,
ESPIRiT, coils, ISMRMRD, Bloch simulation), kray.reg (finite differences, wavelets, proximal
maps, FISTA, ADMM, PDHG, OS-SART, ASD-POCS); docs/python.md is the tour and the reference.
Errors are subclasses of :class:`KrayError` carrying
kray's one-sentence explanation.
"""
from ._lib import (KrayError, InvalidArgumentError, DimensionError, DTypeError, LocationError,
                   GeometryError, KrayIOError, FormatError, HostMemoryError, DeviceMemoryError,
                   CudaError, FFTError, NoDeviceError, NotSupportedError, NotConvergedError,
                   InternalError, lib as _cdll, library_path)
from ._ctx import Context, cuda_device_count, cuda_device_name
from .io import read, write
from .linop import Linop, cg, cgls, stack
from . import ct, dicom, fft, metrics, mri, noise, phantom, reg  # noqa: E402

__version__ = _cdll.kr_version().decode()
build_features = _cdll.kr_build_features().decode()


def has_cuda():
    """True when this libkray was built with CUDA and a CUDA device is usable."""
    return cuda_device_count() > 0
