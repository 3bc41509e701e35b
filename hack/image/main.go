// Command image builds kscale's container image without Docker and without
// a base image: the static kscale binary (CGO_ENABLED=0, -trimpath), its
// upstream entry points (/cluster-autoscaler, /recommender, /updater,
// /admission-controller, /gardener-custom-metrics) as links to it, CA
// certificates from golang.org/x/crypto/x509roots/fallback, and a non-root
// user, for linux/amd64 and linux/arm64. It writes an OCI image layout
// directory and the same layout as a tar archive (oci-archive). The build
// is reproducible: every timestamp is the build date (the commit's time),
// and tar entries are sorted with fixed owners and modes, so the same
// commit gives the same digests.
//
// The layout holds one multi-platform index per image name, told apart by
// the org.opencontainers.image.ref.name annotation: "kscale" (ENTRYPOINT
// /kscale) and one per upstream image whose ENTRYPOINT (or, as upstream's
// cluster-autoscaler image, CMD) is that component's path, so an upstream
// manifest runs it with only the image changed.
//
// Usage (make image runs this):
//
//	go run ./hack/image --out bin/image --archive bin/kscale-image.tar \
//	    --version v0.3.0 --revision <commit> --build-date 2026-05-01T10:00:00Z
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
)

func main() {
	var o Options
	var platforms string
	flag.StringVar(&o.Out, "out", "bin/image", "OCI image layout directory to write (replaced).")
	flag.StringVar(&o.Archive, "archive", "bin/kscale-image.tar", "The layout as a tar archive (oci-archive); empty to skip.")
	flag.StringVar(&o.Repo, "repo", ".", "Root of the kscale module.")
	flag.StringVar(&platforms, "platforms", "linux/amd64,linux/arm64", "Comma-separated os/arch list.")
	flag.StringVar(&o.Stamp.Version, "version", "", "Version stamped into the binary and the image labels.")
	flag.StringVar(&o.Stamp.Revision, "revision", "", "Commit stamped into the binary and the image labels.")
	flag.StringVar(&o.Stamp.BuildDate, "build-date", "", "RFC 3339 build date (the commit's time): binary stamp, image creation time and every file time.")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "image: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	var err error
	if o.Platforms, err = parsePlatforms(platforms); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := Build(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
	for _, img := range res.Images {
		fmt.Printf("%s\t%s\n", img.Name, img.Digest)
	}
	fmt.Printf("layout %s, archive %s\n", o.Out, o.Archive)
}

// parsePlatforms parses "linux/amd64,linux/arm64".
func parsePlatforms(s string) ([]Platform, error) {
	var out []Platform
	for _, p := range strings.Split(s, ",") {
		os, arch, ok := strings.Cut(strings.TrimSpace(p), "/")
		if !ok || os != "linux" || (arch != "amd64" && arch != "arm64") {
			return nil, fmt.Errorf("--platforms: %q is not linux/amd64 or linux/arm64", p)
		}
		out = append(out, Platform{OS: os, Arch: arch})
	}
	return out, nil
}
