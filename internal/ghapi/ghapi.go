// Package ghapi is a thin client of the GitHub REST API's self-hosted
// runner endpoints: list a repository's or an organization's runners,
// remove a label from one, add labels to one. It uses the standard
// library only; every request is bounded by a timeout and every response
// body by a size, and the token goes into the Authorization header and
// nowhere else: no error it returns holds it, whatever the server or the
// HTTP client put in theirs.
package ghapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/radixark/miles-ci/internal/drain"
)

// DefaultURL is the public API's, GITHUB_API_URL's default.
const DefaultURL = "https://api.github.com"

// Limits of one request.
const (
	// Timeout bounds one request, from connecting to the body's last byte.
	Timeout = 30 * time.Second
	// MaxBody bounds one response body: a page of 100 runners is tens of
	// kilobytes.
	MaxBody = 4 << 20
	// PerPage is the page size asked for, the API's largest.
	PerPage = 100
	// MaxPages bounds a listing: 10,000 runners.
	MaxPages = 100
)

// Scope is where runners are registered: a repository (Owner and Repo)
// or an organization (Org).
type Scope struct {
	Owner, Repo, Org string
}

// Path is the scope's part of an endpoint: "repos/OWNER/REPO" or
// "orgs/ORG".
func (s Scope) Path() string {
	if s.Org != "" {
		return "orgs/" + s.Org
	}
	return "repos/" + s.Owner + "/" + s.Repo
}

func (s Scope) segs() []string {
	if s.Org != "" {
		return []string{"orgs", s.Org}
	}
	return []string{"repos", s.Owner, s.Repo}
}

// name is what GitHub allows in an owner's, a repository's or an
// organization's name.
var name = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,100}$`)

// RepoScope parses OWNER/NAME.
func RepoScope(s string) (Scope, error) {
	owner, repo, ok := strings.Cut(s, "/")
	if !ok || !name.MatchString(owner) || !name.MatchString(repo) || repo == "." || repo == ".." {
		return Scope{}, fmt.Errorf("%q is not a repository: expected OWNER/NAME", s)
	}
	return Scope{Owner: owner, Repo: repo}, nil
}

// OrgScope checks an organization's name.
func OrgScope(s string) (Scope, error) {
	if !name.MatchString(s) || s == "." || s == ".." {
		return Scope{}, fmt.Errorf("%q is not an organization name", s)
	}
	return Scope{Org: s}, nil
}

// Client calls the runner endpoints of one scope.
type Client struct {
	base  *url.URL
	token string
	scope Scope
	http  *http.Client
}

// New returns a client of the API at apiURL ("" is DefaultURL) that
// authenticates with token. The URL must be https, or http to the
// loopback interface (a local test server): a token sent over plain HTTP
// to another machine is a token given away. A URL with a user, a password,
// a query or a fragment is refused, and not repeated in the error.
func New(apiURL, token string, scope Scope) (*Client, error) {
	if apiURL == "" {
		apiURL = DefaultURL
	}
	u, err := url.Parse(apiURL)
	switch {
	case err != nil:
		return nil, errors.New("GITHUB_API_URL is not a URL (not shown: it may hold a secret)")
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "":
		return nil, errors.New("GITHUB_API_URL holds a user, a password, a query or a fragment (not shown); expected a URL such as " + DefaultURL)
	case u.Host == "":
		return nil, fmt.Errorf("GITHUB_API_URL %q names no host; expected a URL such as %s", apiURL, DefaultURL)
	case u.Scheme == "http" && loopback(u.Hostname()):
	case u.Scheme != "https":
		return nil, fmt.Errorf("GITHUB_API_URL %q is not https: the token is only sent encrypted (plain http only to this machine's loopback)", apiURL)
	}
	if token == "" {
		return nil, errors.New("no token: set GH_TOKEN or GITHUB_TOKEN to a token that may administer the runners")
	}
	if strings.ContainsFunc(token, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return nil, errors.New("the token holds a space or a control character (not shown)")
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return &Client{base: u, token: token, scope: scope, http: &http.Client{
		Timeout: Timeout,
		// A redirect is not followed: the API answers these endpoints
		// directly, and a redirect would take the request elsewhere.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Scope is the client's scope.
func (c *Client) Scope() Scope { return c.scope }

// Error is a request that failed: the method and path (never the token),
// the HTTP status when there was an answer, and what went wrong.
type Error struct {
	Method, Path string
	Status       int
	Msg          string
}

func (e *Error) Error() string {
	s := e.Method + " " + e.Path + ": "
	if e.Status != 0 {
		s += "HTTP " + strconv.Itoa(e.Status) + ": "
	}
	return s + e.Msg
}

// do sends one request to the endpoint whose path segments are segs
// (each escaped on its own: a label may hold any character) and returns
// the body of a 2xx answer.
func (c *Client) do(ctx context.Context, method string, segs []string, query url.Values, body any) ([]byte, error) {
	path := strings.Join(segs, "/")
	fail := func(status int, msg string) error {
		return &Error{Method: method, Path: c.redact(path), Status: status, Msg: c.redact(msg)}
	}
	escaped := make([]string, len(segs))
	for i, s := range segs {
		escaped[i] = url.PathEscape(s)
	}
	u := *c.base
	u.RawPath = c.base.EscapedPath() + "/" + strings.Join(escaped, "/")
	u.Path = c.base.Path + "/" + path
	u.RawQuery = query.Encode()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fail(0, err.Error())
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, fail(0, err.Error())
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("User-Agent", "miles-ci")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is in the Error's path already
		}
		return nil, fail(0, err.Error())
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	if err != nil {
		return nil, fail(resp.StatusCode, "reading the answer: "+err.Error())
	}
	if len(data) > MaxBody {
		return nil, fail(resp.StatusCode, fmt.Sprintf("the answer is larger than %d bytes", MaxBody))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fail(resp.StatusCode, c.answerMessage(data))
	}
	return data, nil
}

// answerMessage is what an error answer says: GitHub's "message", else
// the status alone. A body that is not GitHub's JSON is not repeated. The
// token is taken out before a long message is cut, so that a cut through
// an echoed token leaves none of it.
func (c *Client) answerMessage(data []byte) string {
	var m struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(data, &m) == nil && m.Message != "" {
		msg := c.redact(m.Message)
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		return strconv.Quote(msg)
	}
	return "the answer is not GitHub's (no JSON message)"
}

// redact removes the token from s, in case a server or a library put it
// there.
func (c *Client) redact(s string) string {
	if c.token == "" {
		return s
	}
	return strings.ReplaceAll(s, c.token, "[token]")
}

// apiRunner is one runner as the API lists it.
type apiRunner struct {
	ID     int64  `json:"id"`
	Name   string `json:"name"`
	OS     string `json:"os"`
	Status string `json:"status"`
	Busy   bool   `json:"busy"`
	Labels []struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"labels"`
}

