package policy

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
)

func TestAdapt_TriggerTable(t *testing.T) {
	cfg := config.Default()
	tests := []struct {
		name    string
		trigger Trigger
		cadence string
		raw     []string
	}{
		{"override wins over a pull request", Trigger{Event: "pull_request", PRLabelsJSON: `["run-ci-all"]`, CadenceOverride: "release"}, Release, []string{}},
		{"override skips the PR labels check", Trigger{Event: "pull_request", PRLabelsJSON: "not json", CadenceOverride: "weekly"}, Weekly, []string{}},
		{"override wins over a schedule", Trigger{Event: "schedule", Schedule: "0 15 * * 0-5", CadenceOverride: "release"}, Release, []string{}},
		{"override skips the schedule check", Trigger{Event: "schedule", Schedule: "bogus", CadenceOverride: "regular"}, Regular, []string{}},
		{"override skips the event check", Trigger{Event: "push", CadenceOverride: "nightly"}, Nightly, []string{}},
		{"override with no event at all", Trigger{CadenceOverride: "nightly"}, Nightly, []string{}},
		{"pull request with no labels", Trigger{Event: "pull_request", PRLabelsJSON: `[]`}, Regular, []string{}},
		{"pull request keeps labels in order with duplicates", Trigger{Event: "pull_request",
			PRLabelsJSON: `["run-ci-fsdp", "bug", "run-ci-fsdp", "bypass-fastfail"]`}, Regular,
			[]string{"run-ci-fsdp", "run-ci-fsdp", "bypass-fastfail"}},
		{"pull request with nightly is nightly", Trigger{Event: "pull_request", PRLabelsJSON: `["run-ci-long", "nightly"]`}, Nightly,
			[]string{"run-ci-long", "nightly"}},
		{"nightly schedule", Trigger{Event: "schedule", Schedule: "0 15 * * 0-5"}, Nightly, []string{}},
		{"weekly schedule", Trigger{Event: "schedule", Schedule: "0 15 * * 6"}, Weekly, []string{}},
		{"workflow dispatch is regular", Trigger{Event: "workflow_dispatch", PRLabelsJSON: `["nightly"]`, Schedule: "x"}, Regular, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Adapt(cfg, tt.trigger)
			require.NoError(t, err)
			assert.Equal(t, tt.cadence, got.Cadence)
			assert.Equal(t, tt.raw, got.RawLabels)
			assert.Equal(t, tt.trigger.CadenceOverride != "", got.Overridden)
		})
	}
}

func TestAdapt_Errors(t *testing.T) {
	cfg := config.Default()
	tests := []struct {
		name    string
		trigger Trigger
		want    string
	}{
		{"push", Trigger{Event: "push"}, "Unsupported PR Test trigger: push"},
		{"empty event", Trigger{Event: ""}, "Unsupported PR Test trigger: "},
		{"event names are case-sensitive", Trigger{Event: "Pull_Request"}, "Unsupported PR Test trigger: Pull_Request"},
		{"pull_request_target is not pull_request", Trigger{Event: "pull_request_target", PRLabelsJSON: "[]"}, "Unsupported PR Test trigger: pull_request_target"},
		{"unknown cron", Trigger{Event: "schedule", Schedule: "0 3 * * *"}, "No CI policy is defined for schedule: 0 3 * * *"},
		{"empty cron", Trigger{Event: "schedule"}, "No CI policy is defined for schedule: "},
		{"cron is compared exactly", Trigger{Event: "schedule", Schedule: "0 15 * * 6 "}, "No CI policy is defined for schedule: 0 15 * * 6 "},
		{"bad PR labels", Trigger{Event: "pull_request", PRLabelsJSON: "run-ci-fsdp"}, "PR labels were not a JSON string array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Adapt(cfg, tt.trigger)
			var pe *Error
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tt.want, pe.Msg)
		})
	}
}

