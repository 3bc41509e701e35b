package aws

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
)

// describeDoc has every field the provider reads, in the shapes AWS and
// moto send: entities, a self-closing element, a comment, attributes,
// fields the decoder skips, and a nested member list.
const describeDoc = `<?xml version="1.0" encoding="UTF-8"?>
<DescribeAutoScalingGroupsResponse xmlns="http://autoscaling.amazonaws.com/doc/2011-01-01/">
<DescribeAutoScalingGroupsResult>
<!-- a comment -->
<AutoScalingGroups>
<member>
  <AutoScalingGroupName>lt &amp; co</AutoScalingGroupName>
  <AutoScalingGroupARN>arn:aws:autoscaling:eu-central-1:1:autoScalingGroup:x</AutoScalingGroupARN>
  <LaunchTemplate><LaunchTemplateId>lt-1</LaunchTemplateId><LaunchTemplateName>general</LaunchTemplateName><Version>$Latest</Version></LaunchTemplate>
  <MinSize>1</MinSize><MaxSize>10</MaxSize><DesiredCapacity>2</DesiredCapacity>
  <AvailabilityZones><member>eu-central-1a</member><member>eu-central-1b</member></AvailabilityZones>
  <LoadBalancerNames/>
  <Instances>
    <member><InstanceId>i-1</InstanceId><InstanceType>m5.large</InstanceType><AvailabilityZone>eu-central-1b</AvailabilityZone>
      <LifecycleState>InService</LifecycleState><HealthStatus>Healthy</HealthStatus>
      <LaunchTemplate><LaunchTemplateName>general</LaunchTemplateName><Version>1</Version></LaunchTemplate></member>
    <member><InstanceId>i-2</InstanceId><AvailabilityZone>eu-central-1a</AvailabilityZone><LifecycleState>Pending:Wait</LifecycleState></member>
  </Instances>
  <Tags>
    <member><Key>k8s.io/cluster-autoscaler/node-template/taint/a</Key><Value>b&lt;c&gt;:NoSchedule</Value><ResourceId>x</ResourceId></member>
    <member><Key>empty</Key><Value></Value></member>
    <member><Key>ref</Key><Value>&#65;&#x42;&quot;&apos;</Value></member>
  </Tags>
</member>
<member>
  <AutoScalingGroupName>mixed</AutoScalingGroupName>
  <MinSize>0</MinSize><MaxSize>3</MaxSize><DesiredCapacity>0</DesiredCapacity>
  <MixedInstancesPolicy>
    <LaunchTemplate>
      <LaunchTemplateSpecification><LaunchTemplateName>spill</LaunchTemplateName><Version>$Default</Version></LaunchTemplateSpecification>
      <Overrides>
        <member><InstanceType>c4.xlarge</InstanceType><WeightedCapacity>1</WeightedCapacity></member>
        <member><InstanceRequirements><VCpuCount><Min>2</Min></VCpuCount></InstanceRequirements></member>
      </Overrides>
    </LaunchTemplate>
    <InstancesDistribution><OnDemandBaseCapacity>0</OnDemandBaseCapacity><OnDemandPercentageAboveBaseCapacity>0</OnDemandPercentageAboveBaseCapacity><SpotAllocationStrategy>lowest-price</SpotAllocationStrategy></InstancesDistribution>
  </MixedInstancesPolicy>
  <AvailabilityZones><member>eu-central-1c</member></AvailabilityZones>
  <Instances/>
</member>
<member>
  <AutoScalingGroupName>legacy</AutoScalingGroupName>
  <LaunchConfigurationName>lc</LaunchConfigurationName>
  <MinSize>0</MinSize><MaxSize>1</MaxSize><DesiredCapacity>0</DesiredCapacity>
</member>
</AutoScalingGroups>
<NextToken>legacy</NextToken>
</DescribeAutoScalingGroupsResult>
<ResponseMetadata><RequestId>r</RequestId></ResponseMetadata>
</DescribeAutoScalingGroupsResponse>`

