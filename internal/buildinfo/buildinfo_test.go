package buildinfo

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestVersion_SaysWhichBuildRan(t *testing.T) {
	const rev = "db5cddf3994cce6f93395c746f30eb1d8dd89113"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	for _, tc := range []struct {
		name    string
		stamped string
		bi      *debug.BuildInfo
		want    string
	}{
		{"make build stamps git describe", "3bb68fe-dirty", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "3bb68fe-dirty"},
		{"go install at a tag", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"a local build with a pseudo-version", "dev",
			&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261130114940-db5cddf3994c"}, Settings: vcs("false")},
			"v0.0.0-20261130114940-db5cddf3994c"},
		{"a modified tree is marked once", "dev",
			&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261130114940-db5cddf3994c+dirty"}, Settings: vcs("true")},
			"v0.0.0-20261130114940-db5cddf3994c+dirty"},
		{"an older go command's pseudo-version of a modified tree", "dev",
			&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261130114940-db5cddf3994c"}, Settings: vcs("true")},
			"v0.0.0-20261130114940-db5cddf3994c+dirty"},
		{"only the revision", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("false")}, "dev-db5cddf3994c"},
		{"only the revision, modified", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("true")}, "dev-db5cddf3994c-dirty"},
		{"no VCS information", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{"no build information", "dev", nil, "dev"},
	} {
		assert.Equal(t, tc.want, version(tc.stamped, tc.bi), tc.name)
	}
}

func TestDescribe_NamesVersionCommitAndToolchain(t *testing.T) {
	const rev = "db5cddf3994cce6f93395c746f30eb1d8dd89113"
	withVCS := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "true"}}}
	for _, tc := range []struct {
		name            string
		version, commit string
		bi              *debug.BuildInfo
		want            string
	}{
		{"make dist stamps the tag and the commit", "v0.5.0", rev, nil,
			"v0.5.0 (commit " + rev + ", go1.26.0 linux/arm64)"},
		{"make build of a modified tree", "db5cddf-dirty", rev + "-dirty", withVCS,
			"db5cddf-dirty (commit " + rev + "-dirty, go1.26.0 linux/arm64)"},
		{"the stamp wins over what the go command recorded", "v0.5.0", "0123456789abcdef0123456789abcdef01234567", withVCS,
			"v0.5.0 (commit 0123456789abcdef0123456789abcdef01234567, go1.26.0 linux/arm64)"},
		{"go build in a checkout records the commit", "dev", "", withVCS,
			"dev-db5cddf3994c-dirty (commit " + rev + "-dirty, go1.26.0 linux/arm64)"},
		{"go install at a tag records no commit", "dev", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}},
			"v1.2.3 (go1.26.0 linux/arm64)"},
		{"nothing known", "", "", nil, "dev (go1.26.0 linux/arm64)"},
	} {
		assert.Equal(t, tc.want, describe(tc.version, tc.commit, tc.bi, "go1.26.0", "linux/arm64"), tc.name)
	}
}
