package lint

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// The shards rule: a stage job splits its suite into the roster's shard
// count, one job per shard, whether its matrix is a static partition_id
// list (checkMatrix, checkShardFlags) or the policy job's shard_matrix
// entry (checkDynamicMatrix, checkDynamicShardFlags).

// RuleShards names a stage job whose matrix or partition flags do not
// split its suite into the roster's shards.
const RuleShards = "shards"

var _ = register(Rule{Name: RuleShards, Severity: Error,
	Summary: "a stage job's matrix or partition flags do not match the roster's shards",
	onSuiteCommand: func(c *checker, sc stageCommand) {
		// A CPU stage has no entry in shard_matrix: its matrix is the
		// finding, its flags are read as those of a static one.
		if _, _, dynamic := dynamicMatrix(sc.job); dynamic && sc.suite.Backend != config.CPU {
			c.checkDynamicShardFlags(sc.job, sc.inv, sc.suite)
		} else {
			c.checkShardFlags(sc.job, sc.inv, sc.suite)
		}
	},
	onJob: func(c *checker, sj stageJob) {
		if _, _, dynamic := dynamicMatrix(sj.job); dynamic {
			c.checkDynamicMatrix(sj.job, sj.suite, sj.policyJobs)
		} else {
			c.checkMatrix(sj.job, sj.suite)
		}
	}})

// The dynamic form of a stage job's matrix (`miles-ci help migrate`): the
// policy job's shard_matrix output books only the shards that hold a test,
// and the job takes its stage's entry of it whole.
var shardMatrixExpr = regexp.MustCompile(`^\$\{\{\s*fromJSON\(\s*needs\.([A-Za-z0-9_-]+)\.outputs\.shard_matrix\s*\)\s*\[\s*'([^']*)'\s*\]\s*\}\}$`)

// dynamicMatrix returns the key and value of a job's strategy.matrix when
// it is an expression naming shard_matrix.
func dynamicMatrix(j *job) (k, v *yaml.Node, ok bool) {
	k, v = j.get("strategy", "matrix")
	text, isScalar := scalar(v)
	if !isScalar || !strings.Contains(text, "shard_matrix") {
		return nil, nil, false
	}
	return k, v, true
}

// checkDynamicShardFlags: each shard job takes its id, its size and the
// plan it was booked on from its matrix entry.
func (c *checker) checkDynamicShardFlags(j *job, inv *invocation, s config.Suite) {
	for _, f := range []struct{ flag, field string }{
		{"--auto-partition-id", "partition_id"},
		{"--auto-partition-size", "partition_size"},
		{"--expect-plan", "plan"},
	} {
		want := f.flag + " ${{ matrix." + f.field + " }}"
		if f.flag == "--expect-plan" {
			want = f.flag + "=${{ matrix." + f.field + " }}"
		}
		fw, vals, has := inv.flag(f.flag)
		switch {
		case !has:
			c.atWord(j, inv, inv.first(), RuleShards, "the matrix of %s comes from shard_matrix, so the command must take its %s from it: add %s",
				s.Name, f.field, want)
		case len(vals) == 0 || !vals[0].isExpr() && !strings.Contains(vals[0].text, "${{") || !strings.Contains(vals[0].text, "matrix."+f.field):
			at := inv.first()
			got := "nothing"
			if len(vals) > 0 {
				at, got = vals[0], vals[0].text
			}
			c.atWord(j, inv, at, RuleShards, "%s is %s, but the matrix of %s comes from shard_matrix: write %s", f.flag, got, s.Name, want)
		case f.flag == "--expect-plan" && fw.text == f.flag && !vals[0].quoted():
			// The plan is empty on every event but a pull request: the
			// shell then drops the unquoted word, and run stops with
			// "expected one argument" before any test.
			c.atWord(j, inv, fw, RuleShards, "%s %s loses its value when the plan is empty (on a schedule or a dispatch), and every shard then fails with \"expected one argument\": write %s",
				f.flag, vals[0].text, want)
		}
	}
}

// checkDynamicMatrix: the matrix is the job's own stage's entry of the
// shard_matrix output of a policy job that computes it.
func (c *checker) checkDynamicMatrix(j *job, s config.Suite, policyJobs []string) {
	k, v, _ := dynamicMatrix(j)
	want := "${{ fromJSON(needs." + policyName(policyJobs) + ".outputs.shard_matrix)['" + s.Name + "'] }}"
	m := shardMatrixExpr.FindStringSubmatch(v.Value)
	switch {
	case m == nil:
		c.atNode(j.wf, k, RuleShards, "the matrix %s is not one stage's entry of shard_matrix: write %s", cut(v.Value), want)
		return
	case s.Backend == config.CPU:
		c.atNode(j.wf, k, RuleShards, "suite %s is a cpu suite, and shard_matrix holds the GPU stages only: write its partition_id list", s.Name)
		return
	case m[2] != s.Name:
		c.atNode(j.wf, k, RuleShards, "the matrix takes the shards of %s but the job runs suite %s: write %s", m[2], s.Name, want)
	}
	policy := c.jobByID[m[1]]
	if policy == nil || !c.isPolicy[m[1]] {
		c.atNode(j.wf, k, RuleShards, "the matrix reads needs.%s.outputs.shard_matrix, but %s is not a job of %s that resolves the CI policy: write %s",
			m[1], m[1], j.wf.name, want)
		return
	}
	if !needs(j, m[1]) {
		kn, _ := j.get("needs")
		c.atNode(j.wf, keyOr(kn, k), RuleShards, "the matrix reads the outputs of %s, which the job does not need: add it to needs", m[1])
	}
	if c.matrixSources[policy] {
		return
	}
	if c.matrixSources == nil {
		c.matrixSources = map[*job]bool{}
	}
	c.matrixSources[policy] = true
	if ok, _ := policy.get("outputs", "shard_matrix"); ok == nil {
		ko, _ := policy.get("outputs")
		c.atNode(policy.wf, keyOr(ko, policy.key), RuleShards, "job %s does not publish shard_matrix, which the matrix of %s reads: add outputs.shard_matrix: ${{ steps.<id>.outputs.shard_matrix }}",
			m[1], j.id)
	}
	for _, inv := range policy.invocations {
		if inv.kind != resolvePolicy {
			continue
		}
		if _, _, has := inv.flag("--shard-matrix"); !has {
			c.atWord(policy, inv, inv.first(), RuleShards, "the matrix of %s reads shard_matrix, which only miles-ci policy --shard-matrix writes: add --shard-matrix", j.id)
		}
	}
}

