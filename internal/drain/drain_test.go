package drain

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runner is a runner of the list: "online"/"offline", its custom labels,
// and the read-only ones GitHub gives every self-hosted runner.
func runner(id int64, name, status string, labels ...string) Runner {
	r := Runner{ID: id, Name: name, Status: status, Labels: []Label{
		{Name: "self-hosted", Type: ReadOnly}, {Name: "Linux", Type: ReadOnly}, {Name: "X64", Type: ReadOnly}}}
	for _, l := range labels {
		r.Labels = append(r.Labels, Label{Name: l, Type: "custom"})
	}
	return r
}

var sets = map[string][]string{
	"h100-8":  {"h100", "8gpu"},
	"h100-8b": {"h100", "8gpu"},
	"h200-8":  {"h200", "8gpu"},
	"mi350-4": {"self-hosted", "amd", "mi350", "4gpu"},
	"cpu":     {"self-hosted"},
}

func suspect(host string, suites ...string) Suspect {
	return Suspect{Host: host, Runner: host, Suites: suites, Evidence: []string{"1 infra failure (cuda-802 ×1)"}}
}

// line writes a plan compactly: "drain NAME LABEL" per action, "keep
// HOST: REASON" per host kept.
func lines(p Plan) []string {
	var out []string
	for _, a := range p.Actions {
		out = append(out, "drain "+a.Runner+" "+a.Label)
	}
	for _, k := range p.Kept {
		out = append(out, "keep "+k.Host+": "+k.Reason)
	}
	return out
}

