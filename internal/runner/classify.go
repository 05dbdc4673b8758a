package runner

import (
	"sync"
	"unicode/utf8"
)

// The retry classification of SPEC §6. The patterns are listed here in the
// order they are checked: the first list decides "not retriable", the second
// "retriable", and a bare case-sensitive AssertionError is the last resort.
// Reasons name the pattern as the Python runner's regular expressions spell
// it, so logs stay comparable.
var (
	nonRetriablePatterns = []string{
		"SyntaxError", "ImportError", "ModuleNotFoundError", "NameError", "TypeError",
		"AttributeError", "RuntimeError", "CUDA out of memory", "OOM", "Segmentation fault",
		"core dumped", "ConnectionRefusedError", "FileNotFoundError",
	}
	// retriablePatterns are literal chains: each element must occur after
	// the previous one within the same line (the regexp's `.*`).
	retriablePatterns = [][]string{
		{"AssertionError:", "not greater than"},
		{"AssertionError:", "not less than"},
		{"AssertionError:", "not equal to"},
		{"AssertionError:", "!=", "expected"},
		{"accuracy"}, {"score"}, {"latency"}, {"throughput"}, {"timeout"},
	}
)

const bareAssertion = "AssertionError"

// Classifier decides whether a failed attempt is worth retrying from the
// attempt's output, which it reads as a stream (it is an io.Writer). Its
// memory does not depend on the output's size or on the length of a line.
//
// The output is read the way the Python runner read it: as UTF-8 text with
// undecodable bytes dropped, split into lines at '\n' and '\r', and matched
// case-insensitively with Python's folding rules for these ASCII patterns
// (ASCII letters, plus U+0130 and U+0131 for 'i', U+017F for 's' and U+212A
// for 'k'). Every pattern is a chain of literals that must appear in order
// within one line; a chain is matched with an Aho-Corasick automaton over
// all literals and, per line, the position where each chain's previous
// literal first ended. The earliest end is always the best one, so that
// position is all the state a chain needs.
type Classifier struct {
	fold *automaton // every literal of the case-insensitive patterns
	raw  *automaton // the case-sensitive bareAssertion

	foldState, rawState int
	pos                 int64   // symbols fed since the start of the line
	stepEnd             []int64 // per chain step: where it first ended on this line, -1 if not yet
	matched             []bool  // per pattern (non-retriable, then retriable), ever
	bare                bool

	pend  [utf8.UTFMax]byte // an incomplete UTF-8 sequence from the last Write
	npend int
}

// chainStep is one literal of one chain.
type chainStep struct {
	pattern int // index into matched
	step    int // index of the literal in its chain
	last    bool
	flat    int // index into stepEnd of this step
}

// The automata are built on first use, not at start-up: building them
// costs milliseconds that every command (even --version) would pay, and
// only a run with --enable-retry classifies output.
var (
	foldLiterals []string
	literalSteps [][]chainStep // per literal, every chain step it is
	patternNames []string
	nSteps       int
	foldAuto     *automaton
	rawAuto      *automaton
	buildOnce    sync.Once
)

func buildAutomata() {
	rawAuto = newAutomaton([]string{bareAssertion}, false)
	index := map[string]int{}
	lit := func(s string) int {
		s = foldASCII(s)
		if i, ok := index[s]; ok {
			return i
		}
		index[s] = len(foldLiterals)
		foldLiterals = append(foldLiterals, s)
		literalSteps = append(literalSteps, nil)
		return index[s]
	}
	add := func(chain []string, name string) {
		p := len(patternNames)
		patternNames = append(patternNames, name)
		for j, s := range chain {
			i := lit(s)
			literalSteps[i] = append(literalSteps[i], chainStep{pattern: p, step: j, last: j == len(chain)-1, flat: nSteps})
			nSteps++
		}
	}
	for _, s := range nonRetriablePatterns {
		add([]string{s}, s)
	}
	for _, c := range retriablePatterns {
		name := c[0]
		for _, s := range c[1:] {
			name += ".*" + s
		}
		add(c, name)
	}
	foldAuto = newAutomaton(foldLiterals, true)
}

// NewClassifier returns a classifier that has seen no output.
func NewClassifier() *Classifier {
	buildOnce.Do(buildAutomata)
	c := &Classifier{fold: foldAuto, raw: rawAuto, stepEnd: make([]int64, nSteps), matched: make([]bool, len(patternNames))}
	c.newLine()
	return c
}

// Write feeds output to the classifier. It never fails.
func (c *Classifier) Write(p []byte) (int, error) {
	n := len(p)
	if c.npend > 0 {
		// Finish the sequence split by the previous Write. Its bytes and
		// the first few new ones are decoded together; a sequence that
		// turns out invalid is dropped one byte at a time, as a decoder
		// ignoring errors does.
		var tmp [2 * utf8.UTFMax]byte
		k := copy(tmp[:], c.pend[:c.npend])
		m := copy(tmp[k:], p)
		b := tmp[:k+m]
		i := 0
		for i < k {
			if !utf8.FullRune(b[i:]) {
				c.npend = copy(c.pend[:], b[i:])
				return n, nil
			}
			r, size := utf8.DecodeRune(b[i:])
			c.rune(r, size)
			i += size
		}
		p = p[i-k:]
		c.npend = 0
	}
	for len(p) > 0 {
		if b := p[0]; b < utf8.RuneSelf {
			c.symbol(b)
			p = p[1:]
			continue
		}
		if !utf8.FullRune(p) {
			c.npend = copy(c.pend[:], p)
			break
		}
		r, size := utf8.DecodeRune(p)
		c.rune(r, size)
		p = p[size:]
	}
	return n, nil
}

