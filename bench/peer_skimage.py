#!/usr/bin/python3
"""scikit-image iradon as the CPU peer of `kray bench fbp2d`.

Reads the bench's sinogram (raw little-endian float64, kray layout [det, view]: detectors
fastest) and reconstructs it with skimage.transform.iradon (ramp filter, linear interpolation,
circle=True) on the same output grid, `--reps` times; prints one JSON line (times in seconds)
and writes the last image as raw float64 in kray's [x, y] order.

Conventions: iradon puts the rotation axis at detector index D // 2 and image pixel (row j,
col i) at (i - N // 2, j - N // 2) and computes t = x cos(phi) - y sin(phi); kray's bench
geometry uses the same axis and grid and t = x cos(theta) + y sin(theta), hence
phi = -theta. iradon assumes unit pixels: the bench uses 1 mm pixels and detector pitch.
Run with Debian's /usr/bin/python3 (python3-skimage).
"""
import argparse
import json
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sino", required=True)
    ap.add_argument("--geom", help="kray geometry JSON (informative)")
    ap.add_argument("--size", type=int, required=True)
    ap.add_argument("--views", type=int, required=True)
    ap.add_argument("--det", type=int, required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    t0 = time.perf_counter()
    try:
        import numpy as np
        import skimage
        from skimage.transform import iradon
    except Exception as e:  # noqa: BLE001
        print(json.dumps({"peer": "skimage", "error": "import failed: %s" % e}))
        return 1
    s = np.fromfile(a.sino, dtype="<f8").reshape(a.views, a.det).T.copy()
    theta = -np.arange(a.views) * 180.0 / a.views
    setup = time.perf_counter() - t0
    times = []
    img = None
    for _ in range(a.reps):
        t = time.perf_counter()
        img = iradon(s, theta=theta, output_size=a.size, filter_name="ramp",
                     interpolation="linear", circle=True)
        times.append(time.perf_counter() - t)
    img.astype("<f8").tofile(a.out)
    m = sum(times) / len(times)
    sd = (sum((x - m) ** 2 for x in times) / (len(times) - 1)) ** 0.5 if len(times) > 1 else 0.0
    print(json.dumps({"peer": "skimage", "version": skimage.__version__, "n": len(times),
                      "mean_s": m, "std_s": sd, "min_s": min(times), "max_s": max(times),
                      "setup_s": setup}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
