#!/usr/bin/env python3
"""Probe (GPU, CuPy): why kray's complex128 3-D NUFFT adjoint takes longer from Python than in
`kray bench nufft` (3.82 against 3.18 ms on an H200, 2026-12-06; docs/python.md, Speed).

The two runs differ in the trajectory's type (float64 from Python, float32 in the benchmark) and
the stream (CuPy's null stream against the benchmark's own). This times the bare C adjoint of the
same 2.1 M random points at eps 1e-6 for each trajectory type on each kind of stream, with the
Python call beside it, then prints one JSON line per combination.

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


def main():
    rng = np.random.default_rng(1)
    m = 2_100_000
    k64 = rng.uniform(-64, 64, (m, 3))
    ksp = cp.asarray(rng.standard_normal(m) + 1j * rng.standard_normal(m))
    trajs = (("float64", cp.asarray(k64)), ("float32", cp.asarray(k64.astype(np.float32))))
    for tname, traj in trajs:
        for sname in ("null", "non-blocking"):
            s = cp.cuda.Stream(non_blocking=True) if sname == "non-blocking" \
                else cp.cuda.Stream.null
            with s:
                p = mri.NufftPlan((128, 128, 128), traj, dtype=np.complex128, eps=1e-6, device=0)
                o = p.adjoint(ksp)
                r = {"trajectory": tname, "stream": sname,
                     "bare_c_call": timed(_bare(p, "adjoint", ksp, o), s.synchronize, 10),
                     "python_call": timed(lambda: p.adjoint(ksp, out=o), s.synchronize, 10),
                     "width": p.info["width"]}
                print(json.dumps(r), flush=True)
                p.close()


if __name__ == "__main__":
    main()
