package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Platform is an os/arch pair the image is built for.
type Platform struct {
	OS, Arch string
}

// String renders the platform as os/arch.
func (p Platform) String() string { return p.OS + "/" + p.Arch }

// Stamp is what the build stamps into the binary (internal/buildinfo) and
// the image labels.
type Stamp struct {
	Version, Revision, BuildDate string
}

// Options configure Build.
type Options struct {
	// Repo is the root of the kscale module.
	Repo string
	// Out is the OCI image layout directory; it is replaced.
	Out string
	// Archive is the tar archive of the layout; empty skips it.
	Archive string
	// Platforms are the platforms of every image index.
	Platforms []Platform
	// Stamp is the build's version, revision and date.
	Stamp Stamp
}

// Result names the images written.
type Result struct {
	// Images are the layout's indexes, by name, in the order written.
	Images []Named
}

// Named is one image index of the layout.
type Named struct {
	Name   string
	Digest string
}

// buildinfoPkg is where kscale reads its stamp from.
const buildinfoPkg = "github.com/kscale/kscale/internal/buildinfo"

// Build compiles kscale for every platform and writes the layout (and the
// archive).
func Build(ctx context.Context, o Options) (*Result, error) {
	if len(o.Platforms) == 0 || o.Out == "" {
		return nil, errors.New("building the image: platforms and an output directory are required")
	}
	created, err := buildTime(o.Stamp.BuildDate)
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "kscale-image-")
	if err != nil {
		return nil, fmt.Errorf("creating a work directory: %w", err)
	}
	defer func() { _ = os.RemoveAll(work) }()
	binaries := map[Platform]string{}
	for _, p := range o.Platforms {
		bin := filepath.Join(work, "kscale-"+p.OS+"-"+p.Arch)
		if err := compile(ctx, o.Repo, p, o.Stamp, bin); err != nil {
			return nil, err
		}
		binaries[p] = bin
	}
	images, err := assemble(binaries, o.Platforms, o.Stamp, created)
	if err != nil {
		return nil, err
	}
	res, err := writeLayout(o.Out, images)
	if err != nil {
		return nil, err
	}
	if o.Archive != "" {
		if err := writeArchive(o.Out, o.Archive, created); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// buildTime parses the build date; without one the epoch is used, so an
// unstamped build is still reproducible.
func buildTime(s string) (time.Time, error) {
	if s == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--build-date: %w", err)
	}
	return t.UTC(), nil
}

// compile builds the static kscale binary for p, stamped, with paths and
// VCS state left out so that the same source gives the same bytes.
func compile(ctx context.Context, repo string, p Platform, s Stamp, out string) error {
	ldflags := fmt.Sprintf("-s -w -X '%s.version=%s' -X '%s.revision=%s' -X '%s.buildDate=%s'",
		buildinfoPkg, s.Version, buildinfoPkg, s.Revision, buildinfoPkg, s.BuildDate)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", out, "./cmd/kscale")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Arch)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build for %s: %w\n%s", p, err, msg)
	}
	return nil
}
