package ghapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/testutil"
)

const token = "ghp_plantedTOKENvalue0123456789"

func fleet(n int) []testutil.FakeRunner {
	var out []testutil.FakeRunner
	for i := 1; i <= n; i++ {
		out = append(out, testutil.FakeRunner{ID: int64(i), Name: "r" + strconv.Itoa(i), Status: "online", Labels: []string{"h100", "8gpu"}})
	}
	return out
}

func TestRunners_ReadsEveryPage(t *testing.T) {
	g := testutil.NewFakeGitHub(t, token, "o/r", "org", fleet(150)...)
	for _, scope := range []Scope{{Owner: "o", Repo: "r"}, {Org: "org"}} {
		c, err := New(g.URL, token, scope)
		require.NoError(t, err)
		rs, err := c.Runners(context.Background())
		require.NoError(t, err)
		require.Len(t, rs, 150)
		assert.Equal(t, "r150", rs[149].Name)
		assert.True(t, rs[0].Has("H100"))
		assert.Equal(t, "read-only", rs[0].Labels[0].Type)
	}
	assert.Equal(t, []string{
		"GET /repos/o/r/actions/runners?page=1&per_page=100", "GET /repos/o/r/actions/runners?page=2&per_page=100",
		"GET /orgs/org/actions/runners?page=1&per_page=100", "GET /orgs/org/actions/runners?page=2&per_page=100",
	}, g.Requests())
}

func TestRunners_AListNotReadWholeIsAnError(t *testing.T) {
	cases := []struct{ brk, want string }{
		{"error", `the runner list cannot be read whole: GET repos/o/r/actions/runners: HTTP 500: "upstream failed for Bearer [token]"`},
		{"garbage", "the runner list cannot be read whole: GET repos/o/r/actions/runners page 1: not a runner list (expected total_count and runners)"},
		{"short", "the runner list cannot be read whole: GET repos/o/r/actions/runners page 1: 3 runners, a short page: 3 of total_count 4 listed"},
		{"total", "the runner list cannot be read whole: GET repos/o/r/actions/runners: 3 runners listed, total_count says 2"},
	}
	for _, c := range cases {
		t.Run(c.brk, func(t *testing.T) {
			g := testutil.NewFakeGitHub(t, token, "o/r", "org", fleet(3)...)
			g.Break(c.brk)
			cl, err := New(g.URL, token, Scope{Owner: "o", Repo: "r"})
			require.NoError(t, err)
			rs, err := cl.Runners(context.Background())
			assert.Nil(t, rs)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrIncomplete))
			assert.Equal(t, c.want, err.Error())
			assert.NotContains(t, err.Error(), token)
		})
	}
}

func TestRunners_AWrongTokenSaysSoWithoutIt(t *testing.T) {
	g := testutil.NewFakeGitHub(t, token, "o/r", "org", fleet(1)...)
	c, err := New(g.URL, "ghp_wrong", Scope{Owner: "o", Repo: "r"})
	require.NoError(t, err)
	_, err = c.Runners(context.Background())
	assert.EqualError(t, err, `the runner list cannot be read whole: GET repos/o/r/actions/runners: HTTP 401: "Bad credentials"`)
}

func TestLabels_RemoveAndAdd(t *testing.T) {
	g := testutil.NewFakeGitHub(t, token, "o/r", "org",
		testutil.FakeRunner{ID: 7, Name: "a", Status: "online", Labels: []string{"h100", "odd label/%"}})
	c, err := New(g.URL+"/", token, Scope{Owner: "o", Repo: "r"})
	require.NoError(t, err)
	require.NoError(t, c.RemoveLabel(context.Background(), 7, "h100"))
	require.NoError(t, c.RemoveLabel(context.Background(), 7, "odd label/%"))
	assert.Empty(t, g.Labels("a"))
	require.NoError(t, c.AddLabels(context.Background(), 7, []string{"h100"}))
	assert.Equal(t, []string{"h100"}, g.Labels("a"))
	err = c.RemoveLabel(context.Background(), 7, "8gpu")
	assert.EqualError(t, err, `DELETE repos/o/r/actions/runners/7/labels/8gpu: HTTP 404: "Not Found"`)
	assert.Equal(t, []string{
		"DELETE /repos/o/r/actions/runners/7/labels/h100",
		"DELETE /repos/o/r/actions/runners/7/labels/odd%20label%2F%25",
		"POST /repos/o/r/actions/runners/7/labels",
		"DELETE /repos/o/r/actions/runners/7/labels/8gpu",
	}, g.Requests())
}

