package lint

import (
	"encoding/json"
	"slices"
	"strings"
)

// Small readers of GitHub expressions and label lists for the rules.

// refersTo reports whether an expression reads output of one of the
// policy jobs.
func refersTo(text string, policyJobs []string, output string) bool {
	for _, p := range policyJobs {
		if strings.Contains(text, "needs."+p+".outputs."+output) {
			return true
		}
	}
	return false
}

// policyName is the policy job a message suggests: the workflow's own, or
// the Miles name when it has none.
func policyName(policyJobs []string) string {
	if len(policyJobs) > 0 {
		return policyJobs[0]
	}
	return policyJobHint
}

// sameSet reports whether two label lists hold the same labels, whatever
// their order and repetitions: a runner must carry all of them, so only the
// set matters.
func sameSet(a, b []string) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	for _, s := range b {
		if !slices.Contains(a, s) {
			return false
		}
	}
	return true
}

// jsonList writes labels as the roster's message shows them: ["h100","8gpu"].
func jsonList(l []string) string {
	if l == nil {
		l = []string{}
	}
	b, _ := json.Marshal(l)
	return string(b)
}

// guardCall is one contains(…skipped_stages…, 'name') call of an if:
// expression.
type guardCall struct {
	stage string // the stage name tested, "" when not a string literal
	// negated says the expression uses the call as "not skipped" (an odd
	// number of ! on it and the groups around it, or `== false` after
	// it); unread says lint cannot tell (the call is another function's
	// argument).
	negated, unread bool
}

// skipGuardCalls returns the contains(…skipped_stages…, …) calls of an if:
// expression, in order.
func skipGuardCalls(expr string) []guardCall {
	var calls []guardCall
	lower := asciiLower(expr)
	for i := 0; ; {
		k := strings.Index(lower[i:], "contains(")
		if k < 0 {
			return calls
		}
		name := i + k
		open := name + len("contains")
		i = open + 1
		if name > 0 && isIdentByte(lower[name-1]) {
			continue
		}
		args := callArgs(expr, open)
		if len(args) < 2 || !strings.Contains(args[0], "skipped_stages") {
			continue
		}
		var call guardCall
		call.stage, _ = stringLiteral(strings.TrimSpace(args[1]))
		call.negated, call.unread = negation(lower, name, open)
		calls = append(calls, call)
	}
}

// negation reads how the call whose name starts at lower[name] and whose
// '(' is at lower[open] is used: negated by the `!`s before it and before
// each bracket group around it, and by a comparison with false after it
// (or after the groups it closes).
// unread is true when the call is an argument of another function.
func negation(lower string, name, open int) (negated, unread bool) {
	type group struct{ negated, call bool }
	var groups []group
	for i := 0; i < name; i++ {
		switch lower[i] {
		case '\'':
			k := strings.IndexByte(lower[i+1:], '\'')
			if k < 0 {
				return false, true
			}
			i += k + 1
		case '(':
			groups = append(groups, group{negated: bangsBefore(lower, i)%2 == 1, call: i > 0 && isIdentByte(lower[i-1])})
		case ')':
			if len(groups) > 0 {
				groups = groups[:len(groups)-1]
			}
		}
	}
	negated = bangsBefore(lower, name)%2 == 1
	for _, g := range groups {
		if g.call {
			return false, true
		}
		negated = negated != g.negated
	}
	if end := closeOf(lower, open); end >= 0 {
		// A comparison after the groups the call closes negates them,
		// as a ! before them does.
		after := strings.Join(strings.Fields(strings.TrimLeft(lower[end+1:], ") \t\r\n")), " ")
		if strings.HasPrefix(after, "== false") || strings.HasPrefix(after, "!= true") {
			negated = !negated
		}
	}
	return negated, false
}

// bangsBefore counts the `!` operators right before s[i], blanks between.
func bangsBefore(s string, i int) int {
	n := 0
	for i--; i >= 0; i-- {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
		case '!':
			n++
		default:
			return n
		}
	}
	return n
}

// closeOf returns the index of the bracket closing the one at s[open],
// respecting '…' strings, or -1.
func closeOf(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '\'':
			k := strings.IndexByte(s[i+1:], '\'')
			if k < 0 {
				return -1
			}
			i += k + 1
		case '(', '[':
			depth++
		case ')', ']':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// isIdentByte reports whether b may end a name in a GitHub expression, so
// that `xcontains(` is not read as a call of contains.
func isIdentByte(b byte) bool {
	return b == '_' || b == '-' || b == '.' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9'
}

// asciiLower lowers ASCII letters only, keeping every byte offset: the
// expression's function names are case-insensitive, its strings are not.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// callArgs splits the arguments of the call whose '(' is at s[open], at
// its top-level commas, respecting parentheses and '…' strings.
func callArgs(s string, open int) []string {
	var args []string
	depth, start := 0, open+1
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '\'':
			k := strings.IndexByte(s[i+1:], '\'')
			if k < 0 {
				return args
			}
			i += k + 1
		case '(', '[':
			depth++
		case ')', ']':
			depth--
			if depth == 0 {
				return append(args, s[start:i])
			}
		case ',':
			if depth == 1 {
				args = append(args, s[start:i])
				start = i + 1
			}
		}
	}
	return args
}

// stringLiteral reads a GitHub expression string literal: '…' with ”
// for a quote.
func stringLiteral(s string) (string, bool) {
	if len(s) < 2 || s[0] != '\'' || s[len(s)-1] != '\'' {
		return "", false
	}
	return strings.ReplaceAll(s[1:len(s)-1], "''", "'"), true
}
