package drain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Record is one change the drain made, a line of the drain log (JSON
// Lines): enough for a person, or `--restore`, to undo it.
type Record struct {
	// Time is when the change was made (RFC 3339, UTC).
	Time string `json:"time"`
	// Action is "drain" (Label removed) or "restore" (Label added back).
	Action string `json:"action"`
	// Scope is where the runner is registered: "repos/OWNER/NAME" or
	// "orgs/ORG".
	Scope    string   `json:"scope"`
	RunnerID int64    `json:"runner_id"`
	Runner   string   `json:"runner"`
	Label    string   `json:"label"`
	LabelSet []string `json:"label_set,omitempty"`
	Suites   []string `json:"suites,omitempty"`
	Evidence []string `json:"evidence,omitempty"`
}

// The actions of a Record.
const (
	ActionDrain   = "drain"
	ActionRestore = "restore"
)

// ParseLog reads a drain log: one JSON record per line, blank lines
// ignored. name is the file's, for the error, which names the line.
func ParseLog(name string, data []byte) ([]Record, error) {
	var out []Record
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r Record
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("%s:%d: not a drain log record: %s", name, i+1, strings.TrimPrefix(err.Error(), "json: "))
		}
		if r.Action != ActionDrain && r.Action != ActionRestore {
			return nil, fmt.Errorf("%s:%d: not a drain log record: action %q; expected %q or %q", name, i+1, r.Action, ActionDrain, ActionRestore)
		}
		out = append(out, r)
	}
	return out, nil
}

// AppendRecord returns log with r added as its last line.
func AppendRecord(log []byte, r Record) ([]byte, error) {
	line, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(log)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return append(append(out, line...), '\n'), nil
}

// ToRestore returns the labels the log says were drained from the runner
// named runner in scope and not given back since, in the order they were
// drained.
func ToRestore(records []Record, scope, runner string) []string {
	var labels []string
	for _, r := range records {
		if r.Scope != scope || !strings.EqualFold(r.Runner, runner) {
			continue
		}
		i := slices.IndexFunc(labels, func(l string) bool { return strings.EqualFold(l, r.Label) })
		switch {
		case r.Action == ActionDrain && i < 0:
			labels = append(labels, r.Label)
		case r.Action == ActionRestore && i >= 0:
			labels = slices.Delete(labels, i, i+1)
		}
	}
	return labels
}
