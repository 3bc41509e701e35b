package providertest

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/kscale/kscale/internal/cloudprovider"
)

func (s *suite) sizesAndOptions(t *testing.T) {
	g := s.look(t).group
	if g.MinSize != GroupMin || g.MaxSize != GroupMax || g.TargetSize != 1 {
		t.Errorf("group %q: min %d max %d target %d, want %d, %d, 1", g.ID, g.MinSize, g.MaxSize, g.TargetSize, GroupMin, GroupMax)
	}
	if g.OptionsInvalid != "" {
		t.Errorf("group %q: options invalid: %s", g.ID, g.OptionsInvalid)
	}
	if u := g.Options.ScaleDownUnneededTime; u == nil || *u != UnneededTime {
		t.Errorf("group %q: options %+v, want scaledownunneededtime %v", g.ID, g.Options, UnneededTime)
	}
}

// instanceKnowledge checks the provider declares a defined instance
// knowledge, the one upstream's provider for the same cloud has, and that
// it vouches for the instance that exists whenever it can tell at all.
func (s *suite) instanceKnowledge(t *testing.T) {
	k := s.b.Provider.InstanceKnowledge()
	if !k.Valid() || k != s.knowledge {
		t.Fatalf("InstanceKnowledge = %v, want %v (upstream's HasInstance on the same cloud)", k, s.knowledge)
	}
	if k != cloudprovider.CannotTellInstances && !k.Vouches(slices.ContainsFunc(s.look(t).instances, func(in cloudprovider.Instance) bool { return in.ID == s.real })) {
		t.Errorf("%v does not vouch for the listed instance %s", k, s.real)
	}
}

func (s *suite) idempotentRefresh(t *testing.T) {
	first, second := s.look(t), s.look(t)
	if !reflect.DeepEqual(first.group, second.group) {
		t.Errorf("a second Refresh changed the group:\n%+v\n%+v", first.group, second.group)
	}
	if !reflect.DeepEqual(first.instances, second.instances) {
		t.Errorf("a second Refresh changed the instances: %s, then %s", describe(first.instances), describe(second.instances))
	}
}

func (s *suite) notFound(t *testing.T) {
	ctx, p, g := t.Context(), s.b.Provider, s.b.Group
	const missing = "providertest-no-such-group"
	calls := map[string]error{}
	_, calls["Instances of an unknown group"] = p.Instances(ctx, missing)
	calls["IncreaseSize of an unknown group"] = p.IncreaseSize(ctx, missing, 1)
	calls["DecreaseTargetSize of an unknown group"] = p.DecreaseTargetSize(ctx, missing, 1)
	calls["DeleteInstances of an unknown group"] = p.DeleteInstances(ctx, missing, []string{s.real})
	calls["DeleteInstances of an unknown instance"] = p.DeleteInstances(ctx, g, []string{"providertest-no-such-instance"})
	for call, err := range calls {
		var nf *cloudprovider.NotFoundError
		if !errors.As(err, &nf) || !cloudprovider.IsNotFound(err) {
			t.Errorf("%s = %v, want a *NotFoundError", call, err)
		}
	}
	s.unchanged(t, "calls with unknown ids")
}

func (s *suite) aboveMax(t *testing.T) {
	err := s.b.Provider.IncreaseSize(t.Context(), s.b.Group, GroupMax)
	wantBound(t, "IncreaseSize to max+1", err, cloudprovider.BoundAboveMax, GroupMax)
	s.unchanged(t, "IncreaseSize")
}

func (s *suite) belowInstances(t *testing.T) {
	err := s.b.Provider.DecreaseTargetSize(t.Context(), s.b.Group, 1)
	wantBound(t, "DecreaseTargetSize below the existing instance", err, cloudprovider.BoundBelowInstances, 1)
	s.unchanged(t, "DecreaseTargetSize")
}

func (s *suite) belowMin(t *testing.T) {
	err := s.b.Provider.DeleteInstances(t.Context(), s.b.Group, []string{s.real})
	wantBound(t, "DeleteInstances below the min size", err, cloudprovider.BoundBelowMin, GroupMin)
	s.unchanged(t, "DeleteInstances")
}

func (s *suite) apiErrors(t *testing.T) {
	s.b.FailAPI(t)
	err := s.b.Provider.IncreaseSize(t.Context(), s.b.Group, 1)
	if !cloudprovider.IsAPIError(err) || cloudprovider.IsSizeError(err) || cloudprovider.IsNotFound(err) {
		t.Fatalf("IncreaseSize while the API fails = %v, want an *APIError only", err)
	}
	s.unchanged(t, "IncreaseSize")
}

// placeholders raises the target while the cloud is out of stock: the new
// unit (a placeholder, or a failed machine where the back-end makes them)
// reports out-of-resources, and deleting it lowers the target without
// touching the instance that exists.
func (s *suite) placeholders(t *testing.T) {
	s.b.StockOut(t)
	if err := s.b.Provider.IncreaseSize(t.Context(), s.b.Group, 1); err != nil {
		t.Fatalf("IncreaseSize by 1: %v", err)
	}
	var failed cloudprovider.Instance
	v := s.wait(t, "a new unit that reports out-of-resources", func(v view) bool {
		for _, in := range v.instances {
			if in.ID != s.real && in.Error != nil && in.Error.Class == cloudprovider.ErrorOutOfResources {
				failed = in
				return true
			}
		}
		return false
	})
	if v.group.TargetSize != 2 || len(v.instances) != 2 {
		t.Fatalf("after IncreaseSize: target %d, instances %s; want target 2, %s and the new unit", v.group.TargetSize, describe(v.instances), s.real)
	}
	if failed.Placeholder == s.b.FailedMachines || failed.State != cloudprovider.InstanceCreating {
		t.Errorf("new unit %s: placeholder %v, state %s; want placeholder %v, state %s",
			failed.ID, failed.Placeholder, failed.State, !s.b.FailedMachines, cloudprovider.InstanceCreating)
	}
	if err := s.b.Provider.DeleteInstances(t.Context(), s.b.Group, []string{failed.ID}); err != nil {
		t.Fatalf("deleting %s: %v", failed.ID, err)
	}
	s.wait(t, "target 1 with the existing instance alone", func(v view) bool {
		return v.group.TargetSize == 1 && len(v.instances) == 1 && v.real == s.real
	})
}
