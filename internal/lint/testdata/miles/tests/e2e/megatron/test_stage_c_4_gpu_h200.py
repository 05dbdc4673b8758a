register_cuda_ci(est_time=600, suite="stage-c-4-gpu-h200", labels=["megatron"])
