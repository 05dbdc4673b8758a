//go:build unix

package lint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/docs"
	"github.com/radixark/miles-ci/internal/testutil"
)

// The migrate topic's steps, in order, on a copy of the pinned Miles
// workflows, tests and docs (recipes_test.go says how they are read and
// placed). After each step Miles' own tests/ci/test must pass with pytest,
// as its CPU stage runs them, but for the tests that cannot pass on the
// reference (notHere). The Optional sections are applied together after the
// last numbered step, as one more step; the topic's other way (its "Or, in"
// recipes) after all of them, on a tree of its own, with one pytest run at
// its end. At the end the migrated tree must add no finding of miles-ci lint
// and none of actionlint to those of the tree as it is, call no Python entry
// point any more (the compatibility entry point tests/ci/run_suite.py stays,
// but no workflow calls it), have none of the retired Python left, hold only
// scripts bash can parse, and never upload one artifact name from two jobs
// of a run.

// migratedOutEnv names a directory that receives the fully migrated copy of
// the pinned files (the other way's in DIR/or), for a look by hand.
const migratedOutEnv = "MILES_CI_MIGRATED_OUT"

// milesRecipeTree copies the pinned Miles workflows, tests and docs, and
// the fixture's test files for the registrations lint checks them against,
// into a new root, with the .git directory by which actionlint finds a
// project (and so checks the calls of local reusable workflows).
func milesRecipeTree(t *testing.T, ref string) string {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{".github/workflows", "tests", "docs"} {
		require.NoError(t, os.CopyFS(filepath.Join(root, filepath.FromSlash(d)), os.DirFS(filepath.Join(ref, filepath.FromSlash(d)))))
	}
	require.NoError(t, os.CopyFS(filepath.Join(root, "tests"), os.DirFS(filepath.Join(milesFixture, "tests"))))
	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	return root
}

// notHere are the tests of Miles' tests/ci/test that cannot pass on the
// pinned reference, which holds Miles' CI files and not the rest of Miles.
// Every pytest run leaves them out: a file by --ignore, a test by
// --deselect. The run on the tree as it is must deselect exactly the tests
// listed, so that a test that moved or was renamed shows.
var notHere = []struct{ id, why string }{
	{"tests/ci/test/test_ci_history.py", "imports the miles package, which needs torch"},
	{"tests/ci/test/test_neon_access.py", "loads a script of .claude/skills/neon-access"},
	{"tests/ci/test/test_ci_discovery_coverage.py::test_no_known_orphan_outlives_its_reason", "its exceptions name files of the miles package"},
	{"tests/ci/test/test_ci_discovery_coverage.py::test_the_example_suites_reach_the_cpu_plan", "needs the tests of tests/fast/examples"},
	{"tests/ci/test/test_metric_selection.py::test_gate_defaults_within_capture_whitelist_and_valid", "imports the miles package"},
	{"tests/ci/test/test_metric_selection.py::test_normal_session_e2e_declares_both_tito_history_gates", "reads the tests of tests/e2e/sglang"},
	{"tests/ci/test/test_run_suite.py::TestDiscoverCiFiles::test_only_test_prefixed_files_under_known_roots", "needs tests/fast-gpu/test_semaphore.py"},
}

// pytestTimeout bounds one run of Miles' tests/ci/test (about 20 s alone).
const pytestTimeout = 4 * time.Minute

var pytestSummary = regexp.MustCompile(`(?m)^(?:=+ )?(.*\b(\d+) passed.*?)(?: in [0-9.]+s)?(?: =+)?$`)

// pytestArgs are the arguments of python for a run of Miles' tests.
func pytestArgs(extra ...string) []string {
	args := append([]string{"-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/ci/test"}, extra...)
	for _, n := range notHere {
		if strings.Contains(n.id, "::") {
			args = append(args, "--deselect", n.id)
		} else {
			args = append(args, "--ignore", n.id)
		}
	}
	return args
}

// pytestMiles runs Miles' tests/ci/test in root as the CPU stage would,
// leaving out notHere, and returns pytest's summary line and what is wrong
// ("" when every test it ran passed).
// With ids it runs those tests only. path is their PATH (pytestPool.path).
func pytestMiles(ctx context.Context, python, path, root string, ids ...string) (summary, problem string) {
	ctx, cancel := context.WithTimeout(ctx, pytestTimeout)
	defer cancel()
	args := pytestArgs()
	if len(ids) > 0 {
		args = append([]string{"-m", "pytest", "-q", "-p", "no:cacheprovider"}, ids...)
	}
	cmd := exec.CommandContext(ctx, python, args...)
	cmd.Dir = root
	cmd.Env = []string{"PATH=" + path, "HOME=" + root, "LANG=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what the tests left behind
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "FAILED ") || strings.HasPrefix(l, "ERROR ") {
			lines = append(lines, l)
		}
	}
	m := pytestSummary.FindAllStringSubmatch(string(out), -1)
	if m != nil {
		summary = m[len(m)-1][1]
	}
	switch {
	case ctx.Err() != nil:
		return summary, fmt.Sprintf("pytest did not end within %s", pytestTimeout)
	case err != nil || m == nil || strings.Contains(summary, "failed") || strings.Contains(summary, "error"):
		if len(lines) == 0 {
			lines = append(lines, lastLines(string(out), 15))
		}
		return summary, fmt.Sprintf("pytest of tests/ci/test: %v: %s\n  %s", err, summary, strings.Join(lines, "\n  "))
	}
	return summary, ""
}

