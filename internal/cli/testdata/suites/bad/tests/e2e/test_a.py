from tests.ci.ci_register import register_cpu_ci

register_cpu_ci(10)
