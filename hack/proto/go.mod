module github.com/kscale/kscale/hack/proto

go 1.26.0

require (
	google.golang.org/grpc/cmd/protoc-gen-go-grpc v1.6.1
	google.golang.org/protobuf v1.36.12
)
