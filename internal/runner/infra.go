package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// Fingerprint is an output line that blames the host, not the code (the
// configuration's infra_fingerprints, compiled): a failed attempt whose
// output has a line Pattern matches has the cause report.CauseInfra.
type Fingerprint struct {
	Name    string
	Pattern *regexp.Regexp
}

// InfraMatch is the first output line of an attempt that a fingerprint
// matched: the fingerprint's name and the line, trimmed, valid UTF-8 and
// at most report.CauseLineMax bytes.
type InfraMatch struct {
	Fingerprint string
	Line        string
}

// matchLineMax bounds the part of a line that is matched: the first
// matchLineMax bytes of a longer line are, the rest is skipped. The
// messages the fingerprints name open their lines or sit near the start,
// and a line of any length (a progress bar redrawn without a newline, a
// tensor printed whole) then costs at most this much memory.
const matchLineMax = 4 << 10

// infraWatch reads the output of one attempt for the fingerprints and
// keeps the first match. Each output stream writes to a lineMatcher of its
// own (stream), which splits it into lines as classify.go does, at '\n'
// and '\r'; the first line to match wins, whichever stream it came from.
// Its memory is one bounded line per stream, whatever the output.
type infraWatch struct {
	fps []Fingerprint
	// filters hold, per fingerprint, literals one of which every line it
	// matches contains (nil: none known, the pattern itself decides): a
	// line that holds none of them, nearly every line, is not given to
	// the regular expression, which costs a hundred times more.
	filters []*prefilter
	// lower: some filter compares lower-cased text.
	lower bool

	done    atomic.Bool // a match was found: the rest of the output is not read
	mu      sync.Mutex
	match   InfraMatch
	streams []*lineMatcher
}

// newInfraWatch returns a watch over fps, or nil when there are none.
func newInfraWatch(fps []Fingerprint) *infraWatch {
	if len(fps) == 0 {
		return nil
	}
	w := &infraWatch{fps: fps, filters: make([]*prefilter, len(fps))}
	for i, f := range fps {
		w.filters[i] = newPrefilter(f.Pattern)
		w.lower = w.lower || w.filters[i] != nil && w.filters[i].fold
	}
	return w
}

// stream returns the writer of one output stream.
func (w *infraWatch) stream() io.Writer {
	m := &lineMatcher{w: w}
	w.mu.Lock()
	w.streams = append(w.streams, m)
	w.mu.Unlock()
	return m
}

// result matches the last line of every stream, which no line break
// ended, and returns the first match. It is called once the output has
// been copied.
func (w *infraWatch) result() (InfraMatch, bool) {
	w.mu.Lock()
	streams := append([]*lineMatcher(nil), w.streams...)
	w.mu.Unlock()
	for _, m := range streams {
		m.endLine()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.match, w.done.Load()
}

// check matches one line and keeps it when it is the first to match;
// low is the stream's buffer for the line lower-cased.
func (w *infraWatch) check(line []byte, low *[]byte) {
	if w.done.Load() {
		return
	}
	var lowered []byte
	if w.lower {
		lowered = append((*low)[:0], line...)
		for i, c := range lowered {
			lowered[i] = lowerASCII[c&0x7f] | c&0x80
		}
		*low = lowered
	}
	for i, f := range w.fps {
		if !w.filters[i].admits(line, lowered) || !f.Pattern.Match(line) {
			continue
		}
		w.mu.Lock()
		if !w.done.Load() {
			w.match = InfraMatch{Fingerprint: f.Name, Line: causeLine(line)}
			w.done.Store(true)
		}
		w.mu.Unlock()
		return
	}
}

// lineMatcher splits one stream into lines for its infraWatch. It never
// fails and keeps at most matchLineMax bytes.
type lineMatcher struct {
	w   *infraWatch
	buf []byte // the start of the current line
	low []byte // the line lower-cased, for the prefilters
}

func (m *lineMatcher) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && !m.w.done.Load() {
		i := bytes.IndexAny(p, "\n\r")
		if i < 0 {
			m.add(p)
			break
		}
		m.add(p[:i])
		m.endLine()
		p = p[i+1:]
	}
	return n, nil
}

// add appends what fits of b to the current line.
func (m *lineMatcher) add(b []byte) {
	if room := matchLineMax - len(m.buf); len(b) > room {
		b = b[:room]
	}
	m.buf = append(m.buf, b...)
}

func (m *lineMatcher) endLine() {
	if len(m.buf) > 0 {
		m.w.check(m.buf, &m.low)
	}
	m.buf = m.buf[:0]
}

