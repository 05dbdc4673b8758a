package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/testutil"
	"github.com/radixark/miles-ci/internal/timings"
)

type jsonReg struct {
	File     string  `json:"file"`
	Backend  string  `json:"backend"`
	Suite    string  `json:"suite"`
	EstTime  float64 `json:"est_time"`
	Implicit bool    `json:"implicit"`
}

func suitesJSON(t *testing.T, root string) []jsonReg {
	t.Helper()
	f, out, errOut := suitesFactory(root, nil)
	require.Equal(t, 0, Main([]string{"--root", root, "suites", "--json"}, f), errOut.String())
	var doc struct {
		Registrations []jsonReg `json:"registrations"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &doc))
	return doc.Registrations
}

func readTree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	require.NoError(t, filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(root, path)
		out[rel] = data
		return err
	}))
	return out
}

func writeTimings(t *testing.T, dir, name string, tm timings.Timings) string {
	t.Helper()
	data, err := tm.Marshal()
	require.NoError(t, err)
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

// The acceptance scenario of issue 23: a copy of the Miles tests tree and
// a timings file that moves 20 files' times.
func TestTimingsApply_MilesTreeChangesExactlyTheDriftedLiterals(t *testing.T) {
	root := copyTests(t, testutil.MilesCheckout(t))
	regs := suitesJSON(t, root)
	perFile := map[string]int{}
	for _, r := range regs {
		perFile[r.File]++
	}
	tm := timings.Timings{}
	want := map[string]float64{}
	var moved, steady int
	for _, r := range regs {
		if perFile[r.File] != 1 || r.Implicit {
			continue
		}
		switch {
		case moved < 20:
			measured := r.EstTime*2 + 100.5
			tm[r.File] = measured
			want[r.File] = float64(timings.Round(measured))
			moved++
		case steady < 10:
			tm[r.File] = r.EstTime * 1.1 // within 25%: stays
			steady++
		}
	}
	require.Equal(t, 20, moved, "%d registrations", len(regs))
	tfile := writeTimings(t, t.TempDir(), "timings.json", tm)
	before := readTree(t, root)

	f, out, errOut := suitesFactory(root, nil)
	require.Equal(t, 1, Main([]string{"--root", root, "timings", "apply", "--check", tfile}, f), errOut.String())
	assert.Len(t, strings.Split(strings.TrimSpace(out.String()), "\n"), 20, out.String())
	assert.Equal(t, before, readTree(t, root), "--check changes nothing")

	f, out, errOut = suitesFactory(root, nil)
	require.Equal(t, 0, Main([]string{"--root", root, "timings", "apply", tfile}, f), errOut.String())
	after := readTree(t, root)
	require.Equal(t, len(before), len(after))
	for rel, old := range before {
		now := after[rel]
		file := filepath.ToSlash(rel)
		if _, ok := want[file]; !ok {
			assert.Equal(t, string(old), string(now), "%s is not drifted: untouched", file)
			continue
		}
		// Only the literal differs: strip the common prefix and suffix.
		i := 0
		for i < len(old) && i < len(now) && old[i] == now[i] {
			i++
		}
		j := 0
		for j < len(old)-i && j < len(now)-i && old[len(old)-1-j] == now[len(now)-1-j] {
			j++
		}
		oldMid, newMid := string(old[i:len(old)-j]), string(now[i:len(now)-j])
		assert.Contains(t, fmt.Sprint(want[file]), newMid, "%s: only digits of the new value differ", file)
		assert.NotContains(t, oldMid+newMid, " ", file)
		assert.NotContains(t, oldMid+newMid, "\n", file)
		assert.Contains(t, string(now), "est_time="+fmt.Sprint(want[file]), file)
	}

	for _, r := range suitesJSON(t, root) {
		if w, ok := want[r.File]; ok {
			assert.Equal(t, w, r.EstTime, "suites --json reads back %s", r.File)
		}
	}

	py := testutil.NeedPython(t)
	cmd := exec.Command(py, "-c", `
import json, os
from tests.ci.ci_register import collect_tests, discover_ci_files
print(json.dumps({r.filename: r.est_time for r in collect_tests(discover_ci_files(), sanity_check=False)}))`)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PYTHONPATH="+root)
	pyOut, err := cmd.Output()
	require.NoError(t, err)
	var pyEst map[string]float64
	require.NoError(t, json.Unmarshal(pyOut, &pyEst))
	for file, w := range want {
		assert.Equal(t, w, pyEst[file], "the Python registry reads back %s", file)
	}

	f, out, errOut = suitesFactory(root, nil)
	assert.Equal(t, 0, Main([]string{"--root", root, "timings", "apply", "--check", tfile}, f), out.String()+errOut.String())
	assert.Empty(t, out.String())
	f, out, errOut = suitesFactory(root, nil)
	require.Equal(t, 0, Main([]string{"--root", root, "timings", "apply", tfile}, f), errOut.String())
	assert.Empty(t, out.String(), "a second apply changes nothing")
	assert.Equal(t, after, readTree(t, root))
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t.Logf("moved: %v", keys)
}

func TestTimingsApply_DiffAnnotationsWarningsAndRefusals(t *testing.T) {
	src, err := os.ReadFile("../timings/testdata/test_dumper.py")
	require.NoError(t, err)
	root := testutil.TempTree(t, map[string]string{
		"tests/e2e/short/test_dumper.py": string(src),
		"tests/e2e/short/test_b.py":      "register_cuda_ci(est_time=600, suite=\"stage-c-8-gpu-h100\", labels=[\"short\"])\n",
		"tests/e2e/short/test_c.py":      "register_cuda_ci(est_time=60, suite=\"stage-c-8-gpu-h100\", labels=[\"short\"])\n",
	})
	dumper := filepath.Join(root, "tests/e2e/short/test_dumper.py")
	dir := t.TempDir()
	run1 := writeTimings(t, dir, "1.json", timings.Timings{"tests/e2e/short/test_dumper.py": 1700, "tests/e2e/short/test_b.py": 1500, "tests/e2e/short/test_c.py": 500})
	run2 := writeTimings(t, dir, "2.json", timings.Timings{"tests/e2e/short/test_dumper.py": 1600, "tests/e2e/short/test_b.py": 1520})
	run3 := writeTimings(t, dir, "3.json", timings.Timings{"tests/e2e/short/test_dumper.py": 9000, "tests/e2e/short/test_b.py": 1510})

	// --diff: the median of 1600, 1700, 9000 is 1700; only the cuda call.
	f, out, errOut := suitesFactory(root, map[string]string{"GITHUB_ACTIONS": "true"})
	require.Equal(t, 0, Main([]string{"--root", root, "timings", "apply", "--suite", "stage-c-8-gpu-h100", "--min-runs", "2", "--diff", run1, run2, run3}, f), errOut.String())
	assert.Contains(t, out.String(), "--- a/tests/e2e/short/test_dumper.py\n+++ b/tests/e2e/short/test_dumper.py\n@@ -31,7 +31,7 @@\n")
	assert.Contains(t, out.String(), "\n-register_cuda_ci(est_time=1100, suite=\"stage-c-8-gpu-h100\", labels=[\"short\"])\n+register_cuda_ci(est_time=1700, suite=\"stage-c-8-gpu-h100\", labels=[\"short\"])\n register_rocm_ci(")
	assert.Contains(t, out.String(), "-register_cuda_ci(est_time=600,")
	assert.NotContains(t, out.String(), "test_c.py", "one run is fewer than --min-runs 2")
	assert.Contains(t, errOut.String(), "1 file(s) measured in fewer than 2 run(s) left alone")
	// 1510s measured against an 1800s limit (est_time 600 as --diff leaves it).
	assert.Contains(t, errOut.String(), "warning: tests/e2e/short/test_b.py:1: measured 1510s is 84% of its 1800s per-file time limit")
	assert.Contains(t, out.String(), "::warning file=tests/e2e/short/test_b.py,line=1,title=est_time::measured 1510s is 84%")
	now, _ := os.ReadFile(dumper)
	assert.Equal(t, src, now, "--diff writes nothing")

	// --check under GitHub Actions: an error annotation on each drift.
	f, out, _ = suitesFactory(root, map[string]string{"GITHUB_ACTIONS": "true"})
	require.Equal(t, 1, Main([]string{"--root", root, "timings", "apply", "--suite", "stage-c-8-gpu-h100", "--check", run1}, f))
	assert.Contains(t, out.String(), "tests/e2e/short/test_dumper.py:34 declared 1100 measured 1700 proposed 1700\n")
	assert.Contains(t, out.String(), "::error file=tests/e2e/short/test_dumper.py,line=34,title=est_time::est_time 1100 drifted")

	// Timings that do not name their suite, for a file registering a
	// CUDA and a ROCm suite: the file is left alone, the run fails, and a
	// hint per backend says how to name it.
	f, _, errOut = suitesFactory(root, nil)
	require.Equal(t, 1, Main([]string{"--root", root, "timings", "apply", run1}, f), errOut.String())
	assert.Contains(t, errOut.String(), "error: tests/e2e/short/test_dumper.py: registers for stage-c-8-gpu-h100 (cuda, line 34) and nightly-stage-c-8-gpu-mi350 (rocm, line 35), and the timings do not say which of them measured it; left alone\n")
	assert.Contains(t, errOut.String(), "hint: if they were measured on cuda runners, run: miles-ci --root "+root+" timings apply --hw cuda "+run1+"\n")
	assert.Contains(t, errOut.String(), "hint: if they were measured on rocm runners, run: miles-ci --root "+root+" timings apply --hw rocm "+run1+"\n")
	now, _ = os.ReadFile(dumper)
	assert.Equal(t, src, now)

	// A link is refused with an error naming it, exit 1, the target kept.
	b := filepath.Join(root, "tests/e2e/short/test_b.py")
	bText, err := os.ReadFile(b)
	require.NoError(t, err)
	require.Contains(t, string(bText), "est_time=1500,", "the apply above changed test_b.py")
	run4 := writeTimings(t, dir, "4.json", timings.Timings{"tests/e2e/short/test_b.py": 100})
	require.NoError(t, os.Rename(b, filepath.Join(root, "real_b.py")))
	require.NoError(t, os.Symlink("../../../real_b.py", b))
	f, _, errOut = suitesFactory(root, nil)
	require.Equal(t, 1, Main([]string{"--root", root, "timings", "apply", "--suite", "stage-c-8-gpu-h100", run4}, f))
	assert.Contains(t, errOut.String(), "error: tests/e2e/short/test_b.py: is a symbolic link")
	data, _ := os.ReadFile(filepath.Join(root, "real_b.py"))
	assert.Equal(t, bText, data)

	f, _, errOut = suitesFactory(root, nil)
	assert.Equal(t, 2, Main([]string{"--root", root, "timings", "apply", "--threshold", "lots", run1}, f))
	assert.Contains(t, errOut.String(), "--threshold: invalid threshold")
}
