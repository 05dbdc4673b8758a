package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"gopkg.in/yaml.v3"

	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/pysrc"
)

// FileName is the configuration file found automatically at a repository root.
const FileName = ".miles-ci.yaml"

// Error is a configuration problem at a place in a file.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Load returns the configuration for the repository at root: the file named
// by explicit when it is not empty, else root/.miles-ci.yaml when it exists,
// else the embedded default. A labels_file is read relative to root.
func Load(root, explicit string) (*Config, error) {
	var (
		c   *Config
		err error
	)
	switch {
	case explicit != "":
		if c, err = ParseFile(explicit); err == nil {
			c.shownAs = underRoot(root, explicit)
		}
	default:
		path := filepath.Join(root, FileName)
		if _, statErr := os.Stat(path); statErr == nil {
			if c, err = ParseFile(path); err == nil {
				c.shownAs = FileName
			}
		} else if errors.Is(statErr, fs.ErrNotExist) {
			c = Default()
		} else {
			return nil, fmt.Errorf("read config %q: %w", path, statErr)
		}
	}
	if err != nil {
		return nil, err
	}
	if c.LabelsFile != "" {
		if err := c.loadLabelsFile(root); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// underRoot returns path relative to root, slash-separated, when it lies
// inside root; otherwise path as given.
func underRoot(root, path string) string {
	absRoot, err1 := filepath.Abs(root)
	absPath, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return path
	}
	rel, err := filepath.Rel(absRoot, absPath)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return filepath.ToSlash(rel)
}

// MaxFileSize caps the configuration file and the labels file. Both are
// text a person writes; the cap keeps a link to /dev/zero or a giant file
// committed by a pull request from exhausting memory.
const MaxFileSize = 4 << 20

// ParseFile reads and validates one configuration file, a regular file of
// at most MaxFileSize bytes; a FIFO is refused at once, not waited on.
func ParseFile(path string) (*Config, error) {
	data, err := fsutil.ReadRegular(path, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", fsutil.Shown(path), fsutil.StripPath(err))
	}
	return Parse(path, data)
}

// loadLabelsFile replaces the labels with the KNOWN_LABELS dict of the
// labels file. When the file does not exist and the configuration also
// holds a labels: list, that list stands (the built-in configuration does
// this, so a repository without tests/ci/labels.py still has labels).
func (c *Config) loadLabelsFile(root string) error {
	path, err := c.labelsFilePath(root)
	if err != nil {
		return err
	}
	src, err := fsutil.ReadRegular(path, MaxFileSize)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && len(c.Labels) > 0 {
			// Only a file that is not there at all falls back; a dangling
			// link is a mistake to report.
			if _, lerr := os.Lstat(path); errors.Is(lerr, fs.ErrNotExist) {
				return nil
			}
		}
		return fmt.Errorf("read labels file %q: %w", c.LabelsFile, err)
	}
	entries, err := pysrc.ReadStringDict(src, "KNOWN_LABELS")
	if err != nil {
		var se *pysrc.SyntaxError
		if errors.As(err, &se) {
			return &Error{File: c.LabelsFile, Line: se.Line, Msg: se.Msg}
		}
		return &Error{File: c.LabelsFile, Msg: err.Error()}
	}
	seen := map[string]bool{}
	c.Labels = c.Labels[:0]
	for _, e := range entries {
		if e.Key == "" {
			return &Error{File: c.LabelsFile, Line: e.Line, Msg: "KNOWN_LABELS holds an empty label name"}
		}
		if msg := controlMsg("KNOWN_LABELS label", e.Key); msg != "" {
			return &Error{File: c.LabelsFile, Line: e.Line, Msg: msg}
		}
		if seen[e.Key] {
			// A dict literal keeps the last value of a repeated key; so do we.
			for i := range c.Labels {
				if c.Labels[i].Name == e.Key {
					c.Labels[i].Description = e.Value
				}
			}
			continue
		}
		seen[e.Key] = true
		c.Labels = append(c.Labels, Label{Name: e.Key, Description: e.Value})
	}
	c.LabelsFromFile = true
	c.index()
	return nil
}

// labelsFilePath returns the labels file's path below root, refusing one
// that a link leads outside the repository: the configuration says which
// file to read, and a pull request can commit both. (A path that leaves the
// repository by its own "..", or is absolute, was refused by Parse.)
func (c *Config) labelsFilePath(root string) (string, error) {
	path := filepath.Join(root, filepath.FromSlash(c.LabelsFile))
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return path, nil // the read reports the problem
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return path, nil
	}
	if rel, err := filepath.Rel(realRoot, real); err != nil || !filepath.IsLocal(rel) {
		return "", &Error{File: c.Source, Line: c.labelsFileLine,
			Msg: fmt.Sprintf("labels_file %q leads outside the repository (to %q) through a link", c.LabelsFile, real)}
	}
	return path, nil
}

