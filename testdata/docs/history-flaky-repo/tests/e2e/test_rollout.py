"""A test file of the run history testdata/docs/history-flaky: its registration only."""
from tests.ci.ci_register import register_cuda_ci

register_cuda_ci(est_time=600, suite="stage-c-8-gpu-h100", labels=["megatron"])
