package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"k8s.io/klog/v2"
)

// profileArg is the autoscaler flag that serves /debug/pprof on its
// metrics address (kscale and upstream CA spell it the same).
const profileArg = "--profiling"

// captureCPUProfile asks the autoscaler at address for a CPU profile of
// the next d and writes it to path; the returned channel reports the
// outcome once the profile is written (or failed).
func captureCPUProfile(ctx context.Context, address string, d time.Duration, path string) <-chan error {
	done := make(chan error, 1)
	go func() {
		done <- fetchCPUProfile(ctx, address, d, path)
	}()
	return done
}

func fetchCPUProfile(ctx context.Context, address string, d time.Duration, path string) error {
	secs := int(d.Round(time.Second) / time.Second)
	if secs < 1 {
		secs = 1
	}
	url := fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", address, secs)
	// The server answers after the profile's duration; allow for a slow
	// first byte on a loaded machine.
	ctx, cancel := context.WithTimeout(ctx, d+time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("building the profile request: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("fetching the CPU profile: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("fetching the CPU profile: %s: %s (does the autoscaler run with %s?)", resp.Status, body, profileArg)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating the CPU profile file: %w", err)
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		_ = f.Close()
		return fmt.Errorf("writing the CPU profile: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the CPU profile: %w", err)
	}
	klog.FromContext(ctx).Info("Wrote the autoscaler's CPU profile", "path", path, "seconds", secs)
	return nil
}
