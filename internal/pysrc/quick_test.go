package pysrc

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/testutil"
)

// FuzzQuickMatchesScanner checks that ReadCalls, with its quick check,
// gives exactly what reading every token with the scanner gives.
func FuzzQuickMatchesScanner(f *testing.F) {
	for _, s := range differentialInputs {
		f.Add([]byte(s))
	}
	src, err := os.ReadFile("testdata/bench_test_file.py")
	require.NoError(f, err)
	f.Add(src)
	f.Fuzz(func(t *testing.T, src []byte) {
		quick, quickErr := ReadCalls(src, registerNames)
		slow, slowErr := readCalls(src, registerNames)
		if fmt.Sprint(quickErr) != fmt.Sprint(slowErr) || !reflect.DeepEqual(quick, slow) {
			t.Fatalf("the quick check gives %v %+v, tokenizing gives %v %+v", quickErr, quick, slowErr, slow)
		}
	})
}

func TestReadCalls_QuickCheckMatchesScannerOnHandWrittenInputs(t *testing.T) {
	for _, in := range append(append([]string{}, differentialInputs...), grammarOnlyInputs...) {
		quick, quickErr := ReadCalls([]byte(in), registerNames)
		slow, slowErr := readCalls([]byte(in), registerNames)
		assert.Equal(t, fmt.Sprint(slowErr), fmt.Sprint(quickErr), "%q", in)
		assert.Equal(t, slow, quick, "%q", in)
	}
}

// The quick check is what makes the reader fast; these files are typical
// test files and must not fall back to the scanner.
func TestQuickScan_AcceptsTypicalFiles(t *testing.T) {
	src, err := os.ReadFile("testdata/bench_test_file.py")
	require.NoError(t, err)
	var q quickScan
	require.True(t, q.run(src, registerNames))
	assert.Len(t, q.cands, 1)
}

// The test files of a Miles checkout are the typical files.
func TestQuickScan_AcceptsTheTestFilesOfAMilesCheckout(t *testing.T) {
	root := testutil.MilesCheckout(t)
	var q quickScan
	var all, accepted int
	require.NoError(t, filepath.WalkDir(filepath.Join(root, "tests"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".py") {
			b, rerr := os.ReadFile(p)
			require.NoError(t, rerr)
			all++
			if checkText(b) == nil && q.run(b, registerNames) {
				accepted++
			}
		}
		return nil
	}))
	t.Logf("the quick check accepts %d of %d test files", accepted, all)
	assert.GreaterOrEqual(t, accepted*10, all*9, "the quick check falls back on more than a tenth of Miles's test files")
}