// insideRepo reports whether the repository-relative path p, with /
// separators, stays inside the repository: not absolute, no "..", that
// leaves it, no backslash (a Windows separator or an escape).
func insideRepo(p string) bool {
	return p != "" && !strings.Contains(p, "\\") && !strings.HasPrefix(p, "/") && filepath.IsLocal(filepath.FromSlash(p))
}

// safeLineStart reports whether a path may begin a line of output: it
// begins with a letter, digit, '.' or '_', never with a blank or a ':' that
// the Actions runner could read as the start of a workflow command
// ("::error ...") in `partition --id`, `suites --suite` and the like.
func safeLineStart(p string) bool {
	r, _ := utf8.DecodeRuneInString(p)
	return r == '.' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// parser walks a YAML document, turning each problem into an *Error that
// names the file and line.
type parser struct {
	file string
	// labelsBuiltIn: the file extends the default and has no labels
	// section, so the labels are the built-in configuration's.
	labelsBuiltIn bool
	// overlay is what a file extending the default changed (nil without
	// extends).
	overlay *Overlay
	// builtIn holds the suite entries a file extending the default took
	// from the built-in roster: their lines are the built-in file's.
	builtIn map[*yaml.Node]bool
	// header is the comment above a file's extends key, which opens the
	// file as much as one above the document does (see Config.Complete).
	header string
	// setupDefault is suite_defaults.setup_minutes, the node it was read
	// from (nil when the section does not set it).
	setupDefault *yaml.Node
	// probeDefault is suite_defaults' preflight block (see suiteProbe).
	probeDefault Probe
}

func (p *parser) errf(n *yaml.Node, format string, args ...any) error {
	line := 0
	if n != nil {
		line = n.Line
	}
	return &Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// Parse validates a configuration document; name is used in messages.
func Parse(name string, data []byte) (*Config, error) {
	p := &parser{file: name}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, p.yamlError(err, data)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &Error{File: name, Msg: "the configuration is empty"}
	}
	// yaml.v3 reads one document at a time; a second one would otherwise
	// be ignored without a word.
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, p.errf(&next, "a second YAML document starts here; the configuration is one document")
	case !errors.Is(err, io.EOF):
		return nil, p.yamlError(err, data)
	}
	if err := p.resolveAliases(&doc); err != nil {
		return nil, err
	}
	top, err := p.extend(doc.Content[0])
	if err != nil {
		return nil, err
	}
	c := &Config{Source: name, labelsBuiltIn: p.labelsBuiltIn, Overlay: p.overlay, tree: top,
		header: strings.TrimSpace(doc.HeadComment + "\n\n" + p.header)}
	if err := p.top(top, c); err != nil {
		return nil, err
	}
	c.index()
	return c, nil
}

// extendsDefault is the one value of a file's top-level `extends` key.
const extendsDefault = "default"

// extend resolves `extends: default`: the sections the file holds replace
// the built-in configuration's whole, but for suites, merged by suite name
// (see mergeSuites), and the others are the built-in ones (labels and
// labels_file count as one section). The file's own nodes keep
// their lines for messages; no section is checked against another, so a
// built-in one, valid alone, never fails in a file's name. A document without `extends` is returned as it
// is.
func (p *parser) extend(n *yaml.Node) (*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return n, nil
	}
	at := -1
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "extends" {
			at = i
		}
	}
	if at < 0 {
		return n, nil
	}
	if v := n.Content[at+1]; v.Kind != yaml.ScalarNode || v.Value != extendsDefault {
		return nil, p.errf(v, "extends must be %q (the built-in configuration)", extendsDefault)
	}
	p.header = n.Content[at].HeadComment
	var base yaml.Node
	if err := yaml.Unmarshal(defaultYAML, &base); err != nil {
		return nil, fmt.Errorf("embedded default configuration: %w", err)
	}
	own := map[string]bool{}
	merged := &yaml.Node{Kind: yaml.MappingNode, Tag: n.Tag, Line: n.Line, Column: n.Column}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := n.Content[i].Value
		if i == at {
			continue
		}
		own[key] = true
		if key == "labels" || key == "labels_file" {
			own["labels"], own["labels_file"] = true, true
		}
		merged.Content = append(merged.Content, n.Content[i], n.Content[i+1])
	}
	p.labelsBuiltIn = !own["labels"]
	def := base.Content[0]
	p.markBuiltIn(def)
	p.overlay = &Overlay{}
	for i := 0; i+1 < len(merged.Content); i += 2 {
		key := merged.Content[i].Value
		if key != "suites" {
			p.overlay.Replaced = append(p.overlay.Replaced, key)
			continue
		}
		for j := 0; j+1 < len(def.Content); j += 2 {
			if def.Content[j].Value == "suites" {
				merged.Content[i+1] = p.mergeSuites(def.Content[j+1], merged.Content[i+1])
			}
		}
	}
	for i := 0; i+1 < len(def.Content); i += 2 {
		if !own[def.Content[i].Value] {
			merged.Content = append(merged.Content, def.Content[i], def.Content[i+1])
		}
	}
	return merged, nil
}

