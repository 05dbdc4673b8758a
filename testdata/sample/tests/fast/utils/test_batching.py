"""Unit tests for the batching helpers (CPU, collected implicitly into stage-a-cpu)."""

def batches(xs, n):
    return [xs[i:i + n] for i in range(0, len(xs), n)]


def test_batches():
    assert batches(list(range(5)), 2) == [[0, 1], [2, 3], [4]]
