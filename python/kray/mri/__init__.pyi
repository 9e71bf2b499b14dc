from . import (cgsense as cgsense, coils as coils, drft as drft, fve as fve, goertzel as goertzel,
               ismrmrd as ismrmrd, lsq as lsq, mrreg as mrreg, nufft as nufft, offres as offres,
               sense as sense, sim as sim, traj as traj)
from .cgsense import CgsensePlan as CgsensePlan
from .drft import DrftPlan as DrftPlan
from .lsq import LsqPlan as LsqPlan, ToeplitzPlan as ToeplitzPlan
from .nufft import NufftPlan as NufftPlan
from .sense import SensePlan as SensePlan, espirit as espirit
from .sim import Isochromats as Isochromats, Sequence as Sequence, SimPlan as SimPlan