// needs reports whether j lists id in its needs.
func needs(j *job, id string) bool {
	for _, n := range j.needs() {
		if n == id {
			return true
		}
	}
	return false
}

// cut keeps a value short in a message.
func cut(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// checkShardFlags: the command's partition flags must split the suite into
// the roster's shard count, one shard per matrix entry.
func (c *checker) checkShardFlags(j *job, inv *invocation, s config.Suite) {
	n := strconv.Itoa(s.Shards)
	size, hasSize := inv.value("--auto-partition-size")
	id, hasID := inv.value("--auto-partition-id")
	if s.Shards == 1 {
		if hasSize && size.text != "1" {
			c.atWord(j, inv, size, RuleShards, "--auto-partition-size is %s but the roster has 1 shard for %s (%s)", size.text, s.Name, c.cfg.Origin())
		}
		return
	}
	switch {
	case !hasSize:
		c.atWord(j, inv, inv.first(), RuleShards, "the command has no --auto-partition-size; the roster has %s shards for %s: add --auto-partition-size %s", n, s.Name, n)
	case size.text != n:
		c.atWord(j, inv, size, RuleShards, "--auto-partition-size is %s but the roster has %s shards for %s (%s)", size.text, n, s.Name, c.cfg.Origin())
	}
	switch {
	case !hasID:
		c.atWord(j, inv, inv.first(), RuleShards, "the command has no --auto-partition-id; each of the %s shards of %s needs its own: add --auto-partition-id ${{ matrix.partition_id }}", n, s.Name)
	case !id.isExpr() || !strings.Contains(id.text, "matrix.partition_id"):
		c.atWord(j, inv, id, RuleShards, "--auto-partition-id is %s; each shard job must take its own: --auto-partition-id ${{ matrix.partition_id }}", id.text)
	}
}

// checkMatrix: the matrix partition_id list must be exactly 0 … N-1.
func (c *checker) checkMatrix(j *job, s config.Suite) {
	sk, _ := j.get("strategy")
	mk, _ := j.get("strategy", "matrix")
	k, v := j.get("strategy", "matrix", "partition_id")
	want := make([]string, s.Shards)
	for i := range want {
		want[i] = strconv.Itoa(i)
	}
	wantText := "[" + strings.Join(want, ", ") + "]"
	if s.Shards > 8 {
		// A message stays readable whatever the shard count.
		wantText = fmt.Sprintf("[0, 1, …, %d]", s.Shards-1)
	}
	c.checkMatrixExclude(j, s)
	if v == nil {
		if s.Shards > 1 {
			c.atNode(j.wf, keyOr(mk, sk, j.key), RuleShards, "the job has no matrix partition_id; the roster has %d shards for %s: add strategy.matrix.partition_id: %s",
				s.Shards, s.Name, wantText)
		}
		return
	}
	var got []string
	exact := v.Kind == yaml.SequenceNode && len(v.Content) == s.Shards
	if v.Kind == yaml.SequenceNode {
		for i, e := range v.Content {
			t, _ := scalar(deref(e))
			got = append(got, t)
			if i >= len(want) || t != want[i] {
				exact = false
			}
		}
	}
	if exact {
		return
	}
	gotText := v.Value
	if v.Kind == yaml.SequenceNode {
		gotText = "[" + strings.Join(got, ", ") + "]"
	}
	c.atNode(j.wf, k, RuleShards, "partition_id is %s but the roster has %s for %s (%s): write %s",
		gotText, textfmt.CountNoun(s.Shards, "shard"), s.Name, c.cfg.Origin(), wantText)
}

// checkMatrixExclude: a matrix.exclude entry naming a partition_id drops
// that shard's job, so the shard's tests never run although the
// partition_id list looks whole.
func (c *checker) checkMatrixExclude(j *job, s config.Suite) {
	_, ex := j.get("strategy", "matrix", "exclude")
	if ex == nil || ex.Kind != yaml.SequenceNode {
		return
	}
	for _, e := range ex.Content {
		k, v := lookup(e, "partition_id")
		if k == nil {
			continue
		}
		id, ok := scalar(v)
		if !ok || len(id) > 40 {
			id = "(" + describeNode(v) + ")"
		}
		c.atNode(j.wf, k, RuleShards, "matrix.exclude removes partition_id %s, so that shard of the %s of %s (%s) never runs: remove the exclude entry",
			id, textfmt.CountNoun(s.Shards, "shard"), s.Name, c.cfg.Origin())
	}
}
