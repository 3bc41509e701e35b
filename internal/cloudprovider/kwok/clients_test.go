package kwok_test

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/cloudprovider/kwok"
)

// TestClientsSplit checks that the cloud's API calls (the targets) and the
// nodes its kubelets register go through their own clients, so a launch's
// node writes never queue in front of the next size change.
func TestClientsSplit(t *testing.T) {
	cfg, err := kwok.ParseCloudConfig([]byte(providerConfig))
	if err != nil {
		t.Fatal(err)
	}
	cloud, nodes := fake.NewClientset(), fake.NewClientset()
	record := func(c *fake.Clientset, into *[]string) {
		c.PrependReactor("*", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
			if a.GetVerb() != "get" && a.GetVerb() != "list" && a.GetVerb() != "watch" {
				*into = append(*into, a.GetVerb()+" "+a.GetResource().Resource)
			}
			return false, nil, nil
		})
	}
	var cloudWrites, nodeWrites []string
	record(cloud, &cloudWrites)
	record(nodes, &nodeWrites)
	clk := clocktesting.NewFakeClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	p, err := kwok.New(kwok.Config{Client: cloud, NodeClient: nodes, Clock: clk, NodeGroups: cfg.NodeGroups})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := p.Sync(t.Context()); err != nil { // the fixed group's node
		t.Fatal(err)
	}
	cloudWrites, nodeWrites = nil, nil
	if err := p.IncreaseSize(t.Context(), "pool", 2); err != nil {
		t.Fatal(err)
	}
	if err := p.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, w := range cloudWrites {
		if w != "update configmaps" && w != "create configmaps" {
			t.Errorf("cloud client wrote %q, want only the targets ConfigMap", w)
		}
	}
	if len(cloudWrites) == 0 {
		t.Error("the size change wrote no targets through the cloud client")
	}
	if len(nodeWrites) != 2 || nodeWrites[0] != "create nodes" || nodeWrites[1] != "create nodes" {
		t.Errorf("node client writes %v, want two node creations", nodeWrites)
	}
}
