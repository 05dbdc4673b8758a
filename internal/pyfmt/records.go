package pyfmt

import (
	"bytes"
	"fmt"
	"math"
	"slices"
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
// fails where Python's comparison would raise. Each point's step is looked
// at once: a number that a float64 holds exactly is compared as one, which
// spares a big.Float per comparison on the common series, and the sort is
// made stable by the points' positions, in O(n log n) comparisons.
func sortSeries(points []*JSONValue) error {
	type step struct {
		v     *JSONValue // nil for a null step
		f     float64
		exact bool // v is a number f holds exactly (never NaN)
		pos   int
		point *JSONValue
	}
	steps := make([]step, len(points))
	var failed error
	for i, p := range points {
		s := step{pos: i, point: p}
		if p.kind != jList || len(p.list) == 0 {
			if failed == nil {
				failed = fmt.Errorf("point %s has no step", p.AppendJSON(nil))
			}
		} else if v := p.list[0]; v.kind != jNull {
			s.v = v
			s.f, s.exact = exactFloat(v)
		}
		steps[i] = s
	}
	slices.SortFunc(steps, func(a, b step) int {
		switch {
		case a.v == nil || b.v == nil:
			if a.v != nil {
				return -1
			}
			if b.v != nil {
				return 1
			}
		case a.exact && b.exact:
			if a.f < b.f {
				return -1
			}
			if b.f < a.f {
				return 1
			}
		default:
			if less, err := jsonLess(a.v, b.v); err != nil {
				if failed == nil {
					failed = err
				}
			} else if less {
				return -1
			} else if less, _ := jsonLess(b.v, a.v); less {
				return 1
			}
		}
		return a.pos - b.pos
	})
	for i, s := range steps {
		points[i] = s.point
	}
	return failed
}

// exactFloat is v as a float64 when v is a number that one holds exactly
// and is not NaN.
func exactFloat(v *JSONValue) (float64, bool) {
	switch v.kind {
	case jFloat:
		return v.f, !math.IsNaN(v.f)
	case jBool:
		if v.b {
			return 1, true
		}
		return 0, true
	case jInt:
		if v.i == nil && -1<<53 <= v.n && v.n <= 1<<53 {
			return float64(v.n), true
		}
	}
	return 0, false
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
