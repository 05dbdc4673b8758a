package timings

import (
	"bytes"
	"fmt"
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
	h100 := Source{Suite: "stage-c-8-gpu-h100", Backend: config.CUDA}
	m := Measurements{}
	m.Add(&Document{Seconds: Timings{"a": 1, "b": 2}})
	m.Add(&Document{Seconds: Timings{"a": 3}})
	m.Add(&Document{Seconds: Timings{"a": 4}, Sources: map[string]Source{"a": h100}})
	assert.Equal(t, Measurements{{File: "a"}: {1, 3}, {File: "b"}: {2}, {File: "a", Source: h100}: {4}}, m)
}

// planOne plans file (its text src) for seconds of one source.
func planOne(opts ApplyOptions, file string, src []byte, seconds float64, from Source) (FilePlan, *Apply) {
	if opts.MinRuns == 0 {
		opts.MinRuns = 1
	}
	if opts.TimeoutPerFile == 0 {
		opts.TimeoutPerFile = 1800
	}
	a := NewApply(config.Default(), opts, Measurements{}, nil)
	return a.Plan(Target{File: file, Measured: []Measured{{Source: from, Runs: 1, Seconds: seconds}}}, src), a
}

func messages(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%d %d %s\n", f.Level, f.Line, f.Msg)
	}
	return b.String()
}

// test_dumper.py is a copy of a Miles test file that registers for cuda
// and for rocm: the timings of a suite change only that suite's call.
func TestPlan_RealMilesFileChangesTheCallOfTheMeasuredSuite(t *testing.T) {
	src, err := os.ReadFile("testdata/test_dumper.py")
	require.NoError(t, err)
	cfg := config.Default()
	file := "tests/e2e/short/test_dumper.py"
	th := ApplyOptions{Threshold: DefaultThreshold}

	// Seconds of an unnamed run, with nothing to narrow the calls: which
	// backend's runners took 2000 s is not known, so nothing changes and
	// the run fails, offering --hw.
	p, a := planOne(th, file, src, 2000, Source{})
	assert.Empty(t, p.Edits)
	assert.Equal(t, "2 0 registers for stage-c-8-gpu-h100 (cuda, line 34) and nightly-stage-c-8-gpu-mi350 (rocm, line 35), and the timings do not say which of them measured it; left alone\n", messages(p.Findings))
	o := a.Outcome()
	assert.Equal(t, 1, o.Exit)
	assert.Equal(t, []Narrowing{{"--hw", "cuda", "if they were measured on cuda runners"}, {"--hw", "rocm", "if they were measured on rocm runners"}}, o.Narrow)

	want := bytes.Replace(src, []byte("register_cuda_ci(est_time=1100,"), []byte("register_cuda_ci(est_time=2000,"), 1)
	for name, tc := range map[string]struct {
		opts ApplyOptions
		from Source
	}{
		"the timings name the suite": {th, Source{Suite: "stage-c-8-gpu-h100", Backend: config.CUDA}},
		"--suite":                    {ApplyOptions{Threshold: DefaultThreshold, Suite: "stage-c-8-gpu-h100"}, Source{}},
		"--hw":                       {ApplyOptions{Threshold: DefaultThreshold, Backend: config.CUDA}, Source{}},
	} {
		p, a := planOne(tc.opts, file, src, 2000, tc.from)
		require.Len(t, p.Edits, 1, name)
		assert.Equal(t, 34, p.Edits[0].Line, name)
		assert.Equal(t, string(want), string(p.Text), name)
		assert.Equal(t, 0, a.Outcome().Exit, name)
	}
	regs, ferr := registry.FileRegistrations(file, want, cfg, nil)
	require.Nil(t, ferr)
	assert.Equal(t, 2000.0, regs[0].EstTime)
	assert.Equal(t, 1800.0, regs[1].EstTime)

	p, _ = planOne(ApplyOptions{Threshold: DefaultThreshold, Suite: "nightly-stage-c-8-gpu-mi350"}, file, src, 1801, Source{})
	assert.Empty(t, p.Edits, "within the threshold")
	p, _ = planOne(th, file, src, 3000, Source{Suite: "nightly-stage-c-8-gpu-mi350", Backend: config.ROCM})
	require.Len(t, p.Edits, 1)
	assert.Equal(t, 35, p.Edits[0].Line)

	p, _ = planOne(ApplyOptions{Threshold: DefaultThreshold, Suite: "stage-a-cpu"}, file, src, 3000, Source{})
	assert.Contains(t, messages(p.Findings), "no register call of suite stage-a-cpu")
	p, _ = planOne(th, file, src, 3000, Source{Suite: "stage-c-8-gpu-h200", Backend: config.CUDA})
	assert.Contains(t, messages(p.Findings), "measured by suite stage-c-8-gpu-h200 (cuda), but no register call of the file names it; left alone")
}

