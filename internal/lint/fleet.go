package lint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Runner is one self-hosted runner of a listing of the GitHub REST API
// (GET /repos/OWNER/REPO/actions/runners, or an organization's).
type Runner struct {
	ID     int64
	Name   string
	Online bool // status "online"; anything else is offline
	Busy   bool
	Labels []string
}

// Fleet is the runners a lint run checks the roster's runs_on against,
// read from one or more listings.
type Fleet struct {
	Runners []Runner
	// Sources names the listings, as given, for messages.
	Sources []string
}

// runnersPage is one page of a listing, as `gh api` prints it.
type runnersPage struct {
	Runners *[]struct {
		ID     int64  `json:"id"`
		Name   string `json:"name"`
		Status string `json:"status"`
		Busy   bool   `json:"busy"`
		Labels []struct {
			Name string `json:"name"`
		} `json:"labels"`
	} `json:"runners"`
	// Message is what GitHub answers instead when the request fails
	// ("Must have admin rights to Repository.", "Not Found").
	Message string `json:"message"`
}

// runnersHint is how a listing is made, for the errors on a file that is
// not one.
const runnersHint = "expected the output of gh api --paginate repos/OWNER/REPO/actions/runners"

// Add reads a runners listing, named name in messages, into the fleet:
// one JSON document, the documents `gh api --paginate` prints one after
// another (one per page), or a JSON array of pages (`--slurp`). A runner
// listed twice (the same listing given twice) counts once; ids alone are
// not compared, as a repository's runner and its organization's may share
// one.
func (f *Fleet) Add(name string, data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	pages := 0
	type key struct {
		id   int64
		name string
	}
	seen := map[key]bool{}
	for _, r := range f.Runners {
		seen[key{r.ID, r.Name}] = true
	}
	for {
		start := dec.InputOffset()
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return jsonError(name, data, start, err)
		}
		var list []runnersPage
		if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) > 0 && t[0] == '[' {
			err = json.Unmarshal(raw, &list)
		} else {
			list = make([]runnersPage, 1)
			err = json.Unmarshal(raw, &list[0])
		}
		if err != nil {
			return jsonError(name, data, start, err)
		}
		for _, p := range list {
			line := lineAt(data, skipSpace(data, start))
			switch {
			case p.Runners == nil && p.Message != "":
				return fmt.Errorf("%s:%d: GitHub answered %q instead of a runners listing; listing runners needs a token that may read the repository's (or organization's) self-hosted runners (admin read)", name, line, p.Message)
			case p.Runners == nil:
				return fmt.Errorf("%s:%d: the document has no \"runners\" list; %s", name, line, runnersHint)
			}
			for _, r := range *p.Runners {
				if seen[key{r.ID, r.Name}] {
					continue
				}
				seen[key{r.ID, r.Name}] = true
				run := Runner{ID: r.ID, Name: r.Name, Online: r.Status == "online", Busy: r.Busy}
				for _, l := range r.Labels {
					run.Labels = append(run.Labels, l.Name)
				}
				f.Runners = append(f.Runners, run)
			}
			pages++
		}
	}
	if pages == 0 {
		return fmt.Errorf("%s: holds no runners listing; %s", name, runnersHint)
	}
	f.Sources = append(f.Sources, name)
	return nil
}

// jsonError names the line of a JSON error: the error's own offset when
// it has one, else the start of the document it is in.
func jsonError(name string, data []byte, start int64, err error) error {
	off := skipSpace(data, start)
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = start + typ.Offset
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "the JSON ends in the middle of a document"
	}
	return fmt.Errorf("%s:%d: not a runners listing: %s; %s", name, lineAt(data, off), msg, runnersHint)
}

// asciiEqualFold reports whether a and b are equal when ASCII letters are
// compared without regard to case.
func asciiEqualFold(a, b string) bool {
	return len(a) == len(b) && asciiLower(a) == asciiLower(b)
}

// skipSpace is the offset of the first byte at or after off that is not
// JSON white space.
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n", data[off]) >= 0 {
		off++
	}
	return off
}

// lineAt is the 1-based line of data holding byte offset off.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// hostedLabels are the labels of GitHub's own runner images, from GitHub's
// list of standard (and larger macOS) hosted runners as of 2026. A label
// of a retired image (ubuntu-20.04, windows-2019, macos-13) is not here:
// GitHub no longer starts a job on it, so it is looked for in the fleet
// like any other label, and its absence is reported.
var hostedLabels = map[string]bool{
	"ubuntu-latest": true, "ubuntu-26.04": true, "ubuntu-24.04": true, "ubuntu-22.04": true, "ubuntu-slim": true,
	"ubuntu-26.04-arm": true, "ubuntu-24.04-arm": true, "ubuntu-22.04-arm": true,
	"windows-latest": true, "windows-2025": true, "windows-2022": true, "windows-11-arm": true,
	"macos-latest": true, "macos-26": true, "macos-15": true, "macos-14": true,
	"macos-26-intel": true, "macos-15-intel": true,
	"macos-latest-large": true, "macos-26-large": true, "macos-15-large": true, "macos-14-large": true,
	"macos-latest-xlarge": true, "macos-26-xlarge": true, "macos-15-xlarge": true, "macos-14-xlarge": true,
}

// hosted reports whether label sends a job to a GitHub-hosted runner: it
// names one of GitHub's images and no runner of the fleet carries it. A
// self-hosted runner may be labelled ubuntu-22.04 too; the fleet then
// serves the label, and is checked for it. A label that merely looks like
// an image's (ubuntu-gpu) is a self-hosted one.
func (f *Fleet) hosted(label string) bool {
	if !hostedLabels[asciiLower(label)] {
		return false
	}
	for _, r := range f.Runners {
		if !r.missing(label) {
			return false
		}
	}
	return true
}

// carries reports whether r has every label of want, compared as GitHub
// does: without regard to the case of ASCII letters (and only of those:
// the Kelvin sign is not a K).
func (r Runner) carries(want []string) bool {
	for _, w := range want {
		if r.missing(w) {
			return false
		}
	}
	return true
}

func (r Runner) missing(label string) bool {
	for _, l := range r.Labels {
		if asciiEqualFold(l, label) {
			return false
		}
	}
	return true
}
