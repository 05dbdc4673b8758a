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
	"github.com/radixark/miles-ci/internal/registry"
)

// policyJobHint is the policy job id suggested in messages when a workflow
// has none: the one the Miles workflows use.
const policyJobHint = "resolve-ci-policy"

// checker holds one lint run: the inputs and the findings so far.
type checker struct {
	cfg       *config.Config
	regs      []registry.Registration
	workflows []*workflow
	byName    map[string]*workflow
	findings  []Finding

	// runs lists, per suite, the stage jobs that run it, in file order.
	runs map[string][]stageRun
}

// stageRun is one stage job running one suite.
type stageRun struct {
	job *job
	inv *invocation
	hw  string // the --hw the command gives, "" when none
}

func (c *checker) add(wf *workflow, line, col int, sev Severity, rule, format string, args ...any) {
	c.findings = append(c.findings, Finding{Path: wf.path, Line: max(line, 1), Col: max(col, 1),
		Severity: sev, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// atNode reports an error on a node (a key, for the line that holds it).
func (c *checker) atNode(wf *workflow, n *yaml.Node, rule, format string, args ...any) {
	line, col := at(n)
	c.add(wf, line, col, Error, rule, format, args...)
}

// atWord reports an error on a word of a command, or on the command's
// node when the word could not be placed in the file.
func (c *checker) atWord(j *job, inv *invocation, w word, rule, format string, args ...any) {
	if w.line == 0 {
		c.atNode(j.wf, inv.node, rule, format, args...)
		return
	}
	c.add(j.wf, w.line, w.col, Error, rule, format, args...)
}

// keyOr returns the first non-nil node, for "this key's line, else the
// job's".
func keyOr(nodes ...*yaml.Node) *yaml.Node {
	for _, n := range nodes {
		if n != nil {
			return n
		}
	}
	return nil
}

func (c *checker) check() {
	c.byName = map[string]*workflow{}
	c.runs = map[string][]stageRun{}
	for _, wf := range c.workflows {
		c.byName[wf.name] = wf
	}
	for _, wf := range c.workflows {
		if wf.broken {
			continue
		}
		var policyJobs []string
		for _, j := range wf.jobs {
			_, cmd := j.get("with", "execute_command")
			j.invocations = append(j.invocations, wf.findInvocations(cmd)...)
			if _, steps := j.get("steps"); steps != nil && steps.Kind == yaml.SequenceNode {
				for _, st := range steps.Content {
					_, run := lookup(deref(st), "run")
					j.invocations = append(j.invocations, wf.findInvocations(run)...)
				}
			}
			for _, inv := range j.invocations {
				if inv.kind == resolvePolicy {
					policyJobs = append(policyJobs, j.id)
					break
				}
			}
		}
		if len(policyJobs) > 0 {
			c.checkCrons(wf)
		}
		for _, j := range wf.jobs {
			c.checkStageJob(j, policyJobs)
		}
	}
	c.checkRoster()
	c.checkRegistrations()
}

// checkCrons: every schedule of a workflow that resolves the policy must
// map to a cadence, or the policy step fails on that schedule.
func (c *checker) checkCrons(wf *workflow) {
	for _, n := range wf.crons {
		if _, ok := c.cfg.Schedules[n.Value]; ok {
			continue
		}
		c.atNode(wf, n, RuleCron,
			"cron %s has no cadence in the configuration's schedules (%s), so the policy step would fail with \"No CI policy is defined for schedule: %s\"; add it to schedules: in %s or remove it",
			pyfmt.Repr(n.Value), c.schedulesText(), n.Value, c.cfg.Origin())
	}
}

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

// checkStageJob checks every command of a job that runs a suite, then the
// job's own wiring against the roster entry of the (first) suite it runs.
func (c *checker) checkStageJob(j *job, policyJobs []string) {
	var (
		suite   config.Suite
		known   bool
		command *invocation
		seen    = map[string]bool{}
	)
	for _, inv := range j.invocations {
		if inv.kind != runSuite {
			continue
		}
		c.checkPolicyFlags(j, inv, policyJobs)
		sw, ok := inv.value("--suite")
		switch {
		case !ok:
			c.atWord(j, inv, inv.first(), RuleUnknownSuite, "the command has no --suite; a stage job runs one suite of the roster")
			continue
		case sw.isExpr() || strings.Contains(sw.text, "${{"):
			c.atWord(j, inv, sw, RuleUnknownSuite, "--suite is the expression %s; write the suite's name so the job can be checked against the roster", sw.text)
			continue
		}
		name := sw.text
		hw, _ := inv.value("--hw")
		if !seen[name] {
			seen[name] = true
			c.runs[name] = append(c.runs[name], stageRun{job: j, inv: inv, hw: hw.text})
		}
		if name != j.id {
			c.atNode(j.wf, j.key, RuleJobName, "job %s runs suite %s; stage and suite names are one set, so name the job %s", pyfmt.Repr(j.id), pyfmt.Repr(name), name)
		}
		s, ok := c.cfg.Suite(name)
		switch {
		case !ok:
			c.atWord(j, inv, sw, RuleUnknownSuite, "suite %s is not in the roster (%s); configured suites: %s",
				pyfmt.Repr(name), c.cfg.Origin(), strings.Join(c.suiteNames(), ", "))
			continue
		case s.External:
			c.atWord(j, inv, sw, RuleExternalJob, "suite %s is external: another repository's workflow runs it, so no job here may (%s)", name, c.cfg.Origin())
			continue
		}
		c.checkHW(j, inv, s)
		c.checkShardFlags(j, inv, s)
		if command == nil {
			command, suite, known = inv, s, true
		}
	}
	if !known {
		return
	}
	reportedPolicyNeed := c.checkPolicyNeed(j, policyJobs)
	c.checkNeeds(j, suite, policyJobs, reportedPolicyNeed)
	c.checkRunsOn(j, suite)
	c.checkMatrix(j, suite)
	if suite.Backend != config.CPU {
		c.checkSkipGuard(j, suite, policyJobs)
		if suite.Shards > 1 {
			c.checkWeeklySerial(j, suite, policyJobs)
		}
	}
}

func (c *checker) suiteNames() []string {
	out := make([]string, len(c.cfg.Suites))
	for i, s := range c.cfg.Suites {
		out[i] = s.Name
	}
	return out
}

func (c *checker) checkHW(j *job, inv *invocation, s config.Suite) {
	hw, ok := inv.value("--hw")
	switch {
	case !ok:
		c.atWord(j, inv, inv.first(), RuleHW, "the command has no --hw; suite %s runs on %s: add --hw %s", s.Name, s.Backend, s.Backend)
	case hw.text != string(s.Backend):
		c.atWord(j, inv, hw, RuleHW, "--hw is %s but suite %s is a %s suite in the roster (%s): write --hw %s",
			pyfmt.Repr(hw.text), s.Name, s.Backend, c.cfg.Origin(), s.Backend)
	}
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
		gotText, countNoun(s.Shards, "shard"), s.Name, c.cfg.Origin(), wantText)
}

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

func policyName(policyJobs []string) string {
	if len(policyJobs) > 0 {
		return policyJobs[0]
	}
	return policyJobHint
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
	case !refersTo(w.text, policyJobs, "cadence"):
		c.atWord(j, inv, w, RulePolicyInputs, "--cadence is %s; take it from the policy job: %s", w.text, cadenceHint)
	}
	labelsHint := "--labels ${{ needs." + p + ".outputs.raw_labels }}"
	f, vals, ok := inv.flag("--labels")
	if !ok {
		c.atWord(j, inv, inv.first(), RulePolicyInputs, "the command does not take --labels from the policy job: add %s", labelsHint)
		return
	}
	for _, v := range vals {
		if refersTo(v.text, policyJobs, "raw_labels") {
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
	have := map[string]bool{}
	for _, n := range j.needs() {
		have[n] = true
	}
	for _, p := range policyJobs {
		if have[p] {
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
	isPolicy := map[string]bool{}
	for _, p := range policyJobs {
		isPolicy[p] = true
	}
	var missing []string
	for _, n := range s.Needs {
		if !have[n] && !(policyReported && isPolicy[n]) {
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

func sameSet(a, b []string) bool {
	in := func(x []string, s string) bool {
		for _, y := range x {
			if y == s {
				return true
			}
		}
		return false
	}
	for _, s := range a {
		if !in(b, s) {
			return false
		}
	}
	for _, s := range b {
		if !in(a, s) {
			return false
		}
	}
	return true
}

func jsonList(l []string) string {
	if l == nil {
		l = []string{}
	}
	b, _ := json.Marshal(l)
	return string(b)
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
	stages, tested := skipGuardStages(text)
	for _, other := range stages {
		if other != s.Name {
			c.atNode(j.wf, k, RuleSkipGuard, "if: tests skipped_stages for %s, not for this job's stage %s, so the policy skips the wrong stage", pyfmt.Repr(other), s.Name)
			return
		}
	}
	if !tested || len(stages) == 0 {
		c.atNode(j.wf, k, RuleSkipGuard, "if: does not test skipped_stages for %s, so the job runs even when the policy skips it: add %s", s.Name, hint)
	}
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

func isIdentByte(b byte) bool {
	return b == '_' || b == '-' || b == '.' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9'
}

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
	if text, _ := scalar(v); len(policyJobs) > 0 && !refersTo(text, policyJobs, "cadence") {
		c.atNode(j.wf, k, RuleWeeklySerial, "max-parallel is %s and does not depend on the policy's cadence, so a weekly run does not run one shard at a time: write %s", text, hint)
	}
}

// checkRoster: every suite of the roster that this repository runs has
// exactly one stage job, in its workflow; a job whose suite holds nothing
// is a warning.
func (c *checker) checkRoster() {
	var names []string
	for name := range c.runs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		runs := c.runs[name]
		for _, r := range runs[1:] {
			first := runs[0].job
			c.atNode(r.job.wf, r.job.key, RuleDuplicateJob, "job %s runs suite %s, which job %s (%s:%d) runs already; a suite has exactly one stage job",
				pyfmt.Repr(r.job.id), name, pyfmt.Repr(first.id), first.wf.path, first.key.Line)
		}
	}
	for _, s := range c.cfg.Suites {
		if s.External {
			continue
		}
		wfName := s.WorkflowFile()
		var inWorkflow, elsewhere []stageRun
		for _, r := range c.runs[s.Name] {
			if r.job.wf.name == wfName {
				inWorkflow = append(inWorkflow, r)
			} else {
				elsewhere = append(elsewhere, r)
			}
		}
		if len(inWorkflow) == 0 {
			c.missingJob(s, wfName, elsewhere)
			continue
		}
		enabled := 0
		for _, r := range c.regs {
			if r.Suite == s.Name && r.Backend == s.Backend && r.Enabled() {
				enabled++
			}
		}
		if enabled == 0 {
			j := inWorkflow[0].job
			c.add(j.wf, j.key.Line, j.key.Column, Warning, RuleEmptySuite,
				"suite %s holds no enabled %s registration, so job %s runs no test (fine while tests migrate to it)", s.Name, s.Backend, pyfmt.Repr(j.id))
		}
	}
}

func (c *checker) missingJob(s config.Suite, wfName string, elsewhere []stageRun) {
	regs := 0
	for _, r := range c.regs {
		if r.Suite == s.Name {
			regs++
		}
	}
	msg := fmt.Sprintf("no job runs suite %s (%s), so it never runs: add a job %s running miles-ci run --hw %s --suite %s",
		s.Name, countNoun(regs, "registration"), s.Name, s.Backend, s.Name)
	if len(elsewhere) > 0 {
		r := elsewhere[0]
		msg += fmt.Sprintf(" (job %s in %s runs it, but the roster puts the suite in %s)", pyfmt.Repr(r.job.id), r.job.wf.path, wfName)
	}
	wf := c.byName[wfName]
	switch {
	case wf == nil:
		c.findings = append(c.findings, Finding{Path: path.Join(WorkflowDir, wfName), Line: 1, Col: 1, Severity: Error, Rule: RuleMissingJob,
			Message: fmt.Sprintf("%s does not exist, so %s", path.Join(WorkflowDir, wfName), msg)})
	case wf.broken:
		// The workflow's own finding says why nothing in it can be read.
	default:
		c.atNode(wf, keyOr(wf.jobsKey, wf.root), RuleMissingJob, "%s", msg)
	}
}

func countNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// checkRegistrations: a registration whose suite no job runs (for its
// backend) never runs. Suites the roster marks external run elsewhere, and
// a roster suite without a job is already a missing-job error.
func (c *checker) checkRegistrations() {
	for _, r := range c.regs {
		s, inRoster := c.cfg.Suite(r.Suite)
		if inRoster && s.External {
			continue
		}
		runs := c.runs[r.Suite]
		if inRoster && !c.hasJobIn(s) {
			continue
		}
		// A job runs the registrations of its suite's backend: the
		// roster's (a job with another --hw is an hw error of its own),
		// else the backend its command names.
		var other *stageRun
		ran := false
		for i, run := range runs {
			hw := run.hw
			if inRoster {
				hw = string(s.Backend)
			}
			if hw == string(r.Backend) {
				ran = true
				break
			}
			other = &runs[i]
		}
		if ran {
			continue
		}
		var msg string
		switch {
		case other != nil && inRoster:
			msg = fmt.Sprintf("suite %s is a %s suite, so job %s never runs this %s registration: register it with the suite's backend or in a %s suite",
				pyfmt.Repr(r.Suite), s.Backend, pyfmt.Repr(other.job.id), r.Backend, r.Backend)
		case other != nil:
			msg = fmt.Sprintf("suite %s is run by job %s with --hw %s, so this %s registration never runs",
				pyfmt.Repr(r.Suite), pyfmt.Repr(other.job.id), other.hw, r.Backend)
		case inRoster:
			msg = fmt.Sprintf("no job runs suite %s, so this registration never runs", pyfmt.Repr(r.Suite))
		default:
			msg = fmt.Sprintf("suite %s is not in the roster and no job runs it, so this registration never runs: use a suite of the roster, or add this one, with its job, to %s",
				pyfmt.Repr(r.Suite), c.cfg.Origin())
		}
		c.findings = append(c.findings, Finding{Path: r.File, Line: max(r.Line, 1), Col: 1, Severity: Warning, Rule: RuleOrphan, Message: msg})
	}
}

// hasJobIn reports whether a roster suite has a job in its own workflow
// (else missing-job reported it).
func (c *checker) hasJobIn(s config.Suite) bool {
	for _, r := range c.runs[s.Name] {
		if r.job.wf.name == s.WorkflowFile() {
			return true
		}
	}
	return false
}
