package cli

// kubeProxyTemplater is a cloud builder whose upstream counterpart puts a
// fake kube-proxy pod on every template it builds (upstream 1.36's aws,
// clusterapi and kwok providers, Gardener's mcm): only for these does
// --template-kube-proxy-pod select upstream's behaviour.
type kubeProxyTemplater interface {
	upstreamAddsKubeProxy()
}

var (
	_ kubeProxyTemplater = (*awsCloud)(nil)
	_ kubeProxyTemplater = (*clusterAPICloud)(nil)
	_ kubeProxyTemplater = (*kwokCloud)(nil)
	_ kubeProxyTemplater = (*mcmCloud)(nil)
)

func (a *awsCloud) upstreamAddsKubeProxy()        {}
func (c *clusterAPICloud) upstreamAddsKubeProxy() {}
func (k *kwokCloud) upstreamAddsKubeProxy()       {}
func (c *mcmCloud) upstreamAddsKubeProxy()        {}
