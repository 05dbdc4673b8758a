package lint

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pyfmt"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// The rules on one stage job: its command line and its own wiring.

// checkCrons: every schedule of a workflow that resolves the policy must
// map to a cadence, or the policy step fails on that schedule.
func (c *checker) checkCrons(wf *workflow) {
	for _, n := range wf.crons {
		if _, ok := c.cfg.Schedules[n.Value]; ok {
			continue
		}
		c.atNode(wf, n, RuleCron,
			"cron %s has no cadence in the configuration's schedules (%s), so the policy step would fail with \"No CI policy is defined for schedule: %s\"; add it to the configuration's schedules (%s) or remove it",
			pyfmt.Repr(n.Value), c.schedulesText(), n.Value, c.cfg.Origin())
	}
}

// schedulesText lists the configured crons and their cadences, sorted.
func (c *checker) schedulesText() string {
	var crons []string
	for cron := range c.cfg.Schedules {
		crons = append(crons, cron)
	}
	sort.Strings(crons)
	parts := make([]string, len(crons))
	for i, cron := range crons {
		parts[i] = pyfmt.Repr(cron) + " -> " + c.cfg.Schedules[cron]
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// checkRepeatedFlags warns about a flag the command gives more than once:
// the runner, like argparse, keeps the last, and the rules read that one,
// so an earlier one is silently ignored (often the value meant).
func (c *checker) checkRepeatedFlags(j *job, inv *invocation) {
	names, at := inv.repeated()
	for _, name := range names {
		idx := at[name]
		last := inv.showFlag(idx[len(idx)-1], name)
		for _, i := range idx[:len(idx)-1] {
			f, _, _ := inv.flagAt(i, name)
			c.wordFinding(j, inv, f, Warning, RuleRepeatedFlag,
				"%s is given again later in the command (%s) and the runner keeps the last, so this %s is ignored: give %s once",
				name, last, inv.showFlag(i, name), name)
		}
	}
}

// showFlag writes the flag at args[i] with its values, as given.
func (inv *invocation) showFlag(i int, name string) string {
	f, vals, _ := inv.flagAt(i, name)
	if f.text != name {
		return f.text // --name=value
	}
	parts := []string{name}
	for _, v := range vals {
		parts = append(parts, v.text)
	}
	return strings.Join(parts, " ")
}

// checkHW: the command's --hw is the suite's backend.
func (c *checker) checkHW(j *job, inv *invocation, s config.Suite) {
	hw, ok := inv.value("--hw")
	at := hw
	if !ok {
		at = inv.first()
	}
	if msg := c.hwProblem(hw.text, ok, s); msg != "" {
		c.atWord(j, inv, at, RuleHW, "%s", msg)
	}
}

// hwProblem says what is wrong with a command's --hw (given or not) for
// suite s, or "" when it is the suite's backend.
func (c *checker) hwProblem(hw string, given bool, s config.Suite) string {
	switch {
	case !given:
		return fmt.Sprintf("the command has no --hw; suite %s runs on %s: add --hw %s", s.Name, s.Backend, s.Backend)
	case hw != string(s.Backend):
		return fmt.Sprintf("--hw is %s but suite %s is a %s suite in the roster (%s): write --hw %s",
			pyfmt.Repr(hw), s.Name, s.Backend, c.cfg.Origin(), s.Backend)
	}
	return ""
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

// checkPolicyFlags: the cadence and the labels come from the policy job.
func (c *checker) checkPolicyFlags(j *job, inv *invocation, policyJobs []string) {
	if len(policyJobs) == 0 {
		c.atWord(j, inv, inv.first(), RulePolicyInputs,
			"no job of %s resolves the CI policy (python -m tests.ci.ci_policy or miles-ci policy), so the command cannot take --cadence and --labels from it",
			j.wf.name)
		return
	}
	p := policyName(policyJobs)
	cadenceHint := "--cadence ${{ needs." + p + ".outputs.cadence }}"
	switch w, ok := inv.value("--cadence"); {
	case !ok:
		c.atWord(j, inv, inv.first(), RulePolicyInputs, "the command does not take --cadence from the policy job: add %s", cadenceHint)
	case !refersTo(w.text, c.isPolicy, "cadence"):
		c.atWord(j, inv, w, RulePolicyInputs, "--cadence is %s; take it from the policy job: %s", w.text, cadenceHint)
	}
	labelsHint := "--labels ${{ needs." + p + ".outputs.raw_labels }}"
	f, vals, ok := inv.flag("--labels")
	if !ok {
		c.atWord(j, inv, inv.first(), RulePolicyInputs, "the command does not take --labels from the policy job: add %s", labelsHint)
		return
	}
	for _, v := range vals {
		if refersTo(v.text, c.isPolicy, "raw_labels") {
			return
		}
	}
	c.atWord(j, inv, f, RulePolicyInputs, "--labels does not take the policy job's raw_labels: write %s", labelsHint)
}

// checkPolicyNeed: a job reads the policy's outputs only if it needs the
// policy job. It returns whether it reported the missing need.
func (c *checker) checkPolicyNeed(j *job, policyJobs []string) bool {
	if len(policyJobs) == 0 {
		return false
	}
	for _, n := range j.needs() {
		if c.isPolicy[n] {
			return false
		}
	}
	k, _ := j.get("needs")
	c.atNode(j.wf, keyOr(k, j.key), RulePolicyInputs, "the job does not need the policy job %s, so it cannot read its outputs: add it to needs", policyName(policyJobs))
	return true
}

// checkNeeds: the job depends on every job the roster lists for its suite.
func (c *checker) checkNeeds(j *job, s config.Suite, policyJobs []string, policyReported bool) {
	have := map[string]bool{}
	for _, n := range j.needs() {
		have[n] = true
	}
	var missing []string
	for _, n := range s.Needs {
		if !have[n] && !(policyReported && c.isPolicy[n]) {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return
	}
	k, _ := j.get("needs")
	c.atNode(j.wf, keyOr(k, j.key), RuleNeeds, "needs lacks %s, which the roster lists for %s: needs: [%s] (%s)",
		strings.Join(missing, ", "), s.Name, strings.Join(s.Needs, ", "), c.cfg.Origin())
}

// checkRunsOn: the runner labels the job lands on are the roster's.
func (c *checker) checkRunsOn(j *job, s config.Suite) {
	labels, what, node, problem := c.landsOn(j)
	if what == "" && problem == "" {
		return
	}
	if problem != "" {
		c.atNode(j.wf, keyOr(node, j.key), RuleRunsOn, "%s; the roster has %s for %s", problem, jsonList(s.RunsOn), s.Name)
		return
	}
	if sameSet(labels, s.RunsOn) {
		return
	}
	c.atNode(j.wf, keyOr(node, j.key), RuleRunsOn, "%s is %s but the roster has %s for %s (%s)",
		what, jsonList(labels), jsonList(s.RunsOn), s.Name, c.cfg.Origin())
}

// landsOn finds the labels a job lands on: its runs_on input (a JSON list
// in a string), its runs-on, or the runs-on of the single job of the local
// reusable workflow it calls. When it cannot tell, problem says why.
func (c *checker) landsOn(j *job) (labels []string, what string, node *yaml.Node, problem string) {
	if k, v := j.get("with", "runs_on"); v != nil {
		text, _ := scalar(v)
		if strings.Contains(text, "${{") {
			return nil, "", k, fmt.Sprintf("runs_on is the expression %s, so lint cannot tell where the job lands; write the labels", text)
		}
		if err := json.Unmarshal([]byte(text), &labels); err != nil || v.Kind != yaml.ScalarNode {
			return nil, "", k, fmt.Sprintf("runs_on is %s, not a JSON list of runner labels in a string", pyfmt.Repr(text))
		}
		return labels, "runs_on", k, ""
	}
	if k, v := j.get("runs-on"); v != nil {
		labels, problem := runsOnLabels(v)
		return labels, "runs-on", k, problem
	}
	k, v := j.get("uses")
	uses, _ := scalar(v)
	if uses == "" {
		return nil, "", j.key, "the job has no runs-on"
	}
	if !strings.HasPrefix(uses, "./"+WorkflowDir+"/") {
		return nil, "", k, fmt.Sprintf("the job calls %s, whose runners lint cannot see; pass runs_on or call a workflow of this repository", uses)
	}
	called := c.byName[path.Base(uses)]
	switch {
	case called == nil:
		return nil, "", k, fmt.Sprintf("the job calls %s, which does not exist", strings.TrimPrefix(uses, "./"))
	case called.broken:
		// Its own finding says why; with no labels, what and problem
		// empty, checkRunsOn has nothing to compare.
		return nil, "", k, ""
	case len(called.jobs) != 1:
		return nil, "", k, fmt.Sprintf("the job calls %s, which has %d jobs; lint follows a called workflow with a single job", called.path, len(called.jobs))
	}
	_, rv := called.jobs[0].get("runs-on")
	if rv == nil {
		return nil, "", k, fmt.Sprintf("the job calls %s, whose job has no runs-on", called.path)
	}
	labels, problem = runsOnLabels(rv)
	if problem != "" {
		return nil, "", k, fmt.Sprintf("the job passes no runs_on and %s's %s", called.path, problem)
	}
	return labels, "the runs-on of " + called.path, k, ""
}

// runsOnLabels reads a runs-on value: one label, a list, or a mapping
// with labels:.
func runsOnLabels(v *yaml.Node) ([]string, string) {
	if _, l := lookup(v, "labels"); l != nil {
		v = l
	}
	switch v.Kind {
	case yaml.ScalarNode:
		if strings.Contains(v.Value, "${{") {
			return nil, fmt.Sprintf("runs-on is the expression %s, so lint cannot tell where the job lands", v.Value)
		}
		return []string{v.Value}, ""
	case yaml.SequenceNode:
		var out []string
		for _, e := range v.Content {
			t, ok := scalar(deref(e))
			if !ok || strings.Contains(t, "${{") {
				return nil, "runs-on holds an expression, so lint cannot tell where the job lands"
			}
			out = append(out, t)
		}
		return out, ""
	}
	return nil, "runs-on is neither a label nor a list of labels"
}

// checkSkipGuard: a GPU stage job must skip itself when the policy lists
// its own stage in skipped_stages, and no other.
func (c *checker) checkSkipGuard(j *job, s config.Suite, policyJobs []string) {
	hint := fmt.Sprintf("!contains(fromJSON(needs.%s.outputs.skipped_stages || '[]'), '%s')", policyName(policyJobs), s.Name)
	k, v := j.get("if")
	text, _ := scalar(v)
	if v == nil {
		c.atNode(j.wf, j.key, RuleSkipGuard, "the job has no if: guard, so it runs even when the policy skips %s: add %s", s.Name, hint)
		return
	}
	calls, read := c.guards[v]
	if !read {
		// An if: YAML aliases into many jobs is read once.
		calls = skipGuardCalls(text)
		if c.guards == nil {
			c.guards = map[*yaml.Node][]guardCall{}
		}
		c.guards[v] = calls
	}
	own := false
	for _, call := range calls {
		switch {
		case call.stage == "":
		case call.stage != s.Name:
			c.atNode(j.wf, k, RuleSkipGuard, "if: tests skipped_stages for %s, not for this job's stage %s, so the policy skips the wrong stage", pyfmt.Repr(call.stage), s.Name)
			return
		default:
			own = true
		}
	}
	if !own {
		c.atNode(j.wf, k, RuleSkipGuard, "if: does not test skipped_stages for %s, so the job runs even when the policy skips it: add %s", s.Name, hint)
		return
	}
	for _, call := range calls {
		if call.stage == s.Name && !call.negated && !call.unread {
			c.atNode(j.wf, k, RuleSkipGuard, "if: tests contains(…skipped_stages…, %s) without !, so the job runs only when the policy skips %s and never when it should run: write %s",
				pyfmt.Repr(s.Name), s.Name, hint)
			return
		}
	}
}

// checkWeeklySerial: a sharded GPU stage runs one shard at a time on a
// weekly run, so its max-parallel depends on the policy's cadence.
func (c *checker) checkWeeklySerial(j *job, s config.Suite, policyJobs []string) {
	hint := fmt.Sprintf("max-parallel: ${{ needs.%s.outputs.cadence == 'weekly' && 1 || %d }}", policyName(policyJobs), s.Shards)
	sk, _ := j.get("strategy")
	k, v := j.get("strategy", "max-parallel")
	if v == nil {
		c.atNode(j.wf, keyOr(sk, j.key), RuleWeeklySerial, "strategy has no max-parallel, so a weekly run takes %d %s runners at once instead of one: add %s",
			s.Shards, jsonList(s.RunsOn), hint)
		return
	}
	// Without a policy job, policy-inputs has said so already.
	if text, _ := scalar(v); len(policyJobs) > 0 && !refersTo(text, c.isPolicy, "cadence") {
		c.atNode(j.wf, k, RuleWeeklySerial, "max-parallel is %s and does not depend on the policy's cadence, so a weekly run does not run one shard at a time: write %s", text, hint)
	}
}
