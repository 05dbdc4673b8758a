import os
import subprocess

import records
from tests.ci.ci_register import register_cuda_ci
from tests.ci.metric_history import register_ci_gate

register_cuda_ci(est_time=1, suite="stage-c-8-gpu-h100", labels=["eval"])
register_ci_gate(metric_key="rollout/raw_reward", steps=[0, 1], constraint={"rel_up": 0.2, "rel_down": 0.2})

if os.environ.get("FIXTURE_STOP_DB"):
    subprocess.run(os.environ["FIXTURE_STOP_DB"], shell=True, check=True, stdout=subprocess.DEVNULL)
records.write([{"rollout/raw_reward": [[0, 0.4], [1, 0.6]]}])
