package nodeautoscaler

import (
	"slices"
	"testing"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// A failed or long-unregistered part of a zero-or-max group's scale-up
// takes the whole group with it, as upstream's deletion override does.
func TestWholeGroup(t *testing.T) {
	insts := []cloudprovider.Instance{{ID: "i-1", State: cloudprovider.InstanceRunning},
		{ID: "i-2", State: cloudprovider.InstanceDeleting}, {ID: "p-1", State: cloudprovider.InstanceCreating, Placeholder: true,
			Error: &cloudprovider.ErrorInfo{Class: cloudprovider.ErrorOutOfResources}}}
	obs := &observation{instances: map[string][]cloudprovider.Instance{"g": insts}}
	failed := insts[2:]
	tests := []struct {
		name string
		opts cloudprovider.Options
		want []string
	}{
		{"a plain group deletes what failed", cloudprovider.Options{}, []string{"p-1"}},
		{"a zero-or-max group deletes every instance not being deleted", cloudprovider.Options{ZeroOrMaxNodeScaling: true}, []string{"i-1", "p-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wholeGroup(cloudprovider.NodeGroup{ID: "g", Options: tt.opts}, failed, obs)
			var ids []string
			for _, inst := range got {
				ids = append(ids, inst.ID)
			}
			if !slices.Equal(ids, tt.want) {
				t.Fatalf("deletes %v, want %v", ids, tt.want)
			}
		})
	}
}
