#!/usr/bin/env python3
"""cuFINUFFT as the GPU peer of `kray bench nufft` (run on the GPU machine with the cufinufft
wheel, and torch or cupy for device arrays).

Reads the bench's points and data (raw little-endian files: float32 (kx, ky, kz) per point in
cycles per FOV; complex64 samples; complex64 image in kray's x-fastest order), runs the same
transform as kray and writes the outputs at the checked indices (complex64, in the order of
--idx) for the bench to score against its float64 direct sums. kray's adjoint is cuFINUFFT's
type 1 with isign +1 and its forward type 2 with isign -1, with coordinates 2 pi k / N and the
default mode order (index i <-> mode i - N/2); the modes are given in reversed order (z, y, x)
so that cuFINUFFT's C-order arrays have kray's memory layout. Times: `setpts_s` = setpts, then
`reps` timed executes (after one warm-up), each followed by a device synchronisation. Extra
cufinufft plan options (e.g. {"upsampfac": 2.0, "gpu_method": 2}) may be given as a JSON object
in the environment variable KRAY_CUFINUFFT_OPTS. Prints one JSON line.
"""
import argparse
import json
import os
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--traj", required=True)
    ap.add_argument("--y", required=True)
    ap.add_argument("--f", required=True)
    ap.add_argument("--idx", required=True)
    ap.add_argument("--dims", type=int, nargs=3, required=True)
    ap.add_argument("--ndim", type=int, required=True)
    ap.add_argument("--direction", choices=["adjoint", "forward"], required=True)
    ap.add_argument("--eps", type=float, required=True)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    try:
        import numpy as np
        import cufinufft
    except Exception as e:  # noqa: BLE001
        print(json.dumps({"peer": "cufinufft", "error": "import failed: %s" % e}))
        return 1
    try:
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("torch has no CUDA device")

        def to_dev(x):
            return torch.from_numpy(np.ascontiguousarray(x)).cuda()

        sync = torch.cuda.synchronize

        def to_host(x):
            return x.cpu().numpy()

    except Exception:  # noqa: BLE001
        try:
            import cupy as cp
        except Exception as e:  # noqa: BLE001
            print(json.dumps({"peer": "cufinufft", "error": "neither torch nor cupy: %s" % e}))
            return 1
        to_dev = cp.asarray
        sync = cp.cuda.Device().synchronize
        to_host = cp.asnumpy

    nd = a.ndim
    n = a.dims[:nd]  # (Nx, Ny[, Nz])
    t = np.fromfile(a.traj, dtype=np.float32).reshape(-1, 3)
    m = t.shape[0]
    modes = tuple(reversed(n))
    coords = [to_dev((2.0 * np.pi * t[:, d].astype(np.float64) / n[d]).astype(np.float32))
              for d in reversed(range(nd))]
    adjoint = a.direction == "adjoint"
    extra = json.loads(os.environ.get("KRAY_CUFINUFFT_OPTS", "{}"))
    plan = cufinufft.Plan(1 if adjoint else 2, modes, n_trans=1, eps=a.eps,
                          isign=1 if adjoint else -1, dtype="complex64", **extra)
    sync()
    t0 = time.perf_counter()
    plan.setpts(*coords)
    sync()
    setpts = time.perf_counter() - t0
    if adjoint:
        data = to_dev(np.fromfile(a.y, dtype=np.complex64)[:m])
    else:
        nimg = int(np.prod(n))
        data = to_dev(np.fromfile(a.f, dtype=np.complex64)[:nimg].reshape(modes))
    out = plan.execute(data)  # warm-up
    sync()
    times = []
    for _ in range(a.reps):
        t0 = time.perf_counter()
        out = plan.execute(data)
        sync()
        times.append(time.perf_counter() - t0)
    res = to_host(out).reshape(-1)
    idx = np.fromfile(a.idx, dtype=np.int64)
    res[idx].astype(np.complex64).tofile(a.out)
    print(json.dumps({"peer": "cufinufft", "version": getattr(cufinufft, "__version__", "?"),
                      "opts": extra,
                      "setpts_s": setpts, "min_s": min(times),
                      "mean_s": sum(times) / len(times), "n": len(times)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
