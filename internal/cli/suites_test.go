package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/registry"
)

// suitesFactory is a Factory on buffers whose environment is env alone.
func suitesFactory(root string, env map[string]string) (*Factory, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	f := &Factory{
		In:     strings.NewReader(""),
		Out:    &out,
		ErrOut: &errOut,
		Getenv: func(k string) string { return env[k] },
		LookupEnv: func(k string) (string, bool) {
			v, ok := env[k]
			return v, ok
		},
		Root: root,
	}
	return f, &out, &errOut
}

func TestNewCmdSuites_ParsesFlags(t *testing.T) {
	cases := []struct {
		argv string
		want SuitesOptions
	}{
		{"", SuitesOptions{}},
		{"--json", SuitesOptions{JSON: true}},
		{"--suite stage-b-cpu", SuitesOptions{Suite: "stage-b-cpu"}},
		{"--suite=stage-b-cpu --json", SuitesOptions{Suite: "stage-b-cpu", JSON: true}},
	}
	for _, tc := range cases {
		t.Run(tc.argv, func(t *testing.T) {
			f, _, _ := suitesFactory(".", nil)
			var got *SuitesOptions
			cmd := NewCmdSuites(f, func(o *SuitesOptions) error { got = o; return nil })
			cmd.SetArgs(strings.Fields(tc.argv))
			require.NoError(t, cmd.Execute())
			require.NotNil(t, got)
			assert.Equal(t, tc.want.Suite, got.Suite)
			assert.Equal(t, tc.want.JSON, got.JSON)
		})
	}
}

func TestNewCmdSuites_RejectsArguments(t *testing.T) {
	f, _, errOut := suitesFactory(".", nil)
	assert.Equal(t, exitUsage, Main([]string{"suites", "extra"}, f))
	assert.Contains(t, errOut.String(), "error: unknown command \"extra\"")
}

// TestSuites_Golden runs `miles-ci suites` end to end on fixture trees and
// compares exit status, stdout and stderr with the golden files.
func TestSuites_Golden(t *testing.T) {
	cases := []struct {
		golden string
		tree   string
		args   []string
		env    map[string]string
	}{
		{golden: "roster.golden", tree: "repo"},
		{golden: "suite-h100.golden", tree: "repo", args: []string{"--suite", "stage-c-8-gpu-h100"}},
		{golden: "suite-not-in-roster.golden", tree: "repo", args: []string{"--suite", "stage-z-unknown"}},
		{golden: "suite-empty.golden", tree: "repo", args: []string{"--suite", "stage-c-2-gpu-h200"}},
		{golden: "suite-unknown.golden", tree: "repo", args: []string{"--suite", "nope"}},
		{golden: "json.golden", tree: "repo", args: []string{"--json"}},
		{golden: "json-suite.golden", tree: "repo", args: []string{"--json", "--suite", "stage-b-cpu"}},
		{golden: "bad.golden", tree: "bad"},
		{golden: "bad-github-actions.golden", tree: "bad", env: map[string]string{"GITHUB_ACTIONS": "true"}},
		{golden: "bad-github-actions-not-exactly-true.golden", tree: "bad", env: map[string]string{"GITHUB_ACTIONS": "1"}},
	}
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			root := filepath.Join("testdata", "suites", tc.tree)
			f, out, errOut := suitesFactory(root, tc.env)
			code := Main(append([]string{"--root", root, "suites"}, tc.args...), f)
			got := fmt.Sprintf("exit: %d\n--- stdout\n%s--- stderr\n%s", code, out.String(), errOut.String())
			assertGolden(t, "suites", tc.golden, got)
		})
	}
}

func TestSuites_JSONHasExactlyTheSpecKeys(t *testing.T) {
	root := filepath.Join("testdata", "suites", "repo")
	f, out, _ := suitesFactory(root, nil)
	require.Equal(t, 0, Main([]string{"--root", root, "suites", "--json"}, f))
	var doc map[string][]map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &doc))
	assert.Len(t, doc, 2)
	require.NotEmpty(t, doc["suites"])
	require.NotEmpty(t, doc["registrations"])
	keys := func(m map[string]any) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		return out
	}
	assert.ElementsMatch(t, []string{"name", "backend", "runs_on", "shards", "external"}, keys(doc["suites"][0]))
	for _, r := range doc["registrations"] {
		assert.ElementsMatch(t, []string{"file", "backend", "suite", "est_time", "labels", "nightly", "disabled", "implicit"}, keys(r))
		assert.NotNil(t, r["labels"], "labels is [] when empty, never null")
	}
}

func TestSuites_EveryConfiguredSuiteIsListedEvenWhenEmpty(t *testing.T) {
	root := filepath.Join("testdata", "suites", "repo")
	f, out, _ := suitesFactory(root, nil)
	require.Equal(t, 0, Main([]string{"--root", root, "suites"}, f))
	cfg, err := f.Config()
	require.NoError(t, err)
	for _, s := range cfg.Suites {
		assert.Contains(t, out.String(), "\n"+s.Name+" ")
	}
}

func TestReportCollectError_AnnotatesOnlyInGitHubActions(t *testing.T) {
	errs := registry.Errors{
		{File: "tests/e2e/test_a,b.py", Line: 3, Msg: "tests/e2e/test_a,b.py: suite is required in register_cpu_ci()"},
		{File: "tests/e2e/test_c.py", Msg: "No CI registry found in tests/e2e/test_c.py"},
	}
	for env, want := range map[string]string{
		"true": "::error file=tests/e2e/test_a%2Cb.py,line=3::tests/e2e/test_a,b.py: suite is required in register_cpu_ci()\n" +
			"::error file=tests/e2e/test_c.py::No CI registry found in tests/e2e/test_c.py\n",
		"":     "",
		"TRUE": "",
	} {
		f, out, errOut := suitesFactory(".", map[string]string{"GITHUB_ACTIONS": env})
		err := reportCollectError(f, errs)
		assert.Equal(t, error(errs), err)
		assert.Equal(t, want, errOut.String(), "GITHUB_ACTIONS=%q", env)
		assert.Empty(t, out.String())
	}
}

func TestReportCollectError_AnnotatesConfigErrors(t *testing.T) {
	f, _, errOut := suitesFactory(".", map[string]string{"GITHUB_ACTIONS": "true"})
	err := &config.Error{File: ".miles-ci.yaml", Line: 7, Msg: "unknown key \"x\""}
	assert.Same(t, err, reportCollectError(f, err).(*config.Error))
	assert.Equal(t, "::error file=.miles-ci.yaml,line=7::unknown key \"x\"\n", errOut.String())
	assert.NoError(t, reportCollectError(f, nil))
}
