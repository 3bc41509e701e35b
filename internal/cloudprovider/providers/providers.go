// Package providers is the registration point of the node autoscaler's
// cloud providers: adding a provider is a Builder in its own package and
// one line here.
package providers

import (
	"github.com/kscale/kscale/internal/cloudprovider/aws"
	"github.com/kscale/kscale/internal/cloudprovider/clusterapi"
	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc"
	"github.com/kscale/kscale/internal/cloudprovider/kwok"
	"github.com/kscale/kscale/internal/cloudprovider/mcm"
	"github.com/kscale/kscale/internal/cloudprovider/registry"
)

// Default is --cloud-provider's default.
const Default = "kwok"

// All returns every provider this build supports.
func All() []registry.Entry {
	return []registry.Entry{
		{Name: "aws", New: aws.NewBuilder},
		{Name: "clusterapi", New: clusterapi.NewBuilder},
		{Name: "externalgrpc", New: externalgrpc.NewBuilder},
		{Name: "kwok", New: kwok.NewBuilder},
		{Name: "mcm", New: mcm.NewBuilder},
	}
}

// NewFlags returns the cloud flags of every provider in All.
func NewFlags() *registry.Flags {
	f, err := registry.NewFlags(All())
	if err != nil {
		// All's names are constants: a duplicate is a programming error.
		panic(err)
	}
	return f
}
