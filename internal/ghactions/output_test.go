package ghactions

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendOutputs_AppendsOneLinePerPair(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	require.NoError(t, os.WriteFile(path, []byte("earlier=1\n"), 0o600))
	require.NoError(t, AppendOutputs(path, []OutputPair{{"cadence", "regular"}, {"raw_labels", ""}, {"x", "a=b"}}))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "earlier=1\ncadence=regular\nraw_labels=\nx=a=b\n", string(got))
}

func TestAppendOutputs_CreatesAMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	require.NoError(t, AppendOutputs(path, []OutputPair{{"a", "1"}}))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "a=1\n", string(got))
}

func TestAppendOutputs_RefusesLineBreaksAndWritesNothing(t *testing.T) {
	tests := []struct {
		name string
		pair OutputPair
	}{
		{"LF in a value", OutputPair{"raw_labels", "run-ci-a\nskipped_stages=[]"}},
		{"CR in a value", OutputPair{"raw_labels", "a\rb"}},
		{"LF in a name", OutputPair{"a\nb", "1"}},
		{"'=' in a name", OutputPair{"a=b", "1"}},
		{"empty name", OutputPair{"", "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out")
			require.NoError(t, os.WriteFile(path, []byte("earlier=1\n"), 0o600))
			err := AppendOutputs(path, []OutputPair{{"cadence", "regular"}, tt.pair})
			var oe *OutputError
			require.ErrorAs(t, err, &oe)
			assert.Equal(t, tt.pair.Name, oe.Name)
			got, rerr := os.ReadFile(path)
			require.NoError(t, rerr)
			assert.Equal(t, "earlier=1\n", string(got), "a refused output leaves the file as it was")
		})
	}
}

func TestAppendOutputs_ReportsAnUnwritablePath(t *testing.T) {
	err := AppendOutputs(filepath.Join(t.TempDir(), "missing-dir", "out"), []OutputPair{{"a", "1"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "open GITHUB_OUTPUT")
}