// markBuiltIn records the suite entries of the built-in document def.
func (p *parser) markBuiltIn(def *yaml.Node) {
	p.builtIn = map[*yaml.Node]bool{}
	for i := 0; i+1 < len(def.Content); i += 2 {
		if def.Content[i].Value != "suites" || def.Content[i+1].Kind != yaml.MappingNode {
			continue
		}
		backends := def.Content[i+1].Content
		for j := 1; j < len(backends); j += 2 {
			for _, e := range backends[j].Content {
				p.builtIn[e] = true
			}
		}
	}
}

// Overlay is what a file that extends the default changed in it.
type Overlay struct {
	// Replaced lists the sections the file replaced whole, in its order.
	Replaced []string
	// SuitesAdded and SuitesReplaced list the suites of the file's suites
	// section, by name in its order, that the built-in roster did not have
	// and that replaced the built-in suite of that name.
	SuitesAdded, SuitesReplaced []string
}

// mergeSuites merges an overlay's suites section into the built-in one by
// suite name: a suite of the built-in name replaces that suite (in its
// place, or moved to the end of another backend's list), any other is added
// at the end of its backend's list; the rest of the roster stays. A section
// of another shape is returned as it is, for the checks to name its line.
func (p *parser) mergeSuites(def, own *yaml.Node) *yaml.Node {
	if def.Kind != yaml.MappingNode || own.Kind != yaml.MappingNode {
		return own
	}
	for i := 1; i < len(own.Content); i += 2 {
		if own.Content[i].Kind != yaml.SequenceNode {
			return own
		}
	}
	merged := &yaml.Node{Kind: yaml.MappingNode, Tag: own.Tag, Line: own.Line, Column: own.Column}
	lists := map[string]*yaml.Node{}
	for i := 0; i+1 < len(def.Content); i += 2 {
		list := *def.Content[i+1]
		list.Content = append([]*yaml.Node(nil), list.Content...)
		lists[def.Content[i].Value] = &list
		merged.Content = append(merged.Content, def.Content[i], &list)
	}
	// where finds the built-in suite of a name not replaced yet: the
	// first suite of that name in the file replaces it; a second is added,
	// for the checks to refuse as a suite listed twice.
	builtIn := map[string]*yaml.Node{}
	for _, list := range lists {
		for _, e := range list.Content {
			if name := suiteName(e); name != "" {
				builtIn[name] = list
			}
		}
	}
	where := func(name string) (*yaml.Node, int) {
		list := builtIn[name]
		if list == nil {
			return nil, -1
		}
		delete(builtIn, name)
		for k, e := range list.Content {
			if suiteName(e) == name {
				return list, k
			}
		}
		return nil, -1
	}
	for i := 0; i+1 < len(own.Content); i += 2 {
		key, list := own.Content[i], own.Content[i+1]
		into, ok := lists[key.Value]
		if !ok {
			// Not a backend of the roster: kept for the checks to refuse.
			into = &yaml.Node{Kind: yaml.SequenceNode, Tag: list.Tag, Line: list.Line, Column: list.Column}
			lists[key.Value] = into
			merged.Content = append(merged.Content, key, into)
		}
		for _, e := range list.Content {
			name := suiteName(e)
			if from, k := where(name); from != nil {
				p.overlay.SuitesReplaced = append(p.overlay.SuitesReplaced, name)
				if from == into {
					into.Content[k] = e
					continue
				}
				from.Content = append(from.Content[:k:k], from.Content[k+1:]...)
			} else if name != "" {
				p.overlay.SuitesAdded = append(p.overlay.SuitesAdded, name)
			}
			into.Content = append(into.Content, e)
		}
	}
	return merged
}

