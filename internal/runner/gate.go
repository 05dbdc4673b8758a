package runner

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// RecordDirEnv names the directory where a test's training processes write
// their metric records (one *.jsonl per process).
const RecordDirEnv = "MILES_CI_GATE_RECORD_DIR"

// GateHookTimeout bounds one run of the gate hook.
var GateHookTimeout = 10 * time.Minute

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
// Python's json.dumps writes it so the Python gate reads identical bytes.
// A missing dir merges nothing and writes nothing.
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

	type metric struct {
		key    *pyValue
		series []*pyValue
	}
	var order []*metric
	byKey := map[string]*metric{}
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if !utf8.Valid(data) {
			return fmt.Errorf("%s: not UTF-8", name)
		}
		for n, line := range splitUniversal(data) {
			line = bytes.TrimFunc(line, isPySpace)
			if len(line) == 0 {
				continue
			}
			v, err := parsePyJSON(line)
			if err != nil {
				return fmt.Errorf("%s:%d: %w", name, n+1, err)
			}
			k, ok1 := v.get("metric")
			s, ok2 := v.get("series")
			if !ok1 || !ok2 {
				return fmt.Errorf("%s:%d: a record needs \"metric\" and \"series\"", name, n+1)
			}
			if s.kind != pyList {
				return fmt.Errorf("%s:%d: \"series\" is not a list", name, n+1)
			}
			id := string(k.encode(nil))
			m := byKey[id]
			if m == nil {
				m = &metric{key: k}
				byKey[id] = m
				order = append(order, m)
			}
			m.series = append(m.series, s.list...)
		}
	}

	var out []byte
	for _, m := range order {
		if err := sortSeries(m.series); err != nil {
			return fmt.Errorf("metric %s: %w", m.key.encode(nil), err)
		}
		out = append(out, `{"metric": `...)
		out = m.key.encode(out)
		out = append(out, `, "series": `...)
		out = (&pyValue{kind: pyList, list: m.series}).encode(out)
		out = append(out, "}\n"...)
	}
	return os.WriteFile(merged, out, 0o644)
}

// sortSeries sorts points by their first element, None last, stably, and
// fails where Python's comparison would raise.
func sortSeries(points []*pyValue) error {
	var failed error
	key := func(p *pyValue) *pyValue {
		if p.kind != pyList || len(p.list) == 0 {
			if failed == nil {
				failed = fmt.Errorf("point %s has no step", p.encode(nil))
			}
			return &pyValue{kind: pyNull}
		}
		return p.list[0]
	}
	sort.SliceStable(points, func(i, j int) bool {
		a, b := key(points[i]), key(points[j])
		if a.kind == pyNull || b.kind == pyNull {
			return a.kind != pyNull && b.kind == pyNull
		}
		less, err := pyLess(a, b)
		if err != nil && failed == nil {
			failed = err
		}
		return less
	})
	return failed
}

// splitUniversal splits text into lines the way Python's text mode reads
// them: at "\r\n", "\r" or "\n".
func splitUniversal(data []byte) [][]byte {
	var lines [][]byte
	for len(data) > 0 {
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			lines = append(lines, data)
			break
		}
		lines = append(lines, data[:i])
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	return lines
}

// isPySpace is Python's str.isspace for one rune.
func isPySpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680,
		0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return 0x2000 <= r && r <= 0x200a
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
