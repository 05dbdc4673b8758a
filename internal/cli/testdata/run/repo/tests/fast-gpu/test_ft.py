from tests.ci.ci_register import register_cuda_ci

register_cuda_ci(est_time=0.25, suite="stage-c-8-gpu-h100", labels=["ft-long"])
register_cuda_ci(est_time=60, suite="stage-c-2-gpu-h200", labels=["ft-short"])
