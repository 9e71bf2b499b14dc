import os
import sys

import numpy as np
import pytest

import kray

HAVE_CUDA = kray.has_cuda()
try:
    import torch  # noqa: F401
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False
try:
    import cupy  # noqa: F401
    HAVE_CUPY = HAVE_CUDA
except ImportError:
    HAVE_CUPY = False

needs_cuda = pytest.mark.skipif(not HAVE_CUDA, reason="no usable CUDA device")
needs_torch = pytest.mark.skipif(not HAVE_TORCH, reason="PyTorch is not installed")
needs_cupy = pytest.mark.skipif(not HAVE_CUPY, reason="CuPy or a CUDA device is missing")
needs_torch_cuda = pytest.mark.skipif(not (HAVE_TORCH and HAVE_CUDA),
                                      reason="PyTorch with a CUDA device is missing")


@pytest.fixture
def cli():
    """Path of the kray command-line tool of the same build (KRAY set by ctest)."""
    p = os.environ.get("KRAY")
    if not p or not os.path.exists(p):
        pytest.skip("the kray CLI is not known (KRAY unset)")
    return p


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def device_kinds():
    """The array kinds a test can run on here: numpy always; torch CPU; CUDA kinds on a GPU."""
    k = ["numpy"]
    if HAVE_TORCH:
        k.append("torch")
    if HAVE_CUPY:
        k.append("cupy")
    if HAVE_TORCH and HAVE_CUDA:
        k.append("torch-cuda")
    return k


def to_kind(x, kind):
    """NumPy array x as an array of `kind` (numpy, torch, cupy, torch-cuda)."""
    if kind == "numpy":
        return x
    if kind == "torch":
        import torch
        return torch.from_numpy(np.ascontiguousarray(x))
    if kind == "cupy":
        import cupy
        return cupy.asarray(x)
    import torch
    return torch.from_numpy(np.ascontiguousarray(x)).cuda()


def to_numpy(x):
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    return x.get()
