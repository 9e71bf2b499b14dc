from .fbp import (FILTERS as FILTERS, FbpPlan as FbpPlan, FilterPlan as FilterPlan,
                  WINDOWS as WINDOWS, fbp as fbp, filter_name as filter_name,
                  window_name as window_name)
from .fdk import FdkPlan as FdkPlan, fdk as fdk, fdk_views as fdk_views
from .geometry import (Geometry as Geometry, TYPES as TYPES, angles as angles,
                       angles_parse as angles_parse, short_arc_deg as short_arc_deg,
                       type_is_cone as type_is_cone, type_is_parallel as type_is_parallel,
                       type_ndim as type_ndim)
from .projector import (METHODS as METHODS, Projector as Projector, Sirt as Sirt, cgls as cgls,
                        operator as operator, phantom_projections as phantom_projections,
                        sirt as sirt, voxel_bp_operator as voxel_bp_operator)
from . import skimage as skimage
