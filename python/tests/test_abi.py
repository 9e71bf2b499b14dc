"""Every ctypes mirror of a C struct has the C compiler's size and field offsets."""
import ctypes
import importlib
import os
import pkgutil
import shutil
import subprocess

import pytest

import kray
from kray import _lib

HERE = os.path.dirname(os.path.abspath(__file__))
INCLUDE = os.path.join(os.path.dirname(os.path.dirname(HERE)), "include")


def _import_all():
    for m in pkgutil.iter_modules(kray.__path__):
        if m.name != "torch":
            importlib.import_module("kray." + m.name)


def test_struct_layouts_match_c(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None or not os.path.isdir(INCLUDE):
        pytest.skip("no C compiler or no kray headers (an installed package)")
    _import_all()
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "kray/kray.h"',
             'int main(void) {']
    for cname, cls in sorted(_lib.STRUCTS.items()):
        lines.append('printf("%s sizeof %%zu\\n", sizeof(%s));' % (cname, cname))
        for f in cls._fields_:
            c = f[0][:-1] if f[0].endswith("_") else f[0]
            lines.append('printf("%s %s %%zu\\n", offsetof(%s, %s));' % (cname, c, cname, c))
    lines.append("return 0; }")
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines))
    exe = tmp_path / "layout"
    subprocess.run([cc, "-std=c11", "-I", INCLUDE, str(src), "-o", str(exe)], check=True)
    got = {}
    for line in subprocess.run([str(exe)], check=True, capture_output=True,
                               text=True).stdout.splitlines():
        s, f, v = line.split()
        got[(s, f)] = int(v)
    assert len(_lib.STRUCTS) >= 5
    for cname, cls in _lib.STRUCTS.items():
        assert got[(cname, "sizeof")] == ctypes.sizeof(cls), cname
        for f in cls._fields_:
            c = f[0][:-1] if f[0].endswith("_") else f[0]
            assert got[(cname, c)] == getattr(cls, f[0]).offset, (cname, c)
