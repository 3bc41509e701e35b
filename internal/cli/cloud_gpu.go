package cli

import (
	"github.com/kscale/kscale/internal/cloudprovider/aws"
	"github.com/kscale/kscale/internal/cloudprovider/clusterapi"
	"github.com/kscale/kscale/internal/cloudprovider/mcm"
)

// gpuLabeler is a cloud builder whose provider names a label of GPU nodes
// (upstream's CloudProvider.GPULabel): a node with it whose GPUs are not
// allocatable yet is still starting.
type gpuLabeler interface {
	gpuLabel() string
}

var (
	_ gpuLabeler = (*clusterAPICloud)(nil)
	_ gpuLabeler = (*awsCloud)(nil)
	_ gpuLabeler = (*mcmCloud)(nil)
)

func (c *clusterAPICloud) gpuLabel() string { return clusterapi.GPULabel }

func (a *awsCloud) gpuLabel() string { return aws.GPULabel }

func (c *mcmCloud) gpuLabel() string { return mcm.GPULabel }
