package lint

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/testutil"
)

// runSuiteText is a runner in the form lint reads: a CI_SUITES dict of
// HWBackend keys, each with the roster's suites of that backend (so it
// agrees with cfg), one name a line.
func runSuiteText(cfg *config.Config) string {
	var sb strings.Builder
	sb.WriteString("\"\"\"A test runner (a fixture of miles-ci's lint tests).\"\"\"\n\nfrom tests.ci.ci_register import HWBackend\n\nCI_SUITES = {\n")
	for _, b := range config.Backends {
		fmt.Fprintf(&sb, "    HWBackend.%s: [\n", b.Upper())
		for _, s := range cfg.SuitesFor(b) {
			fmt.Fprintf(&sb, "        %q,\n", s.Name)
		}
		sb.WriteString("    ],\n")
	}
	sb.WriteString("}\n\n\ndef main():\n    pass\n")
	return sb.String()
}

// ciSuitesFindings lints a tree holding only the runner text and returns
// the ci-suites findings as PATH:LINE:COL: MESSAGE.
func ciSuitesFindings(t *testing.T, cfg *config.Config, files map[string]string) []string {
	t.Helper()
	root := testutil.TempTree(t, files)
	res, err := Run(root, cfg, nil)
	require.NoError(t, err)
	var out []string
	for _, f := range res.Findings {
		if f.Rule == RuleCISuites {
			assert.Equal(t, Error, f.Severity)
			out = append(out, fmt.Sprintf("%s:%d:%d: %s", f.Path, f.Line, f.Col, f.Message))
		}
	}
	return out
}

// placeOf is the place of the first line of text holding anchor, as
// PATH:LINE:COL with the column of anchor's first character.
func placeOf(t *testing.T, text, anchor string) string {
	t.Helper()
	for i, line := range strings.Split(text, "\n") {
		if col := strings.Index(line, anchor); col >= 0 {
			return fmt.Sprintf("%s:%d:%d", RunSuitePath, i+1, col+1)
		}
	}
	require.Failf(t, "no anchor", "%q is not in the fixture", anchor)
	return ""
}

const builtIn = "(the built-in roster; see `miles-ci config --default`)"

