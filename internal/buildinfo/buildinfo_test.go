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
