// Command kscale-fidelity-oracle answers, for a cluster and pending pods,
// which nodes kube-scheduler's default profile finds feasible for each pod
// and which plugin rejects the others. It links the scheduler framework of
// the k8s.io/kubernetes version the test control plane runs (pinned in
// go.mod, the same as hack/testbin) and is the reference the simulator's
// differential test (internal/simulator/fidelity) compares against.
//
// It reads a stream of JSON Requests on stdin and writes a Hello and then
// one JSON Response per Request on stdout; see protocol.go. Requests are
// evaluated by -workers goroutines, so responses may come out of order.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"k8s.io/component-base/version"
	"k8s.io/klog/v2"
)

func main() {
	workers := flag.Int("workers", 1, "requests evaluated in parallel")
	flag.Parse()
	if *workers < 1 {
		fmt.Fprintln(os.Stderr, "kscale-fidelity-oracle: -workers must be at least 1")
		os.Exit(2)
	}
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	if err := run(context.Background(), os.Stdin, os.Stdout, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "kscale-fidelity-oracle:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, in io.Reader, out io.Writer, workers int) error {
	o, err := newOracle()
	if err != nil {
		return err
	}
	pre, filter, err := o.pluginNames(ctx)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(out, 1<<20)
	enc := json.NewEncoder(w)
	if err := enc.Encode(Hello{KubernetesVersion: version.Get().GitVersion, PreFilter: pre, Filter: filter}); err != nil {
		return fmt.Errorf("writing hello: %w", err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("writing hello: %w", err)
	}

	reqs := make(chan *Request)
	resps := make(chan *Response)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for req := range reqs {
				resps <- o.answer(ctx, req)
			}
		})
	}
	writeErr := make(chan error, 1)
	go func() {
		var err error
		for resp := range resps {
			if err != nil {
				continue
			}
			if err = enc.Encode(resp); err == nil {
				err = w.Flush()
			}
		}
		writeErr <- err
	}()

	dec := json.NewDecoder(bufio.NewReaderSize(in, 1<<20))
	var readErr error
	for {
		req := &Request{}
		if err := dec.Decode(req); err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = fmt.Errorf("reading request: %w", err)
			}
			break
		}
		reqs <- req
	}
	close(reqs)
	wg.Wait()
	close(resps)
	if err := <-writeErr; err != nil {
		return fmt.Errorf("writing response: %w", err)
	}
	return readErr
}

// answer evaluates one request.
func (o *oracle) answer(ctx context.Context, req *Request) *Response {
	resp := &Response{ID: req.ID}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if req.Placements != nil && len(req.Placements) != len(req.Pending) {
		resp.Error = fmt.Sprintf("%d placements for %d pending pods", len(req.Placements), len(req.Pending))
		return resp
	}
	c, err := o.build(ctx, req)
	if err != nil {
		resp.Error = err.Error()
		return resp
	}
	resp.Results = make([]PodResult, len(req.Pending))
	for i := range req.Pending {
		pod := &req.Pending[i]
		res, state := c.evaluate(ctx, pod)
		resp.Results[i] = res
		if req.Placements == nil || req.Placements[i] == "" {
			continue
		}
		node := slices.Index(c.names, req.Placements[i])
		if node < 0 {
			resp.Error = fmt.Sprintf("pending pod %d placed on unknown node %q", i, req.Placements[i])
			return resp
		}
		if err := c.bind(pod, req.Placements[i], state, res.Plugins[node] == ""); err != nil {
			resp.Error = err.Error()
			return resp
		}
	}
	return resp
}
