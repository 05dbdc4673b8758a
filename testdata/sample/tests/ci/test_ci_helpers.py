"""Tests of the CI helper scripts themselves, run in stage-b-cpu."""
from tests.ci.ci_register import register_cpu_ci

register_cpu_ci(est_time=20, suite="stage-b-cpu")


def test_label_prefix():
    assert "run-ci-fsdp".removeprefix("run-ci-") == "fsdp"
