"""kray.ct: CT geometries, projectors, FBP, FDK, SIRT and CGLS (kray/ct.h, fbp.h, fdk.h).

Units: mm and degrees; images in 1/mm, projections are dimensionless line integrals. Shapes
are Python order: image (ny, nx), sinogram (nviews, det), volume (nz, ny, nx), cone-beam
projections (nviews, rows, cols); batches of 2-D images / sinograms put the batch first.
Physical vectors (voxel sizes, offsets, view vectors) are (x, y[, z]). See docs/python.md.
"""
from .geometry import (Geometry, TYPES, angles, angles_parse, short_arc_deg, type_ndim,
                       type_is_cone, type_is_parallel)
from .projector import (Projector, Sirt, METHODS, cgls, operator, phantom_projections, sirt,
                        voxel_bp_operator)
from .fbp import FbpPlan, FilterPlan, FILTERS, WINDOWS, fbp, filter_name, window_name
from .fdk import FdkPlan, fdk, fdk_views
from . import skimage  # noqa: F401  (kray.ct.skimage: scikit-image conventions)

__all__ = ["Geometry", "TYPES", "angles", "angles_parse", "short_arc_deg", "type_ndim",
           "type_is_cone", "type_is_parallel", "Projector", "Sirt", "METHODS", "cgls",
           "operator", "phantom_projections", "sirt", "voxel_bp_operator", "FbpPlan",
           "FilterPlan", "FILTERS", "WINDOWS", "fbp", "filter_name", "window_name", "FdkPlan", "fdk", "fdk_views",
           "skimage"]
