register_cuda_ci(est_time=600, suite="stage-c-8-gpu-h200", labels=["megatron"])
