package main

import (
	"bytes"
	"fmt"
	"io"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// RefNameAnnotation names an index in the layout's index.json.
const RefNameAnnotation = "org.opencontainers.image.ref.name"

// variant is one image name of the layout: the same files, another way in.
type variant struct {
	name string
	// entrypoint and cmd are the image config's ENTRYPOINT and CMD.
	entrypoint, cmd []string
}

// variants are kscale's own image and one per upstream image, with that
// image's ENTRYPOINT (VPA, gardener-custom-metrics) or CMD (the
// cluster-autoscaler image has no ENTRYPOINT; its manifests pass command).
var variants = []variant{
	{name: "kscale", entrypoint: []string{"/kscale"}},
	{name: "cluster-autoscaler", cmd: []string{"/cluster-autoscaler"}},
	{name: "vpa-recommender", entrypoint: []string{"/recommender"}},
	{name: "vpa-updater", entrypoint: []string{"/updater"}},
	{name: "vpa-admission-controller", entrypoint: []string{"/admission-controller"}},
	{name: "gardener-custom-metrics", entrypoint: []string{"/gardener-custom-metrics"}},
}

// namedIndex is a variant's multi-platform index.
type namedIndex struct {
	name  string
	index v1.ImageIndex
}

// assemble builds every variant's index over one layer per platform.
func assemble(binaries map[Platform]string, platforms []Platform, s Stamp, created time.Time) ([]namedIndex, error) {
	layers := map[Platform]v1.Layer{}
	for _, p := range platforms {
		l, err := rootLayer(binaries[p], created)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		layers[p] = l
	}
	out := make([]namedIndex, 0, len(variants))
	for _, v := range variants {
		idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
		for _, p := range platforms {
			img, err := platformImage(layers[p], p, v, s, created)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", v.name, p, err)
			}
			idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
				Add: img, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: p.OS, Architecture: p.Arch}},
			})
		}
		out = append(out, namedIndex{name: v.name, index: idx})
	}
	return out, nil
}

// rootLayer is the gzip-compressed OCI layer of the root file system.
func rootLayer(bin string, created time.Time) (v1.Layer, error) {
	files, err := rootFS(bin)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := writeTar(&buf, files, created); err != nil {
		return nil, err
	}
	raw := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(raw)), nil },
		tarball.WithMediaType(types.OCILayer))
}

// platformImage is the OCI image of one variant and platform.
func platformImage(layer v1.Layer, p Platform, v variant, s Stamp, created time.Time) (v1.Image, error) {
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{
		Layer: layer, MediaType: types.OCILayer,
		History: v1.History{Created: v1.Time{Time: created}, CreatedBy: "kscale hack/image", Comment: "kscale " + s.Version},
	})
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.Architecture, cfg.OS, cfg.Created = p.Arch, p.OS, v1.Time{Time: created}
	cfg.Config = v1.Config{
		Entrypoint: v.entrypoint, Cmd: v.cmd, User: user, WorkingDir: "/",
		Env: []string{"PATH=/usr/local/bin:/usr/bin:/bin:/", "SSL_CERT_FILE=/" + caPath},
		Labels: map[string]string{
			"org.opencontainers.image.title":    v.name,
			"org.opencontainers.image.version":  s.Version,
			"org.opencontainers.image.revision": s.Revision,
			"org.opencontainers.image.created":  created.Format(time.RFC3339),
			"org.opencontainers.image.source":   "https://github.com/kscale/kscale",
		},
	}
	return mutate.ConfigFile(img, cfg)
}
