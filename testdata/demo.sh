#!/usr/bin/env bash
# The main job on the sample repository, step by step, as the Miles workflows
# and developers use it. Called by `make demo` with the built binary.
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
repo=$(cd "$(dirname "$0")/sample" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Bold step lines on a terminal only: a pipe or a log file gets plain text.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold='' plain=''; fi
step() { printf '\n%s$ %s%s\n' "$bold" "$*" "$plain"; }

# The sample repository stays as committed: pytest writes no cache and
# Python no bytecode inside testdata/.
export PYTEST_ADDOPTS="${PYTEST_ADDOPTS:+$PYTEST_ADDOPTS }-p no:cacheprovider"
export PYTHONDONTWRITEBYTECODE=1
mc() { step "miles-ci $*"; "$bin" --root "$repo" "$@"; }

mc suites
mc suites --suite stage-c-8-gpu-h100

# The workflows checked against the roster and the registrations, then a
# copy with a copy-paste slip: the H100 stage asking for 4-GPU runners.
mc lint
cp -R "$repo" "$work/slip"
sed 's/"h100", "8gpu"/"h100", "4gpu"/' "$repo/.github/workflows/pr-test.yml" > "$work/slip/.github/workflows/pr-test.yml"
step "miles-ci lint   (the copy with the slip)"
"$bin" --root "$work/slip" lint || echo "(exit status $?)"

# The resolve-ci-policy job of a PR labelled run-ci-megatron that touched docs
# and one H100 test: every other GPU stage is skipped.
printf 'M\0docs/ci/stages.md\0M\0tests/e2e/megatron/test_megatron_tp2.py\0' > "$work/diff"
# With --shard-matrix it also books only the shards that hold a test.
step 'EVENT_NAME=pull_request PR_LABELS_JSON=["run-ci-megatron"] miles-ci policy --shard-matrix --explain'
EVENT_NAME=pull_request PR_LABELS_JSON='["run-ci-megatron"]' CHANGED_FILES_PATH="$work/diff" \
  GITHUB_OUTPUT="$work/out" "$bin" --root "$repo" policy --shard-matrix --explain
step "cat \$GITHUB_OUTPUT"
cat "$work/out"

# A stage job: what shard 1 of 2 of the H100 stage would run on a nightly.
mc run --hw cuda --suite stage-c-8-gpu-h100 --cadence nightly --auto-partition-id 0 --auto-partition-size 2 --list-only
mc partition --suite stage-c-8-gpu-h100 --match-all-labels

# Really run a GPU stage (the sample "GPU tests" are one-second python3 scripts).
if command -v python3 >/dev/null 2>&1; then
  step "GITHUB_ACTIONS=true miles-ci run --hw cuda --suite stage-b-2-gpu-h200 --labels run-ci-fsdp run-ci-lora --json-report report.json"
  GITHUB_ACTIONS=true "$bin" --root "$repo" run --hw cuda --suite stage-b-2-gpu-h200 --labels run-ci-fsdp run-ci-lora \
    --json-report "$work/report.json"
  # The step-summary table of the report, and what "Re-run failed jobs"
  # would run again with it: nothing, since everything passed.
  step "miles-ci report summary report.json"
  "$bin" --root "$repo" report summary "$work/report.json"
  step "miles-ci run --hw cuda --suite stage-b-2-gpu-h200 --labels run-ci-fsdp run-ci-lora --rerun-failed report.json"
  "$bin" --root "$repo" run --hw cuda --suite stage-b-2-gpu-h200 --labels run-ci-fsdp run-ci-lora \
    --rerun-failed "$work/report.json"
else
  mc run --hw cuda --suite stage-b-2-gpu-h200 --labels run-ci-fsdp run-ci-lora --list-only
fi

# The CPU stage runs pytest, when it is installed.
if command -v pytest >/dev/null 2>&1; then
  mc run --hw cpu --suite stage-a-cpu --auto-partition-id 0 --auto-partition-size 2
else
  step "miles-ci run --hw cpu --suite stage-a-cpu --list-only   (pytest is not installed: plan only)"
  "$bin" --root "$repo" run --hw cpu --suite stage-a-cpu --list-only
fi
