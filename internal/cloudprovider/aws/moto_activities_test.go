package aws_test

import (
	"testing"

	"k8s.io/klog/v2/ktesting"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/aws"
	"github.com/kscale/kscale/internal/cloudprovider/aws/awstest"
	"github.com/kscale/kscale/internal/cloudprovider/nodegroupspec"
)

// placeholderError is what a short group's placeholders report after a
// refresh: nil, or the class and code of their creation error.
type placeholderError struct {
	class cloudprovider.ErrorClass
	code  string
}

// TestScalingActivityRulesAgainstMoto drives kscale's rule and upstream's
// (--aws-upstream-scaling-activities) through the real SDK against moto,
// the proxy holding the group short and adding the activities: kscale
// fails the placeholders on a Cancelled activity too, classes a message
// naming no capacity as other and keeps the failure over a later raise;
// upstream takes only Failed ones started since its last
// SetDesiredCapacity, always as out-of-resources.
func TestScalingActivityRulesAgainstMoto(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	moto := awstest.StartMoto(t)
	proxy := awstest.StartProxy(t, moto.URL)
	seed := awstest.NewSeeder(t, moto.URL)
	seed.LaunchTemplate("general", "m5.large")
	clients, err := aws.NewClients(ctx, aws.ClientConfig{LoadOptions: awstest.LoadOptions(proxy.URL)})
	if err != nil {
		t.Fatal(err)
	}
	oor := cloudprovider.ErrorOutOfResources
	for _, tc := range []struct {
		group    string
		upstream bool
		// after the raise; a Cancelled activity; a Failed one naming no
		// capacity; a second raise
		want [4]*placeholderError
	}{
		{"kscale-rule", false, [4]*placeholderError{nil, {cloudprovider.ErrorOther, "Cancelled"},
			{cloudprovider.ErrorOther, "Failed"}, {cloudprovider.ErrorOther, "Failed"}}},
		{"upstream-rule", true, [4]*placeholderError{nil, nil, {oor, "placeholder-cannot-be-fulfilled"}, nil}},
	} {
		t.Run(tc.group, func(t *testing.T) {
			seed.Group(awstest.Group{Name: tc.group, Max: 5, Template: "general"})
			proxy.Hold(tc.group, 0)
			p, err := aws.New(aws.Config{AutoScaling: clients.AutoScaling, EC2: clients.EC2, EKS: clients.EKS, Region: clients.Region,
				Static: []nodegroupspec.Static{{Min: 0, Max: 5, Name: tc.group}}, UpstreamScalingActivities: tc.upstream})
			if err != nil {
				t.Fatal(err)
			}
			refresh(ctx, t, p)
			steps := []func(){
				func() { raise(t, p, tc.group) },
				func() { proxy.AddActivity(tc.group, "Cancelled", "Launch cancelled by a lifecycle hook") },
				func() {
					proxy.AddActivity(tc.group, "Failed", "The requested configuration is currently not supported.")
				},
				func() { raise(t, p, tc.group) },
			}
			for i, step := range steps {
				step()
				refresh(ctx, t, p)
				insts := instancesOf(ctx, t, p, tc.group)
				if len(insts) == 0 {
					t.Fatalf("step %d: no placeholders", i)
				}
				for _, in := range insts {
					assertPlaceholderError(t, i, in, tc.want[i])
				}
			}
		})
	}
}

func raise(t *testing.T, p *aws.Provider, group string) {
	t.Helper()
	if err := p.IncreaseSize(t.Context(), group, 1); err != nil {
		t.Fatal(err)
	}
}

func assertPlaceholderError(t *testing.T, step int, in cloudprovider.Instance, want *placeholderError) {
	t.Helper()
	switch {
	case !in.Placeholder:
		t.Errorf("step %d: %s is not a placeholder", step, in.ID)
	case want == nil && in.Error != nil:
		t.Errorf("step %d: %s error %+v, want none", step, in.ID, in.Error)
	case want != nil && (in.Error == nil || in.Error.Class != want.class || in.Error.Code != want.code):
		t.Errorf("step %d: %s error %+v, want class %s code %s", step, in.ID, in.Error, want.class, want.code)
	}
}
