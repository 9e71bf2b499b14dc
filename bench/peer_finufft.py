#!/usr/bin/env python3
"""FINUFFT (CPU, the PyPI `finufft` wheel) as the CPU peer of `kray bench nufft --backends cpu`,
run as its experts would run it.

Swept (bench/peer_nufft_common.py says how the fastest setting at kray's accuracy is chosen):
precision complex64 (when single precision can reach the target) and complex128, upsampfac 2.0
and 1.25, spread_sort 1 (sort the points) and 0 (no sort), and FINUFFT's eps from the target
down; nthreads = --threads (the threads kray uses). setpts is timed apart. Extra finufft plan
options may be given as a JSON object in KRAY_FINUFFT_OPTS; they apply to every setting. Prints
JSON lines (one per setting, then the winner).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_nufft_common as pc  # noqa: E402


def main():
    a = pc.parse_args(__doc__)
    try:
        import numpy as np
        import finufft
    except Exception as e:  # noqa: BLE001
        print(json.dumps({"peer": "finufft", "error": "import failed: %s" % e}))
        return 1
    inp = pc.Inputs(a, np)
    extra = json.loads(os.environ.get("KRAY_FINUFFT_OPTS", "{}"))
    target = a.target_err if a.target_err is not None else a.eps
    settings = [dict(dtype=dt, upsampfac=up, spread_sort=so, nthreads=a.threads, **extra)
                for dt in pc.precisions(target) for up in (2.0, 1.25) for so in (1, 0)]
    make = pc.plan_maker(inp, np, finufft, lambda x: x, lambda x: x)
    return pc.sweep("finufft", getattr(finufft, "__version__", "?"), a, inp, settings, make,
                    lambda: None)


if __name__ == "__main__":
    sys.exit(main())
