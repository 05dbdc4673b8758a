import records
from tests.ci.ci_register import register_cuda_ci
from tests.ci.metric_history import register_ci_gate

register_cuda_ci(est_time=1, suite="stage-c-8-gpu-h100", labels=["eval"])
register_ci_gate(metric_key="perf/throughput", steps="last", constraint={"rel_up": 0.2, "rel_down": 0.2})

records.write([{"rollout/raw_reward": [[0, 0.8]]}])
