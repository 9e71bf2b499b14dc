"""kray.mri: non-Cartesian and Cartesian MRI reconstruction and simulation.

Submodules: traj (trajectories, density compensation), drft (direct Fourier transform),
nufft (non-uniform FFT plans), goertzel, fve (Fourier velocity encoding), lsq (least squares,
Toeplitz), offres (off-resonance), cgsense (CG-SENSE), sense (Cartesian SENSE, ESPIRiT,
undersampling), coils (coil arrays, maps, combination), ismrmrd (ISMRMRD files), sim (pulse
sequences, isochromats, Bloch simulation), mrreg (regularised reconstruction: l1-wavelet, TV,
LLR). Shapes are Python order (slowest first): an image is
(ny, nx) or (nz, ny, nx), multi-coil data (coil, ny, nx), a trajectory (..., samples, 3).
"""
from . import (traj, drft, nufft, goertzel, fve, lsq, offres, cgsense, sense,  # noqa: F401
               coils, ismrmrd, sim, mrreg)

from .drft import DrftPlan  # noqa: F401
from .nufft import NufftPlan  # noqa: F401
from .lsq import ToeplitzPlan, LsqPlan  # noqa: F401
from .cgsense import CgsensePlan  # noqa: F401
from .sense import SensePlan, espirit  # noqa: F401
from .sim import Sequence, Isochromats, SimPlan  # noqa: F401

__all__ = ["traj", "drft", "nufft", "goertzel", "fve", "lsq", "offres", "cgsense", "sense",
           "coils", "ismrmrd", "sim", "mrreg", "DrftPlan", "NufftPlan", "ToeplitzPlan", "LsqPlan",
           "CgsensePlan", "SensePlan", "espirit", "Sequence", "Isochromats", "SimPlan"]