func TestDecide(t *testing.T) {
	h100 := []Runner{
		runner(1, "h1", "online", "h100", "8gpu"),
		runner(2, "h2", "online", "h100", "8gpu"),
		runner(3, "h3", "online", "h100", "8gpu"),
		runner(4, "g1", "online", "h200", "8gpu"),
		runner(5, "g2", "online", "h200", "8gpu"),
	}
	cases := []struct {
		name     string
		suspects []Suspect
		runners  []Runner
		max      int
		want     []string
		sets     map[string][]string // nil: sets
	}{
		{"the most specific label: h100, which fewer runners carry than 8gpu",
			[]Suspect{suspect("h1", "h100-8")}, h100, 1,
			[]string{"drain h1 h100"}, nil},
		{"ties go to the earlier label of runs_on",
			[]Suspect{suspect("a", "h100-8")},
			[]Runner{runner(1, "a", "online", "h100", "8gpu"), runner(2, "b", "online", "h100", "8gpu")}, 1,
			[]string{"drain a h100"}, nil},
		{"never self-hosted, an OS or an architecture label",
			[]Suspect{suspect("m1", "mi350-4")},
			[]Runner{runner(1, "m1", "online", "amd", "mi350", "4gpu"), runner(2, "m2", "online", "amd", "mi350", "4gpu", "8gpu"),
				runner(3, "m3", "online", "amd", "mi300", "4gpu")}, 1,
			[]string{"drain m1 mi350"}, nil},
		{"a set of generic labels only: nothing to remove",
			[]Suspect{suspect("a", "cpu")},
			[]Runner{runner(1, "a", "online"), runner(2, "b", "online")}, 1,
			[]string{"keep a: carries no label of [self-hosted] that can be removed (only self-hosted, OS and architecture labels)"}, nil},
		{"the last online carrier of its set is kept",
			[]Suspect{suspect("a", "h100-8")},
			[]Runner{runner(1, "a", "online", "h100", "8gpu"), runner(2, "b", "offline", "h100", "8gpu"), runner(3, "c", "online", "h200", "8gpu")}, 1,
			[]string{"keep a: the last online runner carrying [h100, 8gpu]: draining it would leave h100-8 nowhere to run"}, nil},
		{"an offline suspect is drained only when another online runner carries its set",
			[]Suspect{suspect("a", "h100-8")},
			[]Runner{runner(1, "a", "offline", "h100", "8gpu"), runner(2, "b", "offline", "h100", "8gpu")}, 1,
			[]string{"keep a: the last online runner carrying [h100, 8gpu]: draining it would leave h100-8 nowhere to run"}, nil},
		{"a busy runner is online: it counts as a carrier",
			[]Suspect{suspect("a", "h100-8")},
			[]Runner{runner(1, "a", "online", "h100", "8gpu"), func() Runner { r := runner(2, "b", "online", "h100", "8gpu"); r.Busy = true; return r }()}, 1,
			[]string{"drain a h100"}, nil},
		{"--max-drain 1: one runner per label set, the next kept",
			[]Suspect{suspect("h1", "h100-8"), suspect("h2", "h100-8")}, h100, 1,
			[]string{"drain h1 h100", "keep h2: --max-drain 1 reached for [h100, 8gpu]"}, nil},
		{"--max-drain 3: the removals planned before count, so the last carrier stays",
			[]Suspect{suspect("h1", "h100-8"), suspect("h2", "h100-8"), suspect("h3", "h100-8")}, h100, 3,
			[]string{"drain h1 h100", "drain h2 h100",
				"keep h3: the last online runner carrying [h100, 8gpu]: draining it would leave h100-8 nowhere to run"}, nil},
		{"the limit is per label set: another set drains its own",
			[]Suspect{suspect("h1", "h100-8"), suspect("g1", "h200-8")}, h100, 1,
			[]string{"drain h1 h100", "drain g1 h200"}, nil},
		{"two suites of one set are one set",
			[]Suspect{suspect("h1", "h100-8b", "h100-8", "h100-8")}, h100, 1,
			[]string{"drain h1 h100"}, nil},
		{"a runner drained before (no longer carrying the set) is left",
			[]Suspect{suspect("a", "h100-8")},
			[]Runner{runner(1, "a", "online", "8gpu"), runner(2, "b", "online", "h100", "8gpu")}, 1,
			[]string{"keep a: no longer carries [h100, 8gpu] (drained before)"}, nil},
		{"a host known by its hostname only",
			[]Suspect{{Host: "ct-1", Suites: []string{"h100-8"}}}, h100, 1,
			[]string{"keep ct-1: known by its hostname only: no runner to take a label from"}, nil},
		{"a runner the list does not hold",
			[]Suspect{suspect("elsewhere", "h100-8")}, h100, 1,
			[]string{"keep elsewhere: not in the runner list (another repository's or organization's runner, or removed)"}, nil},
		{"a suite the configuration does not name",
			[]Suspect{suspect("h1", "gone")}, h100, 1,
			[]string{"keep h1: ran gone, which the configuration does not name"}, nil},
		{"names and labels match without regard to case, the runner's spelling is removed",
			[]Suspect{suspect("H1", "h100-8")},
			[]Runner{runner(1, "h1", "online", "H100", "8GPU"), runner(2, "h2", "online", "h100", "8gpu")}, 1,
			[]string{"drain h1 H100"}, nil},
		{"a read-only label is never removed",
			[]Suspect{suspect("a", "h100-8")},
			[]Runner{{ID: 1, Name: "a", Status: "online", Labels: []Label{{"h100", ReadOnly}, {"8gpu", "custom"}}}, runner(2, "b", "online", "h100", "8gpu")}, 1,
			[]string{"drain a 8gpu"}, nil},
		{"a label whose removal would strand another suite gives way to the next",
			[]Suspect{suspect("a", "h100-8")},
			[]Runner{runner(1, "a", "online", "h100", "8gpu", "4gpu"), runner(2, "b", "online", "h100", "8gpu")}, 1,
			[]string{"drain a 8gpu"}, map[string][]string{"h100-8": {"h100", "8gpu"}, "h100-4": {"h100", "4gpu"}}},
		{"when every label would strand a suite, the runner is kept",
			[]Suspect{suspect("a", "h100-8")},
			[]Runner{runner(1, "a", "online", "h100", "8gpu", "4gpu"), runner(2, "b", "online", "h100", "8gpu")}, 1,
			[]string{"keep a: the last online runner carrying [h100, 4gpu]: draining it would leave h100-4 nowhere to run"},
			map[string][]string{"h100-8": {"h100", "8gpu"}, "h100-4": {"h100", "4gpu"}, "any-8-4": {"8gpu", "4gpu"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ls := c.sets
			if ls == nil {
				ls = sets
			}
			p := Decide(Input{Suspects: c.suspects, Runners: c.runners, LabelSets: ls, MaxDrain: c.max})
			assert.Equal(t, c.want, lines(p))
		})
	}
}

func TestDecide_LeavesTheInputAlone(t *testing.T) {
	rs := []Runner{runner(1, "a", "online", "h100", "8gpu"), runner(2, "b", "online", "h100", "8gpu")}
	p := Decide(Input{Suspects: []Suspect{suspect("a", "h100-8")}, Runners: rs, LabelSets: sets})
	require.Len(t, p.Actions, 1)
	assert.True(t, rs[0].Has("h100"), "the plan works on a copy of the list")
	a := p.Actions[0]
	assert.Equal(t, Action{RunnerID: 1, Runner: "a", Label: "h100", LabelSet: []string{"h100", "8gpu"},
		Suites: []string{"h100-8"}, Evidence: []string{"1 infra failure (cuda-802 ×1)"}}, a)
}

func TestRunnerOf(t *testing.T) {
	byName := map[string]int{"h1": 0, "h2": 3}
	cases := []struct {
		name       string
		s          Suspect
		want       int
		wantReason string
	}{
		{"a runner of the list", Suspect{Host: "h2", Runner: "h2"}, 3, ""},
		{"runner names match without regard to case", Suspect{Host: "H1", Runner: "H1"}, 0, ""},
		{"a host known by its hostname only", Suspect{Host: "ct-1"}, -1,
			"known by its hostname only: no runner to take a label from"},
		{"a runner the list does not hold", Suspect{Host: "x", Runner: "x"}, -1,
			"not in the runner list (another repository's or organization's runner, or removed)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			i, reason := runnerOf(c.s, byName)
			assert.Equal(t, c.want, i)
			assert.Equal(t, c.wantReason, reason)
		})
	}
}

