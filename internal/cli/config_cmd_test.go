package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// `config` says what a file extending the default changed, and that one
// changing nothing changes nothing; a whole configuration is no overlay.
func TestConfig_SaysWhatTheOverlayChanged(t *testing.T) {
	dir, err := filepath.Abs("../../testdata/sample")
	require.NoError(t, err)
	for doc, want := range map[string]string{
		"extends: default\n": "extends the built-in configuration: changes nothing\n",
		"extends: default\nsuites:\n  cpu:\n    - name: stage-z-cpu\n    - name: stage-b-cpu\n      shards: 2\n  cuda:\n    - name: stage-y\nschedules: {}\n": "extends the built-in configuration: adds suite stage-z-cpu, stage-y; replaces suite stage-b-cpu; replaces schedules whole\n",
	} {
		path := filepath.Join(t.TempDir(), "ci.yaml")
		require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
		f, out, errOut := suitesFactory(dir, nil)
		require.Equal(t, 0, Main([]string{"--root", dir, "--config", path, "config"}, f), errOut.String())
		assert.Equal(t, "configuration OK: "+path+"; 19 labels from miles-ci's built-in list\n"+want, out.String(), doc)
	}
	f, out, errOut := suitesFactory(dir, nil)
	require.Equal(t, 0, Main([]string{"--root", dir, "config"}, f), errOut.String())
	assert.NotContains(t, out.String(), "extends")
}

// A stage of more shards than GitHub Actions runs jobs of one matrix is a
// configuration error on its line, for config, lint and policy alike.
func TestConfig_ShardsPastGitHubsMatrixLimitAreAnErrorOnTheirLine(t *testing.T) {
	dir, err := filepath.Abs("../../testdata/sample")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "ci.yaml")
	require.NoError(t, os.WriteFile(path, []byte("extends: default\nsuites:\n  cuda:\n    - name: stage-c-4-gpu-h200\n      runs_on: [h200, 4gpu]\n      shards: 300\n"), 0o644))
	for _, args := range [][]string{{"config"}, {"lint"}, {"policy", "--event", "schedule", "--schedule", "0 15 * * 6", "--shard-matrix"}} {
		f, out, errOut := suitesFactory(dir, nil)
		assert.Equal(t, 1, Main(append([]string{"--root", dir, "--config", path}, args...), f), args)
		assert.Empty(t, out.String(), args)
		assert.Contains(t, errOut.String(), path+`:6: suite "stage-c-4-gpu-h200" has shards "300"; expected at most 256, the jobs GitHub Actions runs of one matrix`, args)
	}
}
