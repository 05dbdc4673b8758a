register_cuda_ci(est_time=120, suite="stage-b-2-gpu-h200", labels=["fsdp"])
