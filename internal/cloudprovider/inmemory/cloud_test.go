package inmemory

import (
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/cloudprovider"
)

func newTestCloud(t *testing.T, capacity int) (*Cloud, *clocktesting.FakeClock) {
	t.Helper()
	clk := clocktesting.NewFakeClock(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	c := New(clk)
	it, err := LookupInstanceType("m5.xlarge")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddGroup(GroupConfig{ID: "ng-1", MaxSize: 5, BootTime: time.Minute, Capacity: capacity,
		Template: cloudprovider.Template{InstanceTypes: []cloudprovider.InstanceType{it}, Zones: []string{"z1"}}}); err != nil {
		t.Fatal(err)
	}
	return c, clk
}

func states(t *testing.T, c *Cloud) []string {
	t.Helper()
	insts, err := c.Instances(t.Context(), "ng-1")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, i := range insts {
		s := string(i.State)
		if i.Placeholder {
			s = "placeholder"
		}
		if i.Error != nil {
			s += ":" + i.Error.Code
		}
		out = append(out, i.ID+"="+s)
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestInstanceLifecycle(t *testing.T) {
	c, clk := newTestCloud(t, 1)
	if err := c.IncreaseSize(t.Context(), "ng-1", 2); err != nil {
		t.Fatal(err)
	}
	if got, want := states(t, c), []string{"i-1=creating", "ng-1-placeholder-0=placeholder"}; !equal(got, want) {
		t.Fatalf("after increase: got %v want %v", got, want)
	}
	clk.Step(time.Minute)
	if got, want := states(t, c), []string{"i-1=running", "ng-1-placeholder-0=placeholder"}; !equal(got, want) {
		t.Fatalf("after boot: got %v want %v", got, want)
	}
	if err := c.SetCreationError("ng-1", cloudprovider.ErrorInfo{Class: cloudprovider.ErrorOutOfResources, Code: "Stockout"}); err != nil {
		t.Fatal(err)
	}
	if got, want := states(t, c), []string{"i-1=running", "ng-1-placeholder-0=placeholder:Stockout"}; !equal(got, want) {
		t.Fatalf("with error: got %v want %v", got, want)
	}
	if err := c.DeleteInstances(t.Context(), "ng-1", []string{"ng-1-placeholder-0", "i-1"}); err != nil {
		t.Fatal(err)
	}
	if got := states(t, c); len(got) != 0 {
		t.Fatalf("after delete: got %v want none", got)
	}
}

func TestExternalChanges(t *testing.T) {
	c, _ := newTestCloud(t, 0)
	ctx := t.Context()
	if err := c.IncreaseSize(ctx, "ng-1", 1); err != nil {
		t.Fatal(err)
	}
	if err := c.AddInstance("ng-1", "i-manual", false, 0); err != nil {
		t.Fatal(err)
	}
	if got, want := states(t, c), []string{"i-manual=running"}; !equal(got, want) {
		t.Fatalf("manual instance: got %v want %v", got, want)
	}
	if err := c.UpdateGroup("ng-1", func(g *GroupConfig) { g.MaxSize = 1 }); err != nil {
		t.Fatal(err)
	}
	if err := c.IncreaseSize(ctx, "ng-1", 1); !cloudprovider.IsSizeError(err) {
		t.Fatalf("max lowered: got %v", err)
	}
	if err := c.SetTargetSize("ng-1", 0); err != nil {
		t.Fatal(err)
	}
	if got := states(t, c); len(got) != 0 {
		t.Fatalf("target reset: got %v", got)
	}
	if err := c.RemoveGroup("ng-1"); err != nil {
		t.Fatal(err)
	}
	groups, err := c.NodeGroups(ctx)
	if err != nil || len(groups) != 0 {
		t.Fatalf("groups after removal: %v %v", groups, err)
	}
}

func TestLookupInstanceType(t *testing.T) {
	it, err := LookupInstanceType("p2.16xlarge")
	if err != nil {
		t.Fatal(err)
	}
	if got := it.Capacity[ResourceGPU]; got.Value() != 16 {
		t.Fatalf("gpu: got %v", got.String())
	}
	if _, err := LookupInstanceType("x9.huge"); err == nil {
		t.Fatal("unknown type accepted")
	}
}

func TestChanges(t *testing.T) {
	c, clk := newTestCloud(t, Unlimited)
	gen0, next := c.Changes()
	if !next.IsZero() {
		t.Fatalf("nothing pending, next %v", next)
	}
	if _, err := c.Instances(t.Context(), "ng-1"); err != nil {
		t.Fatal(err)
	}
	if gen, _ := c.Changes(); gen != gen0 {
		t.Fatal("a read changed the generation")
	}
	if err := c.IncreaseSize(t.Context(), "ng-1", 1); err != nil {
		t.Fatal(err)
	}
	gen1, next := c.Changes()
	if gen1 == gen0 || !next.Equal(clk.Now().Add(time.Minute)) {
		t.Fatalf("after increase: gen %d->%d, next %v", gen0, gen1, next)
	}
}

func TestInstanceRefresh(t *testing.T) {
	c, clk := newTestCloud(t, 0)
	c.SetInstanceRefresh(time.Minute)
	ctx := t.Context()
	if err := c.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.IncreaseSize(ctx, "ng-1", 1); err != nil {
		t.Fatal(err)
	}
	if got := states(t, c); len(got) != 0 {
		t.Fatalf("cached view changed before the interval: %v", got)
	}
	clk.Step(30 * time.Second)
	if err := c.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if got := states(t, c); len(got) != 0 {
		t.Fatalf("refreshed too early: %v", got)
	}
	clk.Step(30 * time.Second)
	if err := c.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := states(t, c), []string{"ng-1-placeholder-0=placeholder"}; !equal(got, want) {
		t.Fatalf("after the interval: got %v want %v", got, want)
	}
	if err := c.DeleteInstances(ctx, "ng-1", []string{"ng-1-placeholder-0"}); err != nil {
		t.Fatal(err)
	}
	if got := states(t, c); len(got) != 0 {
		t.Fatalf("a deletion must invalidate the view: %v", got)
	}
}