// timingTests are Miles' tests that give a child process 2 s to start and
// end (the log groups of a run with a timeout), and so fail on a machine
// busy with the other runs.
const timingTests = "tests/ci/test/test_log_groups.py::TestIntegration"

// onlyTimingTests reports whether what pytestMiles found wrong is the
// failure of timingTests only.
func onlyTimingTests(problem string) bool {
	failed := 0
	for _, l := range strings.Split(problem, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "FAILED ") || strings.HasPrefix(l, "ERROR ") {
			if !strings.Contains(l, timingTests) {
				return false
			}
			failed++
		}
	}
	return failed > 0
}

// failedIDs are the tests a problem of pytestMiles names as failed.
func failedIDs(problem string) []string {
	var ids []string
	for _, l := range strings.Split(problem, "\n") {
		if f, ok := strings.CutPrefix(strings.TrimSpace(l), "FAILED "); ok {
			ids = append(ids, strings.Fields(f)[0])
		}
	}
	return ids
}

// pytestTree copies root for a run of Miles' tests, without the .git
// directory actionlint needs: a test of Miles asks git what the repository
// tracks when it sees one, and this copy is no repository.
func pytestTree(t *testing.T, root string) string {
	t.Helper()
	tree := t.TempDir()
	require.NoError(t, os.CopyFS(tree, os.DirFS(root)))
	require.NoError(t, os.RemoveAll(filepath.Join(tree, ".git")))
	return tree
}

// lastLines is the end of a long output, for a message.
func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(l[max(len(l)-n, 0):], "\n")
}

// treeFacts is what the checks read of one tree.
type treeFacts struct {
	lint       []string // lint findings, without their place
	actionlint []string // actionlint errors, without their place
	scripts    map[string]string
}

// actionlintError is one entry of actionlint's JSON output.
type actionlintError struct {
	Message  string `json:"message"`
	Filepath string `json:"filepath"`
	Line     int    `json:"line"`
	Kind     string `json:"kind"`
}

// readTreeFacts lints root with miles-ci lint and actionlint and collects
// its scripts. Findings are compared without their line, which the
// migration moves; each also comes with its place, for the message.
func readTreeFacts(t *testing.T, root, actionlint string) (treeFacts, map[string]string) {
	t.Helper()
	facts := treeFacts{scripts: scripts(t, root)}
	placed := map[string]string{}
	for _, f := range lintTree(t, root).Findings {
		key := fmt.Sprintf("miles-ci lint: %s: %s: %s [%s]", f.Path, f.Severity, f.Message, f.Rule)
		facts.lint = append(facts.lint, key)
		placed[key] = "miles-ci lint: " + f.String()
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, actionlint, "-no-color", "-shellcheck=", "-pyflakes=", "-format", "{{json .}}")
	cmd.Dir = root
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	// Status 1 means it found errors; anything else, that it could not run.
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		t.Fatalf("actionlint: %v\n%s", err, errOut.String())
	}
	var errs []actionlintError
	require.NoError(t, json.Unmarshal(out.Bytes(), &errs), out.String())
	for _, e := range errs {
		key := fmt.Sprintf("actionlint: %s: %s [%s]", e.Filepath, e.Message, e.Kind)
		facts.actionlint = append(facts.actionlint, key)
		placed[key] = fmt.Sprintf("actionlint: %s:%d: %s [%s]", e.Filepath, e.Line, e.Message, e.Kind)
	}
	return facts, placed
}

// added returns what now holds beyond base, one entry per extra copy.
func added(base, now []string) []string {
	left := map[string]int{}
	for _, b := range base {
		left[b]++
	}
	var out []string
	for _, n := range now {
		if left[n] > 0 {
			left[n]--
			continue
		}
		out = append(out, n)
	}
	return out
}

// scripts maps every shell script of the workflows below root (a step's
// run:, and a job's execute_command, which the reusable workflows run) to
// where it is.
func scripts(t *testing.T, root string) map[string]string {
	t.Helper()
	wfs, _, err := readWorkflows(root)
	require.NoError(t, err)
	out := map[string]string{}
	for _, wf := range wfs {
		for _, j := range wf.jobs {
			if _, cmd := j.get("with", "execute_command"); cmd != nil {
				out[cmd.Value] = fmt.Sprintf("%s job %s execute_command", wf.name, j.id)
			}
			_, steps := j.get("steps")
			if steps == nil {
				continue
			}
			for _, st := range steps.Content {
				if _, run := lookup(st, "run"); run != nil {
					out[run.Value] = fmt.Sprintf("%s job %s step %q", wf.name, j.id, stepKey(st))
				}
			}
		}
	}
	return out
}

// pythonEntryPoints are the commands miles-ci replaces: none may be left.
var pythonEntryPoints = []string{"tests/ci/run_suite.py", "tests.ci.run_suite", "tests/ci/ci_policy.py", "tests.ci.ci_policy",
	"tests/ci/file_run.py", "tests.ci.file_run", "timeout --signal"}

