// Package protos is the Go code generated from externalgrpc.proto, the
// upstream cluster autoscaler's external gRPC cloud-provider protocol as
// kscale writes it. Regenerate it with `make proto`; never edit the .pb.go
// files by hand.
package protos
