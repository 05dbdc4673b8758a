// Package buildinfo names the miles-ci binary that is running, so that
// `miles-ci --version` in a CI log tells which build ran and how to build
// the same bytes again.
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// Version returns the version of this binary alone; see version.
func Version(stamped string) string {
	return version(stamped, readBuildInfo())
}

// Describe returns what `miles-ci --version` prints after the program's
// name: the version, then the commit it was built from and the Go
// toolchain and platform that built it, e.g.
// "v0.5.0 (commit 0123abc…, go1.26.0 linux/amd64)". stampedVersion and
// stampedCommit are what the build stamped with -ldflags -X (`make build`
// and `make dist` stamp both); an empty or "dev" stamp falls back to what
// the go command recorded.
func Describe(stampedVersion, stampedCommit string) string {
	return describe(stampedVersion, stampedCommit, readBuildInfo(), runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH)
}

func readBuildInfo() *debug.BuildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return bi
}

// describe is Describe with the build information, the toolchain and the
// platform passed in.
func describe(stampedVersion, stampedCommit string, bi *debug.BuildInfo, toolchain, platform string) string {
	commit := stampedCommit
	if commit == "" {
		commit = vcsCommit(bi)
	}
	var about []string
	if commit != "" {
		about = append(about, "commit "+commit)
	}
	about = append(about, toolchain+" "+platform)
	return version(stampedVersion, bi) + " (" + strings.Join(about, ", ") + ")"
}

// vcsCommit is the revision the go command recorded from the checkout
// (-buildvcs), "-dirty" when the tree was modified; "" when it recorded
// none (`go install …@v1.2.3`, -buildvcs=false).
func vcsCommit(bi *debug.BuildInfo) string {
	if bi == nil {
		return ""
	}
	rev, dirty := vcs(bi)
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}

func vcs(bi *debug.BuildInfo) (rev string, dirty bool) {
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	return rev, dirty
}

// version is the version alone: stamped, when the build set one (`make
// build` stamps `git describe`, `make dist` the release tag); else the
// module version the go command recorded (`go install …@v1.2.3`, or the
// pseudo-version of a local build from a VCS checkout); else "dev" with
// the VCS revision and whether the tree was modified; else "dev".
func version(stamped string, bi *debug.BuildInfo) string {
	if stamped != "" && stamped != "dev" {
		return stamped
	}
	if bi == nil {
		return "dev"
	}
	rev, dirty := vcs(bi)
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
