package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/pyfmt"
)

// parseWhole is Parse as it was before reports were read a piece at a
// time: the whole document through pyfmt.UnmarshalExact. The streaming
// reader must answer exactly as it does.
func parseWhole(data []byte) (*Report, error) {
	var probe struct {
		Version   *int            `json:"version"`
		Suite     *string         `json:"suite"`
		Timings   json.RawMessage `json:"timings"`
		Partition json.RawMessage `json:"partition"`
	}
	if err := pyfmt.UnmarshalExact(data, &probe); err != nil {
		return nil, jsonError(err)
	}
	switch {
	case probe.Timings != nil && probe.Suite == nil:
		return nil, errors.New(`a timings file (it has "timings"), not a report; expected a report written by miles-ci run --json-report (timings files go to timings merge, timings apply and --timings)`)
	case probe.Version == nil:
		return nil, fmt.Errorf(`no "version"; expected a report written by miles-ci run --json-report (version %d)`, Version)
	case *probe.Version != Version:
		return nil, fmt.Errorf("unsupported version %d; expected %d", *probe.Version, Version)
	}
	var r Report
	if err := pyfmt.UnmarshalExact(data, &r); err != nil {
		return nil, jsonError(err)
	}
	r.unscoped = probe.Partition == nil
	if err := r.check(); err != nil {
		return nil, err
	}
	return &r, nil
}

// sameAnswer fails unless Parse answers data as parseWhole does: the same
// error, or reports that write the same document.
func sameAnswer(t *testing.T, data []byte) {
	t.Helper()
	want, wantErr := parseWhole(data)
	got, gotErr := Parse(data)
	if wantErr != nil || gotErr != nil {
		if wantErr != nil && gotErr != nil && wantErr.Error() != gotErr.Error() && hasInexactKey(data) {
			// The whole-document reader re-encoded such a document
			// (pyfmt.UnmarshalExact drops the key), sorting its keys and
			// compacting its values: of several wrong values it named the
			// first in key order, and quoted est_time re-encoded. The
			// stream names the first in the document, as written.
			return
		}
		if wantErr == nil || gotErr == nil || wantErr.Error() != gotErr.Error() {
			t.Fatalf("for %.300q\nParse: %v\nwhole: %v", data, gotErr, wantErr)
		}
		return
	}
	wantDoc, err1 := Marshal(want)
	gotDoc, err2 := Marshal(got)
	require.NoError(t, err1)
	require.NoError(t, err2)
	if string(wantDoc) != string(gotDoc) || want.unscoped != got.unscoped {
		t.Fatalf("for %.300q\nParse: %s\nwhole: %s", data, gotDoc, wantDoc)
	}
}

