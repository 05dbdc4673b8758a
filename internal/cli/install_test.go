//go:build unix

package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"debug/elf"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/radixark/miles-ci/internal/docs"
	"github.com/radixark/miles-ci/internal/testutil"
)

// The install of `miles-ci help migrate` is a local action of the migrated
// repository (action.yml, which holds the pins, and install.sh), the step
// each job uses it by, a Dockerfile recipe that runs the same script into
// an image, and the route without a release. The tests below run them as
// the docs show them (every file and step is read from the topic, never
// copied here) against archives that the Makefile's `make dist` builds for
// this machine: from a local server standing in for the release, and from
// a directory standing in for the build job's artifact.

const installVersion = "v9.9.9"

// actionDir is where the migrated repository keeps the install action.
const actionDir = ".github/actions/setup-miles-ci"

// pinKeys are the lines of action.yml that a new version changes.
var pinKeys = []string{"MILES_CI_VERSION", "MILES_CI_SHA256_AMD64", "MILES_CI_SHA256_ARM64"}

// installDocs is the Install section of the migrate topic, in pieces.
type installDocs struct {
	section      string       // the section's text
	actionYAML   string       // action.yml, whole
	script       string       // install.sh, whole
	use          workflowStep // the step by which a job uses the action
	useYAML      string       // its YAML
	pinsCommand  string       // the one-liner that prints the pins from SHA256SUMS
	dockerfile   string       // the lines added to Miles' Dockerfiles
	buildJob     string       // the YAML of the build-once job
	artifactYAML string       // the YAML of the download-artifact and install steps
	artifactStep workflowStep // the step that installs the build job's archives
}

type workflowStep struct {
	Name  string            `yaml:"name"`
	Uses  string            `yaml:"uses"`
	Shell string            `yaml:"shell"`
	With  map[string]string `yaml:"with"`
	Env   map[string]string `yaml:"env"`
	Run   string            `yaml:"run"`
}

// actionMetadata is what the tests read of an action.yml.
type actionMetadata struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string         `yaml:"using"`
		Steps []workflowStep `yaml:"steps"`
	} `yaml:"runs"`
}

func readInstallDocs(t *testing.T) installDocs {
	t.Helper()
	topic, ok := docs.Lookup("migrate")
	require.True(t, ok)
	_, section, ok := strings.Cut(topic.Text, "\n## Install\n")
	require.True(t, ok, "the migrate topic has an Install section")
	section, _, _ = strings.Cut(section, "\n## ")
	lines := strings.Split(section, "\n")
	bs, _ := blocks(section)

	// The blocks are known by their markers (the line before them) or by
	// what they hold: the build job uploads, the artifact steps download.
	d := installDocs{section: section}
	for _, b := range bs {
		text := strings.Join(b.lines, "\n")
		marker := ""
		for k := b.line - 3; k >= 0; k-- {
			if strings.TrimSpace(lines[k]) != "" {
				marker = lines[k]
				break
			}
		}
		switch {
		case marker == "In `"+actionDir+"/action.yml`:":
			d.actionYAML = text + "\n"
		case marker == "In `"+actionDir+"/install.sh`:":
			d.script = text + "\n"
		case marker == "In place of each `# the install step (## Install)` line:":
			d.useYAML = text
		case b.lang == "dockerfile":
			require.Equal(t, "At the end of `docker/Dockerfile` and `docker/Dockerfile.rocm`:", marker, "the Dockerfile recipe names the files it goes in")
			d.dockerfile = text
		case b.lang == "yaml" && strings.Contains(text, "actions/upload-artifact"):
			d.buildJob = text
		case b.lang == "yaml" && strings.Contains(text, "actions/download-artifact"):
			d.artifactYAML = text
		case b.lang == "sh":
			for _, line := range b.lines {
				if strings.Contains(line, "SHA256SUMS\" |") {
					d.pinsCommand = line
				}
			}
		}
	}
	require.NotEmpty(t, d.actionYAML, "the Install section shows the action's action.yml")
	require.NotEmpty(t, d.script, "the Install section shows the action's install.sh")
	require.NotEmpty(t, d.useYAML, "the Install section shows the step that uses the action")
	require.NotEmpty(t, d.pinsCommand, "the Install section shows how SHA256SUMS becomes the pins")
	require.NotEmpty(t, d.dockerfile, "the Install section shows the Dockerfile recipe")
	require.Contains(t, d.buildJob, "build-miles-ci:", "the Install section shows the build job of the route without a release")
	require.NotEmpty(t, d.artifactYAML, "the Install section shows the steps that install the build job's archives")

	var use []workflowStep
	require.NoError(t, yaml.Unmarshal([]byte(d.useYAML), &use), d.useYAML)
	require.Len(t, use, 1, "one step uses the action:\n%s", d.useYAML)
	d.use = use[0]
	require.Equal(t, "./"+actionDir, d.use.Uses)
	d.artifactStep = onlyRunStep(t, d.artifactYAML)
	return d
}

// readAction parses an action.yml: a composite action of one step, which
// runs in POSIX sh.
func readAction(t *testing.T, text string) (actionMetadata, workflowStep) {
	t.Helper()
	var a actionMetadata
	require.NoError(t, yaml.Unmarshal([]byte(text), &a), text)
	require.Equal(t, "composite", a.Runs.Using)
	require.Len(t, a.Runs.Steps, 1, "the action installs in one step")
	step := a.Runs.Steps[0]
	require.Equal(t, "sh", step.Shell, "the action runs in POSIX sh, as the images have it")
	return a, step
}