// expression matches a GitHub expression, which is substituted before
// the shell reads the script.
var expression = regexp.MustCompile(`\$\{\{.*?\}\}`)

// scriptProblems checks the scripts the migration added: bash parses each
// (an expression read as a plain word), and none calls a Python entry
// point.
func scriptProblems(t *testing.T, base, now map[string]string) []string {
	t.Helper()
	bash := testutil.NeedCommand(t, "bash")
	var out []string
	for _, s := range slices.Sorted(maps.Keys(now)) {
		for _, p := range pythonEntryPoints {
			if strings.Contains(s, p) {
				out = append(out, fmt.Sprintf("%s still calls %s: %q", now[s], p, s))
			}
		}
		if _, old := base[s]; old {
			continue
		}
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		cmd := exec.CommandContext(ctx, bash, "-n")
		cmd.Stdin = strings.NewReader(expression.ReplaceAllString(s, "x"))
		msg, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			out = append(out, fmt.Sprintf("bash -n: %s: %s: %q", now[s], strings.TrimSpace(string(msg)), s))
		}
	}
	return out
}

var (
	inputExpr = regexp.MustCompile(`\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}`)
	shardExpr = regexp.MustCompile(`\$\{\{\s*matrix\.partition_id\s*\}\}`)
	// checkRunExpr is the id of the job's own check run, one per job of a
	// run, however many workflows the run calls.
	checkRunExpr = regexp.MustCompile(`\$\{\{\s*job\.check_run_id\s*\}\}`)
	// ifInputSet is the condition by which a reusable workflow's step runs
	// only when its caller passed an input.
	ifInputSet = regexp.MustCompile(`inputs\.([A-Za-z0-9_-]+)\s*!=\s*''`)
)

// artifactClashes lists the artifact names that two jobs of one workflow
// run would upload, where GitHub keeps the first and fails the second. It
// expands each job's shards (a partition_id list, or every roster shard of
// a shard_matrix), and reads a call of a local reusable workflow with the
// inputs the caller passes, defaults for the others; a step that runs only
// when an input is not empty is left out where it is. job.check_run_id
// differs in every job; what else an expression holds (the run attempt) is
// the same in every job and stays as written.
func artifactClashes(t *testing.T, root string) []string {
	t.Helper()
	wfs, _, err := readWorkflows(root)
	require.NoError(t, err)
	cfg, err := config.Load(root, "")
	require.NoError(t, err)
	byName := map[string]*workflow{}
	for _, wf := range wfs {
		byName[wf.name] = wf
	}
	var out []string
	for _, wf := range wfs {
		if wf.broken {
			continue
		}
		seen := map[string]string{}
		for _, j := range wf.jobs {
			for _, id := range shardIDs(j, cfg) {
				for _, name := range uploadNames(j, byName) {
					name = shardExpr.ReplaceAllString(name, id)
					who := fmt.Sprintf("job %s", j.id)
					if id != "" {
						who += " shard " + id
					}
					if first, dup := seen[name]; dup {
						out = append(out, fmt.Sprintf("%s: %s and %s both upload the artifact %q in one run", wf.name, first, who, name))
						continue
					}
					seen[name] = who
				}
			}
		}
	}
	return out
}

// shardIDs lists the partition ids a job runs as, "" for a job without a
// matrix of shards.
func shardIDs(j *job, cfg *config.Config) []string {
	_, m := j.get("strategy", "matrix")
	if text, ok := scalar(m); ok && strings.Contains(text, "shard_matrix") {
		if s, ok := cfg.Suite(j.id); ok {
			ids := make([]string, s.Shards)
			for i := range ids {
				ids[i] = strconv.Itoa(i)
			}
			return ids
		}
	}
	if _, ids := lookup(m, "partition_id"); ids != nil && ids.Kind == yaml.SequenceNode {
		var out []string
		for _, e := range ids.Content {
			out = append(out, e.Value)
		}
		return out
	}
	return []string{""}
}

