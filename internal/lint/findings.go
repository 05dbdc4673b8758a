package lint

import (
	"container/heap"
	"fmt"
	"hash/maphash"
	"sort"
	"strconv"
)

// MaxPerRule is how many findings of one rule in one file lint lists. A
// workflow that repeats one mistake a thousand times (a job aliased into a
// thousand jobs) is fixed in one place, and a list of a thousand lines
// only buries the others; the rest are counted in one line.
const MaxPerRule = 20

// findingSet gathers the findings of a lint run: each one once, however
// many jobs share the YAML node it is about, and of each rule in each file
// the first MaxPerRule by place, counting the rest. What it holds is
// bounded by the files and rules, not by the findings: a workflow of
// 300,000 aliased jobs is checked without holding 300,000 messages.
type findingSet struct {
	hash    maphash.Hash // reused: one per finding costs more than the findings
	scratch []byte
	// seen holds a 64-bit hash of every finding added, to drop a repeat.
	seen             map[uint64]struct{}
	groups           map[groupKey]*findingGroup
	seq              int // the order of adding, the tie-break between equal places
	errors, warnings int
}

type groupKey struct{ path, rule string }

// findingGroup is one rule's findings in one file.
type findingGroup struct {
	kept keptFindings // the first MaxPerRule by place
	// more counts the findings not kept; firstMore is the first of them
	// by place, where the line that counts them stands.
	more, moreErrors int
	firstMore        seqFinding
}

// seqFinding is a finding and the order it was added in.
type seqFinding struct {
	Finding
	seq int
}

func newFindingSet() *findingSet {
	return &findingSet{seen: map[uint64]struct{}{}, groups: map[groupKey]*findingGroup{}}
}

// placeLess orders findings of one file by line, column and rule, then by
// the order they were added in.
func placeLess(a, b seqFinding) bool {
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	if a.Col != b.Col {
		return a.Col < b.Col
	}
	if a.Rule != b.Rule {
		return a.Rule < b.Rule
	}
	return a.seq < b.seq
}

// add records f unless the same finding was added before.
func (s *findingSet) add(f Finding) { s.addf(f, "%s", f.Message) }

// addf is add with f's message made of format and args, which is done
// only when the finding is listed: a dropped one is only hashed.
func (s *findingSet) addf(f Finding, format string, args ...any) {
	h := &s.hash
	h.Reset()
	b := append(s.scratch[:0], f.Path...)
	b = strconv.AppendInt(append(b, 0), int64(f.Line), 10)
	b = strconv.AppendInt(append(b, 0), int64(f.Col), 10)
	b = append(append(append(append(append(b, 0), f.Severity...), 0), f.Rule...), 0)
	s.scratch = b
	h.Write(b)
	fmt.Fprintf(h, format, args...)
	sum := h.Sum64()
	if _, dup := s.seen[sum]; dup {
		return
	}
	s.seen[sum] = struct{}{}
	if f.Severity == Error {
		s.errors++
	} else {
		s.warnings++
	}
	k := groupKey{f.Path, f.Rule}
	g := s.groups[k]
	if g == nil {
		g = &findingGroup{}
		s.groups[k] = g
	}
	sf := seqFinding{f, s.seq}
	s.seq++
	if len(g.kept) < MaxPerRule {
		sf.Message = fmt.Sprintf(format, args...)
		heap.Push(&g.kept, sf)
		return
	}
	// Keep the earlier of f and the latest kept one; count the other.
	if placeLess(sf, g.kept[0]) {
		sf.Message = fmt.Sprintf(format, args...)
		sf, g.kept[0] = g.kept[0], sf
		heap.Fix(&g.kept, 0)
	}
	g.more++
	if sf.Severity == Error {
		g.moreErrors++
	}
	if g.more == 1 || placeLess(sf, g.firstMore) {
		g.firstMore = sf
	}
}

// result is the findings sorted by place, each group's count of the
// findings not listed in one finding where the first of them stands.
func (s *findingSet) result() *Result {
	var all []seqFinding
	for _, g := range s.groups {
		all = append(all, g.kept...)
		if g.more == 0 {
			continue
		}
		f := g.firstMore
		if g.moreErrors == 0 {
			f.Severity = Warning
		} else {
			f.Severity = Error
		}
		f.Message = fmt.Sprintf("%d more %s findings in this file from here on are not listed (lint lists the first %d of a rule in a file)",
			g.more, f.Rule, MaxPerRule)
		f.Omitted = g.more
		all = append(all, f)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Path != all[j].Path {
			return all[i].Path < all[j].Path
		}
		return placeLess(all[i], all[j])
	})
	res := &Result{Findings: make([]Finding, len(all)), Errors: s.errors, Warnings: s.warnings}
	for i, f := range all {
		res.Findings[i] = f.Finding
	}
	return res
}

// keptFindings is a max-heap by place: its root is the latest finding
// kept, the one a earlier finding replaces.
type keptFindings []seqFinding

func (h keptFindings) Len() int           { return len(h) }
func (h keptFindings) Less(i, j int) bool { return placeLess(h[j], h[i]) }
func (h keptFindings) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *keptFindings) Push(x any)        { *h = append(*h, x.(seqFinding)) }
func (h *keptFindings) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
