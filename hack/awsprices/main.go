// Command awsprices writes the AWS provider's on-demand price table
// (internal/cloudprovider/aws/instance_prices.csv) from Karpenter's: the
// pinned version of github.com/aws/karpenter-provider-aws is fetched with
// `go mod download -json` (the Go module proxy, reachable where AWS's
// Pricing API is not), and the map literal of its generated file
// pkg/providers/pricing/zz_generated.pricing_aws.go, which Karpenter
// writes from the AWS Pricing API, is read with go/parser. Karpenter is
// never imported. Run: make aws-prices.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Source pins: the module, its version and the file in it. v1.14.1 is the
// newest release whose go.mod this repository's Go (1.26.8) accepts;
// later ones need go >= 1.26.9.
const (
	sourceModule  = "github.com/aws/karpenter-provider-aws"
	sourceVersion = "v1.14.1"
	sourceFile    = "pkg/providers/pricing/zz_generated.pricing_aws.go"
)

func main() {
	out := flag.String("out", "internal/cloudprovider/aws/instance_prices.csv", "The price table to write.")
	version := flag.String("version", sourceVersion, "The version of "+sourceModule+" to read.")
	region := flag.String("region", "us-east-1", "The region whose prices the table holds.")
	flag.Parse()
	if err := run(context.Background(), *out, *version, *region); err != nil {
		fmt.Fprintln(os.Stderr, "awsprices:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out, version, region string) error {
	dir, err := download(ctx, sourceModule, version)
	if err != nil {
		return err
	}
	src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(sourceFile)))
	if err != nil {
		return fmt.Errorf("reading the source file: %w", err)
	}
	tbl, err := extract(src, region)
	if err != nil {
		return fmt.Errorf("%s@%s %s: %w", sourceModule, version, sourceFile, err)
	}
	tbl.Module, tbl.Version, tbl.File = sourceModule, version, sourceFile
	if err := os.WriteFile(out, render(tbl), 0o644); err != nil {
		return fmt.Errorf("writing the table: %w", err)
	}
	fmt.Fprintf(os.Stderr, "awsprices: %d prices of %s from %s@%s to %s\n", len(tbl.Prices), region, sourceModule, version, out)
	return nil
}

// download fetches module@version into the module cache and returns its
// directory. It runs outside any module, so no go.mod or go.sum changes.
func download(ctx context.Context, module, version string) (string, error) {
	tmp, err := os.MkdirTemp("", "awsprices-")
	if err != nil {
		return "", fmt.Errorf("downloading %s@%s: %w", module, version, err)
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", module+"@"+version)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GO111MODULE=on", "GOFLAGS=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var res struct{ Dir, Error string }
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %v: %s", module, version, errors.Join(runErr, err), stderr.String())
	}
	if res.Error != "" || res.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: %s", module, version, res.Error)
	}
	return res.Dir, nil
}
