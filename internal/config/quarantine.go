package config

import (
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// QuarantineEntry is one entry of the quarantine: a test file that still
// runs, but whose failure does not fail a run (of its Suites, or of every
// suite it is registered in) until the end of its Until day.
type QuarantineEntry struct {
	// File is the repository-relative path of the test file, as its
	// registration names it.
	File string
	// Reason is an issue's address or a sentence: why the file is
	// quarantined. Untrusted text: every output renders it inert.
	Reason string
	// Owner is who will release it ("" when the entry names no one).
	Owner string
	// Until is the last day the entry protects the file, at 00:00 UTC.
	Until time.Time
	// Suites are the suites the entry applies to; empty: every suite of
	// the file.
	Suites []string
	// At is where the entry stands (its first key); SuitesAt is its
	// suites key (At when it has none): the places of a finding about it.
	At, SuitesAt Pos
}

// UntilLayout is the form of an entry's until: a date.
const UntilLayout = "2006-01-02"

// UntilText is the entry's until as the configuration writes it.
func (e QuarantineEntry) UntilText() string { return e.Until.Format(UntilLayout) }

// Expired reports whether the entry no longer protects anything at now: its
// until day (UTC) is over.
func (e QuarantineEntry) Expired(now time.Time) bool {
	return !now.Before(e.Until.AddDate(0, 0, 1))
}

// AppliesTo reports whether the entry covers the file in suite.
func (e QuarantineEntry) AppliesTo(file, suite string) bool {
	return e.File == file && (len(e.Suites) == 0 || slices.Contains(e.Suites, suite))
}

// ObeysQuarantine reports whether runs of cadence obey the quarantine:
// every cadence does, unless quarantine_off names it.
func (c *Config) ObeysQuarantine(cadence string) bool {
	return !slices.Contains(c.QuarantineOff, cadence)
}

// quarantine reads the optional quarantine section: a list of entries,
// each with a file, a reason and an until date, and optionally an owner
// and the suites it applies to (suites of the roster). The check that each
// file is registered, in each suite named, needs the registrations: see
// package quarantine.
func (p *parser) quarantine(n *yaml.Node, c *Config) error {
	if n == nil || n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return p.errf(n, "quarantine must be a list of entries (file, reason, until; owner and suites optional)")
	}
	roster := map[string]bool{}
	for _, s := range c.Suites {
		roster[s.Name] = true
	}
	for _, e := range n.Content {
		f, err := p.fields(e, "a quarantine entry", "file", "reason", "owner", "until", "suites")
		if err != nil {
			return err
		}
		at := Pos{Line: e.Line, Col: e.Column}
		if len(e.Content) > 0 {
			at = Pos{Line: e.Content[0].Line, Col: e.Content[0].Column}
		}
		q := QuarantineEntry{At: at, SuitesAt: at}
		for _, req := range []string{"file", "reason", "until"} {
			if f[req] == nil {
				return p.errf(e, "a quarantine entry needs %s (file, reason and until are required)", req)
			}
		}
		if q.File, err = p.name(f["file"], "quarantine file"); err != nil {
			return err
		}
		if !insideRepo(q.File) {
			return p.errf(f["file"], "quarantine file %q must be a repository-relative path with / separators that stays inside the repository", q.File)
		}
		if q.Reason, err = p.name(f["reason"], "quarantine reason"); err != nil {
			return err
		}
		if q.Reason == "" {
			return p.errf(f["reason"], "the quarantine reason of %q is empty; give an issue's address or a sentence", q.File)
		}
		if v := f["owner"]; v != nil {
			if q.Owner, err = p.name(v, "quarantine owner"); err != nil {
				return err
			}
		}
		v := f["until"]
		if q.Until, err = time.Parse(UntilLayout, v.Value); v.Kind != yaml.ScalarNode || err != nil {
			return p.errf(v, "the quarantine until of %q is %q; expected a date, as 2027-01-31 (the last day it protects)", q.File, v.Value)
		}
		if v := f["suites"]; v != nil {
			q.SuitesAt = Pos{Line: v.Line, Col: v.Column}
			if q.Suites, err = p.strList(v, "quarantine suites"); err != nil {
				return err
			}
			for i, s := range q.Suites {
				if !roster[s] {
					return p.errf(v.Content[i], "quarantine suite %q of %q is not in the roster", s, q.File)
				}
			}
		}
		for _, prev := range c.Quarantine {
			if prev.File == q.File && overlap(prev.Suites, q.Suites) {
				return p.errf(e, "%q is quarantined twice (also at line %d); keep one entry per file and suite", q.File, prev.At.Line)
			}
		}
		c.Quarantine = append(c.Quarantine, q)
	}
	return nil
}

// overlap reports whether two entries' suites share a suite (an empty list
// is every suite).
func overlap(a, b []string) bool {
	if len(a) == 0 || len(b) == 0 {
		return true
	}
	for _, s := range a {
		if slices.Contains(b, s) {
			return true
		}
	}
	return false
}

// quarantineOff reads quarantine_off: the cadences whose runs run
// quarantined files as ordinary files.
func (p *parser) quarantineOff(n *yaml.Node, c *Config) error {
	if n == nil {
		return nil
	}
	list, err := p.strList(n, "quarantine_off")
	if err != nil {
		return err
	}
	for i, s := range list {
		if !validCadence(s) {
			return p.errf(n.Content[i], "quarantine_off names cadence %q; expected some of %s", s, strings.Join(Cadences, ", "))
		}
	}
	c.QuarantineOff = list
	return nil
}
