package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/timings"
)

// The flags decide the mode, the threshold, the figure and the history's
// filter; a bad combination is a usage error naming the flag, the first
// found in the order the flags are checked.
func TestTimingsApply_OptionsFromTheFlags(t *testing.T) {
	now := time.Date(2026, 12, 3, 6, 0, 0, 0, time.UTC)
	flags := func(edit func(o *TimingsApplyOptions)) *TimingsApplyOptions {
		o := &TimingsApplyOptions{Threshold: applyDefaultThreshold, MinRuns: applyDefaultMinRuns, TimeoutPerFile: applyDefaultTimeout}
		edit(o)
		return o
	}
	for _, tc := range []struct {
		name    string
		opts    *TimingsApplyOptions
		want    timings.ApplyOptions
		filter  history.Filter
		wantErr string
	}{
		{name: "the defaults write", opts: flags(func(o *TimingsApplyOptions) {}),
			want: timings.ApplyOptions{Threshold: timings.Threshold{Rel: 0.25, Abs: 60}, MinRuns: 1, TimeoutPerFile: 1800, Mode: timings.Write}},
		{name: "--check checks", opts: flags(func(o *TimingsApplyOptions) { o.Check = true }),
			want: timings.ApplyOptions{Threshold: timings.Threshold{Rel: 0.25, Abs: 60}, MinRuns: 1, TimeoutPerFile: 1800, Mode: timings.Check}},
		{name: "--diff diffs", opts: flags(func(o *TimingsApplyOptions) { o.Diff = true }),
			want: timings.ApplyOptions{Threshold: timings.Threshold{Rel: 0.25, Abs: 60}, MinRuns: 1, TimeoutPerFile: 1800, Mode: timings.Diff}},
		{name: "--check wins over --diff", opts: flags(func(o *TimingsApplyOptions) { o.Check, o.Diff = true, true }),
			want: timings.ApplyOptions{Threshold: timings.Threshold{Rel: 0.25, Abs: 60}, MinRuns: 1, TimeoutPerFile: 1800, Mode: timings.Check}},
		{name: "suite, hw, quantile and the history's filter", opts: flags(func(o *TimingsApplyOptions) {
			o.Suite, o.HW, o.Quantile, o.MinRuns, o.From, o.Cadence, o.Days = "stage-b", "cuda", "p90", 3, "reports", "nightly", 7
		}),
			want: timings.ApplyOptions{Suite: "stage-b", Backend: "cuda", Threshold: timings.Threshold{Rel: 0.25, Abs: 60}, MinRuns: 3,
				TimeoutPerFile: 1800, Mode: timings.Write, Quantile: 0.9},
			filter: history.Filter{Suite: "stage-b", Cadence: "nightly", Since: now.AddDate(0, 0, -7)}},
		{name: "a bad threshold", opts: flags(func(o *TimingsApplyOptions) { o.Threshold, o.MinRuns = "lots", 0 }), wantErr: "--threshold: "},
		{name: "a bad quantile", opts: flags(func(o *TimingsApplyOptions) { o.Quantile, o.MinRuns = "2", 0 }), wantErr: "--quantile: "},
		{name: "the filter's own errors first", opts: flags(func(o *TimingsApplyOptions) { o.Last, o.Days, o.MinRuns = 3, 3, 0 }),
			wantErr: "--last counts runs and --days counts days; give one of them"},
		{name: "a history filter without --from", opts: flags(func(o *TimingsApplyOptions) { o.Last, o.MinRuns = 5, 0 }),
			wantErr: "--cadence, --last and --days narrow the history --from reads; give --from DIR|URL"},
		{name: "no run is too few", opts: flags(func(o *TimingsApplyOptions) { o.MinRuns = 0 }), wantErr: "--min-runs must be at least 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, filter, err := tc.opts.applyOptions(now)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.True(t, strings.HasPrefix(err.Error(), tc.wantErr), "error %q", err)
				var ue *UsageError
				assert.ErrorAs(t, err, &ue)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.filter, filter)
		})
	}
}

