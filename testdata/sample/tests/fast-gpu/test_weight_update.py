"""Weight update from trainer to rollout engine."""
import sys
import time
from pathlib import Path

# Run as `python3 <root>/<file>`: make the repository importable.
sys.path.insert(0, str(next(p for p in Path(__file__).resolve().parents if (p / "tests" / "ci").is_dir())))

from tests.ci.ci_register import register_cuda_ci

register_cuda_ci(90, "stage-b-2-gpu-h200", labels=["weight-update", "sglang"])


def main():
    print("weight_update: pretending to use the GPUs for 1s", flush=True)
    time.sleep(1)
    print("weight_update: ok", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
