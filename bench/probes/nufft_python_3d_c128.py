#!/usr/bin/env python3
"""Probe (GPU, CuPy): why kray's 3-D NUFFT at 1e-6 took longer from Python than in `kray bench
nufft` (complex128, 3.82 against 3.18 ms for the adjoint on an H200, 2026-12-06; docs/python.md,
Speed).

The Python run differed from the benchmark in three ways: its points had float64 values (the
benchmark's are float32 values), the complex64 plan was given them rounded to float32, and
it ran on CuPy's null stream. This times the bare C call and scores it (relative l2 against a
complex128 plan at 1e-12 on the float64 values) for each combination of the points' values,
the trajectory's type, the stream, the precision and the direction, at kray's settings of
the two targets, and prints one JSON line per combination.

Run from the repository root with KRAY_LIBRARY naming the build's libkray and PYTHONPATH
including python/:  python3 bench/probes/nufft_python_3d_c128.py
"""
import json
import os
import sys

import cupy as cp
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import kray.mri as mri  # noqa: E402
from python_peers import _bare, timed  # noqa: E402

SHAPE = (128, 128, 128)
SETTINGS = ((np.complex64, 2e-3), (np.complex64, 1e-6), (np.complex128, 1e-6))


def main():
    rng = np.random.default_rng(1)
    m = 2_100_000
    raw = rng.uniform(-64, 64, (m, 3))
    img = rng.standard_normal(SHAPE) + 1j * rng.standard_normal(SHAPE)
    ksp = rng.standard_normal(m) + 1j * rng.standard_normal(m)
    for pname, k in (("float64 values", raw),
                     ("float32 values", raw.astype(np.float32).astype(np.float64))):
        ref = mri.NufftPlan(SHAPE, cp.asarray(k), dtype=np.complex128, eps=1e-12, device=0)
        want = {"adjoint": ref.adjoint(cp.asarray(ksp)), "forward": ref.forward(cp.asarray(img))}
        ref.close()
        streams = ("null", "non-blocking") if pname == "float32 values" else ("null",)
        for tname in ("float64", "float32"):
            traj = cp.asarray(k.astype(tname))
            for sname in streams:
                s = cp.cuda.Stream(non_blocking=True) if sname == "non-blocking" \
                    else cp.cuda.Stream.null
                for dt, eps in SETTINGS:
                    with s:
                        p = mri.NufftPlan(SHAPE, traj, dtype=dt, eps=eps, device=0)
                        for direction in ("adjoint", "forward"):
                            x = cp.asarray((ksp if direction == "adjoint" else img).astype(dt))
                            f = getattr(p, direction)
                            o = f(x)
                            w = want[direction]
                            err = float(cp.linalg.norm(o - w) / cp.linalg.norm(w))
                            r = {"points": pname, "trajectory": tname, "stream": sname,
                                 "dtype": np.dtype(dt).name, "eps": eps, "direction": direction,
                                 "width": p.info["width"], "rel_err": err,
                                 "bare_c_call": timed(_bare(p, direction, x, o), s.synchronize,
                                                      20),
                                 "python_call": timed(lambda: f(x, out=o), s.synchronize, 20)}
                            print(json.dumps(r), flush=True)
                        p.close()


if __name__ == "__main__":
    main()
