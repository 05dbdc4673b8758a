package testutil

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// FakeRunner is a self-hosted runner the fake GitHub lists.
type FakeRunner struct {
	ID     int64
	Name   string
	Status string // "online" or "offline"
	Busy   bool
	// Labels are custom labels; every runner also has the read-only
	// self-hosted, Linux and X64.
	Labels []string
}

// FakeGitHub serves the self-hosted runner endpoints of the GitHub REST
// API, as GitHub documents them, for one repository and one organization:
//
//	GET    /{repos/OWNER/REPO|orgs/ORG}/actions/runners?per_page=&page=
//	DELETE /…/actions/runners/{runner_id}/labels/{name}
//	POST   /…/actions/runners/{runner_id}/labels   {"labels": [...]}
//
// It answers 401 without the token, keeps every request it saw, and can
// break its list the ways a real one breaks (see Break).
type FakeGitHub struct {
	URL   string
	Token string
	// Repo is "OWNER/REPO", Org the organization.
	Repo, Org string

	mu      sync.Mutex
	runners []FakeRunner
	seen    []string
	brk     string
}

// NewFakeGitHub starts a fake GitHub with runners, closed when t ends.
func NewFakeGitHub(t testing.TB, token, repo, org string, runners ...FakeRunner) *FakeGitHub {
	t.Helper()
	g := &FakeGitHub{Token: token, Repo: repo, Org: org, runners: runners}
	mux := http.NewServeMux()
	for _, scope := range []string{"/repos/" + repo, "/orgs/" + org} {
		mux.HandleFunc("GET "+scope+"/actions/runners", g.list)
		mux.HandleFunc("DELETE "+scope+"/actions/runners/{id}/labels/{name}", g.remove)
		mux.HandleFunc("POST "+scope+"/actions/runners/{id}/labels", g.add)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.seen = append(g.seen, r.Method+" "+r.URL.RequestURI())
		g.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+token {
			answer(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials"})
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	g.URL = srv.URL
	return g
}

// Break makes the list unreadable whole: "error" answers 500 with the
// Authorization header echoed in the message (as a careless proxy might),
// "short" promises one runner more than it lists, "total" promises one
// fewer, "garbage" answers HTML.
func (g *FakeGitHub) Break(how string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.brk = how
}

// Requests are the requests seen, "METHOD /path?query" each.
func (g *FakeGitHub) Requests() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.seen)
}

// Labels are the custom labels of the runner named name now.
func (g *FakeGitHub) Labels(name string) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, r := range g.runners {
		if r.Name == name {
			return slices.Clone(r.Labels)
		}
	}
	return nil
}

func answer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

type fakeLabel struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
}

func labelsOf(r FakeRunner) []fakeLabel {
	out := []fakeLabel{{1, "self-hosted", "read-only"}, {2, "Linux", "read-only"}, {3, "X64", "read-only"}}
	for i, l := range r.Labels {
		out = append(out, fakeLabel{int64(10 + i), l, "custom"})
	}
	return out
}

func (g *FakeGitHub) list(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	perPage, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if perPage <= 0 || perPage > 100 {
		perPage = 30
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	page = max(page, 1)
	type runner struct {
		ID     int64       `json:"id"`
		Name   string      `json:"name"`
		OS     string      `json:"os"`
		Status string      `json:"status"`
		Busy   bool        `json:"busy"`
		Labels []fakeLabel `json:"labels"`
	}
	list := []runner{}
	for i := (page - 1) * perPage; i < len(g.runners) && i < page*perPage; i++ {
		fr := g.runners[i]
		list = append(list, runner{fr.ID, fr.Name, "linux", fr.Status, fr.Busy, labelsOf(fr)})
	}
	total := len(g.runners)
	switch g.brk {
	case "error":
		answer(w, http.StatusInternalServerError, map[string]string{"message": "upstream failed for " + r.Header.Get("Authorization")})
		return
	case "garbage":
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("<html>Unicorn!</html>"))
		return
	case "short":
		total++
	case "total":
		total--
	}
	answer(w, http.StatusOK, map[string]any{"total_count": total, "runners": list})
}

// find is the index of the runner of the request's {id}, or -1.
func (g *FakeGitHub) find(r *http.Request) int {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return -1
	}
	return slices.IndexFunc(g.runners, func(fr FakeRunner) bool { return fr.ID == id })
}

func (g *FakeGitHub) remove(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	i := g.find(r)
	if i < 0 {
		answer(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	name := r.PathValue("name")
	j := slices.IndexFunc(g.runners[i].Labels, func(l string) bool { return strings.EqualFold(l, name) })
	if j < 0 {
		answer(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	g.runners[i].Labels = slices.Delete(slices.Clone(g.runners[i].Labels), j, j+1)
	ls := labelsOf(g.runners[i])
	answer(w, http.StatusOK, map[string]any{"total_count": len(ls), "labels": ls})
}

func (g *FakeGitHub) add(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	i := g.find(r)
	var body struct {
		Labels []string `json:"labels"`
	}
	if i < 0 || json.NewDecoder(r.Body).Decode(&body) != nil || len(body.Labels) == 0 {
		answer(w, http.StatusUnprocessableEntity, map[string]string{"message": "Validation Failed"})
		return
	}
	for _, l := range body.Labels {
		if !slices.ContainsFunc(g.runners[i].Labels, func(x string) bool { return strings.EqualFold(x, l) }) {
			g.runners[i].Labels = append(g.runners[i].Labels, l)
		}
	}
	ls := labelsOf(g.runners[i])
	answer(w, http.StatusOK, map[string]any{"total_count": len(ls), "labels": ls})
}