func TestLimitReason(t *testing.T) {
	g := group{set: []string{"h100", "8gpu"}, suites: []string{"h100-8", "h100-8b"}}
	cases := []struct {
		name                      string
		drained, maxDrain, others int
		want                      string
	}{
		{"under the limit, another online carrier: no limit holds", 0, 1, 1, ""},
		{"--max-drain reached", 1, 1, 5, "--max-drain 1 reached for [h100, 8gpu]"},
		{"--max-drain 3 not reached", 2, 3, 1, ""},
		{"--max-drain is checked before the last carrier", 3, 3, 0, "--max-drain 3 reached for [h100, 8gpu]"},
		{"no other online carrier",
			0, 1, 0, "the last online runner carrying [h100, 8gpu]: draining it would leave h100-8, h100-8b nowhere to run"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, limitReason(g, c.drained, c.maxDrain, c.others))
		})
	}
}

func TestFirstSafe(t *testing.T) {
	// a carries h100, 8gpu and 4gpu; b only h100 and 8gpu; c 8gpu and 4gpu,
	// offline.
	runners := []Runner{
		runner(1, "a", "online", "h100", "8gpu", "4gpu"),
		runner(2, "b", "online", "h100", "8gpu"),
		runner(3, "c", "offline", "8gpu", "4gpu"),
	}
	h100x8 := group{set: []string{"h100", "8gpu"}, suites: []string{"h100-8"}}
	h100x4 := group{set: []string{"h100", "4gpu"}, suites: []string{"h100-4"}}
	any84 := group{set: []string{"8gpu", "4gpu"}, suites: []string{"any-8-4"}}
	cases := []struct {
		name       string
		labels     []string
		all        []group
		want       string
		wantReason string
	}{
		{"the first candidate when it strands no suite", []string{"h100", "8gpu"}, []group{h100x8}, "h100", ""},
		{"a candidate that strands a suite gives way to the next", []string{"h100", "8gpu"}, []group{h100x8, h100x4}, "8gpu", ""},
		{"every candidate strands a suite (c is offline): the first stranded is named", []string{"h100", "8gpu"}, []group{h100x8, h100x4, any84}, "",
			"the last online runner carrying [h100, 4gpu]: draining it would leave h100-4 nowhere to run"},
		{"the suites the configuration does not name are not stranded", []string{"h100"}, []group{{suites: []string{"gone"}}, h100x8}, "h100", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			label, reason := firstSafe(runners, 0, c.labels, c.all)
			assert.Equal(t, c.want, label)
			assert.Equal(t, c.wantReason, reason)
		})
	}
}