// suiteName is the name of a suite entry of the YAML roster ("" when it
// has none the checks would accept).
func suiteName(e *yaml.Node) string {
	if e.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(e.Content); i += 2 {
		if e.Content[i].Value == "name" && e.Content[i+1].Kind == yaml.ScalarNode {
			return e.Content[i+1].Value
		}
	}
	return ""
}

// yamlError turns yaml.v3's "yaml: line N: msg" into our one-line form.
// A quote left open runs on to wherever the next one is, and the parser
// then stops far from the mistake (or names the line of the mapping the
// string is in); when a line ends inside a quoted string, that line is
// named instead.
func (p *parser) yamlError(err error, data []byte) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if _, scanErr := fmt.Sscanf(msg, "line %d:", &line); scanErr == nil {
		if i := strings.Index(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
	}
	if open := unclosedQuoteLine(data); open > 0 {
		return &Error{File: p.file, Line: open, Msg: fmt.Sprintf(
			"invalid YAML: a quoted string opened on this line is not closed on it (the parser stopped at line %d: %s)", line, msg)}
	}
	return &Error{File: p.file, Line: line, Msg: "invalid YAML: " + msg}
}

// unclosedQuoteLine returns the first line of data that ends inside a
// single- or double-quoted string (comments ignored), or 0. A quoted
// string may span lines in YAML, but hardly ever in a configuration.
func unclosedQuoteLine(data []byte) int {
	for n, line := range strings.Split(string(data), "\n") {
		if quoteOpenAtEnd(line) {
			return n + 1
		}
	}
	return 0
}

func quoteOpenAtEnd(line string) bool {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch quote {
		case 0:
			if c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
				return false
			}
			if (c == '"' || c == '\'') && startsScalar(line[:i]) {
				quote = c
			}
		case '"':
			if c == '\\' {
				i++ // an escaped character cannot close the string
			} else if c == '"' {
				quote = 0
			}
		case '\'':
			if c == '\'' {
				if i+1 < len(line) && line[i+1] == '\'' {
					i++ // '' is a quote inside the string
				} else {
					quote = 0
				}
			}
		}
	}
	return quote != 0
}

// startsScalar reports whether a quote after before begins a quoted
// scalar: at the start of a line, after a key's colon or a list dash and a
// space, or after a flow indicator. Elsewhere (it's) a quote is a letter.
func startsScalar(before string) bool {
	t := strings.TrimRight(before, " \t")
	if t == "" {
		return true
	}
	switch t[len(t)-1] {
	case '[', '{', ',':
		return true
	case ':', '-', '?':
		return len(t) < len(before)
	}
	return false
}

// fields checks that n is a mapping with only the allowed keys and returns
// the values by key, each with the key node for its line.
func (p *parser) fields(n *yaml.Node, what string, allowed ...string) (map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.errf(n, "%s must be a mapping", what)
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		ok := false
		for _, a := range allowed {
			if k.Value == a {
				ok = true
			}
		}
		if !ok {
			return nil, p.errf(k, "unknown key %q in %s; expected one of %s", k.Value, what, strings.Join(allowed, ", "))
		}
		if _, dup := out[k.Value]; dup {
			return nil, p.errf(k, "key %q appears twice in %s", k.Value, what)
		}
		out[k.Value] = v
	}
	return out, nil
}

// controlChar returns the first control character of s (C0, DEL or C1)
// and whether it has one.
func controlChar(s string) (rune, bool) {
	for _, r := range s {
		if r < 0x20 || r >= 0x7f && r < 0xa0 {
			return r, true
		}
	}
	return 0, false
}

// controlMsg is the problem with a name the configuration defines (a
// suite, a label, a runner label, a job id) that holds a control
// character, "" when it holds none: such a name would be printed in plans,
// step outputs and workflow commands, where a line break ends the line.
func controlMsg(what, name string) string {
	r, bad := controlChar(name)
	if !bad {
		return ""
	}
	return fmt.Sprintf("%s %s holds the control character U+%04X", what, strconv.Quote(name), r)
}

// SuiteNameRule says what ValidSuiteName accepts, for a message that
// names a refused suite name first.
const SuiteNameRule = "may hold only letters, digits, '-' and '_', starting with a letter or '_' (a GitHub job id)"

// ValidSuiteName reports whether name is a GitHub job id, the one form a
// suite name may take: a stage's job is named after its suite, and the
// name starts lines of `suites` and `policy --explain`, where any other
// character could start a workflow command ("::error ...") or break the
// expressions and JSON the workflows build from it.
func ValidSuiteName(name string) bool {
	for i, r := range name {
		switch {
		case r == '_' || 'A' <= r && r <= 'Z' || 'a' <= r && r <= 'z':
		case i > 0 && (r == '-' || '0' <= r && r <= '9'):
		default:
			return false
		}
	}
	return name != ""
}

