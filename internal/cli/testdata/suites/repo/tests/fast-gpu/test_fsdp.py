from tests.ci.ci_register import register_cuda_ci

register_cuda_ci(
    est_time=600,
    suite="stage-b-2-gpu-h200",
    labels=["fsdp", "short"],  # two domains
)
