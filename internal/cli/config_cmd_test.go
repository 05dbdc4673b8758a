package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/buildinfo"
	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/testutil"
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

// cfgRun runs miles-ci on root with the test factory.
func cfgRun(t *testing.T, root string, args ...string) (int, string, string) {
	t.Helper()
	f, out, errOut := suitesFactory(root, nil)
	code := Main(append([]string{"--root", root}, args...), f)
	return code, out.String(), errOut.String()
}

// copySample copies the sample repository to a new root.
func copySample(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.CopyFS(root, os.DirFS("../../testdata/sample")))
	return root
}

// labelsFile is a labels file of the Miles form holding the built-in
// labels, so the sample's registrations read the same with it.
func labelsFile() string {
	var sb strings.Builder
	sb.WriteString("\"\"\"The domain labels (a fixture).\"\"\"\n\nKNOWN_LABELS = {\n")
	for _, l := range config.Default().Labels {
		fmt.Fprintf(&sb, "    %q: %q,\n", l.Name, l.Description)
	}
	sb.WriteString("}\n")
	return sb.String()
}

func TestNewCmdConfig_InitAndDefaultAreOneOrTheOther(t *testing.T) {
	code, out, errOut := cfgRun(t, t.TempDir(), "config", "--init", "--default")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "error: --default and --init cannot be used together\n")
}

// config --init writes the configuration in effect whole: the roster reads
// the same after as before, and the labels keep one source.
func TestConfigInit_WritesTheConfigurationInEffectWhole(t *testing.T) {
	tests := []struct {
		name      string
		labelsPy  bool
		labels    string // what the written file says of the labels
		wantLines []string
		notLines  []string
	}{
		{"no labels file: the list in effect", false, "19 labels in its labels: list",
			[]string{"labels:", "  - megatron: Megatron-LM training tests"}, []string{"labels_file: tests/ci/labels.py"}},
		{"a labels file: named, its fallback list not copied", true, "labels from tests/ci/labels.py",
			[]string{"labels_file: tests/ci/labels.py"}, []string{"labels:", "  - megatron: Megatron-LM training tests"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := copySample(t)
			if tt.labelsPy {
				testutil.WriteFile(t, root, "tests/ci/labels.py", labelsFile())
			}
			code, before, errOut := cfgRun(t, root, "suites", "--json")
			require.Equal(t, 0, code, errOut)

			code, out, errOut := cfgRun(t, root, "config", "--init")
			require.Equal(t, 0, code, errOut)
			target := filepath.Join(root, config.FileName)
			lines := strings.Split(out, "\n")
			assert.Regexp(t, `^wrote `+regexp.QuoteMeta(target)+` from the built-in configuration: 11 suites, `+regexp.QuoteMeta(tt.labels)+`$`, lines[0])
			assert.Contains(t, out, "next: commit it")
			head := "# `miles-ci config --init` from the built-in configuration of miles-ci " + buildinfo.Version(Version) + ".\n"

			data, err := os.ReadFile(target)
			require.NoError(t, err)
			written := strings.Split(string(data), "\n")
			assert.NotRegexp(t, `(?m)^extends:`, string(data))
			assert.Contains(t, string(data), head, "the file names the build whose built-in configuration it copied")
			for _, l := range tt.wantLines {
				assert.Contains(t, written, l)
			}
			for _, l := range tt.notLines {
				assert.NotContains(t, written, l)
			}

			code, out, errOut = cfgRun(t, root, "config")
			require.Equal(t, 0, code, errOut)
			assert.True(t, strings.HasPrefix(out, "configuration OK: "+target+"; 19 labels from "), out)
			code, after, errOut := cfgRun(t, root, "suites", "--json")
			require.Equal(t, 0, code, errOut)
			assert.JSONEq(t, before, after, "the roster reads the same from the written file")
		})
	}
}

// An overlay given with --config is written merged: the file extends
// nothing and, without --config, reads as the overlay did.
func TestConfigInit_AnOverlayInEffectIsWrittenMerged(t *testing.T) {
	root := copySample(t)
	overlay := filepath.Join(t.TempDir(), "ci.yaml")
	require.NoError(t, os.WriteFile(overlay, []byte("extends: default\nsuites:\n  cuda:\n    - {name: stage-c-8-gpu-b200, runs_on: [b200, 8gpu]}\n"), 0o644))
	code, before, errOut := cfgRun(t, root, "--config", overlay, "suites", "--json")
	require.Equal(t, 0, code, errOut)

	code, out, errOut := cfgRun(t, root, "--config", overlay, "config", "--init")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, " from "+overlay+" merged with the built-in configuration: ")
	assert.Contains(t, out, ": 12 suites, ")
	assert.Contains(t, out, "\n--config "+overlay+" still wins over .miles-ci.yaml: leave it out to use the new file\n")

	code, out, errOut = cfgRun(t, root, "config")
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, out, "extends the built-in configuration")
	code, after, errOut := cfgRun(t, root, "suites", "--json")
	require.Equal(t, 0, code, errOut)
	assert.JSONEq(t, before, after)
}

// Whatever stands at .miles-ci.yaml stays: config --init writes only a
// new file, also when that file is the configuration in effect.
func TestConfigInit_NeverReplacesWhatIsThere(t *testing.T) {
	for name, tc := range map[string]struct {
		make   func(t *testing.T, p string)
		config bool // pass the file as --config too
	}{
		"a file":             {make: func(t *testing.T, p string) { require.NoError(t, os.WriteFile(p, []byte("extends: default\n"), 0o644)) }},
		"the file in effect": {make: func(t *testing.T, p string) { require.NoError(t, os.WriteFile(p, []byte("extends: default\n"), 0o644)) }, config: true},
		"a dangling link":    {make: func(t *testing.T, p string) { require.NoError(t, os.Symlink("elsewhere.yaml", p)) }},
		"a directory":        {make: func(t *testing.T, p string) { require.NoError(t, os.Mkdir(p, 0o755)) }},
	} {
		t.Run(name, func(t *testing.T) {
			root := copySample(t)
			target := filepath.Join(root, config.FileName)
			tc.make(t, target)
			before, _ := os.ReadFile(target)
			args := []string{"config", "--init"}
			if tc.config {
				args = append([]string{"--config", target}, args...)
			}
			code, out, errOut := cfgRun(t, root, args...)
			assert.Equal(t, 1, code)
			assert.Empty(t, out)
			assert.Equal(t, "error: "+target+" exists already, and config --init never replaces it: edit it, or move it away and run config --init again\n", errOut)
			after, _ := os.ReadFile(target)
			assert.Equal(t, before, after)
			entries, err := os.ReadDir(root)
			require.NoError(t, err)
			for _, e := range entries {
				assert.False(t, strings.HasSuffix(e.Name(), ".tmp"), "a temporary file %s is left", e.Name())
			}
		})
	}
}

// A bad root or configuration stops --init with its own error, and nothing
// is written.
func TestConfigInit_WritesNothingFromABadRootOrConfiguration(t *testing.T) {
	file := filepath.Join(t.TempDir(), "repo")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	code, _, errOut := cfgRun(t, file, "config", "--init")
	assert.Equal(t, 1, code)
	assert.Equal(t, "error: repository root "+strconv.Quote(file)+" is not a directory\n", errOut)

	root := copySample(t)
	code, _, errOut = cfgRun(t, root, "--config", "../../testdata/docs/typo.yaml", "config", "--init")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "error: ../../testdata/docs/typo.yaml:2: unknown key \"no_gpu_path\" in the configuration")
	assert.NoFileExists(t, filepath.Join(root, config.FileName))
}
