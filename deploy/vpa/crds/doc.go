// Package crds embeds the CustomResourceDefinitions of the VPA API
// (autoscaling.k8s.io/v1 VerticalPodAutoscaler and
// VerticalPodAutoscalerCheckpoint) and installs them into a cluster.
//
// The YAML files are generated from the imported Go types in
// k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1
// (see README.md for the command); apply them with kubectl or call Install.
package crds