func TestPlan_KeepsWhatIsNotAPlainNumber(t *testing.T) {
	for _, lit := range []string{"True", "0x3C", "(0o74)"} {
		src := "register_cpu_ci(est_time=" + lit + ", suite='stage-a-cpu')  # c\n"
		p, _ := planOne(ApplyOptions{}, "tests/x/test_a.py", []byte(src), 500, Source{})
		assert.Empty(t, p.Edits, lit)
		assert.Contains(t, messages(p.Findings), "not a plain number literal", lit)
	}
	// Positional, parenthesized, underscored, a float: all plain numbers.
	src := "register_cpu_ci(( 1_0.5e0 ), 'stage-a-cpu')\n"
	p, _ := planOne(ApplyOptions{}, "tests/x/test_a.py", []byte(src), 500, Source{})
	require.Len(t, p.Edits, 1)
	assert.Equal(t, "register_cpu_ci(( 500 ), 'stage-a-cpu')\n", string(p.Text))

	p, _ = planOne(ApplyOptions{}, "tests/x/test_a.py", []byte("register_cpu_ci(est_time=x, suite='s')\n"), 5, Source{})
	assert.Contains(t, messages(p.Findings), "must be a literal constant")
}

// A figure no run can measure never becomes an est_time: the timings
// reader refuses it, and Plan refuses it again should one reach it. The
// largest one a reader accepts is written as a number the registry reads
// back, far from the int64 that 9.2e18 s wrapped to.
func TestPlan_NeverWritesAnEstTimeTheRegistryRefuses(t *testing.T) {
	src := []byte("register_cpu_ci(est_time=1, suite='stage-a-cpu')\n")
	p, a := planOne(ApplyOptions{}, "tests/x/test_a.py", src, 9.2e18, Source{})
	assert.Empty(t, p.Edits)
	assert.Contains(t, messages(p.Findings), "measured 9200000000000000000 seconds, which no run takes; left alone")
	assert.Equal(t, 1, a.Outcome().Exit)

	p, _ = planOne(ApplyOptions{}, "tests/x/test_a.py", src, MaxSeconds, Source{})
	require.Len(t, p.Edits, 1)
	assert.Equal(t, "register_cpu_ci(est_time=3100000, suite='stage-a-cpu')\n", string(p.Text))
}

// Only the registered files are targets; the rest of a timings file is
// left alone with a warning, and measurements of another suite or in too
// few runs are counted.
func TestNewApply_ReadsOnlyRegisteredFiles(t *testing.T) {
	h100 := Source{Suite: "stage-c-8-gpu-h100", Backend: config.CUDA}
	m := Measurements{}
	m.Add(&Document{Seconds: Timings{"tests/a.py": 1, "tests/gone.py": 2, "tests/b.py": 3, "tests/c.py": 4},
		Sources: map[string]Source{"tests/c.py": h100}})
	m.Add(&Document{Seconds: Timings{"tests/a.py": 5}})
	a := NewApply(config.Default(), ApplyOptions{MinRuns: 2, Backend: config.ROCM}, m,
		map[string]bool{"tests/a.py": true, "tests/b.py": true, "tests/c.py": true})
	assert.Equal(t, []Target{{File: "tests/a.py", Measured: []Measured{{Runs: 2, Seconds: 3}}}}, a.Targets)
	assert.Empty(t, a.Skipped, "tests/gone.py and tests/b.py were measured once: counted, not read")
	assert.Equal(t, []string{"2 file(s) measured in fewer than 2 run(s) left alone", "1 file(s) measured by other suites than --suite/--hw name left alone"}, a.Outcome().Notes)

	a = NewApply(config.Default(), ApplyOptions{MinRuns: 1}, m, map[string]bool{"tests/a.py": true})
	require.Len(t, a.Skipped, 3)
	assert.Equal(t, Finding{File: "tests/b.py", Level: LevelWarning,
		Msg: "not a test file of the repository (none of that name below the discovery roots: deleted, renamed or never one); left alone"}, a.Skipped[0])
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
		p, _ := planOne(ApplyOptions{Suite: suite}, file, []byte(src), measured, Source{})
		if len(p.Edits) == 0 {
			for _, fd := range p.Findings {
				if strings.TrimSpace(fd.Msg) == "" {
					t.Fatal("an empty finding")
				}
			}
			return
		}
		before, ferr := registry.FileRegistrations(file, []byte(src), cfg, nil)
		require.Nil(t, ferr)
		out := p.Text
		require.Equal(t, Rewrite([]byte(src), p.Edits), out)
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

// A quantile is named as it was given, without the noise of q*100 in
// floating point (0.57 would be p56.99999999999999).
func TestQuantileName_NamesThePercentileAsGiven(t *testing.T) {
	for given, want := range map[string]string{"0.5": "median", "p50": "median", "0.9": "p90", "p57": "p57",
		"0.07": "p7", "0.29": "p29", "p99.5": "p99.5", "0.999": "p99.9", "1": "p100"} {
		q, err := ParseQuantile(given)
		require.NoError(t, err, given)
		assert.Equal(t, want, QuantileName(q), given)
	}
}