func TestRunner_Lacking(t *testing.T) {
	r := runner(1, "a", "online", "h100", "8gpu")
	cases := []struct {
		name   string
		labels []string
		want   []string
	}{
		{"every label carried: none lacking", []string{"h100", "8gpu"}, nil},
		{"the lacking ones, in their order", []string{"mi350", "h100", "4gpu"}, []string{"mi350", "4gpu"}},
		{"labels match without regard to case", []string{"H100", "self-hosted", "linux"}, nil},
		{"no labels", nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, r.Lacking(c.labels))
		})
	}
}

func TestNamed(t *testing.T) {
	rs := []Runner{runner(1, "a", "online"), runner(2, "B", "online"), runner(3, "b", "online")}
	cases := []struct {
		name   string
		runner string
		wantID int64 // 0: none
	}{
		{"a runner of the list", "a", 1},
		{"names match without regard to case; the first of two wins", "b", 2},
		{"a name the list does not hold", "c", 0},
		{"no name", "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Named(rs, c.runner)
			if c.wantID == 0 {
				assert.Nil(t, r)
				return
			}
			require.NotNil(t, r)
			assert.Equal(t, c.wantID, r.ID)
			assert.Same(t, &rs[c.wantID-1], r, "the runner of the list, not a copy")
		})
	}
}

func TestLog_RoundTripAndRestore(t *testing.T) {
	var log []byte
	var err error
	for _, r := range []Record{
		{Action: ActionDrain, Scope: "repos/o/r", RunnerID: 1, Runner: "a", Label: "h100"},
		{Action: ActionDrain, Scope: "repos/o/r", RunnerID: 1, Runner: "a", Label: "8gpu"},
		{Action: ActionDrain, Scope: "orgs/o", RunnerID: 9, Runner: "a", Label: "h200"},
		{Action: ActionRestore, Scope: "repos/o/r", RunnerID: 1, Runner: "A", Label: "H100"},
		{Action: ActionDrain, Scope: "repos/o/r", RunnerID: 2, Runner: "b", Label: "h100"},
	} {
		log, err = AppendRecord(log, r)
		require.NoError(t, err)
	}
	recs, err := ParseLog("drain.jsonl", log)
	require.NoError(t, err)
	require.Len(t, recs, 5)
	assert.Equal(t, []string{"8gpu"}, ToRestore(recs, "repos/o/r", "a"), "h100 was given back")
	assert.Equal(t, []string{"h200"}, ToRestore(recs, "orgs/o", "a"), "another scope's runner is another runner")
	assert.Empty(t, ToRestore(recs, "repos/o/r", "c"))

	_, err = ParseLog("drain.jsonl", append(log, "{\"action\":\"drain\"\n"...))
	assert.EqualError(t, err, "drain.jsonl:6: not a drain log record: unexpected EOF")
	_, err = ParseLog("drain.jsonl", []byte("\n{\"action\":\"undo\"}\n"))
	assert.EqualError(t, err, `drain.jsonl:2: not a drain log record: action "undo"; expected "drain" or "restore"`)
	_, err = ParseLog("drain.jsonl", []byte(`{"action":"drain","token":"x"}`))
	assert.EqualError(t, err, `drain.jsonl:1: not a drain log record: unknown field "token"`)
}
