//go:build unix

package lint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/docs"
	"github.com/radixark/miles-ci/internal/testutil"
)

// The migrate topic's recipes, all of them at once, on the pinned Miles
// workflows (recipes_test.go says how they are read and placed): the
// migrated tree must add no finding of miles-ci lint and none of
// actionlint to those of the tree as it is, call no Python entry point
// any more, hold only scripts bash can parse, and never upload one
// artifact name from two jobs of a run.

// recipesOutEnv names a directory that receives the migrated workflows,
// for a look by hand.
const recipesOutEnv = "MILES_CI_RECIPES_OUT"

// milesRecipeTree copies the pinned Miles workflows, and the fixture's
// test files for the registrations lint checks them against, into a new
// root, with the .git directory by which actionlint finds a project (and
// so checks the calls of local reusable workflows).
func milesRecipeTree(t *testing.T, ref string) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(root, ".github", "workflows"), os.DirFS(filepath.Join(ref, ".github", "workflows"))))
	require.NoError(t, os.CopyFS(filepath.Join(root, "tests"), os.DirFS(filepath.Join(milesFixture, "tests"))))
	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	return root
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
	// ifInputSet is the condition by which a reusable workflow's step runs
	// only when its caller passed an input.
	ifInputSet = regexp.MustCompile(`inputs\.([A-Za-z0-9_-]+)\s*!=\s*''`)
)

// artifactClashes lists the artifact names that two jobs of one workflow
// run would upload, where GitHub keeps the first and fails the second. It
// expands each job's shards (a partition_id list, or every roster shard of
// a shard_matrix), and reads a call of a local reusable workflow with the
// inputs the caller passes, defaults for the others; a step that runs only
// when an input is not empty is left out where it is. What else an expression
// holds (the run attempt) is the same in every job and stays as written.
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

// recipeProblems applies the topic's recipes to a copy of the pinned Miles
// workflows and returns everything wrong with the result, against the
// facts of the tree as it is. A non-empty out receives the migrated tree.
func recipeProblems(t *testing.T, ref, actionlint, topic string, base treeFacts, out string) []string {
	t.Helper()
	book, err := readRecipeBook("migrate.md", topic)
	if err != nil {
		return []string{err.Error()}
	}
	root := milesRecipeTree(t, ref)
	if err := applyRecipeBook(book, root); err != nil {
		return []string{err.Error()}
	}
	if out != "" {
		require.NoError(t, os.CopyFS(out, os.DirFS(root)))
	}
	now, placed := readTreeFacts(t, root, actionlint)
	var problems []string
	for _, f := range added(base.lint, now.lint) {
		problems = append(problems, placed[f])
	}
	for _, f := range added(base.actionlint, now.actionlint) {
		problems = append(problems, placed[f])
	}
	problems = append(problems, scriptProblems(t, base.scripts, now.scripts)...)
	return append(problems, artifactClashes(t, root)...)
}

// milesBaseline reads the facts of the pinned Miles workflows as they are,
// re-encoded as the migrated ones are.
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

func TestMigrateTopic_TheRecipesOnMilesAddNoFinding(t *testing.T) {
	ref := testutil.MilesRef(t)
	actionlint := testutil.Actionlint(t)
	base := milesBaseline(t, ref, actionlint)
	// The baseline is Miles as it is: lint's one orphan warning and
	// actionlint's own findings (the concurrency queue key, a custom
	// runner label) are there before and after.
	require.NotEmpty(t, base.lint)
	require.NotEmpty(t, base.actionlint)
	problems := recipeProblems(t, ref, actionlint, migrateTopic(t), base, os.Getenv(recipesOutEnv))
	assert.Empty(t, problems, "the recipes of `miles-ci help migrate` on Miles (lines are the migrated tree's; %s=DIR keeps it):\n%s",
		recipesOutEnv, strings.Join(problems, "\n"))
}

// Each mistake the topic once made, put back, is caught.
func TestMigrateTopic_EachOldMistakeFails(t *testing.T) {
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
			replaceAfter("## /rerun-test", "  run-cuda-file:\n    with:\n", "  run-cuda-file:\n    timeout-minutes: 60\n    with:\n"),
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
			replaceAfter("## Lint in a pull request check", "      "+installComment+"\n", "      - name: Install miles-ci\n        run: go install github.com/radixark/miles-ci/cmd/miles-ci@<version>\n"),
			"bash -n: pre-commit.yml job miles-ci-lint"},
		{"a recipe without its marker",
			replaceAfter("## Lint in a pull request check", "In `pre-commit.yml`:\n", ""),
			"a yaml block without a marker"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mutated := tc.edit(t, topic)
			require.NotEqual(t, topic, mutated)
			problems := recipeProblems(t, ref, actionlint, mutated, base, "")
			found := slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tc.want) })
			assert.True(t, found, "no problem says %q:\n%s", tc.want, strings.Join(problems, "\n"))
		})
	}
}