// project renders what the provider reads of a response.
func project(out *autoscaling.DescribeAutoScalingGroupsOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "next=%s\n", awssdk.ToString(out.NextToken))
	for i := range out.AutoScalingGroups {
		g := &out.AutoScalingGroups[i]
		r := launchRefOf(g)
		fmt.Fprintf(&b, "%s %d/%d/%d zones=%v launch=%+v spot=%v\n", awssdk.ToString(g.AutoScalingGroupName), awssdk.ToInt32(g.MinSize),
			awssdk.ToInt32(g.MaxSize), awssdk.ToInt32(g.DesiredCapacity), g.AvailabilityZones, r, fromAWS(g).allSpot)
		for _, in := range g.Instances {
			fmt.Fprintf(&b, "  %s %s %s %s\n", awssdk.ToString(in.InstanceId), awssdk.ToString(in.AvailabilityZone), in.LifecycleState,
				awssdk.ToString(in.InstanceType))
		}
		for _, t := range g.Tags {
			fmt.Fprintf(&b, "  tag %q=%q\n", awssdk.ToString(t.Key), awssdk.ToString(t.Value))
		}
	}
	return b.String()
}

// TestFastGroupsDecoderMatchesTheSDK decodes the same responses with the
// SDK's deserializer and with decodeGroups, through a real client.
func TestFastGroupsDecoderMatchesTheSDK(t *testing.T) {
	status, body := http.StatusOK, describeDoc
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/xml")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	client := autoscaling.NewFromConfig(awssdk.Config{Region: "eu-central-1", BaseEndpoint: awssdk.String(srv.URL),
		Credentials: credentials.NewStaticCredentialsProvider("k", "s", ""), RetryMaxAttempts: 1})
	sdk, err := client.DescribeAutoScalingGroups(t.Context(), &autoscaling.DescribeAutoScalingGroupsInput{})
	if err != nil {
		t.Fatal(err)
	}
	fast, err := client.DescribeAutoScalingGroups(t.Context(), &autoscaling.DescribeAutoScalingGroupsInput{}, withFastGroupsDecoder)
	if err != nil {
		t.Fatal(err)
	}
	if want, got := project(sdk), project(fast); got != want {
		t.Errorf("fast decoder:\n%s\nSDK:\n%s", got, want)
	}
	if len(sdk.AutoScalingGroups) != 3 || !strings.Contains(project(fast), `tag "ref"="AB\"'"`) || !strings.Contains(project(fast), "spot=true") {
		t.Errorf("the document was not fully read:\n%s", project(fast))
	}
	// Errors go through the SDK's deserializer.
	status, body = http.StatusBadRequest, `<ErrorResponse><Error><Type>Sender</Type><Code>Throttling</Code><Message>Rate exceeded</Message></Error></ErrorResponse>`
	_, err = client.DescribeAutoScalingGroups(t.Context(), &autoscaling.DescribeAutoScalingGroupsInput{}, withFastGroupsDecoder)
	if err == nil || !strings.Contains(err.Error(), "Throttling") {
		t.Errorf("error response: %v", err)
	}
	status, body = http.StatusOK, `<DescribeAutoScalingGroupsResponse><DescribeAutoScalingGroupsResult>`
	_, err = client.DescribeAutoScalingGroups(t.Context(), &autoscaling.DescribeAutoScalingGroupsInput{}, withFastGroupsDecoder)
	if err == nil || !strings.Contains(err.Error(), "unterminated element") {
		t.Errorf("truncated response: %v", err)
	}
}

func TestDecodeGroupsRejectsMalformed(t *testing.T) {
	for _, doc := range []string{
		"<a><b></a>", "<a>", "</a>", "<a", "<a><!DOCTYPE x></a>", "<a>&bogus;</a>", "<a>&#xZZ;</a>", "<a>&amp</a>", "<>x</>", "<a <b>",
		"<?xml", "<!-- x",
	} {
		if _, err := decodeGroups([]byte(doc)); err == nil {
			t.Errorf("%q: no error", doc)
		}
	}
}

func FuzzDecodeGroups(f *testing.F) {
	f.Add([]byte(describeDoc))
	f.Add([]byte("<a><b/>&amp;</a>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := decodeGroups(data)
		if err == nil && out == nil {
			t.Fatal("nil result without error")
		}
	})
}
