package providertest_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/cloudprovider/providertest"
)

// breakEnv names the rule TestBrokenProvider breaks; it runs only as the
// child of TestSuiteCatchesBrokenProviders.
const breakEnv = "PROVIDERTEST_BREAK"

// TestSuiteCatchesBrokenProviders runs the suite, in a child process each,
// against the in-memory cloud with one rule of the contract broken, and
// checks the suite fails at the step that covers the rule.
func TestSuiteCatchesBrokenProviders(t *testing.T) {
	for rule, want := range map[string]struct{ step, msg string }{
		"bound":       {"below_min_is_refused", `want a SizeError "below min size"`},
		"notfound":    {"unknown_ids_are_not_found", "want a *NotFoundError"},
		"refresh":     {"refresh_is_idempotent", "a second Refresh changed the group"},
		"placeholder": {"placeholders_and_their_deletion", "for a new unit that reports out-of-resources"},
		"knowledge":   {"instance_knowledge_matches_upstream", "want knows-listed-instances"},
	} {
		t.Run(rule, func(t *testing.T) {
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestBrokenProvider$", "-test.v")
			cmd.Env = append(os.Environ(), breakEnv+"="+rule)
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), "--- FAIL: TestBrokenProvider/"+want.step) || !strings.Contains(string(out), want.msg) {
				t.Fatalf("suite with %s broken: err %v, want step %s to fail with %q; output:\n%s", rule, err, want.step, want.msg, out)
			}
		})
	}
}

// TestBrokenProvider is the child of TestSuiteCatchesBrokenProviders.
func TestBrokenProvider(t *testing.T) {
	rule := os.Getenv(breakEnv)
	if rule == "" {
		return // run as a child only
	}
	providertest.Run(t, providertest.Harness{Knowledge: cloudprovider.KnowsListedInstances, Timeout: time.Second, Start: func(t *testing.T) *providertest.Backend {
		c := inmemory.New(clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
		it, err := inmemory.LookupInstanceType("m5.large")
		if err != nil {
			t.Fatal(err)
		}
		unneeded := providertest.UnneededTime
		if err := c.AddGroup(inmemory.GroupConfig{ID: "g", MaxSize: providertest.GroupMax, Capacity: inmemory.Unlimited,
			Template: cloudprovider.Template{InstanceTypes: []cloudprovider.InstanceType{it}},
			Options:  cloudprovider.Options{ScaleDownUnneededTime: &unneeded}}); err != nil {
			t.Fatal(err)
		}
		if err := c.AddInstance("g", "", true, 0); err != nil {
			t.Fatal(err)
		}
		if err := c.UpdateGroup("g", func(g *inmemory.GroupConfig) { g.MinSize = providertest.GroupMin }); err != nil {
			t.Fatal(err)
		}
		return &providertest.Backend{Provider: &broken{Cloud: c, rule: rule}, Group: "g",
			StockOut: func(*testing.T) { _ = c.UpdateGroup("g", func(g *inmemory.GroupConfig) { g.Capacity = 0 }) },
			FailAPI: func(t *testing.T) {
				_ = c.SetAPIError("g", errors.New("throttled"))
				t.Cleanup(func() { _ = c.SetAPIError("g", nil) })
			}}
	}})
}

// broken is the in-memory cloud with one rule of the contract broken.
type broken struct {
	*inmemory.Cloud
	rule    string
	refresh int
}

func (b *broken) DeleteInstances(ctx context.Context, group string, ids []string) error {
	err := b.Cloud.DeleteInstances(ctx, group, ids)
	var se *cloudprovider.SizeError
	if b.rule == "bound" && errors.As(err, &se) {
		se.Bound = cloudprovider.BoundBelowInstances
	}
	if b.rule == "notfound" && cloudprovider.IsNotFound(err) {
		return errors.New("no such thing")
	}
	return err
}

func (b *broken) NodeGroups(ctx context.Context) ([]cloudprovider.NodeGroup, error) {
	gs, err := b.Cloud.NodeGroups(ctx)
	if b.rule == "refresh" && len(gs) > 0 {
		gs[0].ScaleDownBlocked = strings.Repeat("x", b.refresh)
	}
	return gs, err
}

func (b *broken) InstanceKnowledge() cloudprovider.InstanceKnowledge {
	if b.rule == "knowledge" {
		return cloudprovider.CannotTellInstances
	}
	return b.Cloud.InstanceKnowledge()
}

func (b *broken) Refresh(ctx context.Context) error {
	b.refresh++
	return b.Cloud.Refresh(ctx)
}

func (b *broken) Instances(ctx context.Context, group string) ([]cloudprovider.Instance, error) {
	insts, err := b.Cloud.Instances(ctx, group)
	if b.rule == "placeholder" {
		for i := range insts {
			insts[i].Error = nil
		}
	}
	return insts, err
}
