package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestResolve(t *testing.T) {
	vcs := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/kscale/kscale", Version: "v0.2.0"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"},
		},
	}
	tests := []struct {
		name   string
		linked Info
		bi     *debug.BuildInfo
		want   Info
	}{
		{"stamped by the Makefile wins", Info{Version: "v0.3.0", Revision: "def456", BuildDate: "2026-05-01T10:00:00Z"}, vcs,
			Info{Version: "v0.3.0", Revision: "def456", BuildDate: "2026-05-01T10:00:00Z", GoVersion: "go1.26.8"}},
		{"toolchain record as fallback", Info{}, vcs,
			Info{Version: "v0.2.0", Revision: "abc123-dirty", BuildDate: "2026-01-02T03:04:05Z", GoVersion: "go1.26.8"}},
		{"partly stamped", Info{Version: "v0.3.0"}, vcs,
			Info{Version: "v0.3.0", Revision: "abc123-dirty", BuildDate: "2026-01-02T03:04:05Z", GoVersion: "go1.26.8"}},
		{"go build in a checkout without VCS", Info{}, &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			Info{Version: Devel, Revision: Unknown, BuildDate: Unknown, GoVersion: "go-runtime"}},
		{"no build info at all", Info{}, nil, Info{Version: Devel, Revision: Unknown, BuildDate: Unknown, GoVersion: "go-runtime"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resolve(tt.linked, tt.bi, "go-runtime"); got != tt.want {
				t.Errorf("resolve = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestString(t *testing.T) {
	i := Info{Version: "v0.3.0", Revision: "def456", BuildDate: "2026-05-01T10:00:00Z", GoVersion: "go1.26.8"}
	if got, want := i.String(), "v0.3.0 (revision def456, built 2026-05-01T10:00:00Z, go1.26.8)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestCollector(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(Info{Version: "v0.3.0", Revision: "def456", BuildDate: "2026-05-01T10:00:00Z", GoVersion: "go1.26.8"}))
	want := `# HELP kscale_build_info A metric with a constant '1' value labeled by the version, revision, build date and Go version kscale was built from.
# TYPE kscale_build_info gauge
kscale_build_info{build_date="2026-05-01T10:00:00Z",goversion="go1.26.8",revision="def456",version="v0.3.0"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), MetricName); err != nil {
		t.Error(err)
	}
}