// hasInexactKey reports whether a JSON document holds a key that names a
// report's field only when case is ignored.
func hasInexactKey(data []byte) bool {
	names := map[string]bool{}
	for _, v := range []any{Report{}, File{}, Attempt{}, Host{}, GPU{}, Preflight{}, ForeignProcess{}, Partition{}, Shards{}} {
		for name := range fieldsOf(reflect.TypeOf(v)) {
			names[name] = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		key, ok := tok.(string)
		if !ok || names[key] {
			continue
		}
		for name := range names {
			if strings.EqualFold(name, key) {
				return true
			}
		}
	}
}

// parseCases are documents that reach every answer of Parse: reports,
// reports with a value of every wrong type at every depth, and documents
// that are no report or no JSON.
var parseCases = []string{
	`{"version": 1, "suite": "s", "backend": "cuda", "files": []}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "partition": null, "files": []}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "partition": {"id": 0, "size": 2}, "files": [{"file": "a.py", "status": "PASS", "attempts": 1, "est_time": 1e999, "attempts_detail": [{"attempt": 1, "status": "PASS", "output_tail": "x\u0041"}]}]}`,
	`{"files": [], "backend": "cuda", "suite": "s", "version": 1}`,
	`{"version": 1, "Suite": "s", "suite": "t", "backend": "cuda", "files": []}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "FILES": [], "files": [{"FILE": "x", "file": "a.py", "Status": "FAIL", "status": "PASS"}]}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [], "files": [{"file": "a.py", "status": "PASS"}]}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [{"file": "a.py", "status": "PASS"}], "files": []}`,
	`{"version": 1, "version": null, "suite": "s", "backend": "cuda", "files": []}`,
	`{"version": null, "version": 1, "suite": "s", "backend": "cuda", "files": []}`,
	`{"version": 2, "suite": "s"}`,
	`{"version": "1", "suite": "s"}`,
	`{"version": 1.5, "suite": "s"}`,
	`{"version": 1e30, "suite": "s"}`,
	`{"version": 1, "suite": 3, "backend": "cuda", "files": []}`,
	`{"suite": [], "version": {}}`,
	`{"timings": {"a.py": 3}}`,
	`{"timings": null, "suite": null}`,
	`{"timings": {}, "suite": "s", "version": 1, "backend": "b", "files": []}`,
	`{"suite": "s"}`,
	`{}`, `[]`, `[1, 2]`, `"report"`, `3`, `-0.5e3`, `true`, `null`, ` {} `,
	``, ` `, `{`, `{"version": 1`, `{"version": 1,}`, `{"version" 1}`, `[1,]`, `{} {}`, `{}x`, `{"a": 1x}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [{"file": "a.py", "status": "PASS", "attempts": "1"}]}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [{"file": "a.py", "status": "PASS", "attempts": 1.5}]}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [{"file": "a.py", "status": "PASS", "est_time": "x"}]}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [{"file": 1, "status": "PASS", "est_time": {"a": [1, 2]}}]}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [{"file": "a.py", "status": "PASS", "est_time": null}]}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [{"file": "a.py", "status": "PASS", "attempts_detail": {}}]}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [{"file": "a.py", "status": "PASS", "attempts_detail": "x"}]}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [{"file": "a.py", "status": "PASS", "attempts": 2, "attempts_detail": [3, {"status": "PASS", "output_tail": 4}]}]}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [{"file": "a.py", "status": "PASS", "attempts": 1, "attempts_detail": [{"status": "PASS", "output_tail": [[[]]]}]}]}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [null, {"file": "a.py", "status": "PASS"}]}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": {"file": "a.py"}}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": null}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": "all"}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [], "partition": 3}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [], "partition": {"id": "0"}, "shards": {"size": 2, "missing": ["a"]}}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [], "shards": {"size": 2, "missing": [1, 0]}}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [], "host": {"runner": "r", "pr": 3, "gpus": [{"index": "0"}]}}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [], "hosts": [{"runner": "r"}, null, 4]}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [], "preflights": [{"when": "start", "foreign": [{"pid": 1.5}]}]}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [], "elapsed": -1}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [], "elapsed": 1e400}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [], "unknown": {"deep": [[{"x": 1e999}]], "s": "\ud800"}}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [{"file": "a.py", "status": "MAYBE"}]}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [{"file": "a.py", "status": "PASS", "attempts": 1, "attempts_detail": [{"status": "PASS", "fingerprint": "::x"}]}]}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [{"file": "a.py", "status": "PASS", "attempts": 1, "est_time": "x", "elapsed": "y"}]}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [{"file": "a.py", "status": "PASS", "elapsed": "y", "est_time": "x"}]}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "passed": "yes", "files": [{"file": "a.py", "status": "PASS", "est_time": "x"}], "interrupted": 1}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [{"file": "a.py", "status": "PASS", "est_time": "x"}], "version": 2}`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [{"file": "a.py", "status": "PASS", "est_time": "x"}]} x`,
	`{"version": 1, "suite": "s", "backend": "cuda", "files": [{"file": "a.py", "status": "PASS", "attempts": 1e30}]`,
	"{\"version\": 1, \"suite\": \"s\xff\", \"backend\": \"cuda\", \"files\": []}",
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	`{"version": 1, "suite": "s", "backend": "b", "files": [], "elapsed": ` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
	`{"version": ` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
	`{"version": 1, "suite": "s", "backend": "b", "files": [{"file": "a.py", "status": "PASS", "est_time": ` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}]}`,
	`{"version": 1, "suite": "s", "backend": "b", "files": [{"file": "a.py", "status": "PASS", "est_time": ` + strings.Repeat("[", 9990) + strings.Repeat("]", 9990) + `}]}`,
	`{"version": 1, "x": ` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
	`{"version": 1, "x": ` + strings.Repeat("[", 9998) + strings.Repeat("]", 9998) + `, "suite": "s", "backend": "b", "files": []}`,
}

func TestParse_AnswersAsReadingTheWholeDocument(t *testing.T) {
	for _, c := range parseCases {
		sameAnswer(t, []byte(c))
	}
	// Every report and JSON file of the repository's fixtures.
	var paths []string
	for _, pattern := range []string{"../../testdata/*/*.json", "../../testdata/*/*/*.json", "../../testdata/*/*/*/*.json", "../*/testdata/*.json", "../*/testdata/*/*.json"} {
		m, err := filepath.Glob(pattern)
		require.NoError(t, err)
		paths = append(paths, m...)
	}
	require.NotEmpty(t, paths)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		sameAnswer(t, data)
	}
}

// FuzzParse_AnswersAsReadingTheWholeDocument: whatever the document, the
// streaming reader gives encoding/json's answer.
func FuzzParse_AnswersAsReadingTheWholeDocument(f *testing.F) {
	for _, c := range parseCases[:len(parseCases)-7] {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, doc string) { sameAnswer(t, []byte(doc)) })
}