func TestCISuites_FindsEachSuiteOnWhichTheRunnerAndTheRosterDisagree(t *testing.T) {
	cfg := config.Default()
	base := runSuiteText(cfg)
	tests := []struct {
		name string
		edit func(string) string
		// want holds, per finding, the anchor of its place and its message.
		want [][2]string
	}{
		{"they agree", func(s string) string { return s }, nil},
		{"a suite appended the Python way", func(s string) string {
			return strings.Replace(s, "HWBackend.CUDA: [\n", "HWBackend.CUDA: [\n        \"stage-c-8-gpu-b200\",  # Blackwell\n", 1)
		}, [][2]string{{`"stage-c-8-gpu-b200"`, "suite 'stage-c-8-gpu-b200' is in CI_SUITES[HWBackend.CUDA] but not in the roster " + builtIn +
			", so miles-ci never runs it: add it under suites: cuda of a .miles-ci.yaml (`miles-ci config --init` writes one)"}}},
		{"a roster suite left out", func(s string) string { return strings.Replace(s, "        \"stage-b-cpu\",\n", "", 1) },
			[][2]string{{"HWBackend.CPU", "suite 'stage-b-cpu' of the roster " + builtIn +
				" is not in CI_SUITES[HWBackend.CPU]: add it there, or leave it out of a .miles-ci.yaml (`miles-ci config --init` writes one)"}}},
		{"a suite under another backend", func(s string) string {
			s = strings.Replace(s, "        \"stage-c-4-gpu-mi350\",\n", "", 1)
			return strings.Replace(s, "HWBackend.CUDA: [\n", "HWBackend.CUDA: [\n        'stage-c-4-gpu-mi350',\n", 1)
		}, [][2]string{
			{"'stage-c-4-gpu-mi350'", "suite 'stage-c-4-gpu-mi350' is in CI_SUITES[HWBackend.CUDA] but the roster " + builtIn +
				" has it as a rocm suite, so the two runners disagree on its --hw: make them agree"},
			{"HWBackend.ROCM", "suite 'stage-c-4-gpu-mi350' of the roster " + builtIn +
				" is not in CI_SUITES[HWBackend.ROCM]: add it there, or leave it out of a .miles-ci.yaml (`miles-ci config --init` writes one)"},
		}},
		{"a backend's list left out", func(s string) string {
			i, j := strings.Index(s, "    HWBackend.CPU"), strings.Index(s, "    HWBackend.CUDA")
			return s[:i] + s[j:]
		}, [][2]string{
			{"CI_SUITES = {", "suite 'stage-a-cpu' of the roster " + builtIn + " is a cpu suite, but CI_SUITES has no HWBackend.CPU list: add one holding 'stage-a-cpu', or leave it out of a .miles-ci.yaml (`miles-ci config --init` writes one)"},
			{"CI_SUITES = {", "suite 'stage-b-cpu' of the roster " + builtIn + " is a cpu suite, but CI_SUITES has no HWBackend.CPU list: add one holding 'stage-b-cpu', or leave it out of a .miles-ci.yaml (`miles-ci config --init` writes one)"},
		}},
		{"a key of another enum", func(s string) string {
			return strings.Replace(s, "    HWBackend.CPU: [\n", "    HWBackend.TPU: [],\n    HWBackend.CPU: [\n", 1)
		}, [][2]string{{"HWBackend.TPU", "CI_SUITES key HWBackend.TPU is not HWBackend.CPU, HWBackend.CUDA or HWBackend.ROCM, so its suites cannot be compared with the roster"}}},
		{"a list built elsewhere", func(s string) string {
			i, j := strings.Index(s, "HWBackend.CPU: ["), strings.Index(s, "    HWBackend.CUDA")
			return s[:i] + "HWBackend.CPU: CPU_SUITES,\n" + s[j:]
		}, [][2]string{{"HWBackend.CPU: CPU", "CI_SUITES[HWBackend.CPU] is a Name, not a list of suite names in quotes, so it cannot be compared with the roster"}}},
		{"an element that is no name in quotes", func(s string) string {
			return strings.Replace(s, "        \"stage-b-cpu\",\n", "        PREFIX + \"b-cpu\",\n        3,\n", 1)
		}, [][2]string{
			{"PREFIX", "CI_SUITES[HWBackend.CPU] holds a BinOp, not a suite name in quotes, so it cannot be compared with the roster"},
			{"3,", "CI_SUITES[HWBackend.CPU] holds a int, not a suite name in quotes, so it cannot be compared with the roster"},
		}},
		{"a key given twice", func(s string) string {
			return strings.Replace(s, "    HWBackend.CPU: [\n", "    HWBackend.CPU: [\"stage-a-cpu\"],\n    HWBackend.CPU: [\n", 1)
		}, [][2]string{{"HWBackend.CPU: [\"", "CI_SUITES[HWBackend.CPU] is given again on line 7, and Python keeps the later list: remove one"}}},
		{"unpacking", func(s string) string {
			return strings.Replace(s, "CI_SUITES = {\n", "CI_SUITES = {\n    **EXTRA,\n", 1)
		},
			[][2]string{{"**EXTRA", "CI_SUITES cannot be read without running Python (CI_SUITES unpacks another mapping with **; write its entries out), so it cannot be compared with the roster: write it as {HWBackend.CPU: [\"suite\", …], …}"}}},
		{"not a literal", func(s string) string { return strings.Replace(s, "CI_SUITES = {", "CI_SUITES = load_suites() or {", 1) },
			[][2]string{{"CI_SUITES =", "CI_SUITES cannot be read without running Python (CI_SUITES must be a dict literal), so it cannot be compared with the roster: write it as {HWBackend.CPU: [\"suite\", …], …}"}}},
		{"changed after the literal", func(s string) string {
			return strings.Replace(s, "\n\ndef main", "\nCI_SUITES[HWBackend.CUDA].append(\"stage-c-8-gpu-b200\")\n\ndef main", 1)
		}, [][2]string{{"CI_SUITES[HWBackend.CUDA].append", "CI_SUITES is changed here after its literal, and lint compares only the literal with the roster: write the suites into the literal"}}},
		{"a runner Python cannot parse", func(s string) string { return strings.Replace(s, "    pass\n", "    pass\n  )\n", 1) },
			[][2]string{{"  )", "Python cannot parse the runner (unindent does not match any outer indentation level), so its CI_SUITES cannot be compared with the roster"}}},
		{"no CI_SUITES: nothing to disagree with", func(s string) string { return strings.ReplaceAll(s, "CI_SUITES", "SUITES") }, nil},
		{"CRLF line ends", func(s string) string {
			return strings.ReplaceAll(strings.Replace(s, "        \"stage-b-cpu\",\n", "", 1), "\n", "\r\n")
		}, [][2]string{{"HWBackend.CPU", "suite 'stage-b-cpu' of the roster " + builtIn +
			" is not in CI_SUITES[HWBackend.CPU]: add it there, or leave it out of a .miles-ci.yaml (`miles-ci config --init` writes one)"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := tt.edit(base)
			var want []string
			for _, w := range tt.want {
				want = append(want, placeOf(t, strings.ReplaceAll(text, "\r\n", "\n"), w[0])+": "+w[1])
			}
			assert.Equal(t, want, ciSuitesFindings(t, cfg, map[string]string{RunSuitePath: text}))
		})
	}
}

// With a configuration file in effect, the message names it and says where
// in it the suite goes.
func TestCISuites_NamesTheConfigurationFileInEffect(t *testing.T) {
	root := testutil.TempTree(t, map[string]string{".miles-ci.yaml": "extends: default\nsuites:\n  cuda:\n    - name: stage-z\n"})
	cfg, err := config.Load(root, "")
	require.NoError(t, err)
	text := strings.Replace(runSuiteText(config.Default()), "HWBackend.ROCM: [\n", "HWBackend.ROCM: [\n        \"stage-y\",\n", 1)
	assert.Equal(t, []string{
		placeOf(t, text, "HWBackend.CUDA") + ": suite 'stage-z' of the roster (.miles-ci.yaml) is not in CI_SUITES[HWBackend.CUDA]: add it there, or take it out of the roster",
		placeOf(t, text, `"stage-y"`) + ": suite 'stage-y' is in CI_SUITES[HWBackend.ROCM] but not in the roster (.miles-ci.yaml), so miles-ci never runs it: add it under suites: rocm there",
	}, ciSuitesFindings(t, cfg, map[string]string{RunSuitePath: text}))
}

func TestCISuites_ARunnerThatCannotBeReadIsAFinding(t *testing.T) {
	cfg := config.Default()
	assert.Empty(t, ciSuitesFindings(t, cfg, map[string]string{"tests/ci/other.py": ""}), "no runner: nothing to compare")

	root := testutil.TempTree(t, map[string]string{RunSuitePath + "/x": ""})
	res, err := Run(root, cfg, nil)
	require.NoError(t, err)
	assert.Contains(t, findingLines(res), "tests/ci/run_suite.py:1:1: error: cannot read the runner, so its CI_SUITES cannot be compared with the roster: is a directory, not a regular file [ci-suites]")
}
