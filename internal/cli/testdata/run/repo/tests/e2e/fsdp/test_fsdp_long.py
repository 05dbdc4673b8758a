from tests.ci.ci_register import register_cuda_ci

register_cuda_ci(est_time=1800, suite="stage-c-8-gpu-h100", labels=["fsdp", "long"])