// uploadNames lists the artifact names a job's upload steps give, those of
// the reusable workflow it calls read with its inputs.
func uploadNames(j *job, byName map[string]*workflow) []string {
	var out []string
	collect := func(jobs []*job, inputs map[string]string) {
		for _, cj := range jobs {
			_, steps := cj.get("steps")
			if steps == nil {
				continue
			}
			for _, st := range steps.Content {
				_, uses := lookup(st, "uses")
				if uses == nil || !strings.HasPrefix(uses.Value, "actions/upload-artifact@") {
					continue
				}
				if _, cond := lookup(st, "if"); cond != nil && inputs != nil {
					if m := ifInputSet.FindStringSubmatch(cond.Value); m != nil && inputs[m[1]] == "" {
						continue
					}
				}
				_, with := lookup(st, "with")
				_, name := lookup(with, "name")
				if name == nil {
					continue
				}
				n := name.Value
				if inputs != nil {
					n = inputExpr.ReplaceAllStringFunc(n, func(e string) string { return inputs[inputExpr.FindStringSubmatch(e)[1]] })
				}
				n = checkRunExpr.ReplaceAllLiteralString(n, "<check run of "+j.id+"/"+cj.id+">")
				out = append(out, n)
			}
		}
	}
	_, uses := j.get("uses")
	called, local := "", false
	if uses != nil {
		called, local = strings.CutPrefix(uses.Value, "./"+WorkflowDir+"/")
	}
	if !local {
		collect([]*job{j}, nil)
		return out
	}
	wf := byName[called]
	if wf == nil || wf.broken {
		return nil
	}
	inputs := map[string]string{}
	_, declared := lookup(wf.root, "on")
	_, declared = lookup(declared, "workflow_call")
	_, declared = lookup(declared, "inputs")
	if declared != nil {
		for i := 0; i+1 < len(declared.Content); i += 2 {
			if _, d := lookup(declared.Content[i+1], "default"); d != nil {
				inputs[declared.Content[i].Value] = d.Value
			}
		}
	}
	if _, with := j.get("with"); with != nil {
		for i := 0; i+1 < len(with.Content); i += 2 {
			inputs[with.Content[i].Value] = with.Content[i+1].Value
		}
	}
	collect(wf.jobs, inputs)
	return out
}

// namesAScript matches a line of Miles' docs that names the Python the
// migration retires.
var namesAScript = regexp.MustCompile(`run_suite|ci_policy|stage_selection|file_run\.py|tests\.ci\.file_run|CI_SUITES|PR_GPU_STAGES`)

// docsTableProblems checks the topic's docs table against the pinned docs
// (docs/**/*.md and tests/ci/README.md): each line that names a retired
// script has its row, and each row's words are on one such line of its
// file, which names what the row says.
func docsTableProblems(t *testing.T, ref string, rows []docsRow) []string {
	t.Helper()
	files := []string{"tests/ci/README.md"}
	for _, dir := range []string{"docs", ".claude"} {
		if _, err := os.Stat(filepath.Join(ref, dir)); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		require.NoError(t, filepath.WalkDir(filepath.Join(ref, dir), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
				rel, _ := filepath.Rel(ref, p)
				files = append(files, filepath.ToSlash(rel))
			}
			return err
		}))
	}
	var problems []string
	covered := map[string]bool{} // by the row's place in the topic
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(ref, filepath.FromSlash(f)))
		require.NoError(t, err)
		for i, line := range strings.Split(string(b), "\n") {
			var mine []docsRow
			for _, r := range rows {
				if r.file == f && strings.Contains(line, r.anchor) {
					mine = append(mine, r)
				}
			}
			for _, r := range mine {
				if covered[r.at] {
					problems = append(problems, fmt.Sprintf("%s: the words %q are on more than one line of %s", r.at, r.anchor, f))
				}
				covered[r.at] = true
				for _, n := range r.names {
					if !strings.Contains(line, n) {
						problems = append(problems, fmt.Sprintf("%s: %s:%d does not name %s", r.at, f, i+1, n))
					}
				}
			}
			switch {
			case namesAScript.MatchString(line) && len(mine) == 0:
				problems = append(problems, fmt.Sprintf("%s:%d names a script Step 6 retires, and no row of the docs table says what to write instead: %q", f, i+1, line))
			case len(mine) > 1:
				problems = append(problems, fmt.Sprintf("%s:%d has %d rows of the docs table", f, i+1, len(mine)))
			case len(mine) == 1 && !namesAScript.MatchString(line):
				problems = append(problems, fmt.Sprintf("%s: %s:%d names no script", mine[0].at, f, i+1))
			}
		}
	}
	for _, r := range rows {
		// A row for a file of Miles that this copy does not hold (the
		// pinned reference has docs/ci only) is checked on a checkout.
		if !slices.Contains(files, r.file) {
			continue
		}
		if !covered[r.at] {
			problems = append(problems, fmt.Sprintf("%s: no line of %s has the words %q", r.at, r.file, r.anchor))
		}
	}
	return problems
}

// recipeRun is what one check of the topic needs.
type recipeRun struct {
	ref, actionlint string
	base            treeFacts
	// python runs Miles' tests after each step; "" runs none.
	python string
	// out receives the migrated tree (the other way's in out/or); "" none.
	out string
	// pool runs python's tests; nil makes one.
	pool *pytestPool
	// onlyAfter, when set, runs python's tests after that step alone.
	onlyAfter string
}

// retired is what the last step takes away: the Python the miles-ci
// commands replace, and the tests of it.
var retired = []string{"tests/ci/ci_policy.py", "tests/ci/stage_selection.py", "tests/ci/file_run.py",
	"tests/ci/test/test_run_suite.py", "tests/ci/test/test_ci_policy.py", "tests/ci/test/test_stage_selection.py",
	"tests/ci/test/test_file_run.py"}