// onlyRunStep parses a YAML list of steps and returns the one with a run:
// script.
func onlyRunStep(t *testing.T, text string) workflowStep {
	t.Helper()
	var steps []workflowStep
	require.NoError(t, yaml.Unmarshal([]byte(text), &steps), text)
	var found []workflowStep
	for _, s := range steps {
		if s.Run != "" {
			found = append(found, s)
		}
	}
	require.Len(t, found, 1, "one step with a run: script in\n%s", text)
	require.Equal(t, "sh", found[0].Shell, "%s runs in POSIX sh, as the images have it", found[0].Name)
	return found[0]
}

// setPins returns action.yml with the lines of the pins given replaced, as
// a new version is pasted over the old: each key's one line keeps its
// indentation and takes the new value.
func setPins(t *testing.T, actionYAML string, pins map[string]string) string {
	t.Helper()
	lines := strings.Split(actionYAML, "\n")
	for key, value := range pins {
		n := 0
		for i, line := range lines {
			trimmed := strings.TrimLeft(line, " ")
			if strings.HasPrefix(trimmed, key+":") {
				lines[i] = line[:len(line)-len(trimmed)] + key + ": " + value
				n++
			}
		}
		require.Equal(t, 1, n, "action.yml holds one line %s:", key)
	}
	return strings.Join(lines, "\n")
}

// writeRepo writes the action, with the pins given, into a new repository
// root and returns it.
func writeRepo(t *testing.T, d installDocs, pins map[string]string) string {
	t.Helper()
	root := t.TempDir()
	testutil.WriteFile(t, root, actionDir+"/action.yml", setPins(t, d.actionYAML, pins))
	testutil.WriteFile(t, root, actionDir+"/install.sh", d.script)
	return root
}

// buildDist runs `make dist` for this machine's platform into a new
// directory and returns it.
func buildDist(t *testing.T) string {
	t.Helper()
	testutil.NeedLinux(t, "the release archives")
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		testutil.Skip(t, "the releases are built for amd64 and arm64, not "+runtime.GOARCH)
	}
	for _, tool := range []string{"make", "git", "tar", "gzip", "sha256sum"} {
		testutil.NeedCommand(t, tool)
	}
	dist := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "make", "--no-print-directory", "dist",
		"DIST="+dist, "PLATFORMS=linux/"+runtime.GOARCH, "VERSION="+installVersion)
	cmd.Dir = testutil.ModuleRoot(t)
	// Nothing of an enclosing make (its flags, its jobserver) or of a
	// caller's stamps reaches this one.
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "VERSION", "COMMIT", "DIST", "PLATFORMS", "STAMPED":
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "make dist:\n%s", out)
	return dist
}

// distFiles returns what make dist published: the archives and
// SHA256SUMS, by name (the binaries beside them sit in directories).
func distFiles(t *testing.T, dist string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dist)
	require.NoError(t, err)
	files := map[string][]byte{}
	for _, e := range entries {
		if e.Type().IsRegular() {
			b, err := os.ReadFile(filepath.Join(dist, e.Name()))
			require.NoError(t, err)
			files[e.Name()] = b
		}
	}
	require.Contains(t, files, "SHA256SUMS")
	return files
}

// assertReproducibleArchive checks what makes an archive's bytes depend on
// its contents alone: a gzip header without a name or time, and one tar
// entry, miles-ci, with a fixed owner, mode and time (the commit's). The
// program in it is static: no ELF interpreter, no shared library.
func assertReproducibleArchive(t *testing.T, name string, b []byte, commitTime string) {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	require.NoError(t, err, name)
	assert.Empty(t, zr.Name, "%s: gzip -n records no file name", name)
	assert.True(t, zr.ModTime.IsZero(), "%s: gzip -n records no time, not %v", name, zr.ModTime)
	tr := tar.NewReader(zr)
	hdr, err := tr.Next()
	require.NoError(t, err, name)
	assert.Equal(t, "miles-ci", hdr.Name, name)
	assert.Equal(t, []any{0, 0, "", "", int64(0o755)}, []any{hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname, hdr.Mode}, "%s: owner and mode", name)
	assert.Equal(t, commitTime, strconv.FormatInt(hdr.ModTime.Unix(), 10), "%s: the entry has the commit's time", name)
	program, err := io.ReadAll(tr)
	require.NoError(t, err, name)
	_, err = tr.Next()
	assert.Equal(t, io.EOF, err, "%s holds miles-ci alone", name)

	f, err := elf.NewFile(bytes.NewReader(program))
	require.NoError(t, err, name)
	for _, p := range f.Progs {
		assert.NotEqual(t, elf.PT_INTERP, p.Type, "%s: miles-ci is static, with no ELF interpreter", name)
	}
	libs, err := f.ImportedLibraries()
	require.NoError(t, err, name)
	assert.Empty(t, libs, "%s: miles-ci is static, with no shared library", name)
}

// headCommit is the commit make dist stamps.
func headCommit(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "-C", testutil.ModuleRoot(t), "rev-parse", "HEAD").Output()
	if err != nil {
		testutil.Skip(t, "the checkout is no git repository, so make dist stamps no commit: "+err.Error())
	}
	return strings.TrimSpace(string(out))
}

// releaseServer stands in for the GitHub release: BASE/VERSION/ARCHIVE.
type releaseServer struct {
	*httptest.Server
	mu       sync.Mutex
	files    map[string][]byte // by URL path
	requests int
}

