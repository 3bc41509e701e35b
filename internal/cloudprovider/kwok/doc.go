// Package kwok is kscale's reference cloud provider for real clusters
// without real machines: node groups scale by creating and deleting Node
// objects, and the real kwok controller (sigs.k8s.io/kwok) plays the
// kubelets of those nodes.
//
// Provider embeds the in-memory cloud (capacity limits, boot times,
// stock-out and API errors, exactly as in the offline simulator) and
// mirrors its machines as Node objects: a launched machine registers a node
// built from its group's template (labels, taints, instance type capacity
// minus the reservation, spec.providerID inmemory:///<group>/<instance>),
// NotReady and tainted while it boots, Ready once it has booted; a deleting
// or vanished machine loses its node. The groups come from a --cloud-config
// file with the same schema as the nodeGroups section of scenario files
// (ParseCloudConfig, inmemory.NodeGroupEntry), and every field is honoured
// as the simulator honours it: autoscalingOptions become the group's
// options, pricePerHour its template price, and realNodes changes the
// nodes the provider registers. The cloud itself lives in memory; on start-up
// Provider.Start adopts the nodes that carry its provider ids, so a
// restarted or newly elected process sees the same groups and sizes.
//
// The provider does what a cloud does and nothing a kubelet does. Every node
// it creates carries kwok's annotation kwok.x-k8s.io/node=fake
// (deploy/kwok.NodeSelector), and a kwok controller run beside kscale with
// that selector and kscale's Stages (deploy/kwok/stages.yaml) renews the
// node Leases, leaves a booting node NotReady until the provider ends its
// boot, posts Ready again when the node lifecycle controller marked a
// node Unknown, runs the bound pods after kwok.kscale.dev/start-time,
// completes those with kwok.kscale.dev/run-time and confirms graceful
// deletions. kwok runs as its own process on its own client and request
// budget, so the autoscaler's figures are its own, as on a real cloud. The
// tests start it through internal/testenv (Options.Kwok); `make testbin`
// builds it from the Go module proxy (hack/kwok).
package kwok
