from tests.ci.ci_register import register_cpu_ci

register_cpu_ci(12.5, "stage-b-cpu", disabled="")
register_rocm_ci(60, "nightly-stage-c-2-gpu-mi350", labels=["amd"], nightly=True)