func TestNew_RefusesWhatWouldLeakTheToken(t *testing.T) {
	repo := Scope{Owner: "o", Repo: "r"}
	cases := []struct{ url, tok, want string }{
		{"http://api.example.com", token, `GITHUB_API_URL "http://api.example.com" is not https: the token is only sent encrypted (plain http only to this machine's loopback)`},
		{"https://me:" + token + "@api.example.com", token, "GITHUB_API_URL holds a user, a password, a query or a fragment (not shown); expected a URL such as https://api.github.com"},
		{"https://api.example.com?access_token=" + token, token, "GITHUB_API_URL holds a user, a password, a query or a fragment (not shown); expected a URL such as https://api.github.com"},
		{"https://api.github.com", "", "no token: set GH_TOKEN or GITHUB_TOKEN to a token that may administer the runners"},
		{"https://api.github.com", token + "\n", "the token holds a space or a control character (not shown)"},
	}
	for _, c := range cases {
		_, err := New(c.url, c.tok, repo)
		assert.EqualError(t, err, c.want, c.url)
	}
	for _, ok := range []string{"", "https://ghe.example.com/api/v3", "http://127.0.0.1:8080", "http://localhost:1", "http://[::1]:2"} {
		_, err := New(ok, token, repo)
		assert.NoError(t, err, ok)
	}
}

func TestScopes(t *testing.T) {
	s, err := RepoScope("radixark/miles")
	require.NoError(t, err)
	assert.Equal(t, "repos/radixark/miles", s.Path())
	s, err = OrgScope("radixark")
	require.NoError(t, err)
	assert.Equal(t, "orgs/radixark", s.Path())
	for _, bad := range []string{"radixark", "a/b/c", "a/..", "a b/c", "/x"} {
		_, err := RepoScope(bad)
		assert.Error(t, err, bad)
	}
	_, err = OrgScope("a/b")
	assert.Error(t, err)
}

// A server that echoes the token past the point where its message is cut
// must not leave the token's first characters in the error: the token is
// taken out before the message is cut.
func TestDo_AnEchoedTokenIsHiddenWhereTheMessageIsCut(t *testing.T) {
	for _, at := range []int{190, 199, 200} {
		msg := strings.Repeat("x", at) + token + " rejected"
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
			_ = json.NewEncoder(w).Encode(map[string]string{"message": msg})
		}))
		c, err := New(srv.URL, token, Scope{Owner: "o", Repo: "r"})
		require.NoError(t, err)
		err = c.RemoveLabel(context.Background(), 7, "h100")
		srv.Close()
		require.Error(t, err)
		assert.NotContains(t, err.Error(), token[:8], "token at byte %d", at)
		assert.Contains(t, err.Error(), "HTTP 502", "token at byte %d", at)
	}
}

// A label of "", "." or ".." is not sent as a path segment: a server or a
// proxy that resolves dot segments would take DELETE .../labels/.. for
// DELETE .../runners/7 (the runner removed) and .../labels/. for
// DELETE .../labels (every custom label removed).
func TestRemoveLabel_ADotSegmentIsRefusedUnsent(t *testing.T) {
	sent := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		sent++
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	c, err := New(srv.URL, token, Scope{Owner: "o", Repo: "r"})
	require.NoError(t, err)
	for _, label := range []string{"", ".", ".."} {
		err := c.RemoveLabel(context.Background(), 7, label)
		assert.EqualError(t, err, `DELETE repos/o/r/actions/runners/7/labels/`+label+`: label "`+label+`" cannot be named in a URL's path`)
	}
	assert.Zero(t, sent, "no request")
}
