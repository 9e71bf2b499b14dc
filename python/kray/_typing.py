"""Type aliases of kray's stubs (the .pyi files beside the modules).

Arrays are NumPy arrays, CuPy arrays (anything with ``__cuda_array_interface__``) or PyTorch
tensors; kray does not depend on CuPy or PyTorch, so their union is spelled Any."""
import os
from typing import TYPE_CHECKING, Any, Sequence, Union

Array = Any
"""A NumPy array, a CuPy array or a PyTorch tensor (host or CUDA)."""
Device = Union[None, int, str]
"""None (the CPU, or where the operands live), a CUDA ordinal, "cpu", "cuda" or "cuda:N"."""
DTypeLike = Any
"""Anything numpy.dtype() accepts."""
ShapeLike = Union[int, Sequence[int]]
"""A Python-order shape, or one size for every axis."""
Axes = Union[None, int, Sequence[int]]
"""Python axes (negative counts from the end): one, several, or None for the default."""
PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
GeometryLike = Union["Geometry", str, bytes, "os.PathLike[str]"]
"""A kray.ct.Geometry, a geometry JSON path, or JSON text."""

if TYPE_CHECKING:
    from .ct.geometry import Geometry  # noqa: F401
