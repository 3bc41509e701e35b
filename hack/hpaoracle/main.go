// Command kscale-hpa-oracle answers, for an HPA on a Pods metric with an
// AverageValue target, the replica count kube-controller-manager's own
// replica calculator (k8s.io/kubernetes pkg/controller/podautoscaler,
// ReplicaCalculator.GetMetricReplicas) proposes. It is the reference the
// what-if's HPA model (internal/whatif/hpa) is compared against.
//
// It reads one JSON Request per line on stdin and writes one JSON Response
// per line on stdout, in order.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"k8s.io/klog/v2"
)

func main() {
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "kscale-hpa-oracle:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	for sc.Scan() {
		var req Request
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			return fmt.Errorf("reading request: %w", err)
		}
		resp, err := answer(req)
		if err != nil {
			return err
		}
		if err := enc.Encode(resp); err != nil {
			return fmt.Errorf("writing response: %w", err)
		}
		if err := w.Flush(); err != nil {
			return fmt.Errorf("writing response: %w", err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading requests: %w", err)
	}
	return nil
}
