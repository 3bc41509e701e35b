package live_test

import (
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
)

// The status ConfigMap costs one request per loop: the writer updates the
// object it last wrote; only a conflict with another writer (or a deleted
// ConfigMap) makes it read first.
func TestStatusWriteRequestsPerLoop(t *testing.T) {
	ctx := t.Context()
	client := fake.NewClientset()
	var verbs []string
	conflict := false // the next update loses to another writer
	client.PrependReactor("*", "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
		verbs = append(verbs, a.GetVerb())
		if a.GetVerb() == "update" && conflict {
			conflict = false
			return true, nil, apierrors.NewConflict(corev1.Resource("configmaps"), live.StatusConfigMapName, errors.New("changed"))
		}
		return false, nil, nil
	})
	w := live.NewStatusWriter(client, "kube-system")
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	write := func() []string {
		t.Helper()
		verbs = nil
		now = now.Add(time.Second)
		if err := w.Write(ctx, w.Document(live.StatusInput{Now: now, Running: true}), now); err != nil {
			t.Fatal(err)
		}
		return verbs
	}
	steps := []struct {
		name   string
		before func()
		want   []string
	}{
		{name: "first write creates", want: []string{"get", "create"}},
		{name: "next write updates only", want: []string{"update"}},
		{name: "and the next", want: []string{"update"}},
		{name: "another writer changed it", before: func() { conflict = true }, want: []string{"update", "get", "update"}},
		{name: "back to one request", want: []string{"update"}},
		{name: "someone deleted it", before: func() {
			if err := client.CoreV1().ConfigMaps("kube-system").Delete(ctx, live.StatusConfigMapName, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}, want: []string{"update", "get", "create"}},
		{name: "back to one request", want: []string{"update"}},
	}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		if got := write(); !equal(got, s.want) {
			t.Errorf("%s: requests %v, want %v", s.name, got, s.want)
		}
	}
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

// With Refresh, a loop whose status differs from the last write only in
// its probe times writes nothing until the last write is the refresh
// interval old; a change in the status is written at once.
func TestStatusWriteRefresh(t *testing.T) {
	ctx := t.Context()
	client := fake.NewClientset()
	writes := 0
	client.PrependReactor("*", "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetVerb() == "update" || a.GetVerb() == "create" {
			writes++
		}
		return false, nil, nil
	})
	w := live.NewStatusWriter(client, "kube-system").Refresh(10 * time.Second)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	steps := []struct {
		name          string
		at            time.Duration
		running       bool
		ready, target int
		want          int
	}{
		{name: "first write", at: 0, want: 1},
		{name: "status changed: written at once", at: 100 * time.Millisecond, running: true, want: 2},
		{name: "only the probe times changed", at: 200 * time.Millisecond, running: true, want: 2},
		{name: "a target size changed: written at once", at: 300 * time.Millisecond, running: true, target: 2, want: 3},
		{name: "only the node counts changed", at: 400 * time.Millisecond, running: true, ready: 1, target: 2, want: 3},
		{name: "still only the probe times and counts", at: 10 * time.Second, running: true, ready: 2, target: 2, want: 3},
		{name: "the last write is the refresh interval old", at: 10300 * time.Millisecond, running: true, ready: 2, target: 2, want: 4},
	}
	for _, s := range steps {
		now := start.Add(s.at)
		groups := []clusterstate.GroupState{{Group: cloudprovider.NodeGroup{ID: "g", MaxSize: 5, TargetSize: s.target},
			Readiness: clusterstate.Readiness{Ready: s.ready}}}
		if err := w.Write(ctx, w.Document(live.StatusInput{Now: now, Running: s.running, Groups: groups}), now); err != nil {
			t.Fatal(err)
		}
		if writes != s.want {
			t.Errorf("%s: %d writes, want %d", s.name, writes, s.want)
		}
	}
	cm, err := client.CoreV1().ConfigMaps("kube-system").Get(ctx, live.StatusConfigMapName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cm.Annotations[live.LastUpdatedAnnotation], start.Add(10300*time.Millisecond).Format("2006-01-02 15:04:05.999999999 -0700 MST"); got != want {
		t.Errorf("last-updated %q, want %q", got, want)
	}
}