func serveRelease(t *testing.T, dist string) *releaseServer {
	t.Helper()
	s := &releaseServer{files: map[string][]byte{}}
	for name, b := range distFiles(t, dist) {
		s.files["/"+installVersion+"/"+name] = b
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.requests++
		b, ok := s.files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(b)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *releaseServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// corrupt flips one byte in the middle of every archive it serves.
func (s *releaseServer) corrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for path, b := range s.files {
		if strings.HasSuffix(path, ".tar.gz") {
			c := bytes.Clone(b)
			c[len(c)/2] ^= 0xff
			s.files[path] = c
		}
	}
}

// fakeBin returns a directory to be the whole PATH of a step: the named
// tools of this machine (no Go among them) and the given scripts.
func fakeBin(t *testing.T, tools []string, scripts map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for _, tool := range tools {
		require.NoError(t, os.Symlink(testutil.NeedCommand(t, tool), filepath.Join(dir, tool)))
	}
	for name, text := range scripts {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755))
	}
	return dir
}

// job is the part of a runner a step sees: its temporary directory, its
// GITHUB_PATH file and its working directory.
type job struct {
	runnerTemp, githubPath, workspace string
}

func newJob(t *testing.T) job {
	t.Helper()
	root := t.TempDir()
	j := job{filepath.Join(root, "_temp"), filepath.Join(root, "_runner_file_commands", "add_path"), filepath.Join(root, "workspace")}
	for _, dir := range []string{j.runnerTemp, filepath.Dir(j.githubPath), j.workspace} {
		require.NoError(t, os.MkdirAll(dir, 0o755))
	}
	require.NoError(t, os.WriteFile(j.githubPath, nil, 0o644)) // the runner makes it empty
	return j
}

// runStep runs a step's script as GitHub runs `shell: sh` (sh -e FILE),
// with env as its whole environment and the job's paths; it returns what
// the step printed and its exit status.
func runStep(t *testing.T, step workflowStep, j job, path string, env map[string]string) (string, int) {
	t.Helper()
	script := filepath.Join(t.TempDir(), "step.sh")
	require.NoError(t, os.WriteFile(script, []byte(step.Run), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, testutil.NeedCommand(t, "sh"), "-e", script)
	cmd.Dir = j.workspace
	cmd.Env = []string{"PATH=" + path, "HOME=" + j.workspace, "RUNNER_TEMP=" + j.runnerTemp, "GITHUB_PATH=" + j.githubPath}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if exitErr, ok := err.(*exec.ExitError); ok {
		return string(out), exitErr.ExitCode()
	}
	require.NoError(t, err, "run the step: %s", out)
	return string(out), 0
}

// addedPaths returns the lines the step appended to GITHUB_PATH.
func (j job) addedPaths(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(j.githubPath)
	require.NoError(t, err)
	return strings.Fields(string(b))
}

// executables returns every executable file below the runner's temporary
// directory.
func (j job) executables(t *testing.T) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(j.runnerTemp, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if info, err := d.Info(); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			found = append(found, path)
		}
		return nil
	})
	require.NoError(t, err)
	return found
}

// assertInstalled checks that the step put one directory on the path, below
// the runner's temporary directory, whose miles-ci is the build of v9.9.9
// from this commit.
func assertInstalled(t *testing.T, j job, stepOutput, commit string) {
	t.Helper()
	paths := j.addedPaths(t)
	require.Len(t, paths, 1, "the step appends one directory to GITHUB_PATH; it printed:\n%s", stepOutput)
	assert.True(t, strings.HasPrefix(paths[0], j.runnerTemp+string(filepath.Separator)), "%s is below RUNNER_TEMP", paths[0])
	out, err := exec.Command(filepath.Join(paths[0], "miles-ci"), "--version").CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "miles-ci version "+installVersion+" (commit "+commit)
	assert.Contains(t, stepOutput, "miles-ci version "+installVersion, "the step's log names the build it installed")
}

// assertNothingInstalled checks a refusal: an ::error:: line saying why,
// nothing on the path and no program below the runner's temporary
// directory.
func assertNothingInstalled(t *testing.T, j job, out string, code int, why string) {
	t.Helper()
	assert.NotEqual(t, 0, code, "the step fails; it printed:\n%s", out)
	assert.Contains(t, out, "::error::miles-ci: ")
	assert.Contains(t, out, why)
	assert.Empty(t, j.addedPaths(t), "nothing is added to GITHUB_PATH")
	assert.Empty(t, j.executables(t), "no program is left below RUNNER_TEMP")
}

