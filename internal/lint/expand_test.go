package lint

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// expandText expands the matrix of the one job of a workflow whose
// strategy: block is strategy, each job written as k=v pairs in key order.
func expandText(t *testing.T, strategy string) ([]string, string) {
	t.Helper()
	wf := &workflow{path: "w.yml", name: "w.yml"}
	require.Empty(t, wf.parse([]byte("on: push\njobs:\n  j:\n    runs-on: x\n"+strategy)))
	combos, _, problem := expandMatrix(wf.jobs[0])
	var out []string
	for _, c := range combos {
		var kv []string
		for k, v := range c {
			kv = append(kv, k+"="+v.Value)
		}
		sort.Strings(kv)
		out = append(out, strings.Join(kv, ","))
	}
	return out, problem
}

// The jobs a matrix starts are GitHub's: the product of the axes, less
// the excluded, with each include merged where it changes no axis value
// and added where it would.
func TestExpandMatrix_AsGitHubStartsTheJobs(t *testing.T) {
	for _, tc := range []struct {
		name, strategy string
		want           []string
	}{
		{"no matrix: one job", "", []string{""}},
		{"the product of the axes", "    strategy:\n      matrix:\n        suite: [a, b]\n        hw: [rocm, cuda]\n",
			[]string{"hw=rocm,suite=a", "hw=cuda,suite=a", "hw=rocm,suite=b", "hw=cuda,suite=b"}},
		{"exclude drops each match", "    strategy:\n      matrix:\n        suite: [a, b]\n        hw: [rocm, cuda]\n        exclude:\n          - hw: cuda\n            suite: a\n",
			[]string{"hw=rocm,suite=a", "hw=rocm,suite=b", "hw=cuda,suite=b"}},
		{"include only: a job each", "    strategy:\n      matrix:\n        include:\n          - suite: a\n            runner: r2\n          - suite: b\n",
			[]string{"runner=r2,suite=a", "suite=b"}},
		{"include merged where it keeps the axes, added where not", "    strategy:\n      matrix:\n        suite: [a, b]\n        include:\n          - runner: big\n          - suite: b\n            runner: huge\n          - suite: c\n",
			[]string{"runner=big,suite=a", "runner=huge,suite=b", "suite=c"}},
		{"an empty axis starts no job", "    strategy:\n      matrix:\n        suite: []\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, problem := expandText(t, tc.strategy)
			assert.Empty(t, problem)
			assert.Equal(t, tc.want, got)
		})
	}
	for _, tc := range []struct{ name, strategy, want string }{
		{"an expression", "    strategy:\n      matrix: ${{ fromJSON(needs.a.outputs.m) }}\n", "the matrix is ${{ fromJSON(needs.a.outputs.m) }}, which lint cannot expand"},
		{"an axis from an expression", "    strategy:\n      matrix:\n        suite: ${{ fromJSON(inputs.s) }}\n", "matrix.suite is the scalar '${{ fromJSON(inputs.s) }}', which lint cannot expand: write a list"},
		{"include not a list", "    strategy:\n      matrix:\n        include: 5\n", "matrix.include is the scalar '5', not a list of entries"},
		{"an include entry not a mapping", "    strategy:\n      matrix:\n        include: [a]\n", "an entry of matrix.include is the scalar 'a', not a mapping"},
		{"more jobs than GitHub starts", bigMatrix(9, 0), "the matrix starts more than 256 jobs, which GitHub refuses"},
		{"more jobs than GitHub starts, by include", bigMatrix(0, 257), "the matrix starts more than 256 jobs, which GitHub refuses"},
		// 256 jobs, each include merged into all of them: the work is
		// bounded, not the matrix's size times its includes.
		{"too much to expand", bigMatrix(8, 5000), "the matrix is too large for lint to expand"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, problem := expandText(t, tc.strategy)
			assert.Equal(t, tc.want, problem)
		})
	}
}

// bigMatrix is a strategy: block with axes keys of two values each and
// includes entries, each adding a job when there is no axis and merged
// into every job when there is.
func bigMatrix(axes, includes int) string {
	var b strings.Builder
	b.WriteString("    strategy:\n      matrix:\n")
	for i := range axes {
		fmt.Fprintf(&b, "        k%d: [a, b]\n", i)
	}
	if includes > 0 {
		b.WriteString("        include:\n")
	}
	for i := range includes {
		fmt.Fprintf(&b, "          - suite: s%d\n", i)
	}
	return b.String()
}
