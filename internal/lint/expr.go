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

// skipGuardStages returns the stage names that contains(…skipped_stages…,
// 'name') calls of an if: expression test, and whether skipped_stages is
// tested at all.
func skipGuardStages(expr string) (stages []string, tested bool) {
	lower := asciiLower(expr)
	for i := 0; ; {
		k := strings.Index(lower[i:], "contains(")
		if k < 0 {
			return stages, tested
		}
		open := i + k + len("contains")
		i = open + 1
		if p := i - len("contains(") - 1; p >= 0 && isIdentByte(lower[p]) {
			continue
		}
		args := callArgs(expr, open)
		if len(args) < 2 || !strings.Contains(args[0], "skipped_stages") {
			continue
		}
		tested = true
		if lit, ok := stringLiteral(strings.TrimSpace(args[1])); ok {
			stages = append(stages, lit)
		}
	}
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
