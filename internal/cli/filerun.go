package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/filerun"
	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/ghactions"
	"github.com/radixark/miles-ci/internal/pyfmt"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// The environment variables of run-ci-file.yml's resolve step.
const (
	envTestFile   = "TEST_FILE"
	envImageTag   = "CI_IMAGE_TAG"
	envSourceRoot = "CI_SOURCE_ROOT"
)

// FileRunOptions holds the inputs of `miles-ci file-run`. Each input is a
// flag that, when given, wins over its environment variable; a nil flag
// field means "not given".
type FileRunOptions struct {
	File         *string
	ImageTag     *string
	SourceRoot   *string
	GitHubOutput *string

	// Config loads the configuration of --root, the trusted roster; nil is
	// the Factory's. Tests replace it.
	Config func() (*config.Config, error)
}

// NewCmdFileRun builds `miles-ci file-run`, the replacement of
// tests/ci/file_run.py.
func NewCmdFileRun(f *Factory, runF func(*FileRunOptions) error) *cobra.Command {
	opts := &FileRunOptions{}
	var flags struct{ file, imageTag, sourceRoot, output string }
	cmd := &cobra.Command{
		Use:   "file-run",
		Short: "Resolve one registered test file to the plan that runs it (/rerun-test)",
		Long: `Resolve one registered test file to the hardware, suite, runner labels,
container image and timeout that run it, for run-ci-file.yml (the /rerun-test
pull request command), and write hw, suite, runs_on, container_image and
timeout_seconds to GITHUB_OUTPUT (to stdout when GITHUB_OUTPUT is unset).

The registrations are read from the source root (the pull request's head);
the suites, their runner labels, the known labels and the image repository
come from the configuration of --root (the trusted checkout).

Inputs come from the environment; each flag, when given, wins over its variable:
  --file           TEST_FILE (required): the test file, exactly as registered
  --image-tag      CI_IMAGE_TAG: the container image tag (empty: dev)
  --source-root    CI_SOURCE_ROOT: the checkout to read registrations from (empty: .)
  --github-output  GITHUB_OUTPUT: the step output file`,
		Example: `  TEST_FILE=tests/e2e/short/test_dumper.py CI_SOURCE_ROOT=. miles-ci file-run
  miles-ci file-run --file tests/e2e/short/test_dumper.py --image-tag pr-42 --source-root .`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.File = changedString(cmd, "file", &flags.file)
			opts.ImageTag = changedString(cmd, "image-tag", &flags.imageTag)
			opts.SourceRoot = changedString(cmd, "source-root", &flags.sourceRoot)
			opts.GitHubOutput = changedString(cmd, "github-output", &flags.output)
			if runF != nil {
				return runF(opts)
			}
			return fileRunRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	flagkind.String(fl, &flags.file, "file", "", "registered test `FILE` to resolve (default $TEST_FILE)", flagkind.Path, "py")
	flagkind.String(fl, &flags.imageTag, "image-tag", "", "container image `TAG`; empty: dev (default $CI_IMAGE_TAG)", flagkind.Text)
	flagkind.String(fl, &flags.sourceRoot, "source-root", "", "`DIR` to read the registrations from; empty: . (default $CI_SOURCE_ROOT)", flagkind.Dir)
	// An empty value is an empty variable's: the outputs go to stdout.
	flagkind.EmptyOK(flagkind.String(fl, &flags.output, "github-output", "", "step output `FILE` to append to (default $GITHUB_OUTPUT)", flagkind.Output))
	return cmd
}

// changedString returns v when the flag name was given on the command
// line, else nil.
func changedString(cmd *cobra.Command, name string, v *string) *string {
	if cmd.Flags().Changed(name) {
		return v
	}
	return nil
}

// fileRunRun resolves the plan and writes it. Errors come in the script's
// order (its inputs, the source root, discovery, collection, image tag,
// registrations), then the problems of writing the outputs, which the
// script only meets after resolving.
func fileRunRun(_ context.Context, f *Factory, opts *FileRunOptions) error {
	testFile, ok := lookup(f, opts.File, envTestFile)
	if !ok {
		return policyError(f.ErrOut, errors.New(envTestFile+" is not set"))
	}
	req := filerun.Request{TestFile: testFile, ImageTag: "dev", SourceRoot: "."}
	if v, _ := lookup(f, opts.ImageTag, envImageTag); v != "" {
		req.ImageTag = v
	}
	if v, _ := lookup(f, opts.SourceRoot, envSourceRoot); v != "" {
		req.SourceRoot = v
	}
	output, outputSet := lookup(f, opts.GitHubOutput, envGitHubOutput)

	cfg, err := f.configWith(opts.Config)
	if err != nil {
		return policyError(f.ErrOut, err)
	}
	p, err := filerun.Resolve(cfg, req)
	if err != nil {
		code := policyError(f.ErrOut, err)
		var fe *filerun.Error
		if !errors.As(err, &fe) {
			return code
		}
		input := envTestFile
		if opts.File != nil {
			input = "--file"
		}
		switch {
		case fe.Registered != "":
			fmt.Fprintf(f.ErrOut, "hint: give %s the path as registered, relative to the source root: %s\n", input, textfmt.OneLine(fe.Registered))
		case fe.Missing:
			// The path comes from a pull request's comment: quoted as
			// Python writes a str, it carries no control character.
			hint := fmt.Sprintf("hint: %s names %s, which does not exist in the source root", input, pyfmt.Repr(testFile))
			if fe.Near != "" {
				hint += "; did you mean " + pyfmt.Repr(fe.Near) + "?"
			}
			fmt.Fprintln(f.ErrOut, hint)
		}
		return code
	}
	lines, err := ghactions.StepOutputs(output, outputSet, p.Outputs())
	if err != nil {
		return policyError(f.ErrOut, err)
	}
	fmt.Fprint(f.Out, lines)
	_, err = fmt.Fprintln(f.Out, p.JSON())
	return err
}
