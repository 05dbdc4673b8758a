// Package quarantine decides what the configuration's quarantine means: an
// entry that names a file with no registration, or a suite the file is not
// in, is an error (Check); an entry past its until protects nothing
// (Expired); and after a run, which files ran under an entry and what each
// outcome says (Apply). It decides only: the entries, registrations,
// reports and the time come in as values.
package quarantine

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/report"
)

// Check returns the first entry of cfg's quarantine that names a file no
// registration names, or a suite the file is not registered in, as a
// *config.Error at the entry's line; nil when every entry holds.
func Check(cfg *config.Config, regs []registry.Registration) error {
	suites := map[string][]string{}
	for _, r := range regs {
		suites[r.File] = append(suites[r.File], r.Suite)
	}
	for _, e := range cfg.Quarantine {
		in, ok := suites[e.File]
		if !ok {
			return &config.Error{File: cfg.Place(e.At), Line: e.At.Line,
				Msg: fmt.Sprintf("quarantine file %q has no registration: name a registered test file, or delete the entry", e.File)}
		}
		for _, s := range e.Suites {
			if !slices.Contains(in, s) {
				slices.Sort(in)
				return &config.Error{File: cfg.Place(e.SuitesAt), Line: e.SuitesAt.Line,
					Msg: fmt.Sprintf("quarantine file %q is not registered in suite %q; its suites: %s", e.File, s, strings.Join(slices.Compact(in), ", "))}
			}
		}
	}
	return nil
}

// Expired returns the entries that protect nothing at now, in
// configuration order.
func Expired(entries []config.QuarantineEntry, now time.Time) []config.QuarantineEntry {
	var out []config.QuarantineEntry
	for _, e := range entries {
		if e.Expired(now) {
			out = append(out, e)
		}
	}
	return out
}

// ExpiredMessage says what an expired entry means, for lint and config.
func ExpiredMessage(e config.QuarantineEntry) string {
	return fmt.Sprintf("the quarantine of %q expired after %s: it protects nothing, and the file's failures count again; delete the entry, or renew its until if the reason still holds",
		e.File, e.UntilText())
}

// For returns the entries that concern a run of suite under cadence: none
// when off (--no-quarantine) or when the configuration's quarantine_off
// names the cadence, else the entries that apply to a file in that suite.
func For(cfg *config.Config, suite, cadence string, off bool) []config.QuarantineEntry {
	if off || !cfg.ObeysQuarantine(cadence) {
		return nil
	}
	var out []config.QuarantineEntry
	for _, e := range cfg.Quarantine {
		if len(e.Suites) == 0 || slices.Contains(e.Suites, suite) {
			out = append(out, e)
		}
	}
	return out
}

// Kind is what a run's outcome says of a file under an entry.
type Kind int

const (
	// Forgiven: the file failed (FAIL, TIMEOUT) under an active entry; its
	// failure does not fail the run.
	Forgiven Kind = iota
	// Candidate: the file passed under an active entry, a candidate for
	// release.
	Candidate
	// Lapsed: the file ran under an expired entry, which protected
	// nothing: it counted as usual.
	Lapsed
)

// Note is one file of a run that an entry concerned.
type Note struct {
	Kind  Kind
	File  *report.File // the report's entry of the file
	Entry config.QuarantineEntry
}

// Apply marks each file of the run's report that ran (at least one
// attempt) under an active entry of entries (those of the run's suite, see
// For) as quarantined with the entry's reason, until and owner, recomputes
// the report's Passed, and returns a Note per file an entry concerned, in
// the report's order. A file under an expired entry is left as it is
// (Lapsed). A file that did not run (NOT RUN, or an interrupt before it)
// is left unmarked: it says nothing of the test.
func Apply(doc *report.Report, entries []config.QuarantineEntry, now time.Time) []Note {
	var notes []Note
	for i := range doc.Files {
		f := &doc.Files[i]
		if f.Attempts == 0 || f.Status == report.Interrupted {
			continue
		}
		j := slices.IndexFunc(entries, func(e config.QuarantineEntry) bool { return e.AppliesTo(f.File, doc.Suite) })
		if j < 0 {
			continue
		}
		e := entries[j]
		n := Note{File: f, Entry: e}
		switch {
		case e.Expired(now):
			n.Kind = Lapsed
		case f.Status == report.Pass:
			n.Kind = Candidate
		default:
			n.Kind = Forgiven
		}
		if n.Kind != Lapsed {
			f.Quarantined, f.QuarantineReason, f.QuarantineUntil, f.QuarantineOwner = true, e.Reason, e.UntilText(), e.Owner
		}
		notes = append(notes, n)
	}
	doc.Finish()
	return notes
}

// Covers reports whether an active entry of entries covers file in suite
// at now: a failure of it does not stop a fast-failing run, since it would
// not fail the run.
func Covers(entries []config.QuarantineEntry, file, suite string, now time.Time) bool {
	_, ok := Find(entries, file, suite, now)
	return ok
}

// Find returns the active entry of entries that covers file in suite at
// now, and whether there is one.
func Find(entries []config.QuarantineEntry, file, suite string, now time.Time) (config.QuarantineEntry, bool) {
	i := slices.IndexFunc(entries, func(e config.QuarantineEntry) bool { return e.AppliesTo(file, suite) && !e.Expired(now) })
	if i < 0 {
		return config.QuarantineEntry{}, false
	}
	return entries[i], true
}

// Describe says what an entry is, as a run's report and log say it of a
// file that ran under it (report.QuarantineNote): "quarantined until DATE
// (owner LOGIN): REASON".
func Describe(e config.QuarantineEntry) string {
	return report.QuarantineNote(&report.File{QuarantineReason: e.Reason, QuarantineUntil: e.UntilText(), QuarantineOwner: e.Owner})
}

// Mark is what a listing of a run's files says of one an entry concerns:
// the entry, and whether it is past its until (then it protects nothing).
type Mark struct {
	Entry   config.QuarantineEntry
	Expired bool
}

// Marks returns, for each file of regs that an entry of entries (those of
// the run's suite, see For) concerns in suite, its entry and whether it is
// expired at now; nil when no entry concerns any. The configuration keeps
// one entry per file and suite, so a file has one mark.
func Marks(entries []config.QuarantineEntry, suite string, regs []registry.Registration, now time.Time) map[string]Mark {
	var marks map[string]Mark
	for _, r := range regs {
		j := slices.IndexFunc(entries, func(e config.QuarantineEntry) bool { return e.AppliesTo(r.File, suite) })
		if j < 0 {
			continue
		}
		if marks == nil {
			marks = map[string]Mark{}
		}
		marks[r.File] = Mark{Entry: entries[j], Expired: entries[j].Expired(now)}
	}
	return marks
}
