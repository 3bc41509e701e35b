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
