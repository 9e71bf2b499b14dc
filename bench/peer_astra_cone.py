#!/usr/bin/env python3
"""ASTRA Toolbox's cone-beam projectors as the GPU peer of `kray bench cone --peer` (run on the
GPU machine with the astra-toolbox wheel; see bench/cufft11_shim.c for running the CUDA 12 wheel
beside CUDA 13).

Reads kray's geometry JSON written with explicit views (astra_cone_geom.py: both codes see the
same rays) and the volume (raw little-endian float32, C order [z][y][x]). Times, best and median of --reps after a
warm-up:
- FP3D_CUDA (ASTRA's ray-driven forward projector) and BP3D_CUDA (its voxel-driven
  backprojector: not the transpose of FP3D_CUDA);
- with --iters N, SIRT3D_CUDA and CGLS3D_CUDA from zero on FP3D_CUDA's projections, one run
  of N and one of 2N iterations each (after a warm-up run of N): the time per iteration is
  (t(2N) - t(N)) / N, which leaves out what a run pays once. ASTRA runs these on host data
  objects only, so each run copies them to the device and back: t(N) (the *_run_s keys)
  includes that.
The data live on the device when CuPy or PyTorch can hand ASTRA device arrays (DLPack, ASTRA
>= 2.2: "data": "device"), else in host memory ("data": "host", each run then includes the
transfers). Prints one JSON line. Not run on the development machine (no ASTRA there).
"""
import argparse
import functools
import json
import time

import astra_cone_geom


def device_arrays():
    """(zeros(shape), from_numpy(a), sync, name) for device arrays ASTRA can link, or None."""
    try:
        import cupy as cp

        cp.zeros(1, dtype=cp.float32)
        return (lambda s: cp.zeros(s, dtype=cp.float32), cp.asarray,
                cp.cuda.runtime.deviceSynchronize, "cupy")
    except Exception:  # noqa: BLE001
        pass
    try:
        import torch

        if torch.cuda.is_available():
            return (lambda s: torch.zeros(s, dtype=torch.float32, device="cuda"),
                    lambda a: torch.from_numpy(a).cuda(), torch.cuda.synchronize, "torch")
    except Exception:  # noqa: BLE001
        pass
    return None


def run_times(run, sync, reps):
    """The sorted times (s) of `reps` runs of run() after one warm-up, each followed by
    sync()."""
    run()  # warm-up
    sync()
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        run()
        sync()
        t.append(time.perf_counter() - t0)
    return sorted(t)


def timed(run, sync, reps):
    t = run_times(run, sync, reps)
    return t[0], t[len(t) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--geom", required=True)
    ap.add_argument("--vol", required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--iters", type=int, default=0)
    ap.add_argument("--host", action="store_true", help="keep the data in host memory")
    a = ap.parse_args()
    try:
        astra, np, pg, vg, (nx, ny, nz), nviews, (nu, nv) = astra_cone_geom.load(a.geom)
    except Exception as e:  # noqa: BLE001
        print(json.dumps({"peer": "astra", "error": str(e)}))
        return 1
    vol = np.fromfile(a.vol, dtype="<f4").reshape(nz, ny, nx)
    out = {"peer": "astra", "astra_version": astra.__version__, "volume": [nx, ny, nz],
           "views": nviews, "detector": [nu, nv]}
    dev = None if a.host else device_arrays()
    try:
        if dev:
            zeros, upload, sync, lib = dev
            dv, dp, dr = upload(vol), zeros((nv, nviews, nu)), zeros((nz, ny, nx))
            vid = astra.data3d.link("-vol", vg, dv)
            pid = astra.data3d.link("-proj3d", pg, dp)
            rid = astra.data3d.link("-vol", vg, dr)
            out["data"] = "device (%s)" % lib
        else:
            sync = lambda: None  # noqa: E731
            vid = astra.data3d.create("-vol", vg, vol)
            pid = astra.data3d.create("-proj3d", pg, 0)
            rid = astra.data3d.create("-vol", vg, 0)
            out["data"] = "host"
        alg = functools.partial(astra_cone_geom.algorithm, astra)
        fp = alg("FP3D_CUDA", VolumeDataId=vid, ProjectionDataId=pid)
        out["fp_s"], out["fp_median_s"] = timed(lambda: astra.algorithm.run(fp), sync, a.reps)
        bp = alg("BP3D_CUDA", ReconstructionDataId=rid, ProjectionDataId=pid)
        out["bp_s"], out["bp_median_s"] = timed(lambda: astra.algorithm.run(bp), sync, a.reps)
        # ASTRA's iterative algorithms take host data objects only: the projections of the
        # volume by FP3D_CUDA, and a volume set to zero before each run
        if a.iters > 0:
            if dev:
                hp = dp.get() if lib == "cupy" else dp.cpu().numpy()
            else:
                hp = astra.data3d.get(pid)
            pid_h = astra.data3d.create("-proj3d", pg, hp)
            rid_h = astra.data3d.create("-vol", vg, 0)
        for name in ("SIRT3D_CUDA", "CGLS3D_CUDA") if a.iters > 0 else ():
            it = alg(name, ReconstructionDataId=rid_h, ProjectionDataId=pid_h)

            def run(n, it=it):
                astra.data3d.store(rid_h, 0)
                astra.algorithm.run(it, n)

            t1, _ = timed(lambda: run(a.iters), sync, 1)
            t2, _ = timed(lambda: run(2 * a.iters), sync, 1)
            key = name.split("3D")[0].lower()
            out[key + "_iter_s"] = (t2 - t1) / a.iters
            out[key + "_run_s"] = t1
            astra.algorithm.delete(it)
        astra.algorithm.delete([fp, bp])
        astra.data3d.delete([vid, pid, rid] + ([pid_h, rid_h] if a.iters > 0 else []))
    except Exception as e:  # noqa: BLE001
        out["error"] = str(e)
        print(json.dumps(out))
        return 1
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
