// Package buildinfo names the miles-ci binary that is running, so that
// `miles-ci --version` in a CI log tells which build ran.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Version returns the version of this binary: stamped, when the build set
// one (`make build` stamps `git describe`); else the module version the
// go command recorded (`go install …@v1.2.3`, or the pseudo-version of a
// local build from a VCS checkout); else "dev" with the VCS revision and
// whether the tree was modified; else "dev".
func Version(stamped string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return version(stamped, bi)
}

func version(stamped string, bi *debug.BuildInfo) string {
	if stamped != "" && stamped != "dev" {
		return stamped
	}
	if bi == nil {
		return "dev"
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		// A pseudo-version already names the revision; newer go commands
		// also mark a modified tree with "+dirty".
		if dirty && !strings.HasSuffix(v, "+dirty") {
			v += "+dirty"
		}
		return v
	}
	if rev == "" {
		return "dev"
	}
	v := "dev-" + rev[:min(12, len(rev))]
	if dirty {
		v += "-dirty"
	}
	return v
}