// recipeProblems applies the topic's steps to a copy of the pinned Miles
// files and returns everything wrong with the result, against the facts of
// the tree as it is; then the same for the topic's other way (its "Or, in"
// recipes), if it shows one.
func recipeProblems(t *testing.T, run recipeRun, topic string) []string {
	t.Helper()
	book, err := readRecipeBook("migrate.md", topic)
	if err != nil {
		return []string{err.Error()}
	}
	pool := run.pool
	if pool == nil {
		pool = newPytestPool(t, run.python)
	}
	pytest := pool.run
	found := docsTableProblems(t, run.ref, book.docs)
	found = append(found, bookProblems(t, run, book, run.out, true, pytest)...)
	if other := book.otherWay(); other != nil {
		out := run.out
		if out != "" {
			out = filepath.Join(out, "or")
		}
		for _, p := range bookProblems(t, run, other, out, false, pytest) {
			found = append(found, "the other way (Or, in …): "+p)
		}
	}
	return append(found, pool.wait()...)
}

// pytestPool runs Miles' tests on several trees at once and collects what
// is wrong.
type pytestPool struct {
	t      *testing.T
	python string
	// path is the PATH of Miles' tests, which start python3 about ten
	// times a run: the directory of the interpreter it names first
	// (testutil.NeedPython), so that a version manager's shim (pyenv's
	// costs about 0.4 s a start) is not paid each time for the same
	// interpreter.
	path     string
	wg       sync.WaitGroup
	mu       sync.Mutex
	problems []string
	// slots bounds the runs at a time: CI has two cores, and most of a
	// run is its tests' sleeps.
	slots chan struct{}
	// alone is read-held by every run and write-held by a run again of
	// the timing tests, which then has the machine to itself.
	alone sync.RWMutex
}

func newPytestPool(t *testing.T, python string) *pytestPool {
	path := os.Getenv("PATH")
	if python != "" {
		path = filepath.Dir(testutil.NeedPython(t)) + string(os.PathListSeparator) + path
	}
	return &pytestPool{t: t, python: python, path: path, slots: make(chan struct{}, 4)}
}

// run starts a run of Miles' tests on tree; label says which, in a
// problem. When the only failures are timingTests, those run again alone,
// up to three times: what failed is then the 2 s a loaded machine did not
// give, not the tree.
func (p *pytestPool) run(label, tree string) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.slots <- struct{}{}
		p.alone.RLock()
		_, problem := pytestMiles(p.t.Context(), p.python, p.path, tree)
		p.alone.RUnlock()
		<-p.slots
		// The timing tests that failed get three more tries, alone.
		for try := 0; try < 3 && problem != "" && onlyTimingTests(problem); try++ {
			p.alone.Lock()
			_, again := pytestMiles(p.t.Context(), p.python, p.path, tree, failedIDs(problem)...)
			p.alone.Unlock()
			if again == "" {
				problem = ""
			}
		}
		if problem != "" {
			p.mu.Lock()
			p.problems = append(p.problems, label+": "+problem)
			p.mu.Unlock()
		}
	}()
}

// wait waits for every run and returns what they found wrong.
func (p *pytestPool) wait() []string {
	p.wg.Wait()
	return p.problems
}

// bookProblems applies one way of the topic, step by step, to a copy of
// the pinned Miles files and returns everything wrong with the result;
// pytest is handed the tree after each step (eachStep) or at the end.
func bookProblems(t *testing.T, run recipeRun, book *recipeBook, out string, eachStep bool, pytest func(label, tree string)) []string {
	t.Helper()
	root := milesRecipeTree(t, run.ref)
	snapshot := func(label string) {
		if run.python == "" {
			return
		}
		pytest(label, pytestTree(t, root))
	}
	var done func(int, *step) error
	if eachStep {
		done = func(_ int, st *step) error {
			if len(st.rewrites)+len(st.recipes)+len(st.py) > 0 && (run.onlyAfter == "" || run.onlyAfter == st.title) {
				snapshot("after " + st.title)
			}
			return nil
		}
	}
	if err := applySteps(book, root, done); err != nil {
		return []string{err.Error()}
	}
	if !eachStep && run.onlyAfter == "" {
		snapshot("at the end")
	}
	if out != "" {
		// As the pytest runs see it, without the .git actionlint needs:
		// Miles' tests run in out as they ran here.
		require.NoError(t, os.CopyFS(out, os.DirFS(pytestTree(t, root))))
	}
	now, placed := readTreeFacts(t, root, run.actionlint)
	var problems []string
	for _, f := range added(run.base.lint, now.lint) {
		problems = append(problems, placed[f])
	}
	for _, f := range added(run.base.actionlint, now.actionlint) {
		problems = append(problems, placed[f])
	}
	problems = append(problems, scriptProblems(t, run.base.scripts, now.scripts)...)
	for _, f := range retired {
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(f))); err == nil {
			problems = append(problems, f+" is still there after the last step")
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(RunSuitePath))); err != nil || bytes.Contains(b, []byte(ciSuitesName)) {
		problems = append(problems, fmt.Sprintf("%s is not the compatibility entry point after the last step (%v)", RunSuitePath, err))
	}
	return append(problems, artifactClashes(t, root)...)
}

// milesBaseline reads the facts of the pinned Miles files as they are,
// the workflows re-encoded as the migrated ones are.
func milesBaseline(t *testing.T, ref, actionlint string) treeFacts {
	t.Helper()
	root := milesRecipeTree(t, ref)
	require.NoError(t, applyRecipeBook(&recipeBook{}, root))
	base, _ := readTreeFacts(t, root, actionlint)
	return base
}

