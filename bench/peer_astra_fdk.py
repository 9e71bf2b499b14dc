#!/usr/bin/env python3
"""ASTRA Toolbox FDK_CUDA as the GPU peer of `kray bench fdk --peer` (run on the GPU machine with
the astra-toolbox wheel; see bench/cufft11_shim.c for running the CUDA 12 wheel beside CUDA 13).

Reads kray's geometry JSON written with explicit views (astra_cone_geom.py: both codes see the
same rays) and the projections (raw little-endian float32, kray layout [u, v, view], i.e. C
order [view][v][u]; ASTRA's projection data are [v][view][u]). Times: `setup_s` = geometry
(JSON included), data objects and algorithm creation; each timed run is astra.algorithm.run, which
uploads the projections, filters, backprojects and downloads the volume (ASTRA's data objects
live in host memory): compare with kray's FDK with the data on the host. Prints one JSON line.
Not run on the development machine (no ASTRA there).
"""
import argparse
import json
import time

import astra_cone_geom


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--geom", required=True)
    ap.add_argument("--proj", required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default=None, help="write the volume (raw float32, C order [z][y][x])")
    a = ap.parse_args()
    t0 = time.perf_counter()
    try:
        astra, np, proj_geom, vol_geom, size, nviews, (nu, nv) = astra_cone_geom.load(a.geom)
    except Exception as e:  # noqa: BLE001
        print(json.dumps({"peer": "astra", "error": str(e)}))
        return 1
    p = np.fromfile(a.proj, dtype="<f4").reshape(nviews, nv, nu)
    p = np.ascontiguousarray(p.transpose(1, 0, 2))  # [v][view][u]
    try:
        pid = astra.data3d.create("-proj3d", proj_geom, p)
        rid = astra.data3d.create("-vol", vol_geom, 0)
        cfg = astra.astra_dict("FDK_CUDA")
        cfg["ProjectionDataId"] = pid
        cfg["ReconstructionDataId"] = rid
        alg = astra.algorithm.create(cfg)
        setup = time.perf_counter() - t0
        astra.algorithm.run(alg)  # warm-up
        times = []
        for _ in range(a.reps):
            t1 = time.perf_counter()
            astra.algorithm.run(alg)
            times.append(time.perf_counter() - t1)
        rec = astra.data3d.get(rid)
        if a.out:
            rec.astype("<f4").tofile(a.out)
        astra.algorithm.delete(alg)
        astra.data3d.delete([pid, rid])
    except Exception as e:  # noqa: BLE001
        print(json.dumps({"peer": "astra", "error": str(e)}))
        return 1
    times.sort()
    print(json.dumps({"peer": "astra", "algorithm": "FDK_CUDA", "astra_version": astra.__version__,
                      "volume": list(size), "views": nviews, "detector": [nu, nv], "data": "host",
                      "setup_s": setup, "time_s": times[0], "time_median_s": times[len(times) // 2],
                      "volume_mean": float(rec.mean())}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
