package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

// Request is one API request of the autoscaler, from the audit log.
type Request struct {
	// At is when kube-apiserver received the request (microseconds).
	At time.Time
	// Verb, Resource and Subresource are the audit event's; Name the
	// object's.
	Verb, Resource, Subresource, Name string
}

// auditEvent is the part of an audit.k8s.io/v1 Event the harness reads.
type auditEvent struct {
	Stage     string                    `json:"stage"`
	Verb      string                    `json:"verb"`
	User      struct{ Username string } `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	Received time.Time `json:"requestReceivedTimestamp"`
}

// readAudit returns user's completed requests in the audit log at path.
func readAudit(path, user string) ([]Request, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening audit log: %w", err)
	}
	defer func() { _ = f.Close() }()
	return parseAudit(f, user)
}

// parseAudit reads JSON audit events, one per line, and keeps user's
// ResponseComplete (or Panic) events. A malformed line is an error naming it.
func parseAudit(r io.Reader, user string) ([]Request, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var out []Request
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var e auditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("audit log line %d: %w", n, err)
		}
		if e.User.Username != user || (e.Stage != "ResponseComplete" && e.Stage != "Panic") {
			continue
		}
		req := Request{At: e.Received, Verb: e.Verb}
		if e.ObjectRef != nil {
			req.Resource, req.Subresource, req.Name = e.ObjectRef.Resource, e.ObjectRef.Subresource, e.ObjectRef.Name
		}
		out = append(out, req)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading audit log: %w", err)
	}
	return out, nil
}

// schedulerMarks returns, per pod, when kube-scheduler's first status
// patch reached the API server: its unschedulable mark (it writes a
// binding, not a status, for a pod it places).
func schedulerMarks(reqs []Request) map[string]time.Time {
	out := map[string]time.Time{}
	for _, r := range reqs {
		if r.Verb != "patch" || r.Resource != "pods" || r.Subresource != "status" {
			continue
		}
		if at, ok := out[r.Name]; !ok || r.At.Before(at) {
			out[r.Name] = r.At
		}
	}
	return out
}

// nodeCreates are the autoscaler's node creations as increases of one node
// each: the fallback signal when its log reports no increase.
func nodeCreates(reqs []Request, after time.Time) []Increase {
	var out []Increase
	for _, r := range reqs {
		if r.Verb == "create" && r.Resource == "nodes" && r.Subresource == "" && r.At.After(after) {
			out = append(out, Increase{At: r.At, Group: "?", Delta: 1})
		}
	}
	return out
}
