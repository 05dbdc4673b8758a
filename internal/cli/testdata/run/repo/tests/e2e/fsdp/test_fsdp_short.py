from tests.ci.ci_register import register_cuda_ci

register_cuda_ci(est_time=120.5, suite="stage-c-8-gpu-h100", labels=["fsdp"])
register_cuda_ci(est_time=1e-05, suite="stage-c-8-gpu-h100", labels=["short"])
