from tests.ci.ci_register import register_cuda_ci

register_cuda_ci(est_time=300, suite="stage-c-8-gpu-h100", labels=["fsdp"], disabled="flaky on H100, see #123")
