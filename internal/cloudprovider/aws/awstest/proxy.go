package awstest

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Proxy sits between the SDK and moto and adds what moto lacks: scaling
// activities (moto always returns none), stocked-out groups whose desired
// capacity AWS accepts but cannot fulfil, throttling, and the instance
// types of attribute-based selection (GetInstanceTypesFromInstanceRequirements,
// requirements.go). Everything else passes through unchanged.
type Proxy struct {
	// URL is the proxy's endpoint.
	URL string

	upstream *httputil.ReverseProxy
	mu       sync.Mutex
	seq      int
	calls    map[string]int
	log      []string
	throttle map[string]int        // action -> throttled calls left
	stock    map[string]*stockout  // by group
	acts     map[string][]activity // by group, newest first
}

// stockout is a group that cannot launch past capacity instances.
type stockout struct {
	capacity int
	desired  int // what the caller asked for; moto got min(desired, capacity)
	message  string
	pending  bool // record no failed activity: the launches are only slow
}

// activity is one scaling activity as the Auto Scaling API returns it.
type activity struct {
	ActivityID    string    `xml:"ActivityId"`
	Group         string    `xml:"AutoScalingGroupName"`
	Description   string    `xml:"Description"`
	Cause         string    `xml:"Cause"`
	StartTime     time.Time `xml:"StartTime"`
	EndTime       time.Time `xml:"EndTime"`
	StatusCode    string    `xml:"StatusCode"`
	StatusMessage string    `xml:"StatusMessage,omitempty"`
	Progress      int       `xml:"Progress"`
}

// StartProxy serves the proxy on a loopback port until the test ends.
func StartProxy(tb testing.TB, motoURL string) *Proxy {
	tb.Helper()
	target, err := url.Parse(motoURL)
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{upstream: httputil.NewSingleHostReverseProxy(target), calls: map[string]int{}, throttle: map[string]int{},
		stock: map[string]*stockout{}, acts: map[string][]activity{}}
	srv := httptest.NewServer(p)
	tb.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// StockOut makes group unable to run more than capacity instances: a
// SetDesiredCapacity above it is accepted, the group reports the desired
// capacity without the instances, and a Failed activity with message
// explains it, as AWS does during a capacity shortage.
func (p *Proxy) StockOut(group string, capacity int, message string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stock[group] = &stockout{capacity: capacity, desired: -1, message: message}
}

// Hold keeps group at capacity instances as StockOut does, but records no
// activity for the missing ones, as AWS does while their launches are
// still in progress; tests add the activities they need with AddActivity.
func (p *Proxy) Hold(group string, capacity int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stock[group] = &stockout{capacity: capacity, desired: -1, pending: true}
}

// Throttle answers the next n calls of action with a Throttling error.
func (p *Proxy) Throttle(action string, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.throttle[action] = n
}

// AddActivity records a scaling activity of group (newest first).
func (p *Proxy) AddActivity(group, status, message string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.addActivityLocked(group, status, message, "")
}

// Calls returns how many requests of action reached the proxy.
func (p *Proxy) Calls(action string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[action]
}

// Log returns every request so far as "Action [group [desired]]", in
// order; with one discovery spec and under 100 groups, each loop's
// refresh is one DescribeAutoScalingGroups entry.
func (p *Proxy) Log() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.log...)
}

// Desired returns the desired capacity the proxy holds for a stocked-out
// group (-1 before any SetDesiredCapacity).
func (p *Proxy) Desired(group string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s := p.stock[group]; s != nil {
		return s.desired
	}
	return -1
}

func (p *Proxy) addActivityLocked(group, status, message, cause string) {
	p.seq++
	now := time.Now().UTC()
	desc := "Launching a new EC2 instance"
	if message != "" {
		desc += ".  Status Reason: " + message
	}
	a := activity{ActivityID: fmt.Sprintf("00000000-0000-4000-8000-%012d", p.seq), Group: group, Description: desc, Cause: cause,
		StartTime: now, EndTime: now, StatusCode: status, StatusMessage: message, Progress: 100}
	p.acts[group] = append([]activity{a}, p.acts[group]...)
}

// ServeHTTP dispatches on the Query protocol's Action.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	form, _ := url.ParseQuery(string(body))
	action := form.Get("Action")
	p.mu.Lock()
	p.calls[action]++
	entry := action
	if action == "" {
		entry = r.Method + " " + r.URL.Path // a REST API (EKS)
	}
	if g := form.Get("AutoScalingGroupName"); g != "" {
		entry += " " + g
	}
	if d := form.Get("DesiredCapacity"); d != "" {
		entry += " " + d
	}
	p.log = append(p.log, entry)
	throttled := p.throttle[action] > 0
	if throttled {
		p.throttle[action]--
	}
	p.mu.Unlock()
	switch {
	case throttled:
		writeError(w, http.StatusBadRequest, "Throttling", "Rate exceeded")
	case action == "DescribeScalingActivities":
		p.describeActivities(w, form)
	case action == "SetDesiredCapacity":
		p.setDesired(w, r, form, body)
	case action == "DescribeAutoScalingGroups":
		p.forward(w, r, p.rewriteDesired)
	case action == "GetInstanceTypesFromInstanceRequirements":
		p.instanceTypesFromRequirements(w, form)
	default:
		p.forward(w, r, nil)
	}
}

