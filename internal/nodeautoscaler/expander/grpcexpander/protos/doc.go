// Package protos is the Go code generated from expander.proto, the upstream
// cluster autoscaler's gRPC expander protocol as kscale writes it.
// Regenerate it with `make proto`; never edit the .pb.go files by hand.
package protos
