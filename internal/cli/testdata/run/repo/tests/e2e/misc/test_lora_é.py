from tests.ci.ci_register import register_cuda_ci

register_cuda_ci(120.5, "stage-c-8-gpu-h100", labels=["lora", "ckpt"])
