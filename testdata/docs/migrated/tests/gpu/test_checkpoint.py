from tests.ci.ci_register import register_cuda_ci

# Left on the suite's old name by the rename.
register_cuda_ci(est_time=420, suite="stage-c-8-gpu-h100", labels=["core"])