// causeLine is a matched line as a report keeps it: without the blanks
// around it, invalid UTF-8 replaced, at most report.CauseLineMax bytes cut
// at a character's start.
func causeLine(line []byte) string {
	s := strings.ToValidUTF8(string(bytes.TrimSpace(line)), "\uFFFD")
	if len(s) <= report.CauseLineMax {
		return s
	}
	cut := report.CauseLineMax
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// recheckHost says which fingerprint matched the output of attempt a of
// file, an infra failure, and asks the host again (Options.Preflight). It
// reports whether the host was found not ready; with no preflight to ask,
// it was not. An interrupt during the check says nothing of the host: the
// run ends as interrupted.
func (r *runState) recheckHost(ctx context.Context, file string, a int, m InfraMatch) (notReady bool) {
	o := &r.opts
	r.printf("[CI Infra] %s: %s matched: %s\n", textfmt.OneLine(file), m.Fingerprint, textfmt.OneLine(m.Line))
	if o.Preflight == nil {
		return false
	}
	return !o.Preflight(ctx, fmt.Sprintf("after %s attempt %d", file, a)) && ctx.Err() == nil
}

// annotateInfra shows the infra failure of att, an attempt of file, in the
// run's summary: a warning when the attempt is retried, else an error.
func (r *runState) annotateInfra(file string, att Attempt, retried bool) {
	o := &r.opts
	host := o.Host
	if host == "" {
		host = "this host"
	}
	level := "error"
	if retried {
		level = "warning"
	}
	o.Log.Annotate(level, file, "Infra failure on "+host,
		fmt.Sprintf("attempt %d failed: infra fingerprint %s matched: %s", att.Number, att.Fingerprint, att.CauseLine))
}

// prefilter is a necessary condition of a fingerprint's match: the line
// holds one of lits (lower-case ASCII compared with the line lower-cased
// where fold says so).
type prefilter struct {
	lits []literal
	fold bool // some literal is compared lower-cased
	// foldKS: a lower-cased literal holds 'k' or 's', which (?i) also
	// matches as U+212A KELVIN SIGN and U+017F LONG S; a line holding
	// either is left to the pattern.
	foldKS bool
}

// The runes (?i) matches as 'k' and 's' beyond ASCII.
var kelvin, longS = []byte("\u212a"), []byte("\u017f")

type literal struct {
	s    []byte
	fold bool
}

// newPrefilter reads the literals every match of re must contain from its
// syntax tree; nil when it cannot tell (a pattern of classes and
// repetitions only).
func newPrefilter(re *regexp.Regexp) *prefilter {
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return nil
	}
	lits, ok := necessary(tree.Simplify())
	if !ok {
		return nil
	}
	p := &prefilter{lits: lits}
	for _, l := range lits {
		p.fold = p.fold || l.fold
		p.foldKS = p.foldKS || l.fold && bytes.ContainsAny(l.s, "ks")
	}
	return p
}

// necessary returns literals one of which every match of re contains, and
// whether there are such.
func necessary(re *syntax.Regexp) ([]literal, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		l := literal{s: []byte(string(re.Rune)), fold: re.Flags&syntax.FoldCase != 0}
		if l.fold {
			for _, r := range re.Rune {
				if r >= utf8.RuneSelf {
					return nil, false // folded beyond ASCII: left to the pattern
				}
			}
			l.s = bytes.ToLower(l.s)
		}
		return []literal{l}, len(l.s) > 0
	case syntax.OpCapture, syntax.OpPlus:
		return necessary(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return necessary(re.Sub[0])
		}
	case syntax.OpAlternate:
		var all []literal
		for _, sub := range re.Sub {
			lits, ok := necessary(sub)
			if !ok {
				return nil, false
			}
			all = append(all, lits...)
		}
		return all, true
	case syntax.OpConcat:
		// Any part's literals will do; the part whose shortest is longest
		// rules out the most lines.
		var best []literal
		bestLen := 0
		for _, sub := range re.Sub {
			if lits, ok := necessary(sub); ok {
				if n := shortest(lits); n > bestLen {
					best, bestLen = lits, n
				}
			}
		}
		return best, best != nil
	}
	return nil, false
}

func shortest(lits []literal) int {
	n := -1
	for _, l := range lits {
		if n < 0 || len(l.s) < n {
			n = len(l.s)
		}
	}
	return n
}

// admits reports whether line may match: it holds one of the literals.
// A nil prefilter admits every line.
func (p *prefilter) admits(line, lowered []byte) bool {
	if p == nil {
		return true
	}
	if p.foldKS && (bytes.Contains(line, kelvin) || bytes.Contains(line, longS)) {
		return true
	}
	for _, l := range p.lits {
		in := line
		if l.fold {
			in = lowered
		}
		if bytes.Contains(in, l.s) {
			return true
		}
	}
	return false
}
