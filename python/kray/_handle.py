"""The lifetime of a Python object that owns a libkray pointer (a plan, an operator, a context,
a geometry, a sequence ...): one base class for all of them."""
from ._lib import InvalidArgumentError


class Handle:
    """Owns one C pointer, freed by the class's C destroy function `_destroy` (a libkray
    function taking the pointer) on :meth:`close`, at the end of a ``with`` block, or by the
    garbage collector. `_keep` holds the Python objects the C object borrows (released on
    close). Using a closed object raises :class:`kray.InvalidArgumentError` naming its class."""
    _destroy = None
    _ptr = None
    _keep = ()

    @property
    def ptr(self):
        """The C pointer (raises once the object is closed)."""
        p = self._ptr
        if not p:
            raise InvalidArgumentError("kray: the %s is closed" % type(self).__name__)
        return p

    def close(self):
        """Free the C object now (closing twice is harmless)."""
        p = self._ptr
        if p:
            self._ptr = None
            type(self)._destroy(p)
        self._keep = ()

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
