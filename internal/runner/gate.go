package runner

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/pyfmt"
	"github.com/radixark/miles-ci/internal/textfmt"
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

// maxRecordBytes bounds what MergeRecords reads of one attempt's record
// files, all together (64 MiB): the records are the test's own output, and
// a test can leave anything in its record directory. Tests lower it.
var maxRecordBytes int64 = 64 << 20

// MergeRecords merges every *.jsonl file in dir (in name order) into one
// file at merged. Each non-blank line of an input is a JSON object
// {"metric": k, "series": [[step, value], ...]}; the output has one line per
// metric, in the order metrics were first seen, holding the concatenation
// of its series sorted by step (stable; null steps last), written as
// Python's json.dumps writes it (pyfmt.MergeRecords) so the Python gate
// reads identical bytes. A missing dir merges nothing and writes nothing.
//
// Only regular files are read (a link to one is followed): a FIFO would
// block the run forever and a device such as /dev/zero never ends. Such an
// entry, one that cannot be read, or a file that would take the records
// past maxRecordBytes, is skipped, and warn is called with its name and the
// reason; the other files are still merged.
func MergeRecords(dir, merged string, warn func(name, reason string)) error {
	info, err := os.Stat(dir)
	switch {
	case os.IsNotExist(err):
		return nil
	case err != nil:
		return err
	case !info.IsDir():
		// Opening a FIFO to list it would block.
		return fmt.Errorf("%s is not a directory", dir)
	}
	entries, err := os.ReadDir(dir)
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
	budget := maxRecordBytes
	for _, name := range names {
		data, err := readRecordFile(filepath.Join(dir, name), budget)
		if err != nil {
			warn(name, err.Error())
			continue
		}
		budget -= int64(len(data))
		files = append(files, pyfmt.RecordFile{Name: name, Data: data})
	}
	out, err := pyfmt.MergeRecords(files)
	if err != nil {
		return err
	}
	return writeNew(merged, out)
}

// readRecordFile reads the regular file at path (a link to one is
// followed) if it holds at most max bytes, and otherwise says why not. It
// looks before it opens: opening a FIFO could block, and opening some
// devices acts; fsutil.ReadRegular then refuses whatever was swapped in.
func readRecordFile(path string, max int64) ([]byte, error) {
	if err := fsutil.CheckRegular(path); err != nil {
		return nil, err
	}
	data, err := fsutil.ReadRegular(path, max)
	var tooLarge *fsutil.TooLargeError
	if errors.As(err, &tooLarge) {
		return nil, fmt.Errorf("would take the records past their limit of %s", fsutil.FormatSize(maxRecordBytes))
	}
	return data, fsutil.StripPath(err)
}

// writeNew writes data to a new file at path. Whatever the test left at
// that path goes first: a FIFO there would block the write forever, a link
// would send it elsewhere.
func writeNew(path string, data []byte) error {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
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
		fmt.Fprintf(o.ErrOut, "[CI Gate] hook failed for %s: %v\n", textfmt.OneLine(res.File), err)
	case pr.timedOut:
		fmt.Fprintf(o.ErrOut, "[CI Gate] hook failed for %s: timeout after %s\n", textfmt.OneLine(res.File), GateHookTimeout)
	case pr.interrupted:
		fmt.Fprintf(o.ErrOut, "[CI Gate] hook interrupted for %s\n", textfmt.OneLine(res.File))
	case pr.exitCode != 0:
		fmt.Fprintf(o.ErrOut, "[CI Gate] hook failed for %s: exit code %d\n", textfmt.OneLine(res.File), pr.exitCode)
	}
}

// recordEnv is the environment of attempt a of file: the children's, and,
// when the run keeps metric records, the attempt's own record directory,
// created here (see RecordDir).
func (r *runState) recordEnv(file string, a int) []string {
	o := &r.opts
	if o.GateBaseDir == "" {
		return o.Env
	}
	dir := RecordDir(o.GateBaseDir, file, a)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(o.ErrOut, "[CI Gate] cannot create the record directory of %s: %v\n", textfmt.OneLine(file), err)
	}
	return append(o.Env[:len(o.Env):len(o.Env)], RecordDirEnv+"="+dir)
}

// mergeRecords merges the metric records of attempt a of res's file, which
// passed, into one file beside them: res.RecordPath, which the gate reads.
// A failure is a warning, and leaves the file without a record.
func (r *runState) mergeRecords(res *FileResult, a int) {
	o := &r.opts
	if o.GateBaseDir == "" {
		return
	}
	dir := RecordDir(o.GateBaseDir, res.File, a)
	merged := dir + ".merged.jsonl"
	warn := func(name, reason string) {
		fmt.Fprintf(o.ErrOut, "[CI Gate] record %s of %s skipped: %s\n", textfmt.OneLine(name), textfmt.OneLine(res.File), reason)
	}
	if err := MergeRecords(dir, merged, warn); err != nil {
		fmt.Fprintf(o.ErrOut, "[CI Gate] record merge failed for %s: %v\n", textfmt.OneLine(res.File), err)
		return
	}
	res.RecordPath = merged
}
