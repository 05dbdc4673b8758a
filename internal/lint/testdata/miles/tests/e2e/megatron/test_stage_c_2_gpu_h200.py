register_cuda_ci(est_time=600, suite="stage-c-2-gpu-h200", labels=["megatron"])
