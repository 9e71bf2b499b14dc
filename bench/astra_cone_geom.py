"""kray's cone-beam geometry JSON (type "cone-vec": src, det, u, v in mm per view) as ASTRA
Toolbox geometries, for the peer scripts peer_astra_fdk.py and peer_astra_cone.py. An ASTRA
'cone_vec' row (source, detector centre, pixel steps along the detector's columns and rows) has
the same meaning as a kray view, so both codes see the same rays; the volume is kray's grid
(size, voxel_mm, offset_mm) as an ASTRA volume window."""
import json


def algorithm(astra, name, **ids):
    """ASTRA algorithm `name` configured with the data ids given by keyword (e.g.
    ProjectionDataId=...; option= a dict of options)."""
    cfg = astra.astra_dict(name)
    cfg.update(ids)
    return astra.algorithm.create(cfg)


def load(path):
    """(astra, numpy, proj_geom, vol_geom, (nx, ny, nz), nviews, (nu, nv)), or raise with one
    sentence for the peer's JSON error line."""
    import numpy as np
    import astra

    with open(path) as f:
        g = json.load(f)
    if g.get("type") != "cone-vec" or "views" not in g:
        raise ValueError("needs a cone-vec geometry (explicit views)")
    nu, nv = g["det_count"], g["det_rows"]
    views = g["views"]
    vec = np.array([v["src"] + v["det"] + v["u"] + v["v"] for v in views], dtype=np.float64)
    size = g["image"]["size"]
    vox = g["image"]["voxel_mm"]
    vox = vox if isinstance(vox, list) else [vox, vox, vox]
    off = g["image"].get("offset_mm", [0, 0, 0])
    nx, ny, nz = size
    lo = [off[d] - size[d] * vox[d] / 2 for d in range(3)]
    hi = [off[d] + size[d] * vox[d] / 2 for d in range(3)]
    pg = astra.create_proj_geom("cone_vec", nv, nu, vec)
    vg = astra.create_vol_geom(ny, nx, nz, lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])
    return astra, np, pg, vg, (nx, ny, nz), len(views), (nu, nv)
