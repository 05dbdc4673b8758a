from tests.ci.ci_register import register_cpu_ci

register_cpu_ci(5, "stage-c-8-gpu-h100")