// What timings apply prints of a finding, a file's plan and its outcome,
// in each mode, under GitHub Actions (annotated) and not.
func TestTimingsApply_LinesOfEachFindingEditAndOutcome(t *testing.T) {
	edit := timings.Edit{Line: 7, Declared: 60, Measured: 130.5, Runs: 3, Proposed: 140}
	plan := timings.FilePlan{File: "tests/a.py", Edits: []timings.Edit{edit},
		Findings: []timings.Finding{{File: "tests/a.py", Line: 9, Level: timings.LevelWarning, Msg: "ambiguous; left alone"}}}
	errOut := func(s string) applyLine { return applyLine{stderr: true, text: s} }
	out := func(s string) applyLine { return applyLine{text: s} }
	command := func(mode timings.Mode, narrow ...string) string {
		return "miles-ci timings apply mode=" + [...]string{"write", "check", "diff"}[mode] + " " + strings.Join(narrow, " ")
	}
	drift := "est_time 60 drifted: measured 130.5s (median of 3 run(s)); proposed 140"
	for _, tc := range []struct {
		name string
		got  []applyLine
		want []applyLine
	}{
		{"an error finding of a file", findingLines(timings.Finding{File: "tests/b.py", Level: timings.LevelError, Msg: "unreadable"}, false),
			[]applyLine{errOut("error: tests/b.py: unreadable")}},
		{"a warning at a line, annotated", findingLines(timings.Finding{File: "tests/b.py", Line: 3, Level: timings.LevelWarning, Msg: "50% off"}, true),
			[]applyLine{errOut("warning: tests/b.py:3: 50% off"), out("::warning file=tests/b.py,line=3,title=est_time::50%25 off")}},
		{"a notice is said as a warning", findingLines(timings.Finding{File: "c.py", Level: timings.LevelNotice, Msg: "m"}, false),
			[]applyLine{errOut("warning: c.py: m")}},
		{"writing lists each change", planLines(&timings.ApplyOptions{Mode: timings.Write}, plan, false),
			[]applyLine{errOut("warning: tests/a.py:9: ambiguous; left alone"), out("tests/a.py:7 est_time 60 -> 140 (measured 130.5s)")}},
		{"writing, annotated as notices", planLines(&timings.ApplyOptions{Mode: timings.Write}, plan, true),
			[]applyLine{errOut("warning: tests/a.py:9: ambiguous; left alone"),
				out("::warning file=tests/a.py,line=9,title=est_time::ambiguous; left alone"),
				out("tests/a.py:7 est_time 60 -> 140 (measured 130.5s)"),
				out("::notice file=tests/a.py,line=7,title=est_time::" + drift)}},
		{"checking lists each drift, annotated as an error", planLines(&timings.ApplyOptions{Mode: timings.Check}, timings.FilePlan{File: "tests/a.py", Edits: plan.Edits}, true),
			[]applyLine{out("tests/a.py:7 declared 60 measured 130.5 proposed 140"),
				out("::error file=tests/a.py,line=7,title=est_time::" + drift)}},
		{"a diff says the changes itself", planLines(&timings.ApplyOptions{Mode: timings.Diff}, timings.FilePlan{File: "tests/a.py", Edits: plan.Edits}, true), nil},
		{"the figure is named", planLines(&timings.ApplyOptions{Mode: timings.Check, Quantile: 0.9}, timings.FilePlan{File: "a.py", Edits: plan.Edits}, true)[1:],
			[]applyLine{out("::error file=a.py,line=7,title=est_time::est_time 60 drifted: measured 130.5s (p90 of 3 run(s)); proposed 140")}},
		{"an outcome's notes, hints in the same mode, and the update", outcomeLines(timings.Outcome{Notes: []string{"2 file(s) left alone"},
			Narrow: []timings.Narrowing{{Flag: "--hw", Value: "cuda", Why: "for the CUDA calls"}}, Update: true, Drifted: 3, ChangedFiles: 2}, timings.Check, command),
			[]applyLine{errOut("2 file(s) left alone"), errOut("hint: for the CUDA calls, run: miles-ci timings apply mode=check --hw cuda"),
				errOut("3 est_time value(s) in 2 file(s) drifted; to update them, run: miles-ci timings apply mode=write ")}},
		{"a quiet outcome says nothing", outcomeLines(timings.Outcome{}, timings.Write, command), nil},
	} {
		assert.Equal(t, tc.want, tc.got, tc.name)
	}
}
