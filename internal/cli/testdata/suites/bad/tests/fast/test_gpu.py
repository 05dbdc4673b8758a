from tests.ci.ci_register import register_cuda_ci

register_cuda_ci(10, "stage-b-2-gpu-h200", labels=["fsdp"])
