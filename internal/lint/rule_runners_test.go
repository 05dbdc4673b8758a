package lint

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
)

// fleetFile is a hand-written listing in the shape `gh api --paginate
// repos/OWNER/REPO/actions/runners > runners.json` gives: two pages, the
// first indented, the second compact right after it. It carries every
// runs_on set of the built-in roster, with enough online runners for each
// stage's shards; one label set is written in capitals.
const fleetFile = "testdata/runners/fleet.json"

func readFleet(t *testing.T, paths ...string) *Fleet {
	t.Helper()
	f := &Fleet{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, f.Add(p, data))
	}
	return f
}

// without drops the runners whose name starts with prefix.
func without(f *Fleet, prefix string) *Fleet {
	out := *f
	out.Runners = slices.DeleteFunc(slices.Clone(f.Runners), func(r Runner) bool { return strings.HasPrefix(r.Name, prefix) })
	return &out
}

// fleetRules are the rules --runners adds, those rule_runners.go registers.
var fleetRules = []string{RuleRunners, RuleRunnersOffline, RuleRunnerWaves}

// milesRunsOn is where the runs_on of a stage job of the Miles copy's
// pr-test.yml stands, and rosterRunsOn where the built-in roster's runs_on
// of a suite does, as findings name them: found by anchor text.
func milesRunsOn(t *testing.T, job string) string {
	t.Helper()
	text := readText(t, filepath.Join(milesFixture, ".github", "workflows", "pr-test.yml"))
	return ".github/workflows/pr-test.yml:" + anchorPlace(t, text, "\n  "+job+":\n", "runs_on")
}

func rosterRunsOn(t *testing.T, suite string) string {
	t.Helper()
	return config.BuiltInPath + ":" + anchorPlace(t, string(config.DefaultYAML()), "name: "+suite+"\n", "runs_on")
}

func lintFleet(t *testing.T, root string, fleet *Fleet) *Result {
	t.Helper()
	return lintWith(t, root, Options{Fleet: fleet})
}

func TestFleet_ReadsThePagesGhPrints(t *testing.T) {
	f := readFleet(t, fleetFile)
	require.Len(t, f.Runners, 12, "both pages")
	assert.Equal(t, []string{fleetFile}, f.Sources)
	first := f.Runners[0]
	assert.Equal(t, Runner{ID: 11, Name: "miles-h200-2gpu-0", Online: true, Labels: []string{"self-hosted", "Linux", "X64", "h200", "2gpu"}}, first)
	last := f.Runners[11]
	assert.False(t, last.Online, "status offline")
	assert.True(t, f.Runners[1].Busy)

	// The same listing given twice counts once; a runner of another
	// listing with the same id (the organization's numbering) counts.
	data, err := os.ReadFile(fleetFile)
	require.NoError(t, err)
	require.NoError(t, f.Add("again.json", data))
	assert.Len(t, f.Runners, 12)
	require.NoError(t, f.Add("org.json", []byte(`{"total_count":1,"runners":[{"id":11,"name":"org-h100-0","status":"online","labels":[{"name":"h100"}]}]}`)))
	assert.Len(t, f.Runners, 13)
	assert.Equal(t, []string{fleetFile, "again.json", "org.json"}, f.Sources)

	// gh --slurp wraps the pages in one array.
	slurped := &Fleet{}
	require.NoError(t, slurped.Add("s.json", []byte(`[{"total_count":2,"runners":[{"id":1,"name":"a","status":"online","labels":[{"name":"x"}]}]},
 {"total_count":2,"runners":[{"id":2,"name":"b","status":"offline","labels":[]}]}]`)))
	assert.Len(t, slurped.Runners, 2)

	none := &Fleet{}
	require.NoError(t, none.Add("none.json", []byte(`{"total_count":0,"runners":[]}`)), "a fleet of no runner is a listing")
	assert.Empty(t, none.Runners)
}

