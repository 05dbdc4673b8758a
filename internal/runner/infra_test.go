package runner

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
)

// testFingerprints are two of the built-in fingerprints, as the
// configuration compiles them.
var testFingerprints = []Fingerprint{
	{"cuda-802", regexp.MustCompile(`(?i)system not yet initiali[sz]ed|cudaErrorSystemNotReady`)},
	{"port-in-use", regexp.MustCompile(`(?i)address already in use|\bEADDRINUSE\b`)},
}

const line802 = "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized"

// watchAll writes each chunk to the stream of its index and returns the
// result.
func watchAll(fps []Fingerprint, streams ...[]string) (InfraMatch, bool) {
	w := newInfraWatch(fps)
	ws := make([]interface{ Write([]byte) (int, error) }, len(streams))
	for i := range streams {
		ws[i] = w.stream()
	}
	for i, chunks := range streams {
		for _, c := range chunks {
			_, _ = ws[i].Write([]byte(c))
		}
	}
	return w.result()
}

func TestInfraWatch_FindsTheFirstLineAFingerprintMatches(t *testing.T) {
	tests := []struct {
		name    string
		streams [][]string
		want    InfraMatch
		matched bool
	}{
		{"a line split across writes", [][]string{{"loading\nRuntimeError: ... Error 80", "2: system not yet ", "initialized\nnext\n"}},
			InfraMatch{"cuda-802", "RuntimeError: ... Error 802: system not yet initialized"}, true},
		{"the first line wins over a later one of an earlier fingerprint", [][]string{{"OSError: [Errno 98] Address already in use\n", line802 + "\n"}},
			InfraMatch{"port-in-use", "OSError: [Errno 98] Address already in use"}, true},
		{"on one line the first fingerprint of the table wins", [][]string{{"EADDRINUSE while system not yet initialized\n"}},
			InfraMatch{"cuda-802", "EADDRINUSE while system not yet initialized"}, true},
		{"a carriage return ends a line, as a progress bar redraws it", [][]string{{"  3%|▎  | 1/36\r  Error 802: system not yet initialized   \r  6%|"}},
			InfraMatch{"cuda-802", "Error 802: system not yet initialized"}, true},
		{"the last line needs no line break", [][]string{{"ok\n", "  " + line802}},
			InfraMatch{"cuda-802", line802}, true},
		{"streams keep their own lines", [][]string{{"system not yet "}, {"initialized\n"}}, InfraMatch{}, false},
		{"a match on the second stream", [][]string{{"Uvicorn running on http://127.0.0.1:30000\n"}, {"ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 30000): address already in use\n"}},
			InfraMatch{"port-in-use", "ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 30000): address already in use"}, true},
		{"words apart on two lines do not match", [][]string{{"system not yet\ninitialized\n"}}, InfraMatch{}, false},
		{"no output", [][]string{{}}, InfraMatch{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := watchAll(testFingerprints, tt.streams...)
			assert.Equal(t, tt.matched, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// A line is matched on its first matchLineMax bytes; the line kept is
// at most report.CauseLineMax bytes of valid UTF-8, cut between
// characters.
func TestInfraWatch_BoundsTheLineMatchedAndKept(t *testing.T) {
	long := line802 + " " + strings.Repeat("é", 3000)
	got, ok := watchAll(testFingerprints, []string{long + "\n"})
	require.True(t, ok)
	assert.LessOrEqual(t, len(got.Line), report.CauseLineMax)
	assert.True(t, utf8.ValidString(got.Line))
	assert.True(t, strings.HasPrefix(long, got.Line))
	assert.Greater(t, len(got.Line), report.CauseLineMax-utf8.UTFMax)

	_, ok = watchAll(testFingerprints, []string{strings.Repeat("x", matchLineMax) + line802 + "\n"})
	assert.False(t, ok, "beyond the bytes matched")

	got, ok = watchAll(testFingerprints, []string{"\xff\xfe Error 802: system not yet initialized\n"})
	require.True(t, ok)
	assert.Equal(t, "\uFFFD Error 802: system not yet initialized", got.Line)
}

// Memory does not grow with the output: writing a huge line without a
// line break allocates nothing once the line buffer is full.
func TestInfraWatch_AHugeLineAllocatesNothing(t *testing.T) {
	w := newInfraWatch(testFingerprints)
	s := w.stream()
	chunk := bytes.Repeat([]byte("0.125, "), 64<<10/7)
	_, _ = s.Write(chunk)
	allocs := testing.AllocsPerRun(100, func() { _, _ = s.Write(chunk) })
	assert.Zero(t, allocs)
	assert.LessOrEqual(t, cap(s.(*lineMatcher).buf), 2*matchLineMax)
}

// BenchmarkInfraWatch_LogLines is the cost of reading ordinary log lines
// (none matching) for the built-in fingerprints' worth of patterns.
func BenchmarkInfraWatch_LogLines(b *testing.B) {
	fps := append([]Fingerprint(nil), testFingerprints...)
	for _, p := range []string{
		`no CUDA-capable device is detected|No CUDA GPUs are available|cudaErrorNoDevice|CUDA_ERROR_NO_DEVICE`,
		`CUDA driver version is insufficient for CUDA runtime version|NVIDIA driver on your system is too old`,
		`unhandled system error|ncclSystemError`, `NVRM: Xid|GPU has fallen off the bus`,
		`(?i)uncorrectable ECC error|ECC_UNCORRECTABLE|cudaErrorECCUncorrectable|hipErrorECCNotCorrectable`,
	} {
		fps = append(fps, Fingerprint{"f", regexp.MustCompile(p)})
	}
	var log bytes.Buffer
	for log.Len() < 1<<20 {
		log.WriteString("[2026-08-14 10:21:07 TP0] Prefill batch. #new-seq: 3, #new-token: 8192, #cached-token: 32, token usage: 0.03\n")
		log.WriteString("node17-2:36748:36748 [0] NCCL INFO Using network IB\n")
	}
	b.SetBytes(int64(log.Len()))
	b.ReportAllocs()
	for b.Loop() {
		w := newInfraWatch(fps)
		s := w.stream()
		data := log.Bytes()
		for len(data) > 0 {
			n := min(len(data), 64<<10)
			_, _ = s.Write(data[:n])
			data = data[n:]
		}
		if _, ok := w.result(); ok {
			b.Fatal("matched a healthy log")
		}
	}
}

// BenchmarkInfraWatch_NoNewline is the cost of a line that never ends.
func BenchmarkInfraWatch_NoNewline(b *testing.B) {
	chunk := bytes.Repeat([]byte("0.125, "), 64<<10/7)
	w := newInfraWatch(testFingerprints)
	s := w.stream()
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for b.Loop() {
		_, _ = s.Write(chunk)
	}
}

// referenceMatch is what the watch must find, written the plain way: every
// line (cut at matchLineMax) against every pattern, no prefilter.
func referenceMatch(fps []Fingerprint, out []byte) (InfraMatch, bool) {
	for _, line := range strings.FieldsFunc(string(out), func(r rune) bool { return r == '\n' || r == '\r' }) {
		if len(line) > matchLineMax {
			line = line[:matchLineMax]
		}
		for _, f := range fps {
			if f.Pattern.MatchString(line) {
				return InfraMatch{f.Name, causeLine([]byte(line))}, true
			}
		}
	}
	return InfraMatch{}, false
}

// The prefilters never hide a match: (?i) also matches "system" spelled
// with U+017F LONG S, and "EADDRINUSE" with U+212A KELVIN SIGN.
func TestInfraWatch_PrefiltersAgreeWithThePatterns(t *testing.T) {
	for _, out := range []string{"Error 802: \u017fystem not yet initialized\n", "code: -98, name: EADDRINU\u017fE\n",
		"OSError: [Errno 98] ADDRESS ALREADY IN USE\n", "xEADDRINUSE\n", "name: EADDRINUSE,\n"} {
		want, wantOK := referenceMatch(testFingerprints, []byte(out))
		got, ok := watchAll(testFingerprints, []string{out})
		assert.Equal(t, wantOK, ok, out)
		assert.Equal(t, want, got, out)
	}
}

// FuzzInfraWatch checks that the watch finds what the plain reading
// finds, however the output is cut into writes, and that a kept line is
// always a bounded, valid, single line.
func FuzzInfraWatch(f *testing.F) {
	f.Add([]byte(line802+"\n"), 10)
	f.Add([]byte("ok\r\n\xffEADDRINUSE"), 3)
	f.Add([]byte(strings.Repeat("é", 3000)+"address already in use"), 2999)
	f.Add([]byte("\u017fystem not yet initiali\u017fed"), 4)
	f.Fuzz(func(t *testing.T, out []byte, cut int) {
		ref, okRef := referenceMatch(testFingerprints, out)
		whole, ok1 := watchAll(testFingerprints, []string{string(out)})
		if ok1 != okRef || whole != ref {
			t.Fatalf("the watch gave %v %+v, the plain reading %v %+v", ok1, whole, okRef, ref)
		}
		if cut < 0 || cut > len(out) {
			cut = len(out) / 2
		}
		split, ok2 := watchAll(testFingerprints, []string{string(out[:cut]), string(out[cut:])})
		if ok1 != ok2 || whole != split {
			t.Fatalf("one write gave %v %+v, two %v %+v", ok1, whole, ok2, split)
		}
		if ok1 && (len(whole.Line) > report.CauseLineMax || !utf8.ValidString(whole.Line) || strings.ContainsAny(whole.Line, "\r\n")) {
			t.Fatalf("kept line %q", whole.Line)
		}
	})
}