// Every row was checked against the reference's parser (json.loads, then
// the safe-name filter).
func TestKeptPRLabels_MatchesThePythonReference(t *testing.T) {
	tests := []struct {
		in   string
		want []string // nil: "PR labels were not a JSON string array"
	}{
		{`[]`, []string{}},
		{`[]  `, []string{}},
		{" [\"nightly\"]\n", []string{"nightly"}},
		{"[\"nightly\"]\t\r\n", []string{"nightly"}},
		{`[""]`, []string{}},
		{`["run-ci-a" ,"nightly"]`, []string{"run-ci-a", "nightly"}},
		{`["run-ci-a", "run-ci-a"]`, []string{"run-ci-a", "run-ci-a"}},
		{`["bypass-fastfail", "run-ci-A9"]`, []string{"bypass-fastfail", "run-ci-A9"}},
		{`["run-ci-9"]`, []string{"run-ci-9"}},
		{`["run-ci-a-"]`, []string{"run-ci-a-"}},
		{`["run-ci-\u0061"]`, []string{"run-ci-a"}},
		{`["run-ci-a", "nightly", "run-ci-a", "x", "run-ci-", "run-ci-_a", "run-ci-a..b", "NIGHTLY", " nightly"]`,
			[]string{"run-ci-a", "nightly", "run-ci-a", "run-ci-a..b"}},
		{`["run-ci-", "run-ci-a b", "run-ci-x;rm", "RUN-CI-fsdp", "Nightly", "run-ci-_x", "run-ci-ok.1"]`, []string{"run-ci-ok.1"}},
		{`["run-ci-a\n"]`, []string{}}, // a trailing newline is not a full match
		{`["run-ci-a\u0000"]`, []string{}},
		{`["run-ci-a\u2028"]`, []string{}},
		{`["run-ci-\u0430"]`, []string{}},  // Cyrillic a: the classes are ASCII only
		{`["run-ci-\u0661"]`, []string{}},  // Arabic-Indic digit
		{`["run-ci-\uff41"]`, []string{}},  // full-width a: no NFKC here
		{`["run-ci-a\ud800"]`, []string{}}, // lone surrogate
		{`["\ud83d\ude00"]`, []string{}},
		{`["\t"]`, []string{}},
		{"[\"run-ci-\xff\"]", []string{}}, // invalid UTF-8 inside a string
		{``, nil},
		{`  `, nil},
		{`run-ci-fsdp`, nil},
		{`null`, nil},
		{`[null]`, nil},
		{`[true]`, nil},
		{`[-0]`, nil},
		{`[NaN]`, nil},
		{`[1e999]`, nil},
		{`["x",1.5]`, nil},
		{`[[]]`, nil},
		{`"run-ci-all"`, nil},
		{`{"labels": ["run-ci-fsdp"]}`, nil},
		{`{"a":1,"a":2}`, nil},
		{`["nightly",]`, nil},
		{`["nightly"] x`, nil},
		{`["a"]]`, nil},
		{`[] []`, nil},
		{"[]\x00", nil},
		{"\ufeff[]", nil},
		{`['run-ci-a']`, nil},
		{`["a" "b"]`, nil},
		{`["\x"]`, nil},
		{"[\"a\nb\"]", nil}, // a raw control character inside a string
		{"[\"run-ci-a\t\"]", nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := KeptPRLabels(tt.in)
			if tt.want == nil {
				var pe *Error
				require.ErrorAs(t, err, &pe)
				assert.Equal(t, "PR labels were not a JSON string array", pe.Msg)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestIsSafeRunCILabel(t *testing.T) {
	for s, want := range map[string]bool{
		"run-ci-a": true, "run-ci-Z": true, "run-ci-0": true, "run-ci-a_b.c-d": true,
		"run-ci-": false, "run-ci--a": false, "run-ci-.a": false, "run-ci-_a": false,
		"run-ci-a b": false, "run-ci-a/b": false, "run-ci-a\n": false, "\nrun-ci-a": false,
		"Run-ci-a": false, "run-ci": false, "nightly": false, "": false,
	} {
		assert.Equal(t, want, IsSafeRunCILabel(s), "%q", s)
	}
}

func TestResolveWorkflow_OverrideIsValidatedByResolve(t *testing.T) {
	_, err := ResolveWorkflow(config.Default(), Trigger{Event: "workflow_dispatch", CadenceOverride: "monthly"})
	var pe *Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "Unknown CI cadence 'monthly'; expected one of ['nightly', 'regular', 'release', 'weekly']", pe.Msg)
}

func TestResolveWorkflow_ResolvesThePolicyOfTheKeptLabels(t *testing.T) {
	wf, err := ResolveWorkflow(config.Default(), Trigger{Event: "pull_request", PRLabelsJSON: `["megatron", "run-ci-fsdp", "bypass-fastfail"]`})
	require.NoError(t, err)
	assert.Equal(t, Regular, wf.Cadence)
	assert.Equal(t, []string{"run-ci-fsdp", "bypass-fastfail"}, wf.RawLabels)
	assert.Equal(t, []string{"fsdp"}, wf.Policy.IncludeLabels)
	assert.True(t, wf.Policy.Bypass)
	assert.Empty(t, wf.Warnings, "unprefixed PR labels are dropped before they could warn")
}