// ErrIncomplete marks a runner list that could not be read whole.
var ErrIncomplete = errors.New("the runner list cannot be read whole")

// Runners returns the scope's whole runner list, page by page. It fails,
// wrapping ErrIncomplete, when any page is an error, not a runner list, or
// short of what total_count promises, when total_count changes between
// pages or disagrees with the runners listed, or when a runner is listed
// twice: a plan made from part of the fleet could drain its last runner.
func (c *Client) Runners(ctx context.Context) ([]drain.Runner, error) {
	segs := append(c.scope.segs(), "actions", "runners")
	path := strings.Join(segs, "/")
	var out []drain.Runner
	seen := map[int64]bool{}
	total := -1
	incomplete := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrIncomplete, c.redact(fmt.Sprintf(format, args...)))
	}
	for page := 1; ; page++ {
		if page > MaxPages {
			return nil, incomplete("more than %d pages of %d runners", MaxPages, PerPage)
		}
		data, err := c.do(ctx, http.MethodGet, segs,
			url.Values{"per_page": {strconv.Itoa(PerPage)}, "page": {strconv.Itoa(page)}}, nil)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrIncomplete, err)
		}
		var doc struct {
			TotalCount *int         `json:"total_count"`
			Runners    *[]apiRunner `json:"runners"`
		}
		if err := json.Unmarshal(data, &doc); err != nil || doc.TotalCount == nil || doc.Runners == nil {
			return nil, incomplete("GET %s page %d: not a runner list (expected total_count and runners)", path, page)
		}
		switch {
		case *doc.TotalCount < 0:
			return nil, incomplete("GET %s page %d: total_count %d", path, page, *doc.TotalCount)
		case total < 0:
			total = *doc.TotalCount
		case *doc.TotalCount != total:
			return nil, incomplete("GET %s page %d: total_count changed from %d to %d while the list was read", path, page, total, *doc.TotalCount)
		}
		for _, r := range *doc.Runners {
			if r.ID <= 0 || r.Name == "" {
				return nil, incomplete("GET %s page %d: a runner without an id or a name", path, page)
			}
			if seen[r.ID] {
				return nil, incomplete("GET %s page %d: runner id %d listed twice (the list changed while it was read)", path, page, r.ID)
			}
			seen[r.ID] = true
			dr := drain.Runner{ID: r.ID, Name: c.redact(r.Name), OS: r.OS, Status: r.Status, Busy: r.Busy}
			for _, l := range r.Labels {
				dr.Labels = append(dr.Labels, drain.Label{Name: c.redact(l.Name), Type: l.Type})
			}
			out = append(out, dr)
		}
		switch {
		case len(out) > total:
			return nil, incomplete("GET %s: %d runners listed, total_count says %d", path, len(out), total)
		case len(out) == total:
			return out, nil
		case len(*doc.Runners) < PerPage:
			return nil, incomplete("GET %s page %d: %d runners, a short page: %d of total_count %d listed", path, page, len(*doc.Runners), len(out), total)
		}
	}
}

// RemoveLabel removes the custom label from the runner with id. A label
// of "", "." or ".." is refused unsent: path escaping leaves it as it is,
// and a server or proxy resolving dot segments would read the request as
// DELETE of the runner itself or of every custom label it has.
func (c *Client) RemoveLabel(ctx context.Context, id int64, label string) error {
	segs := append(c.scope.segs(), "actions", "runners", strconv.FormatInt(id, 10), "labels", label)
	if label == "" || label == "." || label == ".." {
		return &Error{Method: http.MethodDelete, Path: c.redact(strings.Join(segs, "/")),
			Msg: fmt.Sprintf("label %q cannot be named in a URL's path", label)}
	}
	_, err := c.do(ctx, http.MethodDelete, segs, nil, nil)
	return err
}

// AddLabels adds custom labels to the runner with id.
func (c *Client) AddLabels(ctx context.Context, id int64, labels []string) error {
	segs := append(c.scope.segs(), "actions", "runners", strconv.FormatInt(id, 10), "labels")
	_, err := c.do(ctx, http.MethodPost, segs, nil, map[string][]string{"labels": labels})
	return err
}
