// Package externalgrpc is the node autoscaler's cloud provider for
// --cloud-provider=externalgrpc: a client of the upstream cluster
// autoscaler's external gRPC cloud-provider protocol (see protos), so a
// server written for upstream's externalgrpc provider drives kscale
// unchanged. Its --cloud-config has upstream's format: the server's address,
// optional mutual-TLS files and the timeout of every call.
//
// The server's template node (NodeGroupTemplateNodeInfo) becomes the group's
// template: its capacity, labels and taints. Allocatable is kscale's
// estimate from the capacity, as for every other provider.
package externalgrpc
