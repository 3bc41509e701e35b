//go:build tools

// Package proto pins the protobuf and gRPC code generators (protoc-gen-go and
// protoc-gen-go-grpc) that generate kscale's Go code from its .proto files
// (generate.sh). It is a separate module so that the main module never
// depends on the generators.
package proto

import (
	_ "google.golang.org/grpc/cmd/protoc-gen-go-grpc"
	_ "google.golang.org/protobuf/cmd/protoc-gen-go"
)
