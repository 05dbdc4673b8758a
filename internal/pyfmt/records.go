package pyfmt

import (
	"bytes"
	"fmt"
	"sort"
	"unicode/utf8"
)

// RecordFile is one metric-record file of a test attempt: its name (for
// messages) and its bytes.
type RecordFile struct {
	Name string
	Data []byte
}

// MergeRecords merges the metric-history gate's record files, given in name
// order, as the Python gate merges them. Each non-blank line of an input is
// a JSON object {"metric": k, "series": [[step, value], ...]}; the result
// has one line per metric, in the order metrics were first seen, holding the
// concatenation of its series sorted by step (stable; null steps last),
// written as json.dumps writes it so the Python gate reads identical bytes.
func MergeRecords(files []RecordFile) ([]byte, error) {
	type metric struct {
		key    *JSONValue
		series []*JSONValue
	}
	var order []*metric
	byKey := map[string]*metric{}
	for _, f := range files {
		if !utf8.Valid(f.Data) {
			return nil, fmt.Errorf("%s: not UTF-8", f.Name)
		}
		for n, line := range splitUniversal(f.Data) {
			line = bytes.TrimFunc(line, IsSpace)
			if len(line) == 0 {
				continue
			}
			v, err := ParseJSON(line)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", f.Name, n+1, err)
			}
			k, ok1 := v.Get("metric")
			s, ok2 := v.Get("series")
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("%s:%d: a record needs \"metric\" and \"series\"", f.Name, n+1)
			}
			if s.kind != jList {
				return nil, fmt.Errorf("%s:%d: \"series\" is not a list", f.Name, n+1)
			}
			id := string(k.AppendJSON(nil))
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
			return nil, fmt.Errorf("metric %s: %w", m.key.AppendJSON(nil), err)
		}
		out = append(out, `{"metric": `...)
		out = m.key.AppendJSON(out)
		out = append(out, `, "series": `...)
		out = (&JSONValue{kind: jList, list: m.series}).AppendJSON(out)
		out = append(out, "}\n"...)
	}
	return out, nil
}

// sortSeries sorts points by their first element, None last, stably, and
// fails where Python's comparison would raise.
func sortSeries(points []*JSONValue) error {
	var failed error
	key := func(p *JSONValue) *JSONValue {
		if p.kind != jList || len(p.list) == 0 {
			if failed == nil {
				failed = fmt.Errorf("point %s has no step", p.AppendJSON(nil))
			}
			return &JSONValue{kind: jNull}
		}
		return p.list[0]
	}
	sort.SliceStable(points, func(i, j int) bool {
		a, b := key(points[i]), key(points[j])
		if a.kind == jNull || b.kind == jNull {
			return a.kind != jNull && b.kind == jNull
		}
		less, err := jsonLess(a, b)
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