// pins runs the docs' one-liner, with v set to the version under test,
// where curl serves the SHA256SUMS of the release, and returns the lines it
// prints for action.yml.
func pins(t *testing.T, d installDocs, srv *releaseServer) map[string]string {
	t.Helper()
	const placeholder = "v=vX.Y.Z;"
	require.Equal(t, 1, strings.Count(d.pinsCommand, placeholder), "the one-liner begins by setting v to the release: %s", d.pinsCommand)
	line := strings.Replace(d.pinsCommand, placeholder, "v="+installVersion+";", 1)
	// make dist built this machine's archive alone; a release lists both.
	other := map[string]string{"amd64": "arm64", "arm64": "amd64"}[runtime.GOARCH]
	otherSum := strings.Repeat("a", 64)
	sums := filepath.Join(t.TempDir(), "SHA256SUMS")
	require.NoError(t, os.WriteFile(sums, append(slices.Clone(srv.files["/"+installVersion+"/SHA256SUMS"]),
		otherSum+"  miles-ci_"+installVersion+"_linux_"+other+".tar.gz\n"...), 0o644))
	want := "https://github.com/radixark/miles-ci/releases/download/" + installVersion + "/SHA256SUMS"
	curl := "#!/bin/sh\nfor a; do url=$a; done\n" +
		"[ \"$url\" = '" + want + "' ] || { echo \"curl: not the release's SHA256SUMS: $url\" >&2; exit 22; }\n" +
		"exec cat '" + sums + "'\n"
	cmd := exec.Command(testutil.NeedCommand(t, "sh"), "-c", line)
	cmd.Env = []string{"PATH=" + fakeBin(t, []string{"awk", "cat"}, map[string]string{"curl": curl})}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s\n%s", line, out)
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, ok := strings.Cut(l, ": ")
		require.True(t, ok, "a line of the one-liner is KEY: VALUE, not %q", l)
		got[k] = v
	}
	require.ElementsMatch(t, pinKeys, slices.Collect(maps.Keys(got)), "the one-liner prints the three pins of action.yml")
	assert.Equal(t, installVersion, got["MILES_CI_VERSION"])
	assert.Equal(t, otherSum, got["MILES_CI_SHA256_"+strings.ToUpper(other)], "each pin is its own machine's sum")
	return got
}

var (
	inputExpr = regexp.MustCompile(`^\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}$`)
	varExpr   = regexp.MustCompile(`^\$\{\{\s*vars\.([A-Za-z0-9_]+)\s*\}\}$`)
)

// runAction runs the action of the repository's checkout as GitHub runs a
// composite action's one `shell: sh` step: its env as written, an input
// expression replaced by what the job's step passes (vars are the
// repository's variables; one not set is empty) or else the input's
// default, and GITHUB_ACTION_PATH the action's directory.
func runAction(t *testing.T, d installDocs, repo string, j job, path string, vars map[string]string) (string, int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repo, actionDir, "action.yml"))
	require.NoError(t, err)
	a, step := readAction(t, string(b))
	env := map[string]string{"GITHUB_ACTION_PATH": filepath.Join(repo, actionDir)}
	for k, v := range step.Env {
		if strings.Contains(v, "${{") {
			m := inputExpr.FindStringSubmatch(v)
			require.NotNil(t, m, "%s of the action's step is a value or an input, not %s", k, v)
			in, ok := a.Inputs[m[1]]
			require.True(t, ok, "the action declares the input %s", m[1])
			v = in.Default
			if w, ok := d.use.With[m[1]]; ok {
				v = w
				if strings.Contains(w, "${{") {
					mv := varExpr.FindStringSubmatch(w)
					require.NotNil(t, mv, "the job passes %s a value or a variable, not %s", m[1], w)
					v = vars[mv[1]]
				}
			}
		}
		env[k] = v
	}
	return runStep(t, step, j, path, env)
}