// name is str for a name the configuration defines: it also refuses a
// control character.
func (p *parser) name(n *yaml.Node, what string) (string, error) {
	s, err := p.str(n, what)
	if err != nil {
		return "", err
	}
	if msg := controlMsg(what, s); msg != "" {
		return "", p.errf(n, "%s", msg)
	}
	return s, nil
}

func (p *parser) str(n *yaml.Node, what string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", p.errf(n, "%s must be a string", what)
	}
	return n.Value, nil
}

func (p *parser) strList(n *yaml.Node, what string) ([]string, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, p.errf(n, "%s must be a list of strings", what)
	}
	out := make([]string, 0, len(n.Content))
	for _, e := range n.Content {
		s, err := p.str(e, what+" entry")
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (p *parser) pattern(n *yaml.Node, what string) (string, error) {
	s, err := p.str(n, what)
	if err != nil {
		return "", err
	}
	if s == "" || !doublestar.ValidatePattern(s) {
		return "", p.errf(n, "%s %q is not a valid glob pattern", what, s)
	}
	return s, nil
}

// topKeys are the sections of a configuration, in the order the built-in
// one holds them (and Complete writes them).
var topKeys = []string{"discovery", "register_functions", "labels", "labels_file",
	"suite_defaults", "suites", "schedules", "scope_subtractions", "no_gpu_paths", "file_run", "gate", "infra_fingerprints", "preflight",
	"quarantine", "quarantine_off"}

func (p *parser) top(n *yaml.Node, c *Config) error {
	f, err := p.fields(n, "the configuration", topKeys...)
	if err != nil {
		return err
	}
	for _, key := range []string{"discovery", "register_functions", "suites"} {
		if f[key] == nil {
			return p.errf(n, "the configuration has no %q section", key)
		}
	}
	if err := p.discovery(f["discovery"], c); err != nil {
		return err
	}
	if err := p.registerFuncs(f["register_functions"], c); err != nil {
		return err
	}
	// With both, labels_file wins when the file exists and labels is the
	// fallback (see Load).
	if f["labels"] == nil && f["labels_file"] == nil {
		return p.errf(n, `the configuration has neither "labels" nor "labels_file"`)
	}
	if v := f["labels_file"]; v != nil {
		if c.LabelsFile, err = p.str(v, "labels_file"); err != nil {
			return err
		}
		if c.LabelsFile == "" {
			return p.errf(v, "labels_file is empty")
		}
		if !insideRepo(c.LabelsFile) {
			return p.errf(v, "labels_file %q must be a repository-relative path with / separators that stays inside the repository", c.LabelsFile)
		}
		c.labelsFileLine = v.Line
	}
	if v := f["labels"]; v != nil {
		if err := p.labels(v, c); err != nil {
			return err
		}
	}
	if err := p.suiteDefaults(f["suite_defaults"], c); err != nil {
		return err
	}
	if err := p.suites(f["suites"], c); err != nil {
		return err
	}
	if err := p.schedules(f["schedules"], c); err != nil {
		return err
	}
	if err := p.subtractions(f["scope_subtractions"], c); err != nil {
		return err
	}
	if v := f["no_gpu_paths"]; v != nil {
		if v.Kind != yaml.SequenceNode {
			return p.errf(v, "no_gpu_paths must be a list of glob patterns")
		}
		for _, e := range v.Content {
			s, err := p.pattern(e, "no_gpu_paths entry")
			if err != nil {
				return err
			}
			c.NoGPUPaths = append(c.NoGPUPaths, s)
		}
	}
	if err := p.fileRun(f["file_run"], c); err != nil {
		return err
	}
	if err := p.gate(f["gate"], c); err != nil {
		return err
	}
	if err := p.fingerprints(f["infra_fingerprints"], c); err != nil {
		return err
	}
	if err := p.preflight(f["preflight"], c); err != nil {
		return err
	}
	if err := p.quarantine(f["quarantine"], c); err != nil {
		return err
	}
	return p.quarantineOff(f["quarantine_off"], c)
}

// preflight reads the optional preflight section (see Preflight); every
// key has a default.
func (p *parser) preflight(n *yaml.Node, c *Config) error {
	_, err := p.keyed(n, "preflight", &c.Preflight)
	return err
}

// gate reads the optional gate section (see Gate). Every function is
// required; python and timeout have defaults.
func (p *parser) gate(n *yaml.Node, c *Config) error {
	if n == nil {
		return nil
	}
	g := Gate{Configured: true}
	if _, err := p.keyed(n, "gate", &g); err != nil {
		return err
	}
	c.Gate = g
	return nil
}

// fileRun reads the optional file_run section. Without it, file runs have
// the default minimum timeout and no image repository (file-run then says
// so when asked for a plan).
func (p *parser) fileRun(n *yaml.Node, c *Config) error {
	_, err := p.keyed(n, "file_run", &c.FileRun)
	return err
}

func (p *parser) discovery(n *yaml.Node, c *Config) error {
	f, err := p.fields(n, "discovery", "roots", "pattern", "implicit")
	if err != nil {
		return err
	}
	if f["roots"] == nil || f["pattern"] == nil {
		return p.errf(n, "discovery needs roots and pattern")
	}
	if c.Roots, err = p.strList(f["roots"], "discovery.roots"); err != nil {
		return err
	}
	for i, r := range c.Roots {
		if !insideRepo(r) {
			// A root outside the repository ("../../..") would walk
			// whatever lies there, up to the whole file system.
			return p.errf(f["roots"].Content[i], "discovery root %q must be a non-empty repository-relative path with / separators that stays inside the repository", r)
		}
		if !safeLineStart(r) {
			return p.errf(f["roots"].Content[i], "discovery root %q must begin with a letter, digit, '.' or '_': every test file's path begins with it, and paths begin lines", r)
		}
		c.Roots[i] = strings.TrimSuffix(r, "/")
	}
	if c.Pattern, err = p.pattern(f["pattern"], "discovery.pattern"); err != nil {
		return err
	}
	if v := f["implicit"]; v != nil {
		imp, err := p.fields(v, "discovery.implicit", "root", "suite", "est_time")
		if err != nil {
			return err
		}
		if imp["root"] == nil || imp["suite"] == nil {
			return p.errf(v, "discovery.implicit needs root and suite")
		}
		if c.Implicit.Root, err = p.str(imp["root"], "discovery.implicit.root"); err != nil {
			return err
		}
		c.Implicit.Root = strings.TrimSuffix(c.Implicit.Root, "/")
		if c.Implicit.Root == "" {
			return p.errf(imp["root"], "discovery.implicit.root is empty")
		}
		if !insideRepo(c.Implicit.Root) {
			return p.errf(imp["root"], "discovery.implicit.root %q must be a repository-relative path with / separators that stays inside the repository", c.Implicit.Root)
		}
		if !safeLineStart(c.Implicit.Root) {
			return p.errf(imp["root"], "discovery.implicit.root %q must begin with a letter, digit, '.' or '_': its test files' paths begin with it, and paths begin lines", c.Implicit.Root)
		}
		if c.Implicit.Suite, err = p.str(imp["suite"], "discovery.implicit.suite"); err != nil {
			return err
		}
		if !ValidSuiteName(c.Implicit.Suite) {
			return p.errf(imp["suite"], "discovery.implicit.suite %q "+SuiteNameRule, c.Implicit.Suite)
		}
		c.Implicit.EstTime = 1.0
		if e := imp["est_time"]; e != nil {
			var x float64
			if err := e.Decode(&x); err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				return p.errf(e, "discovery.implicit.est_time must be a non-negative number")
			}
			c.Implicit.EstTime = x
		}
	}
	return nil
}

