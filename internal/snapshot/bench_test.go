package snapshot

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/fixture"
)

// benchCluster has 1,000 nodes in 10 labelled groups and 30,000 pods of 300
// Deployments, 1,000 of them pending: the size of BenchmarkLiveLoop.
func benchCluster() *Cluster {
	var nodes []*corev1.Node
	for i := range 1000 {
		nodes = append(nodes, fixture.Node(fmt.Sprintf("n-%04d", i), fixture.WithCapacity(corev1.ResourceCPU, "16"),
			fixture.WithCapacity(corev1.ResourceMemory, "64Gi"),
			fixture.WithNodeLabels(map[string]string{eksLabel: fmt.Sprintf("g-%d", i%10)})))
	}
	var pods []*corev1.Pod
	for d := range 300 {
		for r := range 100 {
			node := fmt.Sprintf("n-%04d", (d*100+r)%1000)
			if (d*100+r)%30 == 0 {
				node = ""
			}
			rs := fmt.Sprintf("d%d-abc", d)
			pods = append(pods, ownedPod(fmt.Sprintf("%s-%d", rs, r), "ReplicaSet", rs, node,
				fixture.WithLabels(map[string]string{"app": fmt.Sprintf("d%d", d), "pod-template-hash": "abc"})))
		}
	}
	return cluster(nodes, pods)
}

func BenchmarkConvert(b *testing.B) {
	c := benchCluster()
	b.ReportAllocs()
	for b.Loop() {
		res, err := Convert(c, defaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Marshal(res); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFit(b *testing.B) {
	c := benchCluster()
	b.ReportAllocs()
	for b.Loop() {
		res, err := Convert(c, defaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		if err := Fit(res); err != nil {
			b.Fatal(err)
		}
	}
}
