package aws_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/klog/v2/ktesting"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/aws"
	"github.com/kscale/kscale/internal/cloudprovider/aws/awstest"
	"github.com/kscale/kscale/internal/cloudprovider/providertest"
)

// TestContract runs the provider contract suite on the AWS provider
// against moto, with the proxy injecting what moto lacks: a stock-out
// (placeholders and their Failed activity) and throttling.
func TestContract(t *testing.T) {
	providertest.Run(t, providertest.Harness{Knowledge: cloudprovider.KnowsListedInstances, Start: func(t *testing.T) *providertest.Backend {
		_, ctx := ktesting.NewTestContext(t)
		moto := awstest.StartMoto(t)
		proxy := awstest.StartProxy(t, moto.URL)
		seed := awstest.NewSeeder(t, moto.URL)
		seed.LaunchTemplate("contract", "m5.large")
		seed.Group(awstest.Group{Name: "contract", Min: providertest.GroupMin, Max: providertest.GroupMax, Desired: 1, Template: "contract",
			Tags: map[string]string{"k8s.io/cluster-autoscaler/enabled": "true",
				aws.OptionsTagPrefix + cloudprovider.OptionScaleDownUnneededTime: providertest.UnneededTime.String()}})
		clients, err := aws.NewClients(ctx, aws.ClientConfig{Registerer: prometheus.NewRegistry(), LoadOptions: awstest.LoadOptions(proxy.URL)})
		if err != nil {
			t.Fatal(err)
		}
		disc, err := aws.ParseDiscovery("asg:tag=k8s.io/cluster-autoscaler/enabled")
		if err != nil {
			t.Fatal(err)
		}
		p, err := aws.New(aws.Config{AutoScaling: clients.AutoScaling, EC2: clients.EC2, EKS: clients.EKS, Region: clients.Region,
			Discovery: []aws.Discovery{disc}})
		if err != nil {
			t.Fatal(err)
		}
		return &providertest.Backend{Provider: p, Group: "contract",
			StockOut: func(*testing.T) { proxy.StockOut("contract", 1, stockoutMessage) },
			FailAPI: func(t *testing.T) {
				proxy.Throttle("SetDesiredCapacity", 10)
				t.Cleanup(func() { proxy.Throttle("SetDesiredCapacity", 0) })
			}}
	}})
}
