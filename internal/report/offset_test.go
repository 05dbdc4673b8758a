package report

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func f64p(v float64) *float64 { return &v }

// at is a at offset seconds of its run.
func at(a Attempt, offset float64) Attempt {
	a.Offset = f64p(offset)
	return a
}

// offsetsOf lists every attempt's offset and shard as "file#n@offset/shard"
// ("-" where unknown).
func offsetsOf(r *Report) []string {
	var out []string
	for _, f := range r.Files {
		for _, a := range f.AttemptsDetail {
			s := f.File + "#" + strconv.Itoa(a.Attempt) + "@-"
			if a.Offset != nil {
				s = f.File + "#" + strconv.Itoa(a.Attempt) + "@" + strconv.FormatFloat(*a.Offset, 'f', -1, 64)
			}
			if a.Shard != nil {
				s += "/" + strconv.Itoa(*a.Shard)
			}
			out = append(out, s)
		}
	}
	return out
}

func TestOffset_IsWrittenWhereKnownAndLeftOutWhereNot(t *testing.T) {
	r := report("s", false, file("a.py", Pass, at(pass(1, 2.5), 12.345)), file("b.py", Pass, pass(1, 1)))
	data, err := Marshal(r)
	require.NoError(t, err)
	assert.Contains(t, string(data), "\"elapsed\": 2.5,\n          \"offset\": 12.345,\n          \"exit_code\": 0,")
	assert.Equal(t, 1, strings.Count(string(data), `"offset"`), "an attempt of no known start has no key")
	assert.NotContains(t, string(data), `"shard"`)
	got, err := Parse(data)
	require.NoError(t, err)
	assert.Equal(t, r, got)
}

func TestParse_AnOffsetOrShardNoRunWritesIsAnError(t *testing.T) {
	base := `{"version": 1, "suite": "s", "backend": "cuda", "partition": null, "files": [{"file": "a.py", "status": "PASS",
	 "attempts": 1, "attempts_detail": [{"attempt": 1, "status": "PASS", "elapsed": 1, %s}]}]}`
	for in, want := range map[string]string{
		`"offset": -1`:        `files[0] ("a.py") attempt 1 has "offset" -1; expected seconds, from 0 to 1e+12`,
		`"offset": 1e13`:      `files[0] ("a.py") attempt 1 has "offset" 1e+13; expected seconds, from 0 to 1e+12`,
		`"shard": -1`:         `files[0] ("a.py") attempt 1 has "shard" -1; expected a shard from 0 to 999999`,
		`"shard": 1000000`:    `files[0] ("a.py") attempt 1 has "shard" 1000000; expected a shard from 0 to 999999`,
		`"offset": "soon"`:    `"files.attempts_detail.offset" is a JSON string, which is not its type`,
		`"offset": 0.5`:       "",
		`"offset": null`:      "",
		`"shard": 3`:          "",
		`"shard": 0, "x": []`: "",
	} {
		_, err := Parse([]byte(strings.Replace(base, "%s", in, 1)))
		if want == "" {
			assert.NoError(t, err, in)
			continue
		}
		if assert.Error(t, err, in) {
			assert.Equal(t, want, err.Error(), in)
		}
	}
}

// A merge puts every attempt on its own clock, the earliest start of the
// reports it merges, and names the shard each attempt ran in; the reports
// merged are left as they were.
func TestMerge_MovesOffsetsOntoTheEarliestStartAndNamesTheShard(t *testing.T) {
	one := shardReport("one.json", 1, 2, "p", file("c.py", Fail, at(fail(1, 2, 1), 1)), file("d.py", Pass, at(pass(1, 1.25), 3.25)))
	one.Started = "2026-12-02T10:00:05.500Z"
	zero := shardReport("zero.json", 0, 2, "p", file("a.py", Pass, at(pass(1, 4), 0.5)))
	zero.Started = "2026-12-02T10:00:00.000Z"
	rerun := shardReport("rerun.json", 1, 2, "p", file("c.py", Pass, at(pass(1, 2), 2.001)))
	rerun.Started = "2026-12-02T10:30:00.000Z"

	m, err := Merge(one, zero, rerun)
	require.NoError(t, err)
	assert.Equal(t, "2026-12-02T10:00:00.000Z", m.Started)
	assert.Equal(t, []string{"c.py#1@6.5/1", "c.py#2@1802.001/1", "d.py#1@8.75/1", "a.py#1@0.5/0"}, offsetsOf(m))
	assert.Equal(t, []string{"c.py#1@1", "d.py#1@3.25"}, offsetsOf(one), "the reports merged are not changed")
	assert.Equal(t, []string{"c.py#1@2.001"}, offsetsOf(rerun))

	// Written and read back, then merged again with a later report: the
	// shards stay, the offsets move onto the new earliest start.
	data, err := Marshal(m)
	require.NoError(t, err)
	back, err := Parse(data)
	require.NoError(t, err)
	earlier := report("s", false, file("e.py", Pass, at(pass(1, 1), 0)))
	earlier.Started = "2026-12-02T09:59:59.000Z"
	again, err := Merge(back, earlier)
	require.NoError(t, err)
	assert.Equal(t, []string{"c.py#1@7.5/1", "c.py#2@1803.001/1", "d.py#1@9.75/1", "a.py#1@1.5/0", "e.py#1@0"}, offsetsOf(again),
		"a run of no shard names none")
	// Report is called once per merge, but moving twice would not move
	// again.
	var mg Merger
	require.NoError(t, mg.Add(one))
	require.NoError(t, mg.Add(zero))
	mg.Report()
	assert.Equal(t, []string{"c.py#1@6.5/1", "d.py#1@8.75/1", "a.py#1@0.5/0"}, offsetsOf(mg.Report()))
}

// Offsets that cannot be placed are dropped, and reports without offsets
// (every report of an older run) merge as they always did.
func TestMerge_OffsetsWithoutAStartAreDropped(t *testing.T) {
	nostart := shardReport("n.json", 0, 2, "p", file("a.py", Pass, at(pass(1, 1), 1)))
	later := shardReport("l.json", 1, 2, "p", file("b.py", Pass, at(pass(1, 1), 2)))
	later.Started = "2026-12-02T10:00:00.000Z"
	m, err := Merge(nostart, later)
	require.NoError(t, err)
	assert.Equal(t, []string{"a.py#1@-", "b.py#1@2/1"}, offsetsOf(m))

	notime := shardReport("t.json", 0, 2, "p", file("a.py", Pass, at(pass(1, 1), 1)))
	notime.Started = "yesterday"
	m, err = Merge(later, notime)
	require.NoError(t, err)
	assert.Equal(t, "2026-12-02T10:00:00.000Z", m.Started, "the least string")
	assert.Equal(t, []string{"b.py#1@2/1", "a.py#1@-"}, offsetsOf(m))

	old0 := shardReport("o0.json", 0, 2, "p", file("a.py", Pass, pass(1, 1)))
	old0.Started = "2026-12-02T10:00:00.000Z"
	old1 := shardReport("o1.json", 1, 2, "p", file("b.py", Fail, fail(1, 1, 1)))
	m, err = Merge(old0, old1)
	require.NoError(t, err)
	data, err := Marshal(m)
	require.NoError(t, err)
	assert.NotContains(t, string(data), `"offset"`)
	assert.NotContains(t, string(data), `"shard"`)
}
