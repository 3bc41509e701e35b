package discovery

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTargetFilterPort(t *testing.T) {
	tests := []struct {
		name  string
		ports []corev1.ContainerPort
		want  int32
	}{
		{"no sidecar", []corev1.ContainerPort{{Name: "https", ContainerPort: 443}}, 0},
		{"named port", []corev1.ContainerPort{{Name: "https", ContainerPort: 443}, {Name: FilterPortName, ContainerPort: 9443}}, 9443},
		{"explicit TCP", []corev1.ContainerPort{{Name: FilterPortName, ContainerPort: 9443, Protocol: corev1.ProtocolTCP}}, 9443},
		{"UDP is not it", []corev1.ContainerPort{{Name: FilterPortName, ContainerPort: 9443, Protocol: corev1.ProtocolUDP}}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "kapi", Namespace: "shoot--a"},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "kube-apiserver"}, {Name: "sidecar", Ports: tc.ports}}},
				Status:     corev1.PodStatus{PodIP: "10.0.0.1"},
			}
			got, ok := targetFor(pod)
			if !ok || got.FilterPort != tc.want {
				t.Fatalf("targetFor() = %+v, %v; want filter port %d", got, ok, tc.want)
			}
			other := got
			other.FilterPort++
			if got.equal(other) {
				t.Fatal("targets differing in the filter port are equal")
			}
		})
	}
}