func migrateTopic(t *testing.T) string {
	t.Helper()
	tp, ok := docs.Lookup("migrate")
	require.True(t, ok)
	return tp.Text
}

// Under -short the recipes are applied and checked, but Miles' tests do
// not run: nine runs of tests/ci/test, each about 20 s of child processes
// and sleeps, are most of this package's time.
func TestMigrateTopic_TheRecipesOnMilesAddNoFinding(t *testing.T) {
	t.Parallel()
	wholeOutput(t, "a recipe adds no finding of any rule: the findings before and after compared")
	ref := testutil.MilesRef(t)
	actionlint := testutil.Actionlint(t)
	python := ""
	if !testutil.Short(t, "running Miles' tests/ci/test after each step") {
		python = testutil.Pytest(t)
	}
	pool := newPytestPool(t, python)
	if python != "" {
		// Miles' tests pass on the tree as it is, but for those that
		// cannot here, and those are exactly the ones left out.
		pool.run("on the tree as it is", pytestTree(t, milesRecipeTree(t, ref)))
	}
	base := milesBaseline(t, ref, actionlint)
	// The baseline is Miles as it is: lint's one orphan warning and
	// actionlint's own findings (the concurrency queue key, a custom
	// runner label) are there before and after.
	require.NotEmpty(t, base.lint)
	require.NotEmpty(t, base.actionlint)
	problems := recipeProblems(t, recipeRun{ref: ref, actionlint: actionlint, base: base, python: python, out: os.Getenv(migratedOutEnv), pool: pool}, migrateTopic(t))
	if python != "" {
		deselected := 0
		for _, n := range notHere {
			if strings.Contains(n.id, "::") {
				deselected++
			}
		}
		collect := exec.CommandContext(t.Context(), python, pytestArgs("--collect-only")...)
		collect.Dir = pytestTree(t, milesRecipeTree(t, ref))
		out, err := collect.CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Contains(t, string(out), fmt.Sprintf("(%d deselected)", deselected), "every test of notHere is one of Miles' tests/ci/test")
	}
	assert.Empty(t, problems, "the recipes of `miles-ci help migrate` on Miles (lines are the migrated tree's; %s=DIR keeps it):\n%s",
		migratedOutEnv, strings.Join(problems, "\n"))
}

// A step that swaps the entry points without the edits of Miles' tests
// turns Miles' CPU stage red, and the harness names the test.
func TestMigrateTopic_AStepWithoutItsTestEditsTurnsMilesTestsRed(t *testing.T) {
	t.Parallel()
	wholeOutput(t, "the recipes' findings before and after compared")
	testutil.SkipShort(t, "a run of Miles' tests/ci/test (about 20 s)")
	ref := testutil.MilesRef(t)
	actionlint := testutil.Actionlint(t)
	python := testutil.Pytest(t)
	base := milesBaseline(t, ref, actionlint)
	mutated := replaceAfter("## Step 2", "- `TestWorkflowScopeSeam`\n", "")(t, migrateTopic(t))
	problems := recipeProblems(t, recipeRun{ref: ref, actionlint: actionlint, base: base, python: python, onlyAfter: "Step 2: the entry points"}, mutated)
	found := slices.ContainsFunc(problems, func(p string) bool {
		return strings.HasPrefix(p, "after Step 2: the entry points: pytest") &&
			strings.Contains(p, "FAILED tests/ci/test/test_run_suite.py::TestWorkflowScopeSeam::test_policy_job_is_a_thin_python_adapter")
	})
	assert.True(t, found, "no problem names the test the entry points break:\n%s", strings.Join(problems, "\n"))
}

