"""Runs Miles's tests/ci/file_run.py main() once per case, for the Go
differential test (filerun_differential_test.go).

Reads a JSON list of cases from stdin, each {"env": {...}} holding the
variables to set (TEST_FILE, CI_IMAGE_TAG, CI_SOURCE_ROOT, GITHUB_OUTPUT;
the others are unset), and writes a JSON list of results: the exit status,
stdout, stderr, and whether main() crashed (raised instead of returning).
Run it with the Miles checkout as the working directory and on sys.path,
as the workflow runs `python3 -S -m tests.ci.file_run`.

Collecting a tree takes most of a second; the registrations of one tree do
not change between cases, so the collector's result is memoized per tree.
"""

import contextlib
import io
import json
import os
import sys
import traceback

import tests.ci.file_run as file_run

VARIABLES = ("TEST_FILE", "CI_IMAGE_TAG", "CI_SOURCE_ROOT", "GITHUB_OUTPUT")

_collect = file_run.collect_tests
_memo = {}


def _memoized_collect(files, sanity_check=True):
    key = (os.getcwd(), tuple(files), sanity_check)
    if key not in _memo:
        try:
            _memo[key] = ("ok", _collect(files, sanity_check=sanity_check))
        except Exception as error:  # replayed on every later case of the tree
            _memo[key] = ("error", error)
    kind, value = _memo[key]
    if kind == "error":
        raise value
    return value


file_run.collect_tests = _memoized_collect


def run(case):
    for name in VARIABLES:
        os.environ.pop(name, None)
    os.environ.update(case["env"])
    out, err = io.StringIO(), io.StringIO()
    crashed = False
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = file_run.main()
        except Exception:
            traceback.print_exc()
            status, crashed = 1, True
    return {"status": status, "stdout": out.getvalue(), "stderr": err.getvalue(), "crashed": crashed}


def main():
    if sys.argv[1:] == ["--list"]:
        json.dump(file_run._discover_regular_ci_files(), sys.stdout)
        return
    cases = json.load(sys.stdin)
    json.dump([run(case) for case in cases], sys.stdout)


if __name__ == "__main__":
    main()
