"""The GPU stages a pull request may skip, while the Python policy runs."""

PR_GPU_STAGES = frozenset(
    {
        "stage-c-8-gpu-h100",
        "stage-c-8-gpu-h200",
    }
)
