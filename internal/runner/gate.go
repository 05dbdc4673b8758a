package runner

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/radixark/miles-ci/internal/pyfmt"
)

// RecordDirEnv names the directory where a test's training processes write
// their metric records (one *.jsonl per process).
const RecordDirEnv = "MILES_CI_GATE_RECORD_DIR"

// GateHookTimeout bounds one run of the gate hook.
var GateHookTimeout = 10 * time.Minute

// NewGateBase creates the fresh temporary base directory of a run's metric
// records, for when the environment names none. It is miles-ci's own, so
// the run removes it at its end with RemoveGateBase: every hook has read
// its merged record by then.
func NewGateBase() (string, error) {
	dir, err := os.MkdirTemp("", "miles-ci-gate-")
	if err != nil {
		return "", fmt.Errorf("metric record directory: %w", err)
	}
	return dir, nil
}

// RemoveGateBase removes a directory NewGateBase created, with everything a
// test wrote into it. A test may have left a directory without write or
// search permission, so a failed removal makes every directory below dir
// accessible to us (links are not followed) and tries again; what still
// cannot go is a warning on errOut, never a failed run.
func RemoveGateBase(dir string, errOut io.Writer) {
	if os.RemoveAll(dir) == nil {
		return
	}
	// WalkDir visits a directory before it reads it, so each one is
	// readable by the time its entries are needed.
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			_ = os.Chmod(path, 0o700)
		}
		return nil
	})
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintf(errOut, "warning: cannot remove the temporary metric record directory: %v\n", err)
	}
}

// RecordDir is the record directory of one attempt of file below base:
// <base>/<key>/attempt-<a>, where key is the file name with every character
// outside [A-Za-z0-9._-] replaced by '_' (one per character, not per byte),
// '-', and the first 10 hex digits of the SHA-1 of the name.
func RecordDir(base, file string, attempt int) string {
	var b strings.Builder
	for _, r := range file {
		switch {
		case 'A' <= r && r <= 'Z', 'a' <= r && r <= 'z', '0' <= r && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	sum := sha1.Sum([]byte(file))
	key := b.String() + "-" + hex.EncodeToString(sum[:])[:10]
	return filepath.Join(base, key, fmt.Sprintf("attempt-%d", attempt))
}

// MergeRecords merges every *.jsonl file in dir (in name order) into one
// file at merged. Each non-blank line of an input is a JSON object
// {"metric": k, "series": [[step, value], ...]}; the output has one line per
// metric, in the order metrics were first seen, holding the concatenation
// of its series sorted by step (stable; null steps last), written as
// Python's json.dumps writes it (pyfmt.MergeRecords) so the Python gate
// reads identical bytes. A missing dir merges nothing and writes nothing.
func MergeRecords(dir, merged string) error {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".jsonl") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)

	files := make([]pyfmt.RecordFile, 0, len(names))
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		files = append(files, pyfmt.RecordFile{Name: name, Data: data})
	}
	out, err := pyfmt.MergeRecords(files)
	if err != nil {
		return err
	}
	return os.WriteFile(merged, out, 0o644)
}

// runGateHook runs the gate hook of a passed file as
// `sh -c "$GATE_HOOK" sh <file> <merged record>` in the repository root,
// with MILES_CI_GATE_FILE, MILES_CI_GATE_RECORD and
// MILES_CI_GATE_WRITE_BASELINE (true/false) in its environment. Its failure
// is a warning: the file has passed.
func (r *runState) runGateHook(ctx context.Context, res *FileResult) {
	o := &r.opts
	env := append(o.Env[:len(o.Env):len(o.Env)],
		"MILES_CI_GATE_FILE="+res.File,
		"MILES_CI_GATE_RECORD="+res.RecordPath,
		fmt.Sprintf("MILES_CI_GATE_WRITE_BASELINE=%t", o.WriteBaseline))
	pr, err := runProc(ctx, procSpec{
		argv: []string{"sh", "-c", o.GateHook, "sh", res.File, res.RecordPath},
		dir:  o.Root, env: env, timeout: GateHookTimeout, grace: o.KillGrace,
		out: o.Out, errOut: o.ErrOut, start: o.Start,
	})
	switch {
	case err != nil:
		fmt.Fprintf(o.ErrOut, "[CI Gate] hook failed for %s: %v\n", res.File, err)
	case pr.timedOut:
		fmt.Fprintf(o.ErrOut, "[CI Gate] hook failed for %s: timeout after %s\n", res.File, GateHookTimeout)
	case pr.interrupted:
		fmt.Fprintf(o.ErrOut, "[CI Gate] hook interrupted for %s\n", res.File)
	case pr.exitCode != 0:
		fmt.Fprintf(o.ErrOut, "[CI Gate] hook failed for %s: exit code %d\n", res.File, pr.exitCode)
	}
}
