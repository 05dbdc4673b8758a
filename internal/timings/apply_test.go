package timings

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/registry"
)

func TestRound_TwoSignificantDigitsUpWholeSeconds(t *testing.T) {
	for in, want := range map[float64]int64{
		0: 1, 0.4: 1, 1: 1, 7.2: 8, 45.3: 46, 60: 60, 60.0000000001: 60, 99.5: 100,
		100: 100, 187: 190, 190: 190, 1234: 1300, 1100.1: 1200, 12345: 13000,
	} {
		assert.Equal(t, want, Round(in), "%v", in)
	}
}

func TestParseThreshold_PercentSecondsOrBoth(t *testing.T) {
	for in, want := range map[string]Threshold{
		"25%,60s": {0.25, 60}, "10%": {0.1, 0}, "30s": {0, 30}, "0": {}, "5s, 50%": {0.5, 5},
	} {
		got, err := ParseThreshold(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "25", "-1%", "x%", "1%,2%", "1s,2s", "NaN%", "Inf s"} {
		_, err := ParseThreshold(bad)
		assert.Error(t, err, bad)
	}
}

func TestThreshold_BothPartsMustBeExceeded(t *testing.T) {
	th := DefaultThreshold
	assert.False(t, th.Drifted(1, 30), "2900% but 29s")
	assert.False(t, th.Drifted(3600, 3700), "100s but 3%")
	assert.True(t, th.Drifted(600, 900))
	assert.True(t, th.Drifted(600, 300))
}

func TestMedian_OfTheRuns(t *testing.T) {
	assert.Equal(t, 5.0, Median([]float64{9, 1, 5}))
	assert.Equal(t, 4.0, Median([]float64{9, 1, 3, 5}))
	m := Measurements{}
	m.Add(Timings{"a": 1, "b": 2})
	m.Add(Timings{"a": 3})
	assert.Equal(t, Measurements{"a": {1, 3}, "b": {2}}, m)
}

// test_dumper.py is a copy of a Miles test file that registers for cuda
// and for rocm: the timings of a suite change only that suite's call.
func TestPlan_RealMilesFileChangesTheCallOfTheMeasuredSuite(t *testing.T) {
	src, err := os.ReadFile("testdata/test_dumper.py")
	require.NoError(t, err)
	cfg := config.Default()
	file := "tests/e2e/short/test_dumper.py"

	_, err = Plan(file, src, cfg, "", 2000, DefaultThreshold)
	require.ErrorContains(t, err, "registers for several suites")

	p, err := Plan(file, src, cfg, "stage-c-8-gpu-h100", 2000, DefaultThreshold)
	require.NoError(t, err)
	require.Len(t, p.Edits, 1)
	assert.Equal(t, 34, p.Edits[0].Line)
	out := Rewrite(src, p.Edits)
	want := bytes.Replace(src, []byte("register_cuda_ci(est_time=1100,"), []byte("register_cuda_ci(est_time=2000,"), 1)
	assert.Equal(t, string(want), string(out))
	regs, ferr := registry.FileRegistrations(file, out, cfg, nil)
	require.Nil(t, ferr)
	assert.Equal(t, 2000.0, regs[0].EstTime)
	assert.Equal(t, 1800.0, regs[1].EstTime)

	p, err = Plan(file, src, cfg, "nightly-stage-c-8-gpu-mi350", 1801, DefaultThreshold)
	require.NoError(t, err)
	assert.Empty(t, p.Edits, "within the threshold")
	p, err = Plan(file, src, cfg, "nightly-stage-c-8-gpu-mi350", 3000, DefaultThreshold)
	require.NoError(t, err)
	require.Len(t, p.Edits, 1)
	assert.Equal(t, 35, p.Edits[0].Line)

	_, err = Plan(file, src, cfg, "stage-a-cpu", 3000, DefaultThreshold)
	assert.ErrorContains(t, err, "no register call of suite stage-a-cpu")
}

func TestPlan_KeepsWhatIsNotAPlainNumber(t *testing.T) {
	cfg := config.Default()
	for _, lit := range []string{"True", "0x3C", "(0o74)"} {
		src := "register_cpu_ci(est_time=" + lit + ", suite='stage-a-cpu')  # c\n"
		p, err := Plan("tests/x/test_a.py", []byte(src), cfg, "", 500, DefaultThreshold)
		require.NoError(t, err, lit)
		assert.Empty(t, p.Edits, lit)
		require.Len(t, p.Kept, 1, lit)
		assert.Contains(t, p.Kept[0].Reason, "not a plain number literal", lit)
	}
	// Positional, parenthesized, underscored, a float: all plain numbers.
	src := "register_cpu_ci(( 1_0.5e0 ), 'stage-a-cpu')\n"
	p, err := Plan("tests/x/test_a.py", []byte(src), cfg, "", 500, DefaultThreshold)
	require.NoError(t, err)
	require.Len(t, p.Edits, 1)
	assert.Equal(t, "register_cpu_ci(( 500 ), 'stage-a-cpu')\n", string(Rewrite([]byte(src), p.Edits)))

	_, err = Plan("tests/x/test_a.py", []byte("register_cpu_ci(est_time=x, suite='s')\n"), cfg, "", 5, DefaultThreshold)
	assert.ErrorContains(t, err, "must be a literal constant")
}

// FuzzRewrite: for any source, Plan either refuses it or gives edits whose
// rewrite the registry reads back with the proposed values, every other
// registration as it was, and nothing else of the file changed.
func FuzzRewrite(f *testing.F) {
	seed, err := os.ReadFile("testdata/test_dumper.py")
	require.NoError(f, err)
	f.Add(string(seed), 3000.0, "stage-c-8-gpu-h100")
	f.Add("register_cpu_ci(est_time=1, suite='stage-a-cpu')\n", 500.0, "")
	f.Add("register_cpu_ci((1.5e1), 'stage-a-cpu'); register_cpu_ci(2, 'stage-a-cpu')\n", 90.0, "")
	f.Add("(register_cpu_ci)(est_time=1_0, suite='stage-a-cpu',\\\n labels=[])\r\n", 1e6, "stage-a-cpu")
	cfg := config.Default()
	f.Fuzz(func(t *testing.T, src string, measured float64, suite string) {
		if !(measured >= 0 && measured < 1e12) {
			return
		}
		file := "tests/x/test_f.py"
		p, err := Plan(file, []byte(src), cfg, suite, measured, Threshold{})
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatal("an empty refusal")
			}
			return
		}
		before, ferr := registry.FileRegistrations(file, []byte(src), cfg, nil)
		require.Nil(t, ferr)
		out := Rewrite([]byte(src), p.Edits)
		after, ferr := registry.FileRegistrations(file, out, cfg, nil)
		require.Nil(t, ferr, "the rewrite of %q is no longer a valid file: %q", src, out)
		require.Len(t, after, len(before))
		edited := map[int]int64{}
		for _, e := range p.Edits {
			edited[e.Line] = e.Proposed
		}
		for i := range before {
			want := before[i]
			if v, ok := edited[want.Line]; ok {
				want.EstTime = float64(v)
			}
			assert.Equal(t, want, after[i])
		}
		// Nothing but the literals changed: putting the old literals back
		// gives src again.
		back := []byte{}
		at, from := 0, 0
		for _, e := range p.Edits { // Plan lists them in source order
			require.GreaterOrEqual(t, e.Start, from)
			back = append(back, out[at:at+e.Start-from]...)
			back = append(back, src[e.Start:e.End]...)
			at += e.Start - from + len(e.Text())
			from = e.End
		}
		back = append(back, out[at:]...)
		assert.Equal(t, src, string(back))
	})
}
