package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/radixark/miles-ci/internal/argparse"
	"github.com/radixark/miles-ci/internal/seal"
)

// envHistoryFD names the descriptor a re-executed run reads the history's
// URL from (see SealHistoryURL). It is miles-ci's own, set for one exec.
const envHistoryFD = "MILES_CI_HISTORY_FD"

// sealedHistory stands for the value of --history in the arguments of a
// re-executed run, which /proc/PID/cmdline and ps show.
const sealedHistory = "(sealed)"

// sealedURL is the history's URL a re-executed run read from envHistoryFD,
// or why it could not.
type sealedURL struct {
	url string
	err error
}

// SealHistoryURL keeps the run history's URL out of reach of the tests a
// run starts. A test runs the pull request's code: it may read its
// parent's /proc/PID/environ and /proc/PID/cmdline, which show the
// environment and the arguments miles-ci started with for as long as it
// lives, whatever it removes from its own copy. So, before anything else
// runs, a `miles-ci run` given a URL (by MILES_CI_HISTORY_URL or by
// --history) puts it in a pipe and executes itself again, the same process,
// streams and arguments, with --history's value replaced by "(sealed)",
// MILES_CI_HISTORY_URL left out and MILES_CI_HISTORY_FD naming the pipe;
// the new image reads the URL and closes the pipe (f keeps the URL for
// the run) before it parses anything. Nothing else changes: without a URL,
// or for any other command, nothing is executed again.
//
// If the exec fails, the run goes on as before, the URL still where its
// tests can read it, and one warning on errOut says so: the store is
// still written, since withholding it now would hide nothing.
func SealHistoryURL(f *Factory, argv []string) {
	if url, ok, err := seal.Receive(envHistoryFD); ok {
		f.sealed = &sealedURL{url: url, err: err}
		return
	}
	if len(argv) == 0 {
		return
	}
	envURL := ""
	if f.LookupEnv != nil {
		envURL, _ = f.LookupEnv(envHistoryURL)
	}
	if envURL == "" && !slices.ContainsFunc(argv[1:], func(a string) bool { return strings.HasPrefix(a, "--h") }) {
		return // no URL, and no --history (nor a prefix of it): nothing to read
	}
	args, url, secret := sealRunArgs(argv[1:], envURL)
	if !secret {
		return
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, envHistoryURL+"=") || strings.HasPrefix(kv, envHistoryFD+"=")
	})
	err := seal.Exec(append([]string{argv[0]}, args...), env, envHistoryFD, url)
	if errors.Is(err, seal.ErrUnsupported) {
		return
	}
	errOut := f.ErrOut
	if errOut == nil {
		errOut = io.Discard
	}
	fmt.Fprintf(errOut, "warning: history: the store's URL could not be hidden from the tests (%v): a test can read it in /proc of this process\n", err)
}

// sealRunArgs is SealHistoryURL's reading of args, the command line after
// the program's name, with envURL the value of MILES_CI_HISTORY_URL: for a
// `run` that holds a URL (secret), the same command line with every
// --history and the value it took replaced by --history=(sealed), and the
// URL the run would use (--history's last value, else envURL; "" when
// --history is given empty). It reads args as the run does: the command as
// cobra finds it, then the run's own flags (see parseOwnFlags). A command
// line the run would refuse is left alone: it runs no test.
func sealRunArgs(args []string, envURL string) (out []string, url string, secret bool) {
	root := NewCmdRoot(&Factory{Out: io.Discard, ErrOut: io.Discard, Root: "."})
	cmd, rest, err := root.Find(args)
	if err != nil || cmd.CommandPath() != "miles-ci run" || len(rest) != len(args)-1 {
		return nil, "", false
	}
	cmd.InheritedFlags() // merges the global flags, as parseOwnFlags does
	occurrences, _, err := argparse.Scan(cmd.Flags(), rest)
	if err != nil {
		return nil, "", false
	}
	// rest is args less the command's name, at k.
	k := 0
	for k < len(rest) && args[k] == rest[k] {
		k++
	}
	at := func(i int) int { // rest's index i in args
		if i >= k {
			return i + 1
		}
		return i
	}
	url, secret = envURL, envURL != ""
	var spans []argparse.Occurrence
	for _, o := range occurrences {
		if o.Flag.Name != "history" {
			continue
		}
		url = o.Values[0]
		secret = secret || url != ""
		if o.Start < k && o.End > k {
			return nil, "", false // cobra never takes a flag's value for the command
		}
		spans = append(spans, argparse.Occurrence{Start: at(o.Start), End: at(o.End-1) + 1})
	}
	if !secret {
		return nil, "", false
	}
	out = make([]string, 0, len(args))
	last := 0
	for _, s := range spans {
		out = append(out, args[last:s.Start]...)
		out = append(out, "--history="+sealedHistory)
		last = s.End
	}
	return append(out, args[last:]...), url, true
}
