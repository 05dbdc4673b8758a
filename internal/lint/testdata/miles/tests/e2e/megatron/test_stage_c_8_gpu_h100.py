register_cuda_ci(est_time=600, suite="stage-c-8-gpu-h100", labels=["megatron"])
