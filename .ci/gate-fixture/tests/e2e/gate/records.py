"""Writes a fixture test's metric records as Miles' training processes do:
one JSONL file per process in $MILES_CI_GATE_RECORD_DIR."""

import json
import os


def write(metrics):
    d = os.environ.get("MILES_CI_GATE_RECORD_DIR")
    if not d:
        return
    for rank, part in enumerate(metrics):
        with open(os.path.join(d, f"rank{rank}.jsonl"), "w") as f:
            for key, series in part.items():
                f.write(json.dumps({"metric": key, "series": series}) + "\n")


# The seeding run writes the baseline values; later runs may drift.
SEEDING = os.environ.get("FIXTURE_PHASE") == "seed"
