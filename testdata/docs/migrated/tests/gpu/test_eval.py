from tests.ci.ci_register import register_cuda_ci

register_cuda_ci(est_time=300, suite="stage-c-8-gpu-h200", labels=["core"])
