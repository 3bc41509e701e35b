package memcluster

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
)

func testPod(name, uid string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID(uid)},
		Spec: corev1.PodSpec{NodeName: "n1"}}
}

// TestEvictionStamps checks what readers see of an evicted pod: the
// deletion timestamp of the eviction on a new object (the stored one is
// never changed), through every read, until the grace period ends.
func TestEvictionStamps(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ctx := context.Background()
	tests := []struct {
		name string
		read func(c *Cluster) *corev1.Pod
	}{
		{"GetPod", func(c *Cluster) *corev1.Pod {
			p, err := c.GetPod(ctx, "default", "a")
			if err != nil {
				t.Fatal(err)
			}
			return p
		}},
		{"Pods", func(c *Cluster) *corev1.Pod { return c.Pods()[0] }},
		{"PodsOnNode", func(c *Cluster) *corev1.Pod {
			ps, err := c.PodsOnNode(ctx, "n1")
			if err != nil {
				t.Fatal(err)
			}
			return ps[0]
		}},
		{"Tick", func(c *Cluster) *corev1.Pod { c.Tick(now.Add(time.Second)); return c.Pods()[0] }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(now)
			orig := testPod("a", "u1")
			c.AddPod(orig, time.Time{})
			c.AddPod(testPod("b", "u2"), time.Time{})
			if err := c.EvictPod(ctx, orig, 30); err != nil {
				t.Fatal(err)
			}
			c.Tick(now.Add(time.Second)) // the timestamp is the eviction's time, not the read's
			got := tt.read(c)
			if got == orig || orig.DeletionTimestamp != nil {
				t.Fatal("the stored pod was changed in place")
			}
			if got.DeletionTimestamp == nil || !got.DeletionTimestamp.Time.Equal(now) {
				t.Fatalf("deletion timestamp %v, want %v", got.DeletionTimestamp, now)
			}
			if again := tt.read(c); again != got {
				t.Fatal("a second read returned another object")
			}
			if err := c.EvictPod(ctx, orig, 30); err != nil || len(c.Evictions) != 1 {
				t.Fatalf("a second eviction: %v, %d evictions recorded", err, len(c.Evictions))
			}
			c.Tick(now.Add(30 * time.Second))
			if _, err := c.GetPod(ctx, "default", "a"); !errors.Is(err, actuation.ErrPodGone) {
				t.Fatalf("after the grace period: %v, want ErrPodGone", err)
			}
			if b := c.Pods(); len(b) != 1 || b[0].Name != "b" || b[0].DeletionTimestamp != nil {
				t.Fatalf("the other pod changed: %v", b)
			}
		})
	}
}

// TestEvictionThenReplace checks that a pod replaced under the same name
// after an eviction is neither stamped nor removed by the old eviction.
func TestEvictionThenReplace(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ctx := context.Background()
	c := New(now)
	orig := testPod("a", "u1")
	c.AddPod(orig, time.Time{})
	if err := c.EvictPod(ctx, orig, 30); err != nil {
		t.Fatal(err)
	}
	repl := testPod("a", "u2")
	c.AddPod(repl, time.Time{})
	c.Tick(now.Add(time.Minute))
	got, err := c.GetPod(ctx, "default", "a")
	if err != nil || got != repl || got.DeletionTimestamp != nil {
		t.Fatalf("got %v (%v), want the replacement unchanged", got, err)
	}
	if err := c.EvictPod(ctx, orig, 30); !errors.Is(err, actuation.ErrPodGone) {
		t.Fatalf("evicting the old UID: %v, want ErrPodGone", err)
	}
	if err := c.EvictPod(ctx, repl, 0); err != nil {
		t.Fatal(err)
	}
	if len(c.Pods()) != 0 {
		t.Fatal("a zero grace eviction left the pod")
	}
}
