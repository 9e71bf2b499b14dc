#!/usr/bin/env python3
"""cuFINUFFT as the GPU peer of `kray bench nufft`, run as its experts would run it (on the GPU
machine with the cufinufft wheel, and torch or cupy for device arrays).

Swept (bench/peer_nufft_common.py says how the fastest setting at kray's accuracy is chosen):
precision complex64 (when single precision can reach the target) and complex128, gpu_method
1 (non-uniform points driven), 2 (shared-memory subproblems) and, for a 3-D type 1 (kray's
adjoint), 3 (output driven), upsampfac 2.0 and 1.25, and cuFINUFFT's eps from the target down.
Points and data are on the device (CuPy arrays, else PyTorch tensors); setpts is timed apart;
both are timed through the Python API and through the library's C functions (see
peer_nufft_common.py). Extra cufinufft plan options (e.g.
{"gpu_binsizex": 32}) may be given as a JSON object in KRAY_CUFINUFFT_OPTS; they apply to every
setting. Prints JSON lines (one per setting, then the winner).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_nufft_common as pc  # noqa: E402


def device_tools(np):
    """Device arrays: CuPy where it is installed (cuFINUFFT's Python API spends less per call
    on CuPy arrays than on PyTorch tensors), else PyTorch."""
    try:
        import cupy as cp
        cp.cuda.runtime.getDeviceCount()
        return cp.asarray, cp.cuda.Device().synchronize, cp.asnumpy
    except Exception:  # noqa: BLE001
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("torch has no CUDA device")
        return (lambda x: torch.from_numpy(np.ascontiguousarray(x)).cuda(),
                torch.cuda.synchronize, lambda x: x.cpu().numpy())


def main():
    a = pc.parse_args(__doc__)
    try:
        import numpy as np
        import cufinufft
        to_dev, sync, to_host = device_tools(np)
    except Exception as e:  # noqa: BLE001
        print(json.dumps({"peer": "cufinufft", "error": "import failed: %s" % e}))
        return 1
    inp = pc.Inputs(a, np)
    extra = json.loads(os.environ.get("KRAY_CUFINUFFT_OPTS", "{}"))
    target = a.target_err if a.target_err is not None else a.eps
    methods = (1, 2, 3) if (inp.adjoint and inp.nd == 3) else (1, 2)
    settings = [dict(dtype=dt, gpu_method=mt, upsampfac=up, **extra)
                for dt in pc.precisions(target) for mt in methods for up in (2.0, 1.25)]
    make = pc.plan_maker(inp, np, cufinufft, to_dev, to_host)
    return pc.sweep("cufinufft", getattr(cufinufft, "__version__", "?"), a, inp, settings, make,
                    sync)


if __name__ == "__main__":
    sys.exit(main())
