#!/usr/bin/env bash
# Generates the Go code of kscale's .proto files (the external gRPC cloud
# provider's and the gRPC expander's protocols) with Debian's protoc and the
# protoc-gen-go / protoc-gen-go-grpc versions pinned in hack/proto/go.mod.
# With an argument it writes the tree of generated files under that
# directory instead of the repository (the up-to-date test compares them).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root}"
if ! command -v protoc >/dev/null 2>&1; then
  echo "proto: protoc is missing; install it with: apt-get install -y protobuf-compiler" >&2
  exit 1
fi
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
(cd "$here" && go build -o "$bin/" google.golang.org/protobuf/cmd/protoc-gen-go google.golang.org/grpc/cmd/protoc-gen-go-grpc)
protos=(
  internal/cloudprovider/externalgrpc/protos/externalgrpc.proto
  internal/nodeautoscaler/expander/grpcexpander/protos/expander.proto
)
cd "$root"
PATH="$bin:$PATH" protoc -I . \
  --go_out="$out" --go_opt=paths=source_relative \
  --go-grpc_out="$out" --go-grpc_opt=paths=source_relative \
  "${protos[@]}"
