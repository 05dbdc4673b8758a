"""Megatron end to end; mentions register_cuda_ci( only in this docstring."""
from tests.ci.ci_register import register_cuda_ci, register_rocm_ci

register_cuda_ci(1800, "stage-c-8-gpu-h100", labels=["megatron"], nightly=True)
register_rocm_ci(2400.5, "stage-c-4-gpu-mi350", labels=["amd", "megatron"], disabled="flaky on mi350")
register_cuda_ci(900, "stage-c-8-gpu-h100", labels=["megatron", "ckpt"])