func (p *parser) registerFuncs(n *yaml.Node, c *Config) error {
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		return p.errf(n, "register_functions must map each function name to cpu, cuda or rocm")
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !isIdentifier(k.Value) {
			return p.errf(k, "register function %q is not a Python identifier", k.Value)
		}
		if seen[k.Value] {
			return p.errf(k, "register function %q appears twice", k.Value)
		}
		seen[k.Value] = true
		b, ok := ParseBackend(v.Value)
		if v.Kind != yaml.ScalarNode || !ok {
			return p.errf(v, "register function %q has backend %q; expected cpu, cuda or rocm", k.Value, v.Value)
		}
		c.RegisterFuncs = append(c.RegisterFuncs, RegisterFunc{Name: k.Value, Backend: b})
	}
	return nil
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9'
		if !ok {
			return false
		}
	}
	return true
}

func (p *parser) labels(n *yaml.Node, c *Config) error {
	if n.Kind != yaml.SequenceNode {
		return p.errf(n, "labels must be a list of `name: description` entries")
	}
	seen := map[string]bool{}
	for _, e := range n.Content {
		var name, desc string
		switch {
		case e.Kind == yaml.MappingNode && len(e.Content) == 2:
			name = e.Content[0].Value
			desc = e.Content[1].Value
		case e.Kind == yaml.ScalarNode && e.Tag != "!!null":
			name = e.Value
		default:
			return p.errf(e, "a label must be `name: description` or a plain name")
		}
		if strings.TrimSpace(name) == "" {
			return p.errf(e, "a label name is empty")
		}
		if msg := controlMsg("label", name); msg != "" {
			return p.errf(e, "%s", msg)
		}
		if seen[name] {
			return p.errf(e, "label %q appears twice", name)
		}
		seen[name] = true
		c.Labels = append(c.Labels, Label{Name: name, Description: desc})
	}
	return nil
}

