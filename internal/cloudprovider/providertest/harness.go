// Package providertest is the contract suite of cloudprovider.Provider:
// Run checks one provider on its test back-end (the in-memory cloud, kwok
// on a real API server, AWS on moto, Cluster API and MCM on their CRDs)
// against the rules provider.go documents: sizes and their refusals with
// typed bounds, placeholders and their deletion, not-found ids, idempotent
// refresh, per-group options, the error classes and the instance knowledge
// upstream's provider for the same cloud has. Each provider's tests
// call Run with a Harness that builds the suite's node group its own way.
package providertest

import (
	"testing"
	"time"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// The node group every Harness builds.
const (
	// GroupMin is the group's min size.
	GroupMin = 1
	// GroupMax is the group's max size.
	GroupMax = 3
	// UnneededTime is the group's own scaledownunneededtime option, written
	// the way the provider reads per-group options (tags, annotations).
	UnneededTime = 7 * time.Minute
)

// Harness starts one provider on its test back-end.
type Harness struct {
	// Start brings up the back-end and a provider that manages one node
	// group with min size GroupMin, max size GroupMax, target size 1 and
	// one instance that exists (running or creating, not a placeholder),
	// carrying the option UnneededTime. The back-end is stopped by the
	// test's cleanup.
	Start func(t *testing.T) *Backend
	// Knowledge is what upstream's provider for the same cloud answers to
	// HasInstance (see cloudprovider.InstanceKnowledge); the provider must
	// declare the same, so --deleted-nodes-from-cloud-instances counts
	// deleted nodes as upstream does on that cloud.
	Knowledge cloudprovider.InstanceKnowledge
	// Timeout bounds each wait for the back-end to act on a change (a
	// machine controller, a scaling activity); default 30s.
	Timeout time.Duration
}

// Backend is a started provider and the faults the suite injects.
type Backend struct {
	// Provider is the provider under test.
	Provider cloudprovider.Provider
	// Group is the id of the suite's node group.
	Group string
	// StockOut makes the back-end unable to deliver more machines to the
	// group: capacity requested from now on reports an ErrorInfo of class
	// ErrorOutOfResources once the provider has noticed, on a placeholder
	// or, with FailedMachines, on a failed machine.
	StockOut func(t *testing.T)
	// FailedMachines says the back-end turns capacity it cannot deliver
	// into failed machines (a machine controller's Failed Machine) rather
	// than leaving it a placeholder (an auto scaling group's desired
	// capacity without an instance).
	FailedMachines bool
	// FailAPI makes the back-end's API fail the group's next IncreaseSize
	// as an outage or throttling would.
	FailAPI func(t *testing.T)
}
