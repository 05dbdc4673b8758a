"""Makes the repository root importable for pytest (tests import tests.ci.ci_register)."""
