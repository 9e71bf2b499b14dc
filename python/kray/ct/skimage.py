"""scikit-image's parallel-beam conventions, for users of skimage.transform.radon/iradon.

``radon(image, theta)`` returns a sinogram of shape (detectors, angles) whose rotation axis and
image centre sit at index N // 2, with angles that turn the other way from kray's. The same
conventions as ``kray fbp --skimage`` (docs/ct.md): :func:`geometry` builds the kray geometry
that sees those rays, :func:`iradon` reconstructs such a sinogram as ``iradon`` does (equal to
it to float precision), on the CPU or, with ``device=0``, on the GPU.
"""
import numpy as np

from .geometry import Geometry
from .fbp import fbp

_WINDOWS = {"ramp": "ramlak", "shepp-logan": "shepp-logan", "cosine": "cosine",
            "hamming": "hamming", "hann": "hann"}


def geometry(theta_deg, det_count, output_size=None):
    """The kray geometry of ``radon(image, theta_deg)`` with `det_count` detector pixels and an
    (output_size, output_size) image (default det_count): 1 mm pixels, kray's angle = -theta,
    the axis and the image centre at index N // 2."""
    det_count = int(det_count)
    n = int(output_size) if output_size else det_count
    half = -0.5 if n % 2 == 0 else 0.0
    return Geometry.parallel(det_count, (n, n), voxel_mm=1.0,
                             angles_deg=-np.asarray(theta_deg, dtype=np.float64).ravel(),
                             det_offset_mm=-0.5 if det_count % 2 == 0 else 0.0,
                             offset_mm=(half, half))


def circle_mask(n):
    """iradon's circle: True for pixels within radius n // 2 of index n // 2."""
    r = n // 2
    yy, xx = np.mgrid[:n, :n] - r
    return xx ** 2 + yy ** 2 <= r ** 2


def iradon(radon_image, theta=None, output_size=None, filter_name="ramp", circle=True,
           dtype=None, device=None):
    """Filtered backprojection of a scikit-image sinogram (detectors, angles), as
    ``skimage.transform.iradon(radon_image, theta, output_size, filter_name, circle=circle)``
    with linear interpolation. theta: degrees (default: len(angles) angles over [0, 180));
    filter_name: ramp, shepp-logan, cosine, hamming or hann; dtype float32 or float64 (default:
    float64 for float64 input, else float32); device: None (CPU) or a CUDA ordinal. Returns a
    NumPy array."""
    s = np.asarray(radon_image)
    if s.ndim != 2:
        raise ValueError("kray: a scikit-image sinogram is 2-D (detectors, angles), not shape %s"
                         % (s.shape,))
    if filter_name not in _WINDOWS:
        raise ValueError("kray: filter_name is one of %s, not %r" %
                         (", ".join(_WINDOWS), filter_name))
    ndet, nang = s.shape
    if theta is None:
        theta = np.arange(nang) * 180.0 / nang
    theta = np.asarray(theta, dtype=np.float64).ravel()
    if theta.size != nang:
        raise ValueError("kray: the sinogram has %d angles (columns) but theta has %d" %
                         (nang, theta.size))
    if dtype is None:
        dtype = np.float64 if s.dtype == np.float64 else np.float32
    g = geometry(theta, ndet, output_size)
    sino = np.ascontiguousarray(s.T, dtype=dtype)
    if device is not None:
        import cupy
        with cupy.cuda.Device(device):
            img = cupy.asnumpy(fbp(cupy.asarray(sino), g, window=_WINDOWS[filter_name]))
    else:
        img = fbp(sino, g, window=_WINDOWS[filter_name])
    if circle:
        img[~circle_mask(img.shape[0])] = 0
    return img
