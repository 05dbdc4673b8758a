package runner

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func classify(chunks ...string) (bool, string) {
	c := NewClassifier()
	for _, s := range chunks {
		_, _ = c.Write([]byte(s))
	}
	return c.Verdict()
}

func TestClassifier_Verdicts(t *testing.T) {
	tests := []struct {
		name      string
		output    string
		retriable bool
		reason    string
	}{
		{"empty output", "", false, "unknown failure type"},
		{"non-retriable wins over retriable", "accuracy low\nImportError: no module\n", false, "non-retriable error: ImportError"},
		{"non-retriable list order decides the reason", "FileNotFoundError\nSyntaxError\n", false, "non-retriable error: SyntaxError"},
		{"case-insensitive non-retriable", "cuda OUT of memory", false, "non-retriable error: CUDA out of memory"},
		{"OOM inside a word counts", "zoom in", false, "non-retriable error: OOM"},
		{"assertion chain within a line", "AssertionError: 0.4 not greater than 0.5", true, "retriable pattern: AssertionError:.*not greater than"},
		{"assertion chain case-insensitive", "assertionerror: X NOT LESS THAN y", true, "retriable pattern: AssertionError:.*not less than"},
		{"chain broken by newline", "AssertionError: x\nnot equal to", true, "AssertionError (assuming retriable)"},
		{"chain broken by carriage return", "AssertionError: x\rnot equal to", true, "AssertionError (assuming retriable)"},
		{"chain in the wrong order", "not equal to AssertionError: x", true, "AssertionError (assuming retriable)"},
		{"three-part chain", "AssertionError: 1 != 2 expected", true, "retriable pattern: AssertionError:.*!=.*expected"},
		{"three-part chain out of order", "AssertionError: expected 1 != 2", true, "AssertionError (assuming retriable)"},
		{"plain retriable word", "Latency regressed", true, "retriable pattern: latency"},
		{"bare assertion is case-sensitive", "assertionerror", false, "unknown failure type"},
		{"bare assertion", "raise AssertionError", true, "AssertionError (assuming retriable)"},
		{"undecodable bytes are dropped like Python's errors=ignore", "Runtime\xffError", false, "non-retriable error: RuntimeError"},
		{"dotless i folds to i", "Tımeout", true, "retriable pattern: timeout"},
		{"long s folds to s", "ſcore", true, "retriable pattern: score"},
		{"Kelvin sign folds to k", "core dumped \u212A", false, "non-retriable error: core dumped"},
		{"other non-ASCII breaks a literal", "sc\u00f6re", false, "unknown failure type"},
		{"replacement character is a real character", "sc\ufffdore", false, "unknown failure type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			retriable, reason := classify(tt.output)
			assert.Equal(t, tt.retriable, retriable)
			assert.Equal(t, tt.reason, reason)
		})
	}
}

func TestClassifier_SplitWritesGiveTheSameVerdict(t *testing.T) {
	outputs := []string{
		"AssertionError: accuracy 0.41 not greater than 0.50\n",
		"x AssertionError: 1 != 2 expected\n",
		"Tı\u212Aeout and \u0130mportError",
		"Runtime\xe2\x82Error",
	}
	for _, out := range outputs {
		wantR, wantReason := classify(out)
		for cut := 0; cut <= len(out); cut++ {
			for cut2 := cut; cut2 <= len(out) && cut2 <= cut+4; cut2++ {
				r, reason := classify(out[:cut], out[cut:cut2], out[cut2:])
				assert.Equal(t, wantR, r, "cut %d/%d of %q", cut, cut2, out)
				assert.Equal(t, wantReason, reason, "cut %d/%d of %q", cut, cut2, out)
			}
		}
	}
}

func TestClassifier_LongLineKeepsNoState(t *testing.T) {
	c := NewClassifier()
	_, _ = c.Write([]byte("AssertionError:"))
	chunk := []byte(strings.Repeat("x", 1<<16))
	for i := 0; i < 64; i++ {
		_, _ = c.Write(chunk)
	}
	_, _ = c.Write([]byte(" not greater than\n"))
	r, reason := c.Verdict()
	assert.True(t, r)
	assert.Equal(t, "retriable pattern: AssertionError:.*not greater than", reason)
}

// reference classifies with Go regular expressions over text prepared the
// way Python saw it: undecodable bytes dropped, U+0130 and U+0131 (which
// Go's (?i) does not fold onto 'i') mapped to 'i', split at CR and LF.
func reference(out string) (bool, string) {
	var b strings.Builder
	for i := 0; i < len(out); {
		r, size := utf8.DecodeRuneInString(out[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
		case r == 0x130 || r == 0x131:
			b.WriteByte('i')
		default:
			b.WriteRune(r)
		}
	}
	lines := regexp.MustCompile("[\r\n]").Split(b.String(), -1)
	search := func(pat string) bool {
		re := regexp.MustCompile(pat)
		for _, l := range lines {
			if re.MatchString(l) {
				return true
			}
		}
		return false
	}
	for _, p := range nonRetriablePatterns {
		if search("(?i)" + regexp.QuoteMeta(p)) {
			return false, "non-retriable error: " + p
		}
	}
	for _, c := range retriablePatterns {
		parts := make([]string, len(c))
		for i, s := range c {
			parts[i] = regexp.QuoteMeta(s)
		}
		if search("(?i)" + strings.Join(parts, ".*")) {
			return true, "retriable pattern: " + strings.Join(c, ".*")
		}
	}
	if search("AssertionError") {
		return true, "AssertionError (assuming retriable)"
	}
	return false, "unknown failure type"
}

func TestClassifier_AgreesWithRegexpOnRandomOutput(t *testing.T) {
	pieces := []string{"AssertionError", "assertionerror:", "AssertionError:", " not ", "greater than", "less than",
		"!=", "expected", "EXPECT", "accur", "acy", "sco", "re", "OO", "M", "\n", "\r", "\xff", "\xe2\x82", "\xe2\x82\xac",
		"ı", "İ", "\u212A", "ſ", "x", " ", "Error", "Import", "timeou", "t", "latenc", "y"}
	rng := rand.New(rand.NewSource(1))
	for n := 0; n < 1000; n++ {
		var b strings.Builder
		for k := rng.Intn(12); k >= 0; k-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		out := b.String()
		wantR, wantReason := reference(out)
		cut := rng.Intn(len(out) + 1)
		r, reason := classify(out[:cut], out[cut:])
		if !assert.Equal(t, wantReason, reason, "output %q", out) {
			return
		}
		assert.Equal(t, wantR, r)
	}
}
