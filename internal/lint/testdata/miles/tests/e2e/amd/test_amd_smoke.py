register_rocm_ci(est_time=600, suite="stage-c-4-gpu-mi350", labels=["amd"])
