//go:build unix

package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"debug/elf"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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

// The install steps of `miles-ci help migrate` are what a Miles job pastes
// to get miles-ci without Go. The tests below run them as the docs show
// them (the step's YAML and script are read from the topic, never copied
// here) against archives that the Makefile's `make dist` builds for this
// machine: from a local server standing in for the release, and from a
// directory standing in for the build job's artifact.

const installVersion = "v9.9.9"

// installDocs is the Install section of the migrate topic, in pieces.
type installDocs struct {
	releaseYAML  string       // the YAML of the step that installs a release
	releaseStep  workflowStep // that step
	pinsCommand  string       // the one-liner that prints the pins from SHA256SUMS
	buildJob     string       // the YAML of the build-once job
	artifactYAML string       // the YAML of the download-artifact and install steps
	artifactStep workflowStep // the step that installs the build job's archives
}

type workflowStep struct {
	Name  string            `yaml:"name"`
	Uses  string            `yaml:"uses"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
	Run   string            `yaml:"run"`
}

func readInstallDocs(t *testing.T) installDocs {
	t.Helper()
	topic, ok := docs.Lookup("migrate")
	require.True(t, ok)
	_, section, ok := strings.Cut(topic.Text, "\n## Install\n")
	require.True(t, ok, "the migrate topic has an Install section")
	section, _, _ = strings.Cut(section, "\n## ")
	bs, _ := blocks(section)

	// The blocks are known by what they hold: the release step pins the
	// sums, the build job uploads, the artifact steps download.
	var d installDocs
	for _, b := range bs {
		text := strings.Join(b.lines, "\n")
		switch {
		case b.lang == "yaml" && strings.Contains(text, "MILES_CI_SHA256_AMD64:"):
			d.releaseYAML = text
		case b.lang == "yaml" && strings.Contains(text, "actions/upload-artifact"):
			d.buildJob = text
		case b.lang == "yaml" && strings.Contains(text, "actions/download-artifact"):
			d.artifactYAML = text
		case b.lang == "sh":
			for _, line := range b.lines {
				if strings.Contains(line, "SHA256SUMS |") {
					d.pinsCommand = line
				}
			}
		}
	}
	require.NotEmpty(t, d.releaseYAML, "the Install section shows the step that installs a release")
	require.NotEmpty(t, d.pinsCommand, "the Install section shows how SHA256SUMS becomes the pins")
	require.Contains(t, d.buildJob, "build-miles-ci:", "the Install section shows the build job of the route without a release")
	require.NotEmpty(t, d.artifactYAML, "the Install section shows the steps that install the build job's archives")
	d.releaseStep = onlyRunStep(t, d.releaseYAML)
	d.artifactStep = onlyRunStep(t, d.artifactYAML)
	return d
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

// pins runs the docs' one-liner on the SHA256SUMS the server holds, in
// place of its download, and returns the env values it prints.
func pins(t *testing.T, d installDocs, sums []byte) map[string]string {
	t.Helper()
	download, filter, ok := strings.Cut(d.pinsCommand, " | ")
	require.True(t, ok, "the one-liner pipes SHA256SUMS into a filter: %s", d.pinsCommand)
	require.Contains(t, download, "https://github.com/radixark/miles-ci/releases/download/")
	cmd := exec.Command(testutil.NeedCommand(t, "sh"), "-c", filter)
	cmd.Stdin = bytes.NewReader(sums)
	out, err := cmd.Output()
	require.NoError(t, err)
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, ok := strings.Cut(line, ": ")
		require.True(t, ok, "a line of the one-liner is KEY: VALUE, not %q", line)
		require.Contains(t, d.releaseStep.Env, k, "the one-liner prints a pin the step has")
		got[k] = v
	}
	return got
}

// releaseEnv is the step's env as GitHub would set it for a run against
// the server: its fixed values as written, an expression left unset (the
// variable MILES_CI_BASE_URL is not set in the repository), the version
// under test, the pins of the served release and the server as the mirror.
func releaseEnv(t *testing.T, d installDocs, srv *releaseServer) map[string]string {
	t.Helper()
	env := map[string]string{}
	for k, v := range d.releaseStep.Env {
		if !strings.Contains(v, "${{") {
			env[k] = v
		}
	}
	for _, k := range []string{"MILES_CI_VERSION", "MILES_CI_BASE_URL"} {
		require.Contains(t, d.releaseStep.Env, k)
	}
	env["MILES_CI_VERSION"] = installVersion
	env["MILES_CI_BASE_URL"] = srv.URL
	for k, v := range pins(t, d, srv.files["/"+installVersion+"/SHA256SUMS"]) {
		env[k] = v
	}
	return env
}

func TestInstallSteps_InstallTheBuildAndRefuseADamagedOne(t *testing.T) {
	d := readInstallDocs(t)
	dist := buildDist(t)
	commit := headCommit(t)
	release := []string{"uname", "mkdir", "rm", "mv", "sha256sum", "tar", "gzip"}
	withCurl := fakeBin(t, append(release, "curl"), nil)

	t.Run("make dist's archives", func(t *testing.T) {
		check := exec.Command("sha256sum", "-c", "SHA256SUMS")
		check.Dir = dist
		out, err := check.CombinedOutput()
		require.NoError(t, err, "sha256sum -c SHA256SUMS in dist/:\n%s", out)
		assert.Equal(t, "miles-ci_"+installVersion+"_linux_"+runtime.GOARCH+".tar.gz: OK\n", string(out))
		commitTime, err := exec.Command("git", "-C", testutil.ModuleRoot(t), "log", "-1", "--format=%ct").Output()
		require.NoError(t, err)
		for name, b := range distFiles(t, dist) {
			if strings.HasSuffix(name, ".tar.gz") {
				assertReproducibleArchive(t, name, b, strings.TrimSpace(string(commitTime)))
			}
		}
	})

	t.Run("release step with curl, then again from what it downloaded", func(t *testing.T) {
		srv := serveRelease(t, dist)
		env := releaseEnv(t, d, srv)
		j := newJob(t)
		out, code := runStep(t, d.releaseStep, j, withCurl, env)
		require.Equal(t, 0, code, out)
		assertInstalled(t, j, out, commit)
		assert.Equal(t, 1, srv.count(), "one download")

		// A repeat in the same job, or after actions/cache restored the
		// directory, checks the archive there and downloads nothing.
		require.NoError(t, os.WriteFile(j.githubPath, nil, 0o644))
		out, code = runStep(t, d.releaseStep, j, withCurl, env)
		require.Equal(t, 0, code, out)
		assertInstalled(t, j, out, commit)
		assert.Equal(t, 1, srv.count(), "no second download")
	})

	t.Run("release step with wget", func(t *testing.T) {
		srv := serveRelease(t, dist)
		j := newJob(t)
		out, code := runStep(t, d.releaseStep, j, fakeBin(t, append(release, "wget"), nil), releaseEnv(t, d, srv))
		require.Equal(t, 0, code, out)
		assertInstalled(t, j, out, commit)
	})

	t.Run("release step refuses an archive that is not the pinned one", func(t *testing.T) {
		srv := serveRelease(t, dist)
		env := releaseEnv(t, d, srv)
		srv.corrupt()
		j := newJob(t)
		out, code := runStep(t, d.releaseStep, j, withCurl, env)
		assertNothingInstalled(t, j, out, code, "nothing installed")
		assert.Contains(t, out, "not the "+env["MILES_CI_SHA256_"+strings.ToUpper(runtime.GOARCH)]+" this step pins")
	})

	t.Run("release step pasted with its pins unfilled refuses before downloading", func(t *testing.T) {
		srv := serveRelease(t, dist)
		env := releaseEnv(t, d, srv)
		key := "MILES_CI_SHA256_" + strings.ToUpper(runtime.GOARCH)
		env[key] = d.releaseStep.Env[key] // the docs' own text, as pasted
		require.NotRegexp(t, `^[0-9a-f]{64}$`, env[key])
		j := newJob(t)
		out, code := runStep(t, d.releaseStep, j, withCurl, env)
		assertNothingInstalled(t, j, out, code, "pin of this step is not a sha256")
		assert.Equal(t, 0, srv.count(), "nothing downloaded")
	})

	t.Run("release step refuses a version the server does not have", func(t *testing.T) {
		srv := serveRelease(t, dist)
		env := releaseEnv(t, d, srv)
		env["MILES_CI_VERSION"] = "v0.0.0"
		j := newJob(t)
		out, code := runStep(t, d.releaseStep, j, withCurl, env)
		assertNothingInstalled(t, j, out, code, "cannot download "+srv.URL+"/v0.0.0/")
	})

	t.Run("release step refuses a machine with no build", func(t *testing.T) {
		srv := serveRelease(t, dist)
		env := releaseEnv(t, d, srv)
		s390x := fakeBin(t, []string{"mkdir", "rm", "mv", "sha256sum", "tar", "gzip", "curl"}, map[string]string{
			"uname": "#!/bin/sh\ncase $1 in -s) echo Linux ;; -m) echo s390x ;; *) exit 1 ;; esac\n",
		})
		j := newJob(t)
		out, code := runStep(t, d.releaseStep, j, s390x, env)
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

	t.Run("artifact step", func(t *testing.T) {
		j := artifact(t)
		out, code := runStep(t, d.artifactStep, j, artifactTools, d.artifactStep.Env)
		require.Equal(t, 0, code, out)
		paths := j.addedPaths(t)
		require.Len(t, paths, 1, out)
		version, err := exec.Command(filepath.Join(paths[0], "miles-ci"), "--version").CombinedOutput()
		require.NoError(t, err, string(version))
		assert.Contains(t, string(version), "miles-ci version "+installVersion+" (commit "+commit)
		assert.NoDirExists(t, filepath.Join(j.workspace, ".miles-ci-dist"), "the download leaves the checkout")
	})

	t.Run("artifact step refuses a run without the build job's archives", func(t *testing.T) {
		j := newJob(t)
		out, code := runStep(t, d.artifactStep, j, artifactTools, d.artifactStep.Env)
		assertNothingInstalled(t, j, out, code, "no build job's archives")
	})

	t.Run("artifact step refuses an archive its SHA256SUMS does not list", func(t *testing.T) {
		j := artifact(t)
		archives, err := filepath.Glob(filepath.Join(j.workspace, ".miles-ci-dist", "*.tar.gz"))
		require.NoError(t, err)
		require.NotEmpty(t, archives)
		for _, a := range archives {
			b, err := os.ReadFile(a)
			require.NoError(t, err)
			b[len(b)/2] ^= 0xff
			require.NoError(t, os.WriteFile(a, b, 0o644))
		}
		out, code := runStep(t, d.artifactStep, j, artifactTools, d.artifactStep.Env)
		assertNothingInstalled(t, j, out, code, "nothing installed")
	})
}

// The install steps and the build job as the docs show them, put in a
// workflow with a container job like Miles' GPU jobs, pass actionlint.
func TestInstallSteps_ActionlintClean(t *testing.T) {
	d := readInstallDocs(t)
	bin := testutil.Actionlint(t)
	workflow := "on: push\njobs:\n" + d.buildJob + "\n" +
		"  stage:\n    needs: build-miles-ci\n    runs-on: ubuntu-latest\n    container: radixark/miles:dev\n    steps:\n" +
		d.releaseYAML + "\n" + d.artifactYAML + "\n"
	path := testutil.WriteFile(t, t.TempDir(), ".github/workflows/install.yml", workflow)
	out, err := exec.Command(bin, "-no-color", path).CombinedOutput()
	assert.NoError(t, err, "actionlint on\n%s\nfinds:\n%s", workflow, out)
}