// Each mistake the topic once made, put back, is caught.
func TestMigrateTopic_EachOldMistakeFails(t *testing.T) {
	wholeOutput(t, "the recipes' findings before and after compared")
	ref := testutil.MilesRef(t)
	actionlint := testutil.Actionlint(t)
	base := milesBaseline(t, ref, actionlint)
	topic := migrateTopic(t)
	for _, tc := range []struct {
		name string
		edit func(*testing.T, string) string
		want string
	}{
		{"timeout-minutes on the job that calls _run-ci.yml",
			replaceAfter("## Step 4: /rerun-test", "  run-cuda-file:\n    with:\n", "  run-cuda-file:\n    timeout-minutes: 60\n    with:\n"),
			`"timeout-minutes" is not available`},
		{"the suite and the shard count through shell variables in _run-ci.yml",
			replaceAfter("## Optional: measured timings", "          ${{ inputs.execute_command }}\n",
				"          miles-ci run --hw cuda --suite \"$SUITE\" --auto-partition-id \"$ID\" --auto-partition-size \"$N\"\n"),
			"miles-ci lint: .github/workflows/_run-ci.yml:"},
		{"a dynamic matrix without max-parallel",
			replaceAfter("## Optional: book only", "      max-parallel: ${{ needs.resolve-ci-policy.outputs.cadence == 'weekly' && 1 || 3 }}\n", ""),
			"[weekly-serial]"},
		{"a shard named after matrix.id in the caller",
			replaceAfter("## Optional: a report per shard", "stage-c-8-gpu-h100-${{ matrix.partition_id }}", "stage-c-8-gpu-h100-${{ matrix.id }}"),
			`property "id" is not defined`},
		{"an artifact named after matrix.id in _run-ci.yml",
			replaceAfter("## Optional: a report per shard", "name: report-${{ inputs.shard_name }}", "name: report-${{ matrix.id }}"),
			"both upload the artifact"},
		{"a shard name without the shard",
			replaceAfter("## Optional: a report per shard", "shard_name: stage-c-8-gpu-h100-${{ matrix.partition_id }}", "shard_name: stage-c-8-gpu-h100"),
			"both upload the artifact"},
		{"go install with a placeholder version",
			replaceAfter("## Step 5: lint in a pull request check", "      "+installComment+"\n", "      - name: Install miles-ci\n        run: go install github.com/radixark/miles-ci/cmd/miles-ci@<version>\n"),
			"bash -n: pre-commit.yml job miles-ci-lint"},
		{"one artifact name for every build job of the route without a release",
			replaceAfter("### Without a release", "name: miles-ci-${{ job.check_run_id }}", "name: miles-ci"),
			`the other way (Or, in …): release-branch-cut.yml: job run-tests-cuda and job run-tests-rocm both upload the artifact "miles-ci"`},
		{"a docs line missing from the docs table",
			replaceAfter("## Step 6", "| `docs/ci/01-label.md`: \"derives continue-on-error\" | `run_suite.py` | `miles-ci run` derives it |\n", ""),
			"docs/ci/01-label.md:161 names a script Step 6 retires"},
		{"a deletion of a test that is not there",
			replaceAfter("## Step 2", "- `TestRocmWorkflowScopeSeam`", "- `TestRocmWorkflowScopeSeam.test_gone`"),
			"class TestRocmWorkflowScopeSeam has no test_gone to delete"},
		{"a recipe without its marker",
			replaceAfter("## Step 5: lint in a pull request check", "In `pre-commit.yml`:\n", ""),
			"a yaml block without a marker"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mutated := tc.edit(t, topic)
			require.NotEqual(t, topic, mutated)
			problems := recipeProblems(t, recipeRun{ref: ref, actionlint: actionlint, base: base}, mutated)
			found := slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tc.want) })
			assert.True(t, found, "no problem says %q:\n%s", tc.want, strings.Join(problems, "\n"))
		})
	}
}

// The MI350 nightly's own command line (the external fixture's step, its
// container wrapper standing in with a script that runs the rest in the
// migrated copy), through the compatibility entry point that Step 6
// leaves, prints what `miles-ci run` prints on the same tree, with the
// same exit status: for an external suite, and for a suite the roster does
// not have. Without miles-ci on the PATH the entry point says so in one
// line and exits 127.
func TestMigrateTopic_TheExternalNightlyRunsThroughTheCompatibilityEntryPoint(t *testing.T) {
	testutil.SkipShort(t, "the migrate recipe run on a copy of Miles")
	t.Parallel()
	ref := testutil.MilesRef(t)
	python := testutil.NeedPython(t)
	bash := testutil.NeedCommand(t, "bash")
	bin := testutil.BuildMilesCI(t)
	root := migratedMiles(t, ref)

	var nightly struct {
		Jobs map[string]struct {
			Steps []struct{ Run string }
		}
	}
	require.NoError(t, yaml.Unmarshal([]byte(readText(t, nightlyFixedFile)), &nightly))
	var line string
	for _, j := range nightly.Jobs {
		for _, st := range j.Steps {
			if strings.Contains(st.Run, "tests/ci/run_suite.py") {
				line = st.Run
			}
		}
	}
	require.NotEmpty(t, line, "the nightly fixture calls tests/ci/run_suite.py")
	// The wrapper runs its command in the container's checkout, -w DIR:
	// here the migrated copy.
	work := t.TempDir()
	wrapper := filepath.Join(work, "ci", "amd", "exec_in_container.sh")
	require.NoError(t, os.MkdirAll(filepath.Dir(wrapper), 0o755))
	require.NoError(t, os.WriteFile(wrapper, []byte("[ \"$1\" = -w ] || exit 2\nshift 2\ncd \"$MIGRATED\" && exec \"$@\"\n"), 0o755))
	path := func(dirs ...string) string {
		return "PATH=" + strings.Join(append(dirs, filepath.Dir(python), "/usr/bin", "/bin"), string(os.PathListSeparator))
	}
	type result struct {
		stdout, stderr string
		status         int
	}
	runIn := func(dir string, env []string, name string, args ...string) result {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir, cmd.Env = dir, env
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("%s: %v", name, err)
		}
		return result{o.String(), e.String(), cmd.ProcessState.ExitCode()}
	}
	nightlyRun := func(suite string, env []string) result {
		t.Helper()
		script := expression.ReplaceAllStringFunc(strings.TrimRight(line, "\n"), func(e string) string {
			if strings.Contains(e, "matrix.suite") {
				return suite
			}
			return ""
		})
		return runIn(work, append(env, "MIGRATED="+root), bash, "-c", script+" --list-only")
	}
	binDir := filepath.Dir(bin)
	for _, suite := range []string{"nightly-stage-c-8-gpu-mi350", "nightly-stage-c-1-gpu-mi350"} {
		got := nightlyRun(suite, []string{path(binDir)})
		want := runIn(root, []string{path(binDir)}, bin, "run", "--hw", "rocm", "--suite", suite, "--match-all-labels", "--list-only")
		assert.Equal(t, want, got, "the nightly's line for %s through tests/ci/run_suite.py", suite)
	}
	assert.Contains(t, nightlyRun("nightly-stage-c-8-gpu-mi350", []string{path(binDir)}).stdout, "tests/e2e/amd/test_amd_nightly.py", "the suite lists its test")

	// Without miles-ci on the PATH: one line that names the install, 127.
	got := nightlyRun("nightly-stage-c-8-gpu-mi350", []string{path()})
	assert.Equal(t, 127, got.status)
	assert.Empty(t, got.stdout)
	assert.Equal(t, "tests/ci/run_suite.py: miles-ci is not on the PATH; install it (miles-ci help migrate, ## Install)\n", got.stderr)
}