func (p *parser) suites(n *yaml.Node, c *Config) error {
	f, err := p.fields(n, "suites", "cpu", "cuda", "rocm")
	if err != nil {
		return err
	}
	where := map[string]Backend{}
	for _, b := range Backends {
		list := f[string(b)]
		if list == nil {
			continue
		}
		if list.Kind != yaml.SequenceNode {
			return p.errf(list, "suites.%s must be a list of suites", b)
		}
		for _, e := range list.Content {
			s, err := p.suite(e, b)
			if err != nil {
				return err
			}
			if prev, dup := where[s.Name]; dup {
				if prev == b {
					return p.errf(e, "suite %q appears twice under %s", s.Name, b)
				}
				return p.errf(e, "suite %q is listed under both %s and %s", s.Name, prev, b)
			}
			where[s.Name] = b
			c.Suites = append(c.Suites, s)
		}
	}
	return nil
}

// suiteDefaults reads the optional suite_defaults section: the values of
// a suite that does not set its own.
func (p *parser) suiteDefaults(n *yaml.Node, c *Config) error {
	f, err := p.keyed(n, "suite_defaults", &c.SuiteDefaults)
	p.setupDefault = f["setup_minutes"]
	p.probeDefault = c.SuiteDefaults.Preflight
	return err
}

// minutes reads a number of minutes, an integer or a float, and reports
// whether it is one (and finite).
func minutes(v *yaml.Node) (float64, bool) {
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!int" && v.Tag != "!!float") {
		return 0, false
	}
	m, err := strconv.ParseFloat(v.Value, 64)
	return m, err == nil && !math.IsNaN(m) && !math.IsInf(m, 0)
}

func (p *parser) suite(n *yaml.Node, b Backend) (Suite, error) {
	f, err := p.fields(n, "a suite", "name", "runs_on", "shards", "target_minutes", "setup_minutes", "external", "workflow", "needs", "gpus", "preflight")
	if err != nil {
		return Suite{}, err
	}
	at := Pos{Line: n.Line, Col: n.Column, BuiltIn: p.builtIn[n] || p.file == "default"}
	s := Suite{Backend: b, Shards: 1, RunsOnAt: at, At: at}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Value == "runs_on" {
			s.RunsOnAt.Line, s.RunsOnAt.Col = k.Line, k.Column
		}
	}
	if f["name"] == nil {
		return s, p.errf(n, "a suite has no name")
	}
	if s.Name, err = p.name(f["name"], "suite name"); err != nil {
		return s, err
	}
	if s.Name == "" {
		return s, p.errf(f["name"], "a suite name is empty")
	}
	if !ValidSuiteName(s.Name) {
		return s, p.errf(f["name"], "suite name %q "+SuiteNameRule, s.Name)
	}
	if v := f["runs_on"]; v != nil {
		if s.RunsOn, err = p.strList(v, "runs_on"); err != nil {
			return s, err
		}
		for i, l := range s.RunsOn {
			if msg := controlMsg("runs_on entry", l); msg != "" {
				return s, p.errf(v.Content[i], "suite %q: %s", s.Name, msg)
			}
		}
	}
	if v := f["shards"]; v != nil {
		// yaml.v3 decodes 1.9 into an int as 1; only an integer is a
		// shard count.
		if err := v.Decode(&s.Shards); err != nil || v.Kind != yaml.ScalarNode || v.Tag != "!!int" || s.Shards < 1 {
			return s, p.errf(v, "suite %q has shards %q; expected a whole number of at least 1", s.Name, v.Value)
		}
		if s.Shards > MaxMatrixJobs {
			return s, p.errf(v, "suite %q has shards %q; expected at most %d, the jobs GitHub Actions runs of one matrix", s.Name, v.Value, MaxMatrixJobs)
		}
	}
	if v := f["gpus"]; v != nil {
		if err := v.Decode(&s.GPUs); err != nil || v.Kind != yaml.ScalarNode || v.Tag != "!!int" || s.GPUs < 1 || s.GPUs > MaxGPUs {
			return s, p.errf(v, "suite %q has gpus %q; expected a whole number from 1 to %d", s.Name, v.Value, MaxGPUs)
		}
		if s.Backend == CPU {
			return s, p.errf(v, "suite %q is a cpu suite; gpus applies to cuda and rocm suites", s.Name)
		}
	}
	if v := f["target_minutes"]; v != nil {
		m, ok := minutes(v)
		if !ok || !(m > 0) {
			return s, p.errf(v, "suite %q has target_minutes %q; expected a positive number of minutes", s.Name, v.Value)
		}
		s.TargetMinutes = m
	}
	if err := p.setup(n, f, &s); err != nil {
		return s, err
	}
	if err := p.suiteProbe(f["preflight"], &s); err != nil {
		return s, err
	}
	if v := f["external"]; v != nil {
		if err := v.Decode(&s.External); err != nil {
			return s, p.errf(v, "suite %q: external must be true or false", s.Name)
		}
	}
	if v := f["workflow"]; v != nil {
		if s.Workflow, err = p.str(v, "workflow"); err != nil {
			return s, err
		}
	}
	if v := f["needs"]; v != nil {
		if s.Needs, err = p.strList(v, "needs"); err != nil {
			return s, err
		}
		for i, need := range s.Needs {
			if need == "" {
				return s, p.errf(v.Content[i], "suite %q has an empty job id in needs", s.Name)
			}
			if msg := controlMsg("needs entry", need); msg != "" {
				return s, p.errf(v.Content[i], "suite %q: %s", s.Name, msg)
			}
		}
	}
	return s, nil
}