// setDesired holds back the capacity of stocked-out groups and records an
// activity for every change.
func (p *Proxy) setDesired(w http.ResponseWriter, r *http.Request, form url.Values, body []byte) {
	group := form.Get("AutoScalingGroupName")
	desired, err := strconv.Atoi(form.Get("DesiredCapacity"))
	if err != nil {
		writeError(w, http.StatusBadRequest, "ValidationError", "DesiredCapacity is not a number")
		return
	}
	p.mu.Lock()
	s := p.stock[group]
	cause := fmt.Sprintf("At %s a user request explicitly set group desired capacity changing the desired capacity to %d.", time.Now().UTC().Format(time.RFC3339), desired)
	if s != nil {
		if desired > s.capacity && desired > s.desired && !s.pending {
			p.addActivityLocked(group, "Failed", s.message, cause)
		}
		s.desired = desired
		form.Set("DesiredCapacity", strconv.Itoa(min(desired, s.capacity)))
		body = []byte(form.Encode())
	} else {
		p.addActivityLocked(group, "Successful", "", cause)
	}
	p.mu.Unlock()
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	r.Header.Set("Content-Length", strconv.Itoa(len(body)))
	p.forward(w, r, nil)
}

var groupNameRE = regexp.MustCompile(`<AutoScalingGroupName>([^<]*)</AutoScalingGroupName>`)

// rewriteDesired reports the held-back desired capacity of stocked-out
// groups in a DescribeAutoScalingGroups response.
func (p *Proxy) rewriteDesired(body []byte) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := string(body)
	for _, m := range groupNameRE.FindAllStringSubmatchIndex(out, -1) {
		s := p.stock[out[m[2]:m[3]]]
		if s == nil || s.desired < 0 {
			continue
		}
		rest := out[m[1]:]
		i := strings.Index(rest, "<DesiredCapacity>")
		j := strings.Index(rest, "</DesiredCapacity>")
		if i < 0 || j < i {
			continue
		}
		start := i + len("<DesiredCapacity>")
		out = out[:m[1]] + rest[:start] + strconv.Itoa(s.desired) + rest[j:]
	}
	return []byte(out)
}

func (p *Proxy) describeActivities(w http.ResponseWriter, form url.Values) {
	p.mu.Lock()
	acts := append([]activity(nil), p.acts[form.Get("AutoScalingGroupName")]...)
	p.mu.Unlock()
	if n, err := strconv.Atoi(form.Get("MaxRecords")); err == nil && n < len(acts) {
		acts = acts[:n]
	}
	type result struct {
		Activities []activity `xml:"Activities>member"`
	}
	type response struct {
		XMLName   xml.Name `xml:"DescribeScalingActivitiesResponse"`
		Xmlns     string   `xml:"xmlns,attr"`
		Result    result   `xml:"DescribeScalingActivitiesResult"`
		RequestID string   `xml:"ResponseMetadata>RequestId"`
	}
	writeXML(w, http.StatusOK, response{Xmlns: "http://autoscaling.amazonaws.com/doc/2011-01-01/", Result: result{Activities: acts}, RequestID: "kscale-proxy"})
}

// forward passes the request to moto, optionally rewriting the body of a
// successful response.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, rewrite func([]byte) []byte) {
	if rewrite == nil {
		p.upstream.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	r.Header.Del("Accept-Encoding")
	p.upstream.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	if rec.Code == http.StatusOK {
		body = rewrite(body)
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(rec.Code)
	_, _ = w.Write(body)
}

func writeError(w http.ResponseWriter, status int, code, message string) {
	type errorBody struct {
		Type    string `xml:"Type"`
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	type response struct {
		XMLName   xml.Name  `xml:"ErrorResponse"`
		Error     errorBody `xml:"Error"`
		RequestID string    `xml:"RequestId"`
	}
	writeXML(w, status, response{Error: errorBody{Type: "Sender", Code: code, Message: message}, RequestID: "kscale-proxy"})
}

func writeXML(w http.ResponseWriter, status int, v any) {
	out, err := xml.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(status)
	_, _ = w.Write(append([]byte(xml.Header), out...))
}