// A file that is not a listing is one line naming the file, the line and
// the problem, never an empty fleet that would fail every stage.
func TestFleet_RefusesWhatIsNotAListing(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "", "r.json: holds no runners listing; expected the output of gh api --paginate repos/OWNER/REPO/actions/runners"},
		{"blank", "\n \n", "r.json: holds no runners listing;"},
		{"broken", "{\"total_count\": 1,\n \"runners\": [\n  {\"id\": 1,, }]}", "r.json:3: not a runners listing: invalid character ',' looking for beginning of object key string;"},
		{"cut short", "{\"total_count\":1,\"runners\":[{\"id\":1}", "r.json:1: not a runners listing: the JSON ends in the middle of a document;"},
		{"second page broken", "{\"runners\":[]}\n{\"runners\":\n 5}", "r.json:3: not a runners listing: cannot unmarshal number into Go struct field runnersPage.runners of type []struct"},
		{"labels a string", "{\"runners\":[{\"id\":1,\n\"labels\":\"gpu\"}]}", "r.json:2: not a runners listing: cannot unmarshal string"},
		{"another document", "{\"workflow_runs\":[]}", "r.json:1: the document has no \"runners\" list; expected the output of gh api"},
		{"GitHub's refusal", "\n{\"message\":\"Must have admin rights to Repository.\",\"status\":\"403\"}", "r.json:2: GitHub answered \"Must have admin rights to Repository.\" instead of a runners listing; listing runners needs a token"},
		{"a bare value", "5", "r.json:1: not a runners listing: cannot unmarshal number into Go value of type lint.runnersPage;"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := (&Fleet{}).Add("r.json", []byte(tc.text))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

func TestHosted_GitHubsOwnImagesTheFleetDoesNotCarry(t *testing.T) {
	none := &Fleet{}
	for _, l := range []string{"ubuntu-latest", "Ubuntu-24.04", "ubuntu-22.04-arm", "windows-2022", "windows-latest", "macos-14", "macos-latest-xlarge", "ubuntu-slim"} {
		assert.True(t, none.hosted(l), l)
	}
	// Look-alikes are self-hosted labels, and so are retired images.
	for _, l := range []string{"self-hosted", "ubuntu", "linux", "h100", "ubuntu-", "my-ubuntu-latest", "ubuntu-h100", "ubuntu-24.04-gpu", "windows-gpu", "ubuntu-20.04", "\u212a8s"} {
		assert.False(t, none.hosted(l), l)
	}
	// A runner of the fleet labelled like an image serves that label.
	own := &Fleet{Runners: []Runner{{Name: "r", Labels: []string{"self-hosted", "UBUNTU-22.04"}}}}
	assert.False(t, own.hosted("ubuntu-22.04"))
	assert.True(t, own.hosted("ubuntu-24.04"))
}

// GitHub compares labels without regard to the case of ASCII letters only:
// the Kelvin sign (U+212A), which Unicode folds to k, is another label.
func TestRunner_LabelsMatchIgnoringASCIICaseOnly(t *testing.T) {
	r := Runner{Labels: []string{"K8S-H100", "\u212a8s-a100", "stra\u00dfe"}}
	assert.True(t, r.carries([]string{"k8s-h100"}))
	assert.False(t, r.carries([]string{"k8s-a100"}))
	assert.False(t, r.carries([]string{"STRASSE"}))
	assert.True(t, r.carries([]string{"STRA\u00dfE"}))
}

// A roster runs_on that only looks like a hosted image is looked for: no
// runner carries ubuntu-gpu-h100, so the stage would never run.
func TestFleet_ASelfHostedLabelLikeAnImageIsLookedFor(t *testing.T) {
	about(t, fleetRules...)
	root := copyTree(t, milesFixture)
	require.NoError(t, os.WriteFile(filepath.Join(root, ".miles-ci.yaml"),
		[]byte("extends: default\nsuites:\n  cuda:\n    - name: stage-b-2-gpu-h200\n      runs_on: [ubuntu-gpu-h200]\n      needs: [resolve-ci-policy, resolve-ci-image, stage-a-cpu]\n"), 0o644))
	res := lintFleet(t, root, readFleet(t, fleetFile))
	var got []string
	for _, fd := range res.Findings {
		if fd.Rule == RuleRunners {
			got = append(got, fd.String())
		}
	}
	require.NotEmpty(t, got)
	assert.Contains(t, got[len(got)-1], `.miles-ci.yaml:5:7: error: no runner of testdata/runners/fleet.json carries all of ["ubuntu-gpu-h200"] (the roster's runs_on for stage-b-2-gpu-h200)`)
}

// The acceptance on the Miles workflows with the built-in roster: a fleet
// carrying every label set adds no finding (ubuntu-latest, GitHub's own,
// is not looked for, and H100/8GPU match h100/8gpu as GitHub compares).
func TestFleet_MilesWithEveryLabelSetAddsNoFinding(t *testing.T) {
	wholeOutput(t, "lint with and without the fleet compared")
	res := lintFleet(t, milesFixture, readFleet(t, fleetFile))
	assert.Equal(t, findingLines(lintTree(t, milesFixture)), findingLines(res))
	assert.Empty(t, findingsOf(res, fleetRules...))
}

// Without the h100 runners, the stage's jobs would queue forever: an
// error at its roster entry's runs_on and at the job's runs_on.
func TestFleet_MilesWithoutTheH100RunnersIsAnError(t *testing.T) {
	about(t, fleetRules...)
	res := lintFleet(t, milesFixture, without(readFleet(t, fleetFile), "miles-h100-"))
	assert.Equal(t, []string{
		milesRunsOn(t, "stage-c-8-gpu-h100") + ": error: no runner of testdata/runners/fleet.json carries all of [\"h100\",\"8gpu\"] (the runs_on of job 'stage-c-8-gpu-h100'), " +
			"so the jobs of stage-c-8-gpu-h100 would wait for one forever: GitHub starts a job only on a runner with every label; the closest, 'miles-h200-8gpu-0', lacks h100 [runners]",
		rosterRunsOn(t, "stage-c-8-gpu-h100") + ": error: no runner of testdata/runners/fleet.json carries all of [\"h100\",\"8gpu\"] (the roster's runs_on for stage-c-8-gpu-h100), " +
			"so the jobs of stage-c-8-gpu-h100 would wait for one forever: GitHub starts a job only on a runner with every label; the closest, 'miles-h200-8gpu-0', lacks h100 [runners]",
	}, findingLines(res))
	assert.Equal(t, 2, res.Errors)
}

// One online runner for the 3-shard stage: the shards run one after
// another, in 3 waves.
func TestFleet_MilesWithOneRunnerForThreeShardsWarnsOfWaves(t *testing.T) {
	about(t, fleetRules...)
	f := without(readFleet(t, fleetFile), "miles-h200-4gpu-1")
	f = without(f, "miles-h200-4gpu-2")
	res := lintFleet(t, milesFixture, f)
	var waves []string
	for _, fd := range res.Findings {
		if fd.Rule == RuleRunnerWaves {
			waves = append(waves, fd.String())
		}
	}
	assert.Equal(t, []string{
		milesRunsOn(t, "stage-c-4-gpu-h200") + ": warning: 3 shard jobs of stage-c-4-gpu-h200 may run at once but only 1 online runner carries [\"h200\",\"4gpu\"] (the runs_on of job 'stage-c-4-gpu-h200'), so its 3 shards run in 3 waves, one after another [runner-waves]",
		rosterRunsOn(t, "stage-c-4-gpu-h200") + ": warning: 3 shard jobs of stage-c-4-gpu-h200 may run at once but only 1 online runner carries [\"h200\",\"4gpu\"] (the roster's runs_on for stage-c-4-gpu-h200), so its 3 shards run in 3 waves, one after another [runner-waves]",
	}, waves)
	assert.Equal(t, 0, res.Errors)
}

// A literal max-parallel is what runs at once; the weekly expression is
// not a number, so the shard count stands. (A literal one is a
// weekly-serial error of its own.)
func TestFleet_ALiteralMaxParallelIsWhatRunsAtOnce(t *testing.T) {
	about(t, fleetRules...)
	root := copyTree(t, milesFixture)
	p := filepath.Join(root, ".github/workflows/pr-test.yml")
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	text := strings.Replace(string(data), "max-parallel: ${{ needs.resolve-ci-policy.outputs.cadence == 'weekly' && 1 || 3 }}", "max-parallel: 2", 1)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	waves := func(res *Result) []string {
		var out []string
		for _, fd := range res.Findings {
			if fd.Rule == RuleRunnerWaves {
				out = append(out, fd.Message)
			}
		}
		return out
	}
	f := without(readFleet(t, fleetFile), "miles-h200-4gpu-2")
	assert.Empty(t, waves(lintFleet(t, root, f)), "2 online runners for max-parallel 2")

	f = without(f, "miles-h200-4gpu-1")
	got := waves(lintFleet(t, root, f))
	require.Len(t, got, 2)
	assert.Contains(t, got[0], "2 shard jobs of stage-c-4-gpu-h200 may run at once but only 1 online runner carries")
	assert.Contains(t, got[0], "its 3 shards run in 3 waves")
}

// Only offline runners carry a set: a warning naming them. Busy runners
// are online and count: a single listing cannot tell a runner busy
// forever from one at work.
func TestFleet_OnlyOfflineRunnersCarryASet(t *testing.T) {
	about(t, fleetRules...)
	f := readFleet(t, fleetFile)
	for i, r := range f.Runners {
		if strings.HasPrefix(r.Name, "miles-h200-8gpu-") {
			f.Runners[i].Online = false
		}
		f.Runners[i].Busy = true
	}
	res := lintFleet(t, milesFixture, f)
	assert.Equal(t, []string{
		milesRunsOn(t, "stage-c-8-gpu-h200") + ": warning: only offline runners carry [\"h200\",\"8gpu\"] (the runs_on of job 'stage-c-8-gpu-h200'): 'miles-h200-8gpu-0', 'miles-h200-8gpu-1', so the jobs of stage-c-8-gpu-h200 wait until one comes back online [runners-offline]",
		rosterRunsOn(t, "stage-c-8-gpu-h200") + ": warning: only offline runners carry [\"h200\",\"8gpu\"] (the roster's runs_on for stage-c-8-gpu-h200): 'miles-h200-8gpu-0', 'miles-h200-8gpu-1', so the jobs of stage-c-8-gpu-h200 wait until one comes back online [runners-offline]",
	}, findingLines(res))
}

// A roster in the repository's own file is pointed at there; a fleet of
// no runner says so.
func TestFleet_ARosterFileIsPointedAt(t *testing.T) {
	about(t, fleetRules...)
	root := copyTree(t, milesFixture)
	require.NoError(t, os.WriteFile(filepath.Join(root, ".miles-ci.yaml"),
		[]byte("extends: default\nsuites:\n  cuda:\n    - name: stage-b-2-gpu-h200\n      runs_on: [h200, 2gpu]\n      needs: [resolve-ci-policy, resolve-ci-image, stage-a-cpu]\n"), 0o644))
	res := lintFleet(t, root, &Fleet{Sources: []string{"none.json"}})
	var at []string
	for _, fd := range res.Findings {
		if fd.Rule == RuleRunners {
			at = append(at, fd.Path+":"+strconv.Itoa(fd.Line))
		}
	}
	assert.Contains(t, at, ".miles-ci.yaml:5", "the file's own suite")
	assert.Contains(t, at, placeLine(rosterRunsOn(t, "stage-c-8-gpu-h100")), "a suite taken from the built-in roster")
	assert.Contains(t, res.Findings[0].Message, "no runner of none.json carries all of")
	assert.Contains(t, res.Findings[0].Message, "; the listing holds no runner")
}