// setup sets s.SetupMinutes from the suite's setup_minutes or the
// default, and checks that it leaves the suite's target_minutes some time
// for tests. The message names the line of the value to change: the
// suite's own setup_minutes, else its target_minutes (the default's line
// for a suite of the built-in roster, whose lines are another file's).
func (p *parser) setup(n *yaml.Node, f map[string]*yaml.Node, s *Suite) error {
	at, from := f["setup_minutes"], ""
	switch {
	case at != nil:
		m, ok := minutes(at)
		if !ok || m < 0 {
			return p.errf(at, "suite %q has setup_minutes %q; expected a number of minutes of at least 0", s.Name, at.Value)
		}
		s.SetupMinutes = m
	case p.setupDefault != nil:
		s.SetupMinutes, _ = minutes(p.setupDefault)
		from = fmt.Sprintf(" (suite_defaults.setup_minutes, line %d)", p.setupDefault.Line)
		if at = f["target_minutes"]; at == nil || p.builtIn[n] {
			at = p.setupDefault
		}
	}
	if s.TargetMinutes > 0 && s.SetupMinutes >= s.TargetMinutes {
		return p.errf(at, "suite %q has setup_minutes %s%s, not less than its target_minutes %s: no time is left for tests; raise target_minutes or lower setup_minutes",
			s.Name, strconv.FormatFloat(s.SetupMinutes, 'g', -1, 64), from, strconv.FormatFloat(s.TargetMinutes, 'g', -1, 64))
	}
	return nil
}

func (p *parser) schedules(n *yaml.Node, c *Config) error {
	c.Schedules = map[string]string{}
	if n == nil {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return p.errf(n, "schedules must map each cron expression to a cadence")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if _, dup := c.Schedules[k.Value]; dup {
			return p.errf(k, "schedule %q appears twice", k.Value)
		}
		if !validCadence(v.Value) || v.Kind != yaml.ScalarNode {
			return p.errf(v, "schedule %q has cadence %q; expected one of %s", k.Value, v.Value, strings.Join(Cadences, ", "))
		}
		c.Schedules[k.Value] = v.Value
	}
	return nil
}

func validCadence(s string) bool {
	for _, c := range Cadences {
		if c == s {
			return true
		}
	}
	return false
}

// ScopeNightly and ScopeImage name the broad scopes whose label sets the
// configuration may shrink.
const (
	ScopeNightly = "nightly"
	ScopeImage   = "run-ci-image"
)

func (p *parser) subtractions(n *yaml.Node, c *Config) error {
	c.ScopeSubtractions = map[string][]string{}
	if n == nil {
		return nil
	}
	f, err := p.fields(n, "scope_subtractions", ScopeNightly, ScopeImage)
	if err != nil {
		return err
	}
	for k, v := range f {
		if c.ScopeSubtractions[k], err = p.strList(v, "scope_subtractions."+k); err != nil {
			return err
		}
	}
	return nil
}
