"""A stale copy in a hidden directory: never collected."""
raise SystemExit(1)
