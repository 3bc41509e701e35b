package scheduling

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	ndffeatures "k8s.io/component-helpers/nodedeclaredfeatures/features"
	"k8s.io/utils/ptr"

	"github.com/kscale/kscale/internal/fixture"
)

// TestDeclaredFeatureRegistry pins the node-declared feature registry that
// mayNeedFeatures mirrors: a Kubernetes bump that adds a feature fails here
// until the guard knows which pod fields the new feature reads.
func TestDeclaredFeatureRegistry(t *testing.T) {
	for _, f := range ndffeatures.AllFeatures {
		if _, ok := inferringFields[f.Name()]; !ok {
			t.Errorf("node-declared feature %q is not known to mayNeedFeatures", f.Name())
		}
	}
	if len(ndffeatures.AllFeatures) != len(inferringFields) {
		t.Errorf("registry has %d features, inferringFields %d", len(ndffeatures.AllFeatures), len(inferringFields))
	}
}

func TestRequiredFeatures(t *testing.T) {
	restart := fixture.Pod("r")
	restart.Spec.Containers[0].RestartPolicy = ptr.To(corev1.ContainerRestartPolicyNever)
	restart.Spec.Containers[0].RestartPolicyRules = []corev1.ContainerRestartRule{{
		Action:    corev1.ContainerRestartRuleActionRestartAllContainers,
		ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: corev1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}},
	}}
	hostNet := fixture.Pod("h")
	hostNet.Spec.HostNetwork, hostNet.Spec.HostUsers = true, ptr.To(false)
	node := func(features ...string) *corev1.Node {
		n := fixture.Node("n")
		n.Status.DeclaredFeatures = features
		return n
	}
	cases := []struct {
		name string
		pod  *corev1.Pod
		node *corev1.Node
		want bool
	}{
		{name: "plain pod fits any node", pod: fixture.Pod("p"), node: node(), want: true},
		{name: "restart rules need the feature", pod: restart, node: node()},
		{name: "declared", pod: restart, node: node("RestartAllContainersOnContainerExits"), want: true},
		{name: "host network user namespaces", pod: hostNet, node: node("RestartAllContainersOnContainerExits")},
		{name: "both declared", pod: hostNet, node: node("RestartAllContainersOnContainerExits", "UserNamespacesHostNetworkSupport"), want: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := PodRequiredFeatures(tc.pod).Match(tc.node); got != tc.want {
				t.Fatalf("match = %v, want %v", got, tc.want)
			}
		})
	}
}
