#!/usr/bin/env python3
"""ASTRA Toolbox FBP_CUDA as the GPU peer of `kray bench fbp2d` (run on the GPU machine with the
astra-toolbox wheel; see bench/cufft11_shim.c for running the CUDA 12 wheel beside CUDA 13).

Reads the bench's sinogram (raw little-endian float64, kray layout [det, view]) and kray's
geometry JSON written with explicit views (kr_ct_geom_write_json(..., 1)): every view becomes a
row (rayX, rayY, dX, dY, uX, uY) of an ASTRA 'parallel_vec' geometry, which has the same meaning
(ray direction, detector centre, pixel step along the detector), so both codes see the same rays.
The image grid becomes an ASTRA volume window. ASTRA's volume row 0 is the top (largest y),
kray's row 0 the bottom, so the result is flipped before it is written (raw float64, kray
[x, y] order). Times: `setup_s` = geometry, data objects and algorithm creation; each timed run
is astra.algorithm.run, which uploads the sinogram, filters, backprojects and downloads the
image (ASTRA's data objects live in host memory): compare with kray's host_to_host time.
Prints one JSON line.
"""
import argparse
import json
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sino", required=True)
    ap.add_argument("--geom", required=True)
    ap.add_argument("--size", type=int, required=True)
    ap.add_argument("--views", type=int, required=True)
    ap.add_argument("--det", type=int, required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", required=True)
    ap.add_argument("--filter", default="ram-lak")
    a = ap.parse_args()
    try:
        import numpy as np
        import astra
    except Exception as e:  # noqa: BLE001
        print(json.dumps({"peer": "astra", "error": "import failed: %s" % e}))
        return 1
    with open(a.geom) as f:
        g = json.load(f)
    if g.get("type") != "parallel2d" or "views" not in g:
        print(json.dumps({"peer": "astra", "error": "needs a parallel2d geometry with explicit views"}))
        return 1
    vec = np.array([[v["ray"][0], v["ray"][1], v["det"][0], v["det"][1], v["u"][0], v["u"][1]]
                    for v in g["views"]], dtype=np.float64)
    nx, ny = g["image"]["size"]
    vox = g["image"]["voxel_mm"]
    vx, vy = (vox, vox) if not isinstance(vox, list) else vox
    ox, oy = g["image"].get("offset_mm", [0, 0])
    s = np.fromfile(a.sino, dtype="<f8").reshape(a.views, a.det).astype(np.float32)
    t0 = time.perf_counter()
    try:
        proj_geom = astra.create_proj_geom("parallel_vec", g["det_count"], vec)
        vol_geom = astra.create_vol_geom(ny, nx, ox - nx * vx / 2, ox + nx * vx / 2,
                                         oy - ny * vy / 2, oy + ny * vy / 2)
        sid = astra.data2d.create("-sino", proj_geom, s)
        rid = astra.data2d.create("-vol", vol_geom, 0)
        cfg = astra.astra_dict("FBP_CUDA")
        cfg["ProjectionDataId"] = sid
        cfg["ReconstructionDataId"] = rid
        cfg["option"] = {"FilterType": a.filter}
        alg = astra.algorithm.create(cfg)
        setup = time.perf_counter() - t0
        astra.algorithm.run(alg)  # warm-up (CUDA context, cuFFT plans)
        times = []
        for _ in range(a.reps):
            t = time.perf_counter()
            astra.algorithm.run(alg)
            times.append(time.perf_counter() - t)
        rec = astra.data2d.get(rid)
        astra.algorithm.delete(alg)
        astra.data2d.delete([sid, rid])
    except Exception as e:  # noqa: BLE001
        print(json.dumps({"peer": "astra", "error": "%s: %s" % (type(e).__name__, e)}))
        return 1
    np.flipud(rec).astype("<f8").tofile(a.out)
    m = sum(times) / len(times)
    sd = (sum((x - m) ** 2 for x in times) / (len(times) - 1)) ** 0.5 if len(times) > 1 else 0.0
    print(json.dumps({"peer": "astra", "version": getattr(astra, "__version__", "?"),
                      "n": len(times), "mean_s": m, "std_s": sd, "min_s": min(times),
                      "max_s": max(times), "setup_s": setup}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
