register_rocm_ci(est_time=600, suite="nightly-stage-c-8-gpu-mi350", labels=["amd"])