// migratedMiles is a copy of the pinned Miles taken through every step of
// the topic.
func migratedMiles(t *testing.T, ref string) string {
	t.Helper()
	book, err := readRecipeBook("migrate.md", migrateTopic(t))
	require.NoError(t, err)
	root := milesRecipeTree(t, ref)
	require.NoError(t, applyRecipeBook(book, root))
	return root
}

// On Miles taken through every step (with Step 1's roster file), the
// finished migration still takes the two changes a maintainer makes next:
// renaming a GPU suite with suites rename leaves lint as it was and lists
// the same tests under the new name, and an external nightly that still
// calls the Python runner once the compatibility entry point is gone is
// an external-entry error at its line.
func TestMigrateTopic_TheMigratedCopyRenamesASuiteAndGuardsTheNightly(t *testing.T) {
	testutil.SkipShort(t, "the migrate recipe run on a copy of Miles")
	t.Parallel()
	ref := testutil.MilesRef(t)
	bin := testutil.BuildMilesCI(t)
	root := migratedMiles(t, ref)
	miles := func(args ...string) (string, int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append([]string{"--root", root}, args...)...)
		cmd.Env = append(os.Environ(), "GITHUB_ACTIONS=", "GITHUB_RUN_ID=")
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("miles-ci %s: %v", strings.Join(args, " "), err)
		}
		return string(out), cmd.ProcessState.ExitCode()
	}
	// Step 1, as the topic shows it.
	out, code := miles("config", "--init")
	require.Zero(t, code, out)

	const oldName, newName = "stage-c-8-gpu-h100", "stage-c-8-gpu-h100-nvl"
	lintBefore, code := miles("lint")
	require.Zero(t, code, lintBefore)
	listing := func(suite string) string {
		t.Helper()
		out, code := miles("run", "--hw", "cuda", "--suite", suite, "--cadence", "nightly", "--match-all-labels", "--list-only")
		require.Zero(t, code, out)
		return out
	}
	before := listing(oldName)
	require.Contains(t, before, "tests/e2e/megatron/test_stage_c_8_gpu_h100.py")

	out, code = miles("suites", "rename", oldName, newName)
	require.Zero(t, code, out)
	lintAfter, code := miles("lint")
	assert.Zero(t, code, lintAfter)
	assert.Equal(t, lintBefore, lintAfter, "lint after the rename")
	assert.Contains(t, lintAfter, "\n0 errors, ")
	assert.Equal(t, strings.ReplaceAll(before, oldName, newName), listing(newName), "run --list-only of the new name")
	_, code = miles("run", "--hw", "cuda", "--suite", oldName, "--list-only")
	assert.NotZero(t, code, "the old name is no suite any more")

	// The nightly as it calls the Python runner today: fine while the
	// compatibility entry point stands, an error at its line once it goes.
	nightly, err := filepath.Abs(nightlyFixedFile)
	require.NoError(t, err)
	out, code = miles("lint", "--external", nightly)
	assert.NotContains(t, out, "external-entry", "with tests/ci/run_suite.py in place")
	require.NoError(t, os.Remove(filepath.Join(root, "tests", "ci", "run_suite.py")))
	out, code = miles("lint", "--external", nightly)
	assert.NotZero(t, code)
	line := 0
	for i, l := range strings.Split(readText(t, nightlyFixedFile), "\n") {
		if strings.Contains(l, "python3 tests/ci/run_suite.py") {
			line = i + 1
		}
	}
	require.NotZero(t, line)
	assert.Regexp(t, regexp.QuoteMeta(nightly)+":"+strconv.Itoa(line)+":[0-9]+: error: .*tests/ci/run_suite.py.* \\[external-entry\\]", out)
}

// The docs table against a whole Miles checkout (MILES_CHECKOUT): the
// contributor guides and skills outside docs/ci name the scripts too.
func TestMigrateTopic_TheDocsTableCoversAMilesCheckout(t *testing.T) {
	miles := testutil.MilesCheckout(t)
	book, err := readRecipeBook("migrate.md", migrateTopic(t))
	require.NoError(t, err)
	problems := docsTableProblems(t, miles, book.docs)
	assert.Empty(t, problems, strings.Join(problems, "\n"))
}
