package aws_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kscale/kscale/internal/cloudprovider/aws"
	"github.com/kscale/kscale/internal/cloudprovider/aws/awstest"
)

// fakeEndpoint serves DescribeAutoScalingGroups pages of pre-rendered
// groups and DescribeLaunchTemplateVersions, counting requests.
type fakeEndpoint struct {
	pages [][]byte
	calls atomic.Int64
}

// newFakeEndpoint renders groups ASGs with perGroup instances each, in
// pages of 100 (AWS's maximum MaxRecords).
func newFakeEndpoint(groups, perGroup int) *fakeEndpoint {
	f := &fakeEndpoint{}
	for start := 0; start < groups; start += 100 {
		var b strings.Builder
		b.WriteString(`<DescribeAutoScalingGroupsResponse xmlns="http://autoscaling.amazonaws.com/doc/2011-01-01/"><DescribeAutoScalingGroupsResult><AutoScalingGroups>`)
		for g := start; g < min(start+100, groups); g++ {
			name := fmt.Sprintf("asg-%03d", g)
			fmt.Fprintf(&b, `<member><AutoScalingGroupName>%s</AutoScalingGroupName><AutoScalingGroupARN>arn:aws:autoscaling:eu-central-1:123456789012:autoScalingGroup:1:autoScalingGroupName/%s</AutoScalingGroupARN>`, name, name)
			fmt.Fprintf(&b, `<MinSize>0</MinSize><MaxSize>100</MaxSize><DesiredCapacity>%d</DesiredCapacity><DefaultCooldown>300</DefaultCooldown>`, perGroup)
			b.WriteString(`<AvailabilityZones><member>eu-central-1a</member><member>eu-central-1b</member></AvailabilityZones><HealthCheckType>EC2</HealthCheckType>`)
			b.WriteString(`<LaunchTemplate><LaunchTemplateName>general</LaunchTemplateName><Version>$Default</Version></LaunchTemplate><Instances>`)
			for i := range perGroup {
				fmt.Fprintf(&b, `<member><InstanceId>i-%08x%08x</InstanceId><InstanceType>m5.large</InstanceType><AvailabilityZone>eu-central-1%c</AvailabilityZone>`, g, i, 'a'+rune(i%2))
				b.WriteString(`<LifecycleState>InService</LifecycleState><HealthStatus>Healthy</HealthStatus><LaunchTemplate><LaunchTemplateName>general</LaunchTemplateName><Version>1</Version></LaunchTemplate><ProtectedFromScaleIn>false</ProtectedFromScaleIn></member>`)
			}
			b.WriteString(`</Instances><Tags>`)
			for _, kv := range [][2]string{{"k8s.io/cluster-autoscaler/enabled", "true"}, {"k8s.io/cluster-autoscaler/prod", "owned"},
				{"k8s.io/cluster-autoscaler/node-template/label/pool", name}, {"Name", name}} {
				fmt.Fprintf(&b, `<member><Key>%s</Key><Value>%s</Value><ResourceId>%s</ResourceId><ResourceType>auto-scaling-group</ResourceType><PropagateAtLaunch>true</PropagateAtLaunch></member>`, kv[0], kv[1], name)
			}
			b.WriteString(`</Tags></member>`)
		}
		b.WriteString(`</AutoScalingGroups>`)
		if start+100 < groups {
			fmt.Fprintf(&b, `<NextToken>%d</NextToken>`, start+100)
		}
		b.WriteString(`</DescribeAutoScalingGroupsResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></DescribeAutoScalingGroupsResponse>`)
		f.pages = append(f.pages, []byte(b.String()))
	}
	return f
}

const launchTemplateVersions = `<DescribeLaunchTemplateVersionsResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r</requestId>` +
	`<launchTemplateVersionSet><item><launchTemplateName>general</launchTemplateName><versionNumber>1</versionNumber><defaultVersion>true</defaultVersion>` +
	`<launchTemplateData><instanceType>m5.large</instanceType></launchTemplateData></item></launchTemplateVersionSet></DescribeLaunchTemplateVersionsResponse>`

func (f *fakeEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/xml")
	switch r.PostForm.Get("Action") {
	case "DescribeAutoScalingGroups":
		page := 0
		if tok := r.PostForm.Get("NextToken"); tok != "" {
			n, err := strconv.Atoi(tok)
			if err != nil {
				http.Error(w, "bad token", http.StatusBadRequest)
				return
			}
			page = n / 100
		}
		_, _ = w.Write(f.pages[page])
	case "DescribeLaunchTemplateVersions":
		_, _ = w.Write([]byte(launchTemplateVersions))
	default:
		http.Error(w, "unexpected "+url.QueryEscape(r.PostForm.Get("Action")), http.StatusBadRequest)
	}
}

// newBenchProvider serves 200 ASGs with 25 instances each (5,000) and
// returns a provider that describes them every loop, after one warm-up
// refresh (launch template lookup).
func newBenchProvider(tb testing.TB) (*aws.Provider, *fakeEndpoint) {
	tb.Helper()
	f := newFakeEndpoint(200, 25)
	srv := httptest.NewServer(f)
	tb.Cleanup(srv.Close)
	clients, err := aws.NewClients(tb.Context(), aws.ClientConfig{LoadOptions: awstest.LoadOptions(srv.URL)})
	if err != nil {
		tb.Fatal(err)
	}
	disc, err := aws.ParseDiscovery("asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/prod")
	if err != nil {
		tb.Fatal(err)
	}
	p, err := aws.New(aws.Config{AutoScaling: clients.AutoScaling, EC2: clients.EC2, EKS: clients.EKS, Region: clients.Region,
		Discovery: []aws.Discovery{disc}, StaticInstanceList: true})
	if err != nil {
		tb.Fatal(err)
	}
	if err := p.Refresh(tb.Context()); err != nil {
		tb.Fatal(err)
	}
	return p, f
}

// TestRefreshCallsPerLoop checks the API cost of a loop in which nothing
// changed: 200 ASGs take ceil(200/100) describe pages and nothing else.
func TestRefreshCallsPerLoop(t *testing.T) {
	p, f := newBenchProvider(t)
	groups, err := p.NodeGroups(t.Context())
	if err != nil || len(groups) != 200 {
		t.Fatalf("%d groups, %v", len(groups), err)
	}
	insts, err := p.Instances(t.Context(), "asg-007")
	if err != nil || len(insts) != 25 {
		t.Fatalf("%d instances, %v", len(insts), err)
	}
	before := f.calls.Load()
	for range 10 {
		if err := p.Refresh(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	// Two pages, no retries (a retried page would show as a third call).
	if per := float64(f.calls.Load()-before) / 10; per != 2 {
		t.Errorf("%.1f API calls per loop, want 2 (the goal is at most 1 + ceil(200/100) = 3)", per)
	}
}

// BenchmarkAWSRefresh measures one loop's refresh over 200 ASGs with 5,000
// instances behind a local fake endpoint (goals: at most 1 + ceil(ASGs /
// page size) = 3 API calls per loop when nothing changed, under 50 ms of
// our CPU per refresh). cpu-ms/op is the process's user+system CPU, fake
// endpoint included.
func BenchmarkAWSRefresh(b *testing.B) {
	p, f := newBenchProvider(b)
	before := f.calls.Load()
	cpu0 := cpuTime(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := p.Refresh(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(f.calls.Load()-before)/float64(b.N), "calls/loop")
	b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
