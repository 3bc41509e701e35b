package machineapi

import (
	"context"
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kscale/kscale/internal/cloudprovider"
)

var mds = schema.GroupVersionResource{Group: "example.org", Version: "v1", Resource: "machinedeployments"}

func fakeMD(replicas int64) (*dynamicfake.FakeDynamicClient, *int) {
	md := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
	md.SetAPIVersion("example.org/v1")
	md.SetKind("MachineDeployment")
	md.SetNamespace("ns")
	md.SetName("md")
	md.SetResourceVersion("1")
	if replicas > 0 {
		_ = unstructured.SetNestedField(md.Object, replicas, "spec", "replicas")
	}
	c := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{mds: "MachineDeploymentList"}, md)
	patches := 0
	return c, &patches
}

func TestResize(t *testing.T) {
	tests := []struct {
		name      string
		start     int64
		conflicts int
		next      func(int) (int, error)
		want      int
		wantErr   bool
		patches   int
	}{
		{name: "absent replicas are 0", next: func(c int) (int, error) { return c + 2, nil }, want: 2, patches: 1},
		{name: "conflicts start over from a fresh read", start: 3, conflicts: 2, next: func(c int) (int, error) { return c - 1, nil }, want: 2, patches: 3},
		{name: "an error from next writes nothing", start: 1, wantErr: true, patches: 0,
			next: func(c int) (int, error) {
				return 0, &cloudprovider.SizeError{Group: "g", Requested: c - 2, Bound: cloudprovider.BoundBelowMin}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, patches := fakeMD(tc.start)
			left := tc.conflicts
			c.PrependReactor("patch", "machinedeployments", func(k8stesting.Action) (bool, runtime.Object, error) {
				*patches++
				if left > 0 {
					left--
					return true, nil, apierrors.NewConflict(mds.GroupResource(), "md", errors.New("changed"))
				}
				return false, nil, nil
			})
			got, err := Resize(context.Background(), c.Resource(mds).Namespace("ns"), "md", tc.next)
			if tc.wantErr {
				if !cloudprovider.IsSizeError(err) {
					t.Fatalf("Resize error %v, want the SizeError of next", err)
				}
			} else if err != nil || got != tc.want {
				t.Fatalf("Resize = %d, %v; want %d", got, err, tc.want)
			}
			if *patches != tc.patches {
				t.Errorf("%d patches, want %d", *patches, tc.patches)
			}
			obj, err := c.Resource(mds).Namespace("ns").Get(context.Background(), "md", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := ReplicasOf(obj); !tc.wantErr && n != tc.want {
				t.Errorf("replicas on the server %d, want %d", n, tc.want)
			}
		})
	}
}

type testGroup struct {
	ng    cloudprovider.NodeGroup
	insts []cloudprovider.Instance
}

func (g *testGroup) NodeGroup() cloudprovider.NodeGroup     { return g.ng }
func (g *testGroup) InstanceList() []cloudprovider.Instance { return g.insts }

func TestView(t *testing.T) {
	v := NewView([]*testGroup{{ng: cloudprovider.NodeGroup{ID: "b"}}, {ng: cloudprovider.NodeGroup{ID: "a"}, insts: []cloudprovider.Instance{{ID: "i-1"}}}})
	if gs := v.NodeGroups(); len(gs) != 2 || gs[0].ID != "a" || gs[1].ID != "b" {
		t.Errorf("NodeGroups = %+v, want a, b", gs)
	}
	insts, err := v.Instances("a")
	if err != nil || len(insts) != 1 {
		t.Fatalf("Instances(a) = %v, %v", insts, err)
	}
	insts[0].ID = "changed"
	if g, _ := v.Lookup("a"); g.insts[0].ID != "i-1" {
		t.Errorf("Instances returned the view's own slice")
	}
	if _, err := v.Instances("c"); !cloudprovider.IsNotFound(err) {
		t.Errorf("Instances(c) error %v, want not found", err)
	}
}
