import os

register_cuda_ci(
    est_time=3600,
    suite="stage-c-8-gpu-b200",
    labels=["megatron"],
    disabled="Blackwell CI not supported",
)