func TestInstallAction_InstallsTheBuildAndRefusesADamagedOne(t *testing.T) {
	testutil.SkipShort(t, "make dist's release build and the action run on it")
	d := readInstallDocs(t)
	_, step := readAction(t, d.actionYAML)
	require.ElementsMatch(t, append(slices.Clone(pinKeys), "MILES_CI_BASE_URL"), slices.Collect(maps.Keys(step.Env)),
		"the action's step holds the pins and the mirror, nothing else")
	dist := buildDist(t)
	commit := headCommit(t)
	release := []string{"sh", "dirname", "uname", "mkdir", "rm", "mv", "sha256sum", "tar", "gzip"}
	withCurl := fakeBin(t, append(slices.Clone(release), "curl"), nil)
	upper := strings.ToUpper(runtime.GOARCH)

	t.Run("make dist's archives, and their sizes the docs give", func(t *testing.T) {
		check := exec.Command("sha256sum", "-c", "SHA256SUMS")
		check.Dir = dist
		out, err := check.CombinedOutput()
		require.NoError(t, err, "sha256sum -c SHA256SUMS in dist/:\n%s", out)
		assert.Equal(t, "miles-ci_"+installVersion+"_linux_"+runtime.GOARCH+".tar.gz: OK\n", string(out))
		commitTime, err := exec.Command("git", "-C", testutil.ModuleRoot(t), "log", "-1", "--format=%ct").Output()
		require.NoError(t, err)
		files := distFiles(t, dist)
		for name, b := range files {
			if strings.HasSuffix(name, ".tar.gz") {
				assertReproducibleArchive(t, name, b, strings.TrimSpace(string(commitTime)))
			}
		}

		// The sizes stated are this build's, within a tenth: a number
		// gone stale fails here.
		claim := regexp.MustCompile(`archives of ([0-9.]+) MB \(amd64\) and ([0-9.]+) MB \(arm64\) for binaries of ([0-9.]+) and ([0-9.]+) MB`).
			FindStringSubmatch(strings.Join(strings.Fields(d.section), " "))
		require.NotNil(t, claim, "the Install section states the sizes of the archives and the binaries")
		k := map[string]int{"amd64": 1, "arm64": 2}[runtime.GOARCH]
		name := "miles-ci_" + installVersion + "_linux_" + runtime.GOARCH
		binary, err := os.Stat(filepath.Join(dist, name, "miles-ci"))
		require.NoError(t, err)
		for _, c := range []struct {
			what   string
			stated string
			size   int64
		}{{"the archive", claim[k], int64(len(files[name+".tar.gz"]))}, {"the binary", claim[k+2], binary.Size()}} {
			mb, err := strconv.ParseFloat(c.stated, 64)
			require.NoError(t, err)
			assert.InEpsilon(t, mb, float64(c.size)/1e6, 0.1, "%s for %s is %d bytes; the docs say %s MB", c.what, runtime.GOARCH, c.size, c.stated)
		}
	})

	t.Run("the action with curl, then again from what it downloaded", func(t *testing.T) {
		srv := serveRelease(t, dist)
		repo := writeRepo(t, d, pins(t, d, srv))
		vars := map[string]string{"MILES_CI_BASE_URL": srv.URL}
		j := newJob(t)
		out, code := runAction(t, d, repo, j, withCurl, vars)
		require.Equal(t, 0, code, out)
		assertInstalled(t, j, out, commit)
		assert.Equal(t, 1, srv.count(), "one download")

		// A repeat in the same job, or after actions/cache restored the
		// directory, checks the archive there and downloads nothing.
		require.NoError(t, os.WriteFile(j.githubPath, nil, 0o644))
		out, code = runAction(t, d, repo, j, withCurl, vars)
		require.Equal(t, 0, code, out)
		assertInstalled(t, j, out, commit)
		assert.Equal(t, 1, srv.count(), "no second download")
	})

	t.Run("the action with wget", func(t *testing.T) {
		srv := serveRelease(t, dist)
		j := newJob(t)
		out, code := runAction(t, d, writeRepo(t, d, pins(t, d, srv)), j, fakeBin(t, append(slices.Clone(release), "wget"), nil),
			map[string]string{"MILES_CI_BASE_URL": srv.URL})
		require.Equal(t, 0, code, out)
		assertInstalled(t, j, out, commit)
	})

	t.Run("without the variable the action downloads from the GitHub release", func(t *testing.T) {
		srv := serveRelease(t, dist)
		asked := filepath.Join(t.TempDir(), "asked")
		offline := fakeBin(t, release, map[string]string{"curl": "#!/bin/sh\nfor a; do url=$a; done\necho \"$url\" >'" + asked + "'\nexit 6\n"})
		j := newJob(t)
		out, code := runAction(t, d, writeRepo(t, d, pins(t, d, srv)), j, offline, nil)
		url := "https://github.com/radixark/miles-ci/releases/download/" + installVersion + "/miles-ci_" + installVersion + "_linux_" + runtime.GOARCH + ".tar.gz"
		assertNothingInstalled(t, j, out, code, "cannot download "+url)
		b, err := os.ReadFile(asked)
		require.NoError(t, err)
		assert.Equal(t, url+"\n", string(b))
	})

	t.Run("the action refuses an archive that is not the pinned one", func(t *testing.T) {
		srv := serveRelease(t, dist)
		p := pins(t, d, srv)
		srv.corrupt()
		j := newJob(t)
		out, code := runAction(t, d, writeRepo(t, d, p), j, withCurl, map[string]string{"MILES_CI_BASE_URL": srv.URL})
		assertNothingInstalled(t, j, out, code, "nothing installed")
		assert.Contains(t, out, "not the "+p["MILES_CI_SHA256_"+upper]+" of MILES_CI_SHA256_"+upper)
	})

	t.Run("the action as the docs write it refuses before downloading", func(t *testing.T) {
		srv := serveRelease(t, dist)
		j := newJob(t)
		repo := writeRepo(t, d, nil)
		out, code := runAction(t, d, repo, j, withCurl, map[string]string{"MILES_CI_BASE_URL": srv.URL})
		assertNothingInstalled(t, j, out, code, "MILES_CI_VERSION in "+filepath.Join(repo, actionDir, "action.yml")+" is no release version")
		assert.Equal(t, 0, srv.count(), "nothing downloaded")
	})

	t.Run("the action with a version but not its pins refuses before downloading", func(t *testing.T) {
		srv := serveRelease(t, dist)
		j := newJob(t)
		repo := writeRepo(t, d, map[string]string{"MILES_CI_VERSION": installVersion})
		out, code := runAction(t, d, repo, j, withCurl, map[string]string{"MILES_CI_BASE_URL": srv.URL})
		assertNothingInstalled(t, j, out, code, "MILES_CI_SHA256_"+upper+" in "+filepath.Join(repo, actionDir, "action.yml")+" is not a sha256")
		assert.Equal(t, 0, srv.count(), "nothing downloaded")
	})

	t.Run("the action refuses a version the server does not have", func(t *testing.T) {
		srv := serveRelease(t, dist)
		p := pins(t, d, srv)
		p["MILES_CI_VERSION"] = "v0.0.0"
		j := newJob(t)
		out, code := runAction(t, d, writeRepo(t, d, p), j, withCurl, map[string]string{"MILES_CI_BASE_URL": srv.URL})
		assertNothingInstalled(t, j, out, code, "cannot download "+srv.URL+"/v0.0.0/")
	})

	t.Run("the action refuses a machine with no build", func(t *testing.T) {
		srv := serveRelease(t, dist)
		s390x := fakeBin(t, []string{"sh", "dirname", "mkdir", "rm", "mv", "sha256sum", "tar", "gzip", "curl"}, map[string]string{
			"uname": "#!/bin/sh\ncase $1 in -s) echo Linux ;; -m) echo s390x ;; *) exit 1 ;; esac\n",
		})
		j := newJob(t)
		out, code := runAction(t, d, writeRepo(t, d, pins(t, d, srv)), j, s390x, map[string]string{"MILES_CI_BASE_URL": srv.URL})
		assertNothingInstalled(t, j, out, code, "no "+installVersion+" build for Linux/s390x")
		assert.Equal(t, 0, srv.count(), "nothing downloaded")
	})

	artifactTools := fakeBin(t, []string{"uname", "grep", "sha256sum", "mkdir", "tar", "gzip", "rm"}, nil)
	artifact := func(t *testing.T) job {
		t.Helper()
		j := newJob(t)
		for name, b := range distFiles(t, dist) {
			testutil.WriteFile(t, j.workspace, ".miles-ci-dist/"+name, string(b))
		}
		return j
	}

	// installedBuild requires that the step installed the build job's
	// miles-ci, and only it, on GITHUB_PATH.
	installedBuild := func(t *testing.T, j job, out string, code int) {
		t.Helper()
		require.Equal(t, 0, code, out)
		paths := j.addedPaths(t)
		require.Len(t, paths, 1, out)
		version, err := exec.Command(filepath.Join(paths[0], "miles-ci"), "--version").CombinedOutput()
		require.NoError(t, err, string(version))
		assert.Contains(t, string(version), "miles-ci version "+installVersion+" (commit "+commit)
	}
	// listedArchive is the path of the one archive of the download.
	listedArchive := func(t *testing.T, j job) string {
		t.Helper()
		archives, err := filepath.Glob(filepath.Join(j.workspace, ".miles-ci-dist", "*.tar.gz"))
		require.NoError(t, err)
		require.Len(t, archives, 1)
		return archives[0]
	}
	// tarOf writes at tarball a gzipped tar of one file, name, holding text.
	tarOf := func(t *testing.T, tarball, name, text string) {
		t.Helper()
		src := t.TempDir()
		testutil.WriteFile(t, src, name, text)
		require.NoError(t, os.Chmod(filepath.Join(src, name), 0o755))
		out, err := exec.Command("tar", "-czf", tarball, "-C", src, name).CombinedOutput()
		require.NoError(t, err, string(out))
	}
	// impostor is an archive, beside the listed one, that SHA256SUMS does
	// not list, of a miles-ci that is not the build job's.
	impostor := func(t *testing.T, j job) {
		t.Helper()
		tarOf(t, filepath.Join(j.workspace, ".miles-ci-dist", "aaa_linux_"+runtime.GOARCH+".tar.gz"),
			"miles-ci", "#!/bin/sh\necho impostor\n")
	}

	t.Run("artifact step", func(t *testing.T) {
		j := artifact(t)
		out, code := runStep(t, d.artifactStep, j, artifactTools, d.artifactStep.Env)
		installedBuild(t, j, out, code)
		assert.NoDirExists(t, filepath.Join(j.workspace, ".miles-ci-dist"), "the download leaves the checkout")
	})

	t.Run("artifact step refuses a run without the build job's archives", func(t *testing.T) {
		j := newJob(t)
		out, code := runStep(t, d.artifactStep, j, artifactTools, d.artifactStep.Env)
		assertNothingInstalled(t, j, out, code, "no build job's archives")
	})

	t.Run("artifact step refuses an archive its SHA256SUMS does not list", func(t *testing.T) {
		j := artifact(t)
		a := listedArchive(t, j)
		b, err := os.ReadFile(a)
		require.NoError(t, err)
		b[len(b)/2] ^= 0xff
		require.NoError(t, os.WriteFile(a, b, 0o644))
		out, code := runStep(t, d.artifactStep, j, artifactTools, d.artifactStep.Env)
		assertNothingInstalled(t, j, out, code, "nothing installed")
	})

	t.Run("artifact step installs the listed archive, not an unlisted one beside it", func(t *testing.T) {
		j := artifact(t)
		impostor(t, j)
		out, code := runStep(t, d.artifactStep, j, artifactTools, d.artifactStep.Env)
		installedBuild(t, j, out, code)
	})

	t.Run("artifact step refuses an archive SHA256SUMS lists below a directory", func(t *testing.T) {
		j := artifact(t)
		a := listedArchive(t, j)
		dir, listed := filepath.Dir(a), filepath.Base(a)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
		require.NoError(t, os.Rename(a, filepath.Join(dir, "sub", listed)))
		sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(strings.ReplaceAll(string(sums), "  "+listed, "  sub/"+listed)), 0o644))
		impostor(t, j)
		out, code := runStep(t, d.artifactStep, j, artifactTools, d.artifactStep.Env)
		assertNothingInstalled(t, j, out, code, "SHA256SUMS names no archive beside it; nothing installed")
		assert.NotContains(t, out, "impostor")
	})

	t.Run("artifact step says so when the listed archive holds no miles-ci", func(t *testing.T) {
		j := artifact(t)
		a := listedArchive(t, j)
		tarOf(t, a, "README", "no binary here\n")
		b, err := os.ReadFile(a)
		require.NoError(t, err)
		sum := fmt.Sprintf("%x  %s\n", sha256.Sum256(b), filepath.Base(a))
		require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(a), "SHA256SUMS"), []byte(sum), 0o644))
		out, code := runStep(t, d.artifactStep, j, artifactTools, d.artifactStep.Env)
		assertNothingInstalled(t, j, out, code, "cannot unpack the build job's archive; nothing installed")
	})

	t.Run("the Dockerfile recipe", func(t *testing.T) { testDockerRecipe(t, d, dist, commit) })
}

