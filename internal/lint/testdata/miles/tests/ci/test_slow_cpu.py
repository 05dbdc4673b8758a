register_cpu_ci(est_time=60, suite="stage-b-cpu")
