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

// The quick check's decisions, each from a table: a false verdict leaves
// the file to the scanner, which gives the exact error.

func TestIndentsAfter(t *testing.T) {
	cases := []struct {
		name         string
		indents      []int
		col          int
		pendingBlock bool
		want         []int
		wantOK       bool
	}{
		{"the same column", []int{0, 4}, 4, false, []int{0, 4}, true},
		{"the same column where a block must open", []int{0, 4}, 4, true, []int{0, 4}, false},
		{"an indent that opens a block", []int{0, 4}, 8, true, []int{0, 4, 8}, true},
		{"an indent where no block opens", []int{0, 4}, 8, false, []int{0, 4}, false},
		{"a dedent to a column of the stack", []int{0, 4, 8}, 0, false, []int{0}, true},
		{"a dedent one level", []int{0, 4, 8}, 4, false, []int{0, 4}, true},
		{"a dedent to a column the stack does not hold", []int{0, 4, 8}, 2, false, []int{0}, false},
		{"a dedent where a block must open", []int{0, 4}, 0, true, []int{0, 4}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := indentsAfter(c.indents, c.col, c.pendingBlock)
			assert.Equal(t, c.wantOK, ok)
			if ok {
				assert.Equal(t, c.want, got)
			}
		})
	}
	t.Run("no deeper than quickMaxIndents", func(t *testing.T) {
		full := make([]int, quickMaxIndents)
		for i := range full {
			full[i] = i
		}
		_, ok := indentsAfter(full, quickMaxIndents, true)
		assert.False(t, ok)
	})
}

func TestStartsCandidate(t *testing.T) {
	cases := []struct {
		line string
		want bool
	}{
		{"register_cuda_ci(est_time=1)", true},
		{"register_cuda_ci_more = 1", false}, // a longer name is another name
		{"(register_cuda_ci)(est_time=1)", true},
		{"import os", false},
		{"'register_cuda_ci'", false},
		{"x", false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, startsCandidate([]byte(c.line), 0, registerNames), "%q", c.line)
	}
}

func TestLiteralPrefix(t *testing.T) {
	cases := []struct {
		name      string
		src       string // the quote is the last byte
		numEnd    int
		wantStart int
		wantFlags uint8
		wantOK    bool
	}{
		{"no name before the quote", "x = '", 0, 4, 0, true},
		{"a prefix", "x = rb'", 0, 4, fRaw | fBytes, true},
		{"an f-string", "x = F'", 0, 4, fFormat, true},
		{"a keyword is no prefix", "if'", 0, 2, 0, true},
		{"a name that is neither", "foo'", 0, 0, 0, false},
		{"a number ends a name", "1b'", 1, 1, fBytes, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start, flags, ok := literalPrefix([]byte(c.src), c.numEnd, len(c.src)-1)
			assert.Equal(t, c.wantOK, ok)
			if ok {
				assert.Equal(t, c.wantStart, start)
				assert.Equal(t, c.wantFlags, flags)
			}
		})
	}
}

func TestPlainLiteral(t *testing.T) {
	cases := []struct {
		name     string
		src      string // the quote is the last byte
		numEnd   int
		lastKind uint8
		want     bool
	}{
		{"after a blank", "x = '", 0, 0, true},
		{"after a str literal", "'a' '", 0, 1, true},
		{"after a bytes literal: the kinds must be compared", "b'a' '", 0, 2, false},
		{"after a name: a prefix or a keyword", "f'", 0, 0, false},
		{"after a number, which ends a name", "1'", 1, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, plainLiteral([]byte(c.src), len(c.src)-1, c.numEnd, c.lastKind))
		})
	}
}

func TestSmallInt(t *testing.T) {
	long := strings.Repeat("9", maxIntDigits+1)
	cases := []struct {
		src  string // the number starts after "x="
		want int    // -1: the scanner checks it
	}{
		{"x=1800", 6},
		{"x=0", 3},
		{"x=7)", 3},
		{"x=00", -1}, // a single '0' only
		{"x=1.5", -1},
		{"x=1e6", -1},
		{"x=0x1f", -1},
		{"x=1_000", -1},
		{"x=.5", -1}, // a number after a '.' starts at it
		{"x=" + long, -1},
	}
	for _, c := range cases {
		i := 2
		if strings.HasPrefix(c.src, "x=.") {
			i = 3
		}
		assert.Equal(t, c.want, smallInt([]byte(c.src), i), "%.20q", c.src)
	}
}

func TestNumberStart(t *testing.T) {
	cases := []struct {
		src    string // the digit is the last byte
		want   int
		wantOK bool
	}{
		{"x=5", 2, true},
		{"x=.5", 2, true},
		{"x...5", 0, false}, // the dots group into "..." first
	}
	for _, c := range cases {
		at, ok := numberStart([]byte(c.src), len(c.src)-1)
		assert.Equal(t, c.wantOK, ok, "%q", c.src)
		if ok {
			assert.Equal(t, c.want, at, "%q", c.src)
		}
	}
}

func TestPairOK(t *testing.T) {
	cases := []struct {
		src  string // the '!' or '\\' is the first byte
		want bool
	}{
		{"!=1", true},
		{"!", false},
		{"!x", false},
		{"\\\nx", true},
		{"\\\n", false}, // a continuation needs a line after it
		{"\\x", false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, pairOK([]byte(c.src), 0), "%q", c.src)
	}
}

func TestCloserOf(t *testing.T) {
	for open, want := range map[byte]byte{'(': ')', '[': ']', '{': '}'} {
		assert.Equal(t, string(want), string(closerOf(open)))
	}
}
