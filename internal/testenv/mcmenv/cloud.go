package mcmenv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/kscale/kscale/internal/testenv/machinesim"
)

// CloudConfig configures the test cloud.
type CloudConfig struct {
	// Workload reaches the target cluster where the Nodes register.
	Workload kubernetes.Interface
	// Timing is the boot time, loop interval and provider id prefix.
	machinesim.Timing
	// Shapes are the Nodes of each MachineDeployment, by
	// "<namespace>/<name>".
	Shapes map[string]machinesim.Shape
}

// Cloud is the test cloud behind MCM's machine controller: the driver
// (hack/mcm/driver.go) calls its HTTP API to create, look up, list and
// delete instances. An instance is named as its Machine; its Node, named
// the same, registers after BootTime.
type Cloud struct {
	cfg CloudConfig
	// The Ledger's Fail takes a MachineDeployment ("<namespace>/<name>"):
	// creating an instance of its Machines fails with the failure's
	// reason as the MCM machine code (ResourceExhausted, ...) and its
	// message; its Deleted lists every instance (so every Machine)
	// released, as "<namespace>/<name>".
	machinesim.Ledger

	mu        sync.Mutex
	instances map[string]*instance
	rejected  []string
}

// instance is one of the cloud's instances.
type instance struct {
	namespace, name, class, deployment string
	providerID                         string
	created                            time.Time
	registered                         bool
}

// createRequest is the driver's request for a Machine's instance.
type createRequest struct {
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
	Class      string `json:"class"`
	Deployment string `json:"deployment"`
}

// instanceResponse is an instance as the driver reads it.
type instanceResponse struct {
	ProviderID string `json:"providerID"`
	NodeName   string `json:"nodeName"`
}

// cloudError is a failed call's answer: an MCM machine code and a message.
type cloudError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// NewCloud returns a cloud; Serve starts its API and Run its boot loop.
func NewCloud(cfg CloudConfig) (*Cloud, error) {
	if cfg.Workload == nil {
		return nil, errors.New("mcmenv: CloudConfig.Workload is required")
	}
	cfg.Timing = cfg.WithDefaults()
	return &Cloud{cfg: cfg, instances: map[string]*instance{}}, nil
}

// Handler returns the cloud's HTTP API.
func (c *Cloud) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /instances", c.create)
	mux.HandleFunc("GET /instances", c.list)
	mux.HandleFunc("GET /instances/{namespace}/{name}", c.get)
	mux.HandleFunc("DELETE /instances/{namespace}/{name}", c.delete)
	return mux
}

// Serve serves the API on a loopback port until ctx ends and returns its
// base URL.
func (c *Cloud) Serve(ctx context.Context) (string, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("listening for the test cloud's API: %w", err)
	}
	srv := &http.Server{Handler: c.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	return "http://" + ln.Addr().String(), nil
}

// Run registers the Nodes of booted instances until ctx ends.
func (c *Cloud) Run(ctx context.Context) { c.Loop(ctx, c.cfg.Interval, c.Reconcile) }

// Reconcile registers the Node of every instance whose boot time is up.
func (c *Cloud) Reconcile(ctx context.Context) error {
	var errs []error
	for _, in := range c.booted() {
		spec := machinesim.NodeSpec{Name: in.name, ProviderID: in.providerID, Shape: c.cfg.Shapes[in.namespace+"/"+in.deployment]}
		if err := machinesim.RegisterNode(ctx, c.cfg.Workload, spec); err != nil {
			errs = append(errs, err)
			continue
		}
		c.mu.Lock()
		if cur, ok := c.instances[in.namespace+"/"+in.name]; ok && cur.providerID == in.providerID {
			cur.registered = true
		}
		c.mu.Unlock()
	}
	return errors.Join(errs...)
}

// booted returns copies of the instances that are due to register.
func (c *Cloud) booted() []instance {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []instance
	for _, in := range c.instances {
		if !in.registered && time.Since(in.created) >= c.cfg.BootTime {
			out = append(out, *in)
		}
	}
	return out
}

// create starts the Machine's instance, or fails as the Ledger says; an
// instance that exists is returned as it is.
func (c *Cloud) create(w http.ResponseWriter, r *http.Request) {
	var req createRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, cloudError{Code: "InvalidArgument", Message: fmt.Sprintf("decoding a create request: %v", err)})
		return
	}
	if req.Namespace == "" || req.Name == "" {
		writeError(w, http.StatusBadRequest, cloudError{Code: "InvalidArgument", Message: "a create request needs namespace and name"})
		return
	}
	key := req.Namespace + "/" + req.Name
	if f, failing, _ := c.Booting(req.Namespace+"/"+req.Deployment, types.UID(key)); failing {
		c.mu.Lock()
		c.rejected = append(c.rejected, key)
		c.mu.Unlock()
		writeError(w, http.StatusServiceUnavailable, cloudError{Code: f.Reason, Message: f.Message})
		return
	}
	c.mu.Lock()
	in, ok := c.instances[key]
	if !ok {
		in = &instance{namespace: req.Namespace, name: req.Name, class: req.Class, deployment: req.Deployment,
			providerID: c.cfg.ProviderIDPrefix + key, created: time.Now()}
		c.instances[key] = in
	}
	resp := instanceResponse{ProviderID: in.providerID, NodeName: in.name}
	c.mu.Unlock()
	writeJSON(w, resp)
}

// get returns an instance or NotFound.
func (c *Cloud) get(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("namespace") + "/" + r.PathValue("name")
	c.mu.Lock()
	in, ok := c.instances[key]
	var resp instanceResponse
	if ok {
		resp = instanceResponse{ProviderID: in.providerID, NodeName: in.name}
	}
	c.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, cloudError{Code: "NotFound", Message: "no instance " + key})
		return
	}
	writeJSON(w, resp)
}

// delete releases an instance; releasing one that is gone succeeds. The
// Node stays: removing it is MCM's part.
func (c *Cloud) delete(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("namespace") + "/" + r.PathValue("name")
	c.mu.Lock()
	_, ok := c.instances[key]
	delete(c.instances, key)
	c.mu.Unlock()
	if ok {
		c.Released(key)
	}
	writeJSON(w, struct{}{})
}

// list returns the provider ids and names of a class's instances.
func (c *Cloud) list(w http.ResponseWriter, r *http.Request) {
	ns, class := r.URL.Query().Get("namespace"), r.URL.Query().Get("class")
	out := map[string]string{}
	c.mu.Lock()
	for _, in := range c.instances {
		if in.namespace == ns && in.class == class {
			out[in.providerID] = in.name
		}
	}
	c.mu.Unlock()
	writeJSON(w, map[string]any{"instances": out})
}

// Instances returns "<namespace>/<name>" of every instance, sorted.
func (c *Cloud) Instances() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.instances))
	for key := range c.instances {
		out = append(out, key)
	}
	slices.Sort(out)
	return out
}

// Rejected returns "<namespace>/<name>" of every Machine whose instance
// the cloud refused to create (a failing deployment's), in order, with
// repeats when MCM retried.
func (c *Cloud) Rejected() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.rejected)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, e cloudError) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(e)
}
