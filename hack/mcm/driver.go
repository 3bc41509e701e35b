package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/gardener/machine-controller-manager/pkg/util/provider/driver"
	"github.com/gardener/machine-controller-manager/pkg/util/provider/machinecodes/codes"
	"github.com/gardener/machine-controller-manager/pkg/util/provider/machinecodes/status"
)

// deploymentLabel is the label Gardener gives a MachineDeployment's
// Machines: the deployment's name.
const deploymentLabel = "name"

// cloudDriver is MCM's driver over the test cloud's HTTP API. Every
// request and answer is JSON; a failed call answers a non-200 status with
// a cloudError, whose code is an MCM machine code name (NotFound,
// ResourceExhausted, ...).
type cloudDriver struct {
	base   string
	client *http.Client
}

var _ driver.Driver = (*cloudDriver)(nil)

func newDriver(base string) *cloudDriver {
	return &cloudDriver{base: base, client: &http.Client{Timeout: 30 * time.Second}}
}

// instance is the cloud's view of a machine's instance.
type instance struct {
	ProviderID string `json:"providerID"`
	NodeName   string `json:"nodeName"`
}

// createRequest asks the cloud for an instance of a Machine.
type createRequest struct {
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
	Class      string `json:"class"`
	Deployment string `json:"deployment"`
}

// cloudError is the cloud's answer to a failed call.
type cloudError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// listResponse maps provider ids to machine names.
type listResponse struct {
	Instances map[string]string `json:"instances"`
}

// CreateMachine asks the cloud for the Machine's instance.
func (d *cloudDriver) CreateMachine(ctx context.Context, req *driver.CreateMachineRequest) (*driver.CreateMachineResponse, error) {
	m := req.Machine
	body := createRequest{Namespace: m.Namespace, Name: m.Name, Class: req.MachineClass.Name, Deployment: m.Labels[deploymentLabel]}
	var out instance
	if err := d.call(ctx, http.MethodPost, "/instances", body, &out); err != nil {
		return nil, err
	}
	return &driver.CreateMachineResponse{ProviderID: out.ProviderID, NodeName: out.NodeName}, nil
}

// InitializeMachine is not needed: the cloud's instances need no second step.
func (d *cloudDriver) InitializeMachine(context.Context, *driver.InitializeMachineRequest) (*driver.InitializeMachineResponse, error) {
	return nil, status.Error(codes.Unimplemented, "the test cloud has no initialization step")
}

// DeleteMachine releases the Machine's instance; releasing one that is
// gone succeeds.
func (d *cloudDriver) DeleteMachine(ctx context.Context, req *driver.DeleteMachineRequest) (*driver.DeleteMachineResponse, error) {
	if err := d.call(ctx, http.MethodDelete, d.path(req.Machine.Namespace, req.Machine.Name), nil, nil); err != nil {
		return nil, err
	}
	return &driver.DeleteMachineResponse{}, nil
}

// GetMachineStatus returns the Machine's instance or NotFound.
func (d *cloudDriver) GetMachineStatus(ctx context.Context, req *driver.GetMachineStatusRequest) (*driver.GetMachineStatusResponse, error) {
	var out instance
	if err := d.call(ctx, http.MethodGet, d.path(req.Machine.Namespace, req.Machine.Name), nil, &out); err != nil {
		return nil, err
	}
	return &driver.GetMachineStatusResponse{ProviderID: out.ProviderID, NodeName: out.NodeName}, nil
}

// ListMachines returns the class's instances, for MCM's orphan collection.
func (d *cloudDriver) ListMachines(ctx context.Context, req *driver.ListMachinesRequest) (*driver.ListMachinesResponse, error) {
	var out listResponse
	q := url.Values{"namespace": {req.MachineClass.Namespace}, "class": {req.MachineClass.Name}}
	if err := d.call(ctx, http.MethodGet, "/instances?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	return &driver.ListMachinesResponse{MachineList: out.Instances}, nil
}

// GetVolumeIDs returns none: the test cloud has no volumes.
func (d *cloudDriver) GetVolumeIDs(context.Context, *driver.GetVolumeIDsRequest) (*driver.GetVolumeIDsResponse, error) {
	return &driver.GetVolumeIDsResponse{}, nil
}

func (d *cloudDriver) path(namespace, name string) string {
	return "/instances/" + url.PathEscape(namespace) + "/" + url.PathEscape(name)
}

// call sends in (if not nil) as JSON and decodes a 200 answer into out
// (if not nil); any other answer becomes an MCM status error with the
// cloud's code, a transport failure Unavailable.
func (d *cloudDriver) call(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		raw, err := json.Marshal(in)
		if err != nil {
			return status.Error(codes.Internal, fmt.Sprintf("encoding the request: %v", err))
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, d.base+path, body)
	if err != nil {
		return status.Error(codes.Internal, fmt.Sprintf("building the request: %v", err))
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := d.client.Do(req)
	if err != nil {
		return status.Error(codes.Unavailable, fmt.Sprintf("calling the test cloud: %v", err))
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return status.Error(codes.Unavailable, fmt.Sprintf("reading the test cloud's answer: %v", err))
	}
	if resp.StatusCode != http.StatusOK {
		var ce cloudError
		if json.Unmarshal(raw, &ce) != nil || ce.Code == "" {
			return status.Error(codes.Internal, fmt.Sprintf("%s %s: %s: %s", method, path, resp.Status, raw))
		}
		return status.Error(codes.StringToCode(ce.Code), ce.Message)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return status.Error(codes.Internal, fmt.Sprintf("decoding the test cloud's answer: %v", err))
	}
	return nil
}
