package runner

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/timings"
)

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func passedReport(files ...string) *Report {
	rep := &Report{Elapsed: time.Second}
	for _, f := range files {
		zero := 0
		rep.Files = append(rep.Files, FileResult{File: f, Status: Pass,
			Attempts: []Attempt{{Number: 1, Status: Pass, Elapsed: 1500 * time.Millisecond, ExitCode: &zero}}})
	}
	return rep
}

// reportWriters writes each report of rep to a path.
func reportWriters(rep *Report) map[string]func(string) error {
	return map[string]func(string) error{
		"json":    func(p string) error { return WriteJSONReport(p, ReportMeta{}, rep) },
		"junit":   func(p string) error { return WriteJUnit(p, ReportMeta{}, rep) },
		"timings": func(p string) error { return MergeTimings(p, rep) },
	}
}

func TestReports_ADirectoryTargetIsAnErrorAndLeavesNoTemporaryFile(t *testing.T) {
	rep := passedReport("a.py")
	for name, write := range reportWriters(rep) {
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			target := filepath.Join(parent, "report.json")
			require.NoError(t, os.Mkdir(target, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(target, "x"), []byte("x"), 0o644))
			require.Error(t, write(target))
			assert.Equal(t, []string{"report.json"}, listDir(t, parent), "no temporary file left beside the target")
		})
	}
}

// Every report is written through a link (the link stays), keeps an
// existing file's mode, and merges timings into the linked file.
func TestReports_WriteThroughLinks(t *testing.T) {
	rep := passedReport("b.py")
	for name, write := range reportWriters(rep) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			real := filepath.Join(dir, "real.json")
			require.NoError(t, os.WriteFile(real, []byte(`{"version": 1, "timings": {"a.py": 2}}`), 0o600))
			link := filepath.Join(dir, "link.json")
			require.NoError(t, os.Symlink("real.json", link))
			require.NoError(t, write(link))
			st, err := os.Lstat(link)
			require.NoError(t, err)
			assert.NotZero(t, st.Mode()&fs.ModeSymlink, "the link must stay a link")
			st, err = os.Stat(real)
			require.NoError(t, err)
			assert.Equal(t, fs.FileMode(0o600), st.Mode().Perm())
			assert.ElementsMatch(t, []string{"real.json", "link.json"}, listDir(t, dir))
			if name == "timings" {
				got, err := timings.Read(real)
				require.NoError(t, err)
				assert.Equal(t, timings.Timings{"a.py": 2, "b.py": 1.5}, got)
			}
		})
	}
}
