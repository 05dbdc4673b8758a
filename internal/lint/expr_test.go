package lint

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A skip guard reads "not skipped": the `!` may stand on the call, on a
// group around it, or be a comparison with false; a guard that lost it
// reads "skipped".
func TestSkipGuardCalls_ReadTheNegation(t *testing.T) {
	const c = "contains(fromJSON(needs.p.outputs.skipped_stages || '[]'), 'gpu')"
	for _, tc := range []struct {
		expr            string
		negated, unread bool
	}{
		{"${{ !" + c + " }}", true, false},
		{"! " + c, true, false},
		{"always() && !cancelled() && !" + c, true, false},
		{"!(" + c + ")", true, false},
		{"!(always() && " + c + ")", true, false},
		{"!!" + c, false, false},
		{c + " == false", true, false},
		{"(" + c + ") != true", true, false},
		{"(" + c + ") == true", false, false},
		{"${{ " + c + " }}", false, false},
		{"always() && !cancelled() &&\n  " + c + " &&\n  needs.a.result == 'success'", false, false},
		{"success() && (!failure() || " + c + ")", false, false},
		{"Contains(needs.p.outputs.skipped_stages, 'gpu')", false, false},
		{"format('{0}', " + c + ") == 'false'", false, true},
		{"!contains(needs.p.outputs.labels, '(') && " + c, false, false},
		// A call's name inside a string is text, not a call.
		{"format('contains(needs.p.outputs.skipped_stages, ''x'')') != '' && !" + c, true, false},
		{c + "==false", true, false},
		{c + " == falsely", false, false},
		{strings.Repeat("contains(", 1000) + "!" + c, false, true},
		{strings.Repeat("(", 1000) + "!" + c, true, false},
	} {
		calls := skipGuardCalls(tc.expr)
		if assert.Len(t, calls, 1, tc.expr) {
			assert.Equal(t, guardCall{stage: "gpu", negated: tc.negated, unread: tc.unread}, calls[0], tc.expr)
		}
	}
	assert.Empty(t, skipGuardCalls("xcontains(needs.p.outputs.skipped_stages, 'gpu')"))
}

// An if: of many unclosed calls is read in time linear in its length:
// compare the ns/op of the sizes (3x the copies, about 3x the time).
func BenchmarkSkipGuardCalls_UnclosedCalls(b *testing.B) {
	for _, n := range []int{10000, 30000} {
		expr := strings.Repeat("contains(needs.p.outputs.skipped_stages, ", n) + "'gpu')"
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				skipGuardCalls(expr)
			}
		})
	}
}
