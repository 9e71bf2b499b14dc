#!/usr/bin/python3
"""scikit-image's iradon as a command, the whole-process peer of `kray fbp --skimage` in
`kray bench startup` (case fbp): `iradon_cli.py SINO.npy OUT.npy` reads a sinogram as
skimage.transform.radon gives it (detectors x angles, angles over 180 degrees, endpoint
excluded), reconstructs it with iradon's defaults (ramp filter, linear interpolation,
circle=True) and writes the image, as a user's script would. Timed from outside: the
interpreter's start, the imports of NumPy and scikit-image, reading and writing are included.
Run with Debian's /usr/bin/python3 (python3-skimage).
"""
import sys

import numpy as np
from skimage.transform import iradon


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    s = np.load(sys.argv[1])
    np.save(sys.argv[2], iradon(s, filter_name="ramp", interpolation="linear", circle=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
