// Package kwok is kscale's reference cloud provider for real clusters
// without real machines, in the spirit of sigs.k8s.io/kwok: node groups
// scale by creating and deleting Node objects, and a stand-in kubelet makes
// the pods bound to those nodes run.
//
// Provider embeds the in-memory cloud (capacity limits, boot times,
// stock-out and API errors, exactly as in the offline simulator) and
// mirrors its machines as Node objects: a running machine gets a Ready
// node built from its group's template (labels, taints, instance type
// capacity minus the reservation, spec.providerID
// inmemory:///<group>/<instance>); a deleting or vanished machine loses its
// node. The groups come from a --cloud-config file with the same schema as
// the nodeGroups section of scenario files (ParseCloudConfig). The cloud
// itself lives in memory; on start-up Provider.Start adopts the nodes that
// carry its provider ids, so a restarted or newly elected process sees the
// same groups and sizes.
//
// The stand-in kubelet (Kubelet) renews each managed node's Lease in
// kube-node-lease so kube-controller-manager's node lifecycle controller
// keeps the node healthy, marks bound pods Running and Ready after their
// start time, completes pods that declare a run time (Job pods), and
// confirms graceful pod deletions as a kubelet does.
//
// sigs.k8s.io/kwok's own controllers were evaluated as a library first.
// They are on our Kubernetes line, but they are driven by kwok's Stage
// resources (templates with CEL and jq expressions), need a dynamic client,
// a REST mapper, impersonating clients and kwok's own clientset, and add
// cel-go and gojq to the dependency graph. The three behaviours the
// autoscaler's end-to-end tests need are small enough to own outright.
package kwok
