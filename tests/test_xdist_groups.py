"""The test groups of tests/conftest.py reach pytest-xdist: a test run by ``--dist loadgroup``
carries its group in its id, which the scheduler reads. When they do not (a hook that adds the
groups after xdist read them, a pytest that ignores xdist's ids: see pyproject.toml), nothing
fails, but each worker runs the demo and the quick scorecard of its own."""

from __future__ import annotations

import pytest


def test_a_test_run_by_groups_carries_its_group(request):
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run by pytest-xdist with --dist loadgroup (make test runs it so)")
    assert request.node.nodeid.endswith("@test_xdist_groups"), request.node.nodeid