// dockerInstruction is one instruction of a Dockerfile: ARG, COPY, RUN.
type dockerInstruction struct{ op, args string }

// dockerInstructions reads a Dockerfile's instructions: comments and blank
// lines dropped, a line ending in a backslash continued on the next.
func dockerInstructions(t *testing.T, text string) []dockerInstruction {
	t.Helper()
	var out []dockerInstruction
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for strings.HasSuffix(line, `\`) && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, `\`) + " " + strings.TrimSpace(lines[i])
		}
		op, args, _ := strings.Cut(line, " ")
		out = append(out, dockerInstruction{op, strings.TrimSpace(args)})
	}
	return out
}

// absPath is an absolute path in a RUN command: a slash that starts a word.
var absPath = regexp.MustCompile(`(^|[\s"'=])/([A-Za-z_])`)

// dockerBuild runs the Dockerfile recipe as docker build would, with repo
// as the build context and root standing for the image's filesystem: an
// ARG is a variable of the RUNs after it (buildArgs, as --build-arg,
// override its default), a COPY copies from the context into root, and a
// RUN runs in shell (the Dockerfile's SHELL) with every absolute path it
// names moved below root. It stops at the first RUN that fails, and
// returns what the RUNs printed and that RUN's exit status.
func dockerBuild(t *testing.T, text, repo, root string, shell []string, path string, buildArgs map[string]string) (string, int) {
	t.Helper()
	env := []string{"PATH=" + path, "HOME=" + filepath.Join(root, "root"), "TMPDIR=" + filepath.Join(root, "tmp")}
	require.NoError(t, os.MkdirAll(filepath.Join(root, "tmp"), 0o755))
	var out strings.Builder
	for _, in := range dockerInstructions(t, text) {
		switch in.op {
		case "ARG":
			name, value, _ := strings.Cut(in.args, "=")
			if v, ok := buildArgs[name]; ok {
				value = v
			}
			env = append(env, name+"="+value)
		case "COPY":
			words := strings.Fields(in.args)
			require.Len(t, words, 2, "COPY SRC DST: %s", in.args)
			require.False(t, filepath.IsAbs(words[0]), "COPY takes from the build context, the repository's root: %s", words[0])
			require.True(t, filepath.IsAbs(words[1]), "COPY into an absolute path: %s", words[1])
			src := filepath.Join(repo, filepath.FromSlash(words[0]))
			info, err := os.Stat(src)
			require.NoError(t, err, "COPY %s: the build context has it", words[0])
			require.True(t, info.IsDir(), "COPY %s copies the action's directory", words[0])
			require.NoError(t, os.CopyFS(filepath.Join(root, filepath.FromSlash(words[1])), os.DirFS(src)))
		case "RUN":
			cmdline := absPath.ReplaceAllString(in.args, "${1}"+root+"/${2}")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			cmd := exec.CommandContext(ctx, shell[0], append(slices.Clone(shell[1:]), cmdline)...)
			cmd.Dir = root
			cmd.Env = env
			cmd.WaitDelay = 5 * time.Second
			b, err := cmd.CombinedOutput()
			cancel()
			out.Write(b)
			if exitErr, ok := err.(*exec.ExitError); ok {
				return out.String(), exitErr.ExitCode()
			}
			require.NoError(t, err, "RUN %s:\n%s", in.args, b)
		default:
			t.Fatalf("the Dockerfile recipe has %s, which this test cannot run: %s %s", in.op, in.op, in.args)
		}
	}
	return out.String(), 0
}

// testDockerRecipe builds the Dockerfile recipe's part of an image, with
// the default shell of docker/Dockerfile and the SHELL of
// docker/Dockerfile.rocm, from a repository whose action.yml pins the
// build under test.
func testDockerRecipe(t *testing.T, d installDocs, dist, commit string) {
	for _, key := range append(slices.Clone(pinKeys), "vX.Y.Z") {
		assert.NotContains(t, d.dockerfile, key, "the Dockerfile recipe holds no pin of its own: it reads action.yml's")
	}
	assert.NotRegexp(t, `[0-9a-f]{64}`, d.dockerfile, "the Dockerfile recipe holds no sha256")
	assert.Contains(t, d.dockerfile, "COPY "+actionDir+"/ ", "the image build copies the action from the repository")

	tools := []string{"sh", "bash", "dirname", "awk", "uname", "mkdir", "mktemp", "rm", "mv", "sha256sum", "tar", "gzip", "curl"}
	path := fakeBin(t, tools, nil)
	shells := map[string][]string{
		"docker/Dockerfile: /bin/sh -c":                  {testutil.NeedCommand(t, "sh"), "-c"},
		"docker/Dockerfile.rocm: its SHELL, bash -ceuxo": {testutil.NeedCommand(t, "bash"), "-ceuxo", "pipefail"},
	}
	// leftovers lists what the build left in the image's /tmp.
	leftovers := func(t *testing.T, root string) []string {
		entries, err := os.ReadDir(filepath.Join(root, "tmp"))
		require.NoError(t, err)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	for name, shell := range shells {
		t.Run(name, func(t *testing.T) {
			srv := serveRelease(t, dist)
			root := t.TempDir()
			out, code := dockerBuild(t, d.dockerfile, writeRepo(t, d, pins(t, d, srv)), root, shell, path, map[string]string{"MILES_CI_BASE_URL": srv.URL})
			require.Equal(t, 0, code, out)
			installed := filepath.Join(root, "usr", "local", "bin", "miles-ci")
			version, err := exec.Command(installed, "--version").CombinedOutput()
			require.NoError(t, err, "%s --version: %s\nthe build printed:\n%s", installed, version, out)
			assert.Contains(t, string(version), "miles-ci version "+installVersion+" (commit "+commit)
			assert.Empty(t, leftovers(t, root), "the build leaves nothing in /tmp")
			assert.Equal(t, 1, srv.count(), "one download")
		})
	}

	shell := shells["docker/Dockerfile: /bin/sh -c"]
	refused := func(t *testing.T, root, out string, code int, why string) {
		t.Helper()
		assert.NotEqual(t, 0, code, "the build fails; it printed:\n%s", out)
		assert.Contains(t, out, "::error::miles-ci: ")
		assert.Contains(t, out, why)
		assert.NoDirExists(t, filepath.Join(root, "usr"), "nothing is installed")
		// The failed RUN stopped before its rm; the script's own download
		// directory is gone.
		assert.Equal(t, []string{"setup-miles-ci"}, leftovers(t, root), "the script leaves nothing in /tmp")
	}

	t.Run("a damaged archive fails the build", func(t *testing.T) {
		srv := serveRelease(t, dist)
		p := pins(t, d, srv)
		srv.corrupt()
		root := t.TempDir()
		out, code := dockerBuild(t, d.dockerfile, writeRepo(t, d, p), root, shell, path, map[string]string{"MILES_CI_BASE_URL": srv.URL})
		refused(t, root, out, code, "nothing installed")
	})

	t.Run("pins left as the docs write them fail the build before a download", func(t *testing.T) {
		srv := serveRelease(t, dist)
		root := t.TempDir()
		out, code := dockerBuild(t, d.dockerfile, writeRepo(t, d, nil), root, shell, path, map[string]string{"MILES_CI_BASE_URL": srv.URL})
		refused(t, root, out, code, "is no release version")
		assert.Equal(t, 0, srv.count(), "nothing downloaded")
	})

	// The image takes what action.yml says: the version changed there
	// alone is the one the build asks for.
	t.Run("the image follows a version changed in action.yml", func(t *testing.T) {
		srv := serveRelease(t, dist)
		p := pins(t, d, srv)
		p["MILES_CI_VERSION"] = "v0.0.0"
		root := t.TempDir()
		out, code := dockerBuild(t, d.dockerfile, writeRepo(t, d, p), root, shell, path, map[string]string{"MILES_CI_BASE_URL": srv.URL})
		refused(t, root, out, code, "cannot download "+srv.URL+"/v0.0.0/")
	})
}

// indented returns text with n spaces before each line that is not blank.
func indented(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			lines[i] = strings.Repeat(" ", n) + l
		}
	}
	return strings.Join(lines, "\n")
}

// The action and the steps as the docs show them, in a workflow with a job
// on the runner and a container job like Miles' GPU jobs, pass actionlint,
// which reads the local action and checks the inputs a step passes it.
func TestInstallAction_ActionlintClean(t *testing.T) {
	d := readInstallDocs(t)
	bin := testutil.Actionlint(t)
	lint := func(use string) (string, error) {
		root := writeRepo(t, d, nil)
		require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
		steps := "    steps:\n      - uses: actions/checkout@v5\n" + indented(use, 6) + "\n"
		workflow := "on: push\njobs:\n" + d.buildJob + "\n" +
			"  host:\n    runs-on: ubuntu-latest\n" + steps + "      - run: miles-ci --version\n" +
			"  stage:\n    needs: build-miles-ci\n    runs-on: ubuntu-latest\n    container: radixark/miles:dev\n" + steps +
			"      - run: miles-ci --version\n" +
			"  stage-without-a-release:\n    needs: build-miles-ci\n    runs-on: ubuntu-latest\n    container: radixark/miles:dev\n" +
			"    steps:\n      - uses: actions/checkout@v5\n" + d.artifactYAML + "\n      - run: miles-ci --version\n"
		testutil.WriteFile(t, root, ".github/workflows/install.yml", workflow)
		cmd := exec.Command(bin, "-no-color")
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		return workflow + "\nfinds:\n" + string(out), err
	}
	out, err := lint(d.useYAML)
	assert.NoError(t, err, "actionlint on\n%s", out)

	// It reads the action: an input the action does not declare is an error.
	require.Contains(t, d.useYAML, "base-url:")
	out, err = lint(strings.Replace(d.useYAML, "base-url:", "base-urll:", 1))
	assert.Error(t, err)
	assert.Contains(t, out, `input "base-urll" is not defined in action`)
}

// The docs' grep for the version, run in a repository with the action,
// finds one line: the pin of action.yml.
func TestInstallAction_ANewVersionIsOneEdit(t *testing.T) {
	d := readInstallDocs(t)
	m := regexp.MustCompile("`(grep [^`]*MILES_CI_VERSION[^`]*)`").FindStringSubmatch(strings.Join(strings.Fields(d.section), " "))
	require.NotNil(t, m, "the Install section shows how to find the version's one place")
	repo := writeRepo(t, d, nil)
	testutil.WriteFile(t, repo, ".github/workflows/ci.yml", "on: push\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n"+indented(d.useYAML, 6)+"\n")
	cmd := exec.Command(testutil.NeedCommand(t, "sh"), "-c", m[1])
	cmd.Dir = repo
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s:\n%s", m[1], out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, 1, "%s finds one line:\n%s", m[1], out)
	assert.True(t, strings.HasPrefix(lines[0], ".github/actions/setup-miles-ci/action.yml:"), lines[0])
}
