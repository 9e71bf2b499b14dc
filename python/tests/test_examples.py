"""The examples run and do what they say (short versions)."""
import importlib.util
import os

import numpy as np
import pytest

from conftest import needs_torch

HERE = os.path.dirname(os.path.abspath(__file__))


def _load(name):
    path = os.path.join(os.path.dirname(HERE), "examples", name + ".py")
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


@needs_torch
def test_unrolled_ct_learns(capsys):
    m = _load("unrolled_ct")
    first, last, err_net, err_cgls = m.main(["--steps", "40", "--size", "24", "--batch", "2"])
    # The loss falls to under half its start, and the trained network beats plain CGLS on
    # held-out phantoms.
    assert last < 0.5 * first, (first, last)
    assert err_net < err_cgls, (err_net, err_cgls)
    assert "held-out" in capsys.readouterr().out
