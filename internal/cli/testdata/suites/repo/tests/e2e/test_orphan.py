from tests.ci.ci_register import register_cuda_ci

register_cuda_ci(100, "stage-z-unknown", labels=["short"])
