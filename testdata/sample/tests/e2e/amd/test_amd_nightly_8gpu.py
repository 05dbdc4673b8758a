"""The external MI350 nightly."""
import sys
import time
from pathlib import Path

# Run as `python3 <root>/<file>`: make the repository importable.
sys.path.insert(0, str(next(p for p in Path(__file__).resolve().parents if (p / "tests" / "ci").is_dir())))

from tests.ci.ci_register import register_rocm_ci

register_rocm_ci(est_time=900, suite="nightly-stage-c-8-gpu-mi350", labels=["amd"], nightly=True)


def main():
    print("amd_nightly_8gpu: pretending to use the GPUs for 1s", flush=True)
    time.sleep(1)
    print("amd_nightly_8gpu: ok", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
