"""Every example in the API's docstrings runs and shows what it says (doctest), from the
repository's root, where the examples find the bundled traces."""

from __future__ import annotations

import doctest
import importlib

import pytest
from conftest import REPO

MODULES = ["smrlab", "smrlab.api", "smrlab.trace", "smrlab.result"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, monkeypatch):
    monkeypatch.chdir(REPO)
    module = importlib.import_module(name)
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert attempted > 0, f"{name} has no examples"
    assert failed == 0, f"{failed} of {attempted} examples in {name} failed"
