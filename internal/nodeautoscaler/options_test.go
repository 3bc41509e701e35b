package nodeautoscaler

import (
	"context"
	"strings"
	"testing"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// badOptions reports one group's options as invalid, as a provider does
// for an unparsable annotation or tag.
type badOptions struct {
	cloudprovider.Provider
	group string
}

func (b badOptions) NodeGroups(ctx context.Context) ([]cloudprovider.NodeGroup, error) {
	gs, err := b.Provider.NodeGroups(ctx)
	for i := range gs {
		if gs[i].ID == b.group {
			gs[i].OptionsInvalid = `node group "ng-low": annotation x/scaledownunneededtime: "soon": not a duration`
		}
	}
	return gs, err
}

func TestInvalidGroupOptionsAreReported(t *testing.T) {
	a, cloud, _, rec, _, now := newLoop(t, nil)
	a.cfg.Provider = badOptions{Provider: cloud, group: "ng-low"}
	if err := a.RunOnce(t.Context(), now); err != nil {
		t.Fatal(err)
	}
	var got []Event
	for _, e := range *rec {
		if e.Type == EventNodeGroupOptionsInvalid {
			got = append(got, e)
		}
	}
	if len(got) != 1 || got[0].Group != "ng-low" || !strings.Contains(got[0].Message, "scaledownunneededtime") {
		t.Fatalf("events %+v, want one NodeGroupOptionsInvalid for ng-low naming the annotation", got)
	}
}