// rune feeds one decoded non-ASCII rune; size 1 with RuneError is an
// undecodable byte, which is dropped.
func (c *Classifier) rune(r rune, size int) {
	if r == utf8.RuneError && size == 1 {
		return
	}
	if r < utf8.RuneSelf {
		c.symbol(byte(r))
		return
	}
	// No pattern holds a non-ASCII character, so the raw automaton
	// restarts; Python's case folding maps four runes onto ASCII letters.
	c.rawState = 0
	var folded byte
	switch r {
	case 0x130, 0x131:
		folded = 'i'
	case 0x17F:
		folded = 's'
	case 0x212A:
		folded = 'k'
	}
	c.pos++
	if folded == 0 {
		c.foldState = 0
		return
	}
	c.step(folded)
}

// symbol feeds one ASCII byte.
func (c *Classifier) symbol(b byte) {
	if b == '\n' || b == '\r' {
		c.newLine()
		return
	}
	c.rawState = c.raw.next[c.rawState][b]
	if c.raw.out[c.rawState] != 0 {
		c.bare = true
	}
	c.pos++
	c.step(lowerASCII[b])
}

// step advances the case-insensitive automaton by a folded byte at c.pos-1.
func (c *Classifier) step(b byte) {
	c.foldState = c.fold.next[c.foldState][b]
	out := c.fold.out[c.foldState]
	for out != 0 {
		lit := trailingZeros(out)
		out &^= 1 << lit
		end := c.pos
		start := end - int64(len(c.fold.patterns[lit]))
		for _, s := range literalSteps[lit] {
			if c.matched[s.pattern] {
				continue
			}
			if s.step > 0 {
				prev := c.stepEnd[s.flat-1]
				if prev < 0 || start < prev {
					continue
				}
			}
			if s.last {
				c.matched[s.pattern] = true
			} else if c.stepEnd[s.flat] < 0 {
				c.stepEnd[s.flat] = end
			}
		}
	}
}

func (c *Classifier) newLine() {
	c.foldState, c.rawState, c.pos = 0, 0, 0
	for i := range c.stepEnd {
		c.stepEnd[i] = -1
	}
}

// Verdict says whether the output seen so far makes a failure retriable,
// and why.
func (c *Classifier) Verdict() (retriable bool, reason string) {
	nr := len(nonRetriablePatterns)
	for i := 0; i < nr; i++ {
		if c.matched[i] {
			return false, "non-retriable error: " + patternNames[i]
		}
	}
	for i := nr; i < len(patternNames); i++ {
		if c.matched[i] {
			return true, "retriable pattern: " + patternNames[i]
		}
	}
	if c.bare {
		return true, "AssertionError (assuming retriable)"
	}
	return false, "unknown failure type"
}

var lowerASCII = func() (t [utf8.RuneSelf]byte) {
	for i := range t {
		b := byte(i)
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		t[i] = b
	}
	return t
}()

func foldASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerASCII[c]
	}
	return string(b)
}

func trailingZeros(x uint64) int {
	n := 0
	for x&1 == 0 {
		x >>= 1
		n++
	}
	return n
}

// automaton is an Aho-Corasick matcher over ASCII with a full transition
// table; out[s] has bit i set when pattern i ends at state s. With fold the
// patterns are lower-cased, and so must be the symbols fed to it.
type automaton struct {
	patterns []string
	next     [][utf8.RuneSelf]int
	out      []uint64
}

func newAutomaton(patterns []string, fold bool) *automaton {
	if len(patterns) > 64 {
		panic("runner: too many classifier literals")
	}
	a := &automaton{patterns: patterns}
	goto_ := []map[byte]int{{}}
	a.out = []uint64{0}
	for i, p := range patterns {
		s := 0
		for j := 0; j < len(p); j++ {
			b := p[j]
			if fold {
				b = lowerASCII[b]
			}
			t, ok := goto_[s][b]
			if !ok {
				t = len(goto_)
				goto_ = append(goto_, map[byte]int{})
				a.out = append(a.out, 0)
				goto_[s][b] = t
			}
			s = t
		}
		a.out[s] |= 1 << i
	}
	a.next = make([][utf8.RuneSelf]int, len(goto_))
	fail := make([]int, len(goto_))
	// Breadth-first: a state's failure link and row are final before its
	// children need them.
	queue := []int{0}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for b := 0; b < utf8.RuneSelf; b++ {
			t, ok := goto_[s][byte(b)]
			switch {
			case ok:
				if s != 0 {
					fail[t] = a.next[fail[s]][b]
				}
				a.out[t] |= a.out[fail[t]]
				a.next[s][b] = t
				queue = append(queue, t)
			case s != 0:
				a.next[s][b] = a.next[fail[s]][b]
			}
		}
	}
	return a
}
