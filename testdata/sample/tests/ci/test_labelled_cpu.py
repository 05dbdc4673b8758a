"""A CPU test that only runs when a PR asks for the megatron domain."""
from tests.ci.ci_register import register_cpu_ci

register_cpu_ci(15, "stage-b-cpu", labels=["megatron"])


def test_megatron_arg_names():
    assert "--tensor-model-parallel-size".startswith("--")
