package config

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"sync"

	"gopkg.in/yaml.v3"
)

// InfraFingerprint is one entry of the infra_fingerprints: section: an
// output line that, when a failed GPU test printed it, blames the host
// rather than the code (a GPU that did not initialise, a dead NCCL
// transport, a port some earlier job still holds). `run` then names the
// failure's cause "infra", checks the host again, and retries the file on
// a host found ready (see `miles-ci help reports`).
type InfraFingerprint struct {
	// Name names the fingerprint in logs and reports (cuda-802).
	Name string
	// Pattern is the RE2 regular expression as written; Regexp the
	// compiled one, matched against each output line on its own.
	Pattern string
	Regexp  *regexp.Regexp
	// Backends, when not empty, limits the fingerprint to suites of these
	// backends (cuda, rocm); empty, it applies to every GPU suite.
	Backends []Backend
}

// MaxFingerprintPattern bounds a fingerprint's pattern in bytes: a line is
// matched against every fingerprint, and a pattern is a message to
// recognise, not a program.
const MaxFingerprintPattern = 1000

// InfraFingerprintsFor returns the fingerprints that apply to suites of
// backend b, in configured order (the first that matches a line names
// it). A CPU suite has none: pytest runs it as one process, whose output
// miles-ci does not read.
func (c *Config) InfraFingerprintsFor(b Backend) []InfraFingerprint {
	return InfraFingerprintsFor(c.InfraFingerprints, b)
}

// InfraFingerprintsFor returns those of fps that apply to suites of
// backend b (see Config.InfraFingerprintsFor).
func InfraFingerprintsFor(fps []InfraFingerprint, b Backend) []InfraFingerprint {
	if b == CPU {
		return nil
	}
	var out []InfraFingerprint
	for _, f := range fps {
		if len(f.Backends) == 0 {
			out = append(out, f)
			continue
		}
		for _, fb := range f.Backends {
			if fb == b {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// builtInFingerprints are the infra_fingerprints of the built-in
// configuration, read once: a whole configuration without the section
// takes them (see parser.fingerprints).
var (
	builtInOnce sync.Once
	builtInList []InfraFingerprint
)

func builtInFingerprints() []InfraFingerprint {
	builtInOnce.Do(func() { builtInList = Default().InfraFingerprints })
	return builtInList
}

// fingerprints reads the infra_fingerprints: section, a list of
// {name, pattern, backends} entries. A configuration without the section
// has the built-in list, so a file written before fingerprints existed
// still recognises a broken host; `infra_fingerprints: []` turns the
// recognition off.
func (p *parser) fingerprints(n *yaml.Node, c *Config) error {
	if n == nil {
		if p.file != "default" {
			c.InfraFingerprints = builtInFingerprints()
		}
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return p.errf(n, "infra_fingerprints must be a list of {name, pattern} entries")
	}
	seen := map[string]bool{}
	c.InfraFingerprints = []InfraFingerprint{}
	for _, e := range n.Content {
		fp, err := p.fingerprint(e)
		if err != nil {
			return err
		}
		if seen[fp.Name] {
			return p.errf(e, "infra fingerprint %q appears twice", fp.Name)
		}
		seen[fp.Name] = true
		c.InfraFingerprints = append(c.InfraFingerprints, fp)
	}
	return nil
}

func (p *parser) fingerprint(n *yaml.Node) (InfraFingerprint, error) {
	f, err := p.fields(n, "an infra fingerprint", "name", "pattern", "backends")
	if err != nil {
		return InfraFingerprint{}, err
	}
	var fp InfraFingerprint
	for _, key := range []string{"name", "pattern"} {
		if f[key] == nil {
			return fp, p.errf(n, "an infra fingerprint has no %s", key)
		}
	}
	if fp.Name, err = p.str(f["name"], "an infra fingerprint's name"); err != nil {
		return fp, err
	}
	if !validFingerprintName(fp.Name) {
		return fp, p.errf(f["name"], "infra fingerprint name %q may hold only letters, digits, '.', '-' and '_', starting with a letter or digit, at most 64 of them", fp.Name)
	}
	v := f["pattern"]
	if fp.Pattern, err = p.str(v, "infra fingerprint "+fp.Name+"'s pattern"); err != nil {
		return fp, err
	}
	if len(fp.Pattern) > MaxFingerprintPattern {
		return fp, p.errf(v, "infra fingerprint %s: the pattern is %d bytes long; at most %d", fp.Name, len(fp.Pattern), MaxFingerprintPattern)
	}
	if fp.Regexp, err = regexp.Compile(fp.Pattern); err != nil {
		// regexp's own message quotes the whole pattern between
		// backquotes, which a pattern may hold, and line breaks with it.
		msg := err.Error()
		var se *syntax.Error
		if errors.As(err, &se) {
			msg = fmt.Sprintf("%s: %q", se.Code, se.Expr)
		}
		return fp, p.errf(v, "infra fingerprint %s: the pattern %q is not an RE2 regular expression: %s", fp.Name, fp.Pattern, msg)
	}
	if fp.Regexp.MatchString("") {
		return fp, p.errf(v, "infra fingerprint %s: the pattern %q matches an empty line, so it would blame the host for every failure", fp.Name, fp.Pattern)
	}
	if b := f["backends"]; b != nil {
		names, err := p.strList(b, "infra fingerprint "+fp.Name+"'s backends")
		if err != nil {
			return fp, err
		}
		if len(names) == 0 {
			return fp, p.errf(b, "infra fingerprint %s: backends is empty; leave it out to match on every GPU backend", fp.Name)
		}
		for i, s := range names {
			be, ok := ParseBackend(s)
			if !ok || be == CPU {
				return fp, p.errf(b.Content[i], "infra fingerprint %s has backend %q; expected cuda or rocm (a CPU suite's output is pytest's, which is not read)", fp.Name, s)
			}
			fp.Backends = append(fp.Backends, be)
		}
	}
	return fp, nil
}

// validFingerprintName reports whether name may name a fingerprint: it
// is printed in logs, annotations and step summaries, so it is a short
// word of letters, digits, '.', '-' and '_'.
func validFingerprintName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i, r := range name {
		switch {
		case 'A' <= r && r <= 'Z' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9':
		case i > 0 && (r == '.' || r == '-' || r == '_'):
		default:
			return false
		}
	}
	return true
}
