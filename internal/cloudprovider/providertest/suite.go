package providertest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// Run checks the provider the harness starts against the contract. The
// steps run in order on one back-end, each leaving the group as it found
// it (target 1, one instance) unless it says otherwise.
func Run(t *testing.T, h Harness) {
	t.Helper()
	if h.Timeout == 0 {
		h.Timeout = 30 * time.Second
	}
	b := h.Start(t)
	s := &suite{b: b, timeout: h.Timeout, knowledge: h.Knowledge}
	s.real = s.settled(t).real
	steps := []struct {
		name string
		run  func(*testing.T)
	}{
		{"sizes and options", s.sizesAndOptions},
		{"instance knowledge matches upstream", s.instanceKnowledge},
		{"refresh is idempotent", s.idempotentRefresh},
		{"unknown ids are not found", s.notFound},
		{"above max is refused", s.aboveMax},
		{"below instances is refused", s.belowInstances},
		{"below min is refused", s.belowMin},
		{"api errors are typed", s.apiErrors},
		{"placeholders and their deletion", s.placeholders},
	}
	for _, st := range steps {
		if !t.Run(st.name, st.run) {
			return
		}
	}
}

type suite struct {
	b       *Backend
	timeout time.Duration
	// real is the id of the group's instance that exists.
	real string
	// knowledge is the harness's Knowledge.
	knowledge cloudprovider.InstanceKnowledge
}

// view is one refreshed look at the suite's group.
type view struct {
	group        cloudprovider.NodeGroup
	instances    []cloudprovider.Instance
	real         string
	placeholders []cloudprovider.Instance
}

// look refreshes the provider and reads the group and its instances.
func (s *suite) look(t *testing.T) view {
	t.Helper()
	ctx := t.Context()
	if err := s.b.Provider.Refresh(ctx); err != nil {
		t.Fatalf("Refresh: %v", err)
	}
	groups, err := s.b.Provider.NodeGroups(ctx)
	if err != nil {
		t.Fatalf("NodeGroups: %v", err)
	}
	i := slices.IndexFunc(groups, func(g cloudprovider.NodeGroup) bool { return g.ID == s.b.Group })
	if i < 0 {
		t.Fatalf("NodeGroups lists no group %q", s.b.Group)
	}
	insts, err := s.b.Provider.Instances(ctx, s.b.Group)
	if err != nil {
		t.Fatalf("Instances: %v", err)
	}
	v := view{group: groups[i], instances: insts}
	for _, in := range insts {
		switch {
		case in.Placeholder:
			v.placeholders = append(v.placeholders, in)
		case in.State != cloudprovider.InstanceDeleting && v.real == "":
			v.real = in.ID
		}
	}
	return v
}

// wait looks until cond holds or the harness's timeout passes.
func (s *suite) wait(t *testing.T, what string, cond func(view) bool) view {
	t.Helper()
	deadline := time.Now().Add(s.timeout)
	for {
		v := s.look(t)
		if cond(v) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s; group %+v, instances %s", s.timeout, what, v.group, describe(v.instances))
		}
		select {
		case <-t.Context().Done():
			t.Fatalf("test ended while waiting for %s", what)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// settled waits for the group's start state: target 1 and one instance
// that exists.
func (s *suite) settled(t *testing.T) view {
	t.Helper()
	return s.wait(t, "target 1 with one instance that exists", func(v view) bool {
		return v.group.TargetSize == 1 && len(v.instances) == 1 && v.real != ""
	})
}

// unchanged checks that a refused call left the group at its start state.
func (s *suite) unchanged(t *testing.T, call string) {
	t.Helper()
	v := s.look(t)
	if v.group.TargetSize != 1 || len(v.instances) != 1 || v.real != s.real {
		t.Errorf("after the refused %s: target %d, instances %s; want target 1 and instance %s alone", call, v.group.TargetSize, describe(v.instances), s.real)
	}
}

func describe(insts []cloudprovider.Instance) string {
	out := "["
	for i, in := range insts {
		if i > 0 {
			out += " "
		}
		out += fmt.Sprintf("%s=%s", in.ID, in.State)
		if in.Placeholder {
			out += "(placeholder)"
		}
		if in.Error != nil {
			out += "!" + string(in.Error.Class)
		}
	}
	return out + "]"
}

// wantBound checks that err is a SizeError with the bound and limit.
func wantBound(t *testing.T, call string, err error, bound cloudprovider.SizeBound, limit int) {
	t.Helper()
	got, ok := cloudprovider.SizeBoundOf(err)
	if !ok || got != bound {
		t.Fatalf("%s = %v, want a SizeError %q", call, err, bound)
	}
	var se *cloudprovider.SizeError
	if errors.As(err, &se) && se.Limit != limit {
		t.Errorf("%s: SizeError %+v, want limit %d", call, se, limit)
	}
}
