// Package buildinfo tells which build of kscale is running: the version,
// commit and build date the Makefile and the image builder stamp in with
// -ldflags -X, falling back to what the Go toolchain recorded (module
// version, VCS revision and commit time) when a binary was built without
// them. `kscale version`, every component's start-up log and the
// kscale_build_info metric read it.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Set at link time, for example
//
//	-X github.com/kscale/kscale/internal/buildinfo.version=v0.3.0
//
// They are never written at run time.
var (
	version   string
	revision  string
	buildDate string
)

// Unknown is the value of a field no build step recorded.
const Unknown = "unknown"

// Devel is the version of a build with neither a stamped version nor a
// module version (go build in a checkout).
const Devel = "(devel)"

// Info describes one build.
type Info struct {
	// Version is the release (git describe), or Devel.
	Version string
	// Revision is the full commit hash, with "-dirty" when the tree had
	// uncommitted changes; Unknown when not recorded.
	Revision string
	// BuildDate is when the built commit was made (RFC 3339, UTC), which
	// keeps builds reproducible; Unknown when not recorded.
	BuildDate string
	// GoVersion is the Go toolchain that built the binary.
	GoVersion string
}

// Get returns the running binary's build information.
func Get() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return resolve(Info{Version: version, Revision: revision, BuildDate: buildDate}, bi, runtime.Version())
}

// resolve fills the fields the linker left empty from the toolchain's
// record bi (nil when absent), then the defaults.
func resolve(linked Info, bi *debug.BuildInfo, goVersion string) Info {
	out := linked
	out.GoVersion = goVersion
	if bi != nil {
		if bi.GoVersion != "" {
			out.GoVersion = bi.GoVersion
		}
		if out.Version == "" && bi.Main.Version != "" && bi.Main.Version != Devel {
			out.Version = bi.Main.Version
		}
		vcs := map[string]string{}
		for _, s := range bi.Settings {
			vcs[s.Key] = s.Value
		}
		if out.Revision == "" && vcs["vcs.revision"] != "" {
			out.Revision = vcs["vcs.revision"]
			if vcs["vcs.modified"] == "true" {
				out.Revision += "-dirty"
			}
		}
		if out.BuildDate == "" {
			out.BuildDate = vcs["vcs.time"]
		}
	}
	if out.Version == "" {
		out.Version = Devel
	}
	if out.Revision == "" {
		out.Revision = Unknown
	}
	if out.BuildDate == "" {
		out.BuildDate = Unknown
	}
	return out
}

// String renders the build as one line, for example
// "v0.3.0 (revision 0123abc…, built 2026-05-01T10:00:00Z, go1.26.8)".
func (i Info) String() string {
	return fmt.Sprintf("%s (revision %s, built %s, %s)", i.Version, i.Revision, i.BuildDate, i.GoVersion)
}

// KeysAndValues returns the fields as logr key/value pairs.
func (i Info) KeysAndValues() []any {
	return []any{"version", i.Version, "revision", i.Revision, "buildDate", i.BuildDate, "goVersion", i.GoVersion}
}
