package aws

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	astypes "github.com/aws/aws-sdk-go-v2/service/autoscaling/types"

	"github.com/kscale/kscale/internal/cloudprovider"
)

func TestParseDiscovery(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []TagMatch
		wantErr string
	}{
		{in: "asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/prod",
			want: []TagMatch{{Key: "k8s.io/cluster-autoscaler/enabled"}, {Key: "k8s.io/cluster-autoscaler/prod"}}},
		{in: "asg:tag=team=a=b,env", want: []TagMatch{{Key: "team", Value: "a=b"}, {Key: "env"}}},
		{in: "asg:tag=k=", want: []TagMatch{{Key: "k"}}},
		{in: "mig:tag=a", wantErr: `discoverer "mig" is not supported`},
		{in: "asg:label=a", wantErr: `the only parameter is "tag"`},
		{in: "asg:tag", wantErr: `the only parameter is "tag"`},
		{in: "asg:tag=", wantErr: "no tags given"},
		{in: "asg:tag=a,,b", wantErr: "empty key"},
		{in: "asg:tag==v", wantErr: "empty key"},
		{in: "asg:tag=a,a=1", wantErr: `key "a" is given twice`},
		{in: "asg:tag=" + strings.Repeat("k,", 10) + "z", wantErr: "at most 10"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			d, err := ParseDiscovery(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(d.Tags) != fmt.Sprint(tc.want) {
				t.Errorf("tags %v, want %v", d.Tags, tc.want)
			}
			again, err := ParseDiscovery(d.String())
			if err != nil || fmt.Sprint(again) != fmt.Sprint(d) {
				t.Errorf("round trip of %q: %v, %v", d.String(), again, err)
			}
		})
	}
}

func TestDiscoveryFilters(t *testing.T) {
	d, err := ParseDiscovery("asg:tag=a,b=1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range d.filters() {
		got = append(got, *f.Name+"="+strings.Join(f.Values, "|"))
	}
	if want := "[tag-key=a tag:b=1]"; fmt.Sprint(got) != want {
		t.Errorf("filters %v, want %s", got, want)
	}
}

func FuzzParseDiscovery(f *testing.F) {
	for _, s := range []string{"asg:tag=a,b=c", "asg:tag=", "asg:", ":", "asg:tag=a=b=c,,", "clusterapi:namespace=x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDiscovery(s)
		if err != nil {
			return
		}
		if len(d.Tags) == 0 || len(d.Tags) > maxDiscoveryTags {
			t.Fatalf("%q: %d tags accepted", s, len(d.Tags))
		}
		for _, tag := range d.Tags {
			if tag.Key == "" {
				t.Fatalf("%q: empty key accepted", s)
			}
		}
		if len(d.filters()) != len(d.Tags) {
			t.Fatalf("%q: filters do not match tags", s)
		}
	})
}

func TestTemplateTags(t *testing.T) {
	l, ta, r := cloudprovider.TagLabelPrefix, cloudprovider.TagTaintPrefix, cloudprovider.TagResourcePrefix
	for _, tc := range []struct {
		name    string
		tags    map[string]string
		zones   []string
		want    map[string]string
		dropped int
	}{
		{name: "valid tags pass through, the first zone adds the EBS label",
			tags:  map[string]string{l + "pool": "a", ta + "dedicated": "batch:NoSchedule", r + "ephemeral-storage": "100G", "Name": "x"},
			zones: []string{"eu-central-1b", "eu-central-1a"},
			want: map[string]string{l + "pool": "a", ta + "dedicated": "batch:NoSchedule", r + "ephemeral-storage": "100G", "Name": "x",
				l + LabelEBSZone: "eu-central-1b"}},
		{name: "bad taints and resources are dropped",
			tags:    map[string]string{ta + "a": "novalue", ta + "b": "v:Sometimes", ta + "c": ":NoExecute", r + "cpu": "lots", l: "empty"},
			want:    map[string]string{ta + "c": ":NoExecute"},
			dropped: 4},
		{name: "eks tags become labels unless a label tag sets them",
			tags: map[string]string{"eks:nodegroup-name": "ng", "eks:cluster-name": "c", l + "cluster-name": "mine", "eks:": "x"},
			want: map[string]string{"eks:nodegroup-name": "ng", "eks:cluster-name": "c", l + "cluster-name": "mine", "eks:": "x",
				l + "nodegroup-name": "ng"}},
		{name: "a label tag overrides the EBS zone", tags: map[string]string{l + LabelEBSZone: "z"}, zones: []string{"a"},
			want: map[string]string{l + LabelEBSZone: "z"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, dropped := templateTags(tc.tags, tc.zones)
			if !maps.Equal(got, tc.want) {
				t.Errorf("tags %v, want %v", got, tc.want)
			}
			if len(dropped) != tc.dropped {
				t.Errorf("dropped %v, want %d", dropped, tc.dropped)
			}
		})
	}
}

// FuzzTemplateTags checks that whatever the tags, the kept ones build a
// template: the builder rejects bad taint and resource tags.
func FuzzTemplateTags(f *testing.F) {
	f.Add(cloudprovider.TagTaintPrefix+"k", "v:NoSchedule")
	f.Add(cloudprovider.TagResourcePrefix+"cpu", "2")
	f.Add(cloudprovider.TagTaintPrefix+"k", "v")
	f.Add("eks:x", "y")
	f.Fuzz(func(t *testing.T, k, v string) {
		got, dropped := templateTags(map[string]string{k: v}, nil)
		if len(got)+len(dropped) == 0 {
			t.Fatalf("tag %q=%q neither kept nor dropped", k, v)
		}
		for key, val := range got {
			if err := checkTemplateTag(key, val); err != nil {
				t.Fatalf("kept an invalid tag: %v", err)
			}
		}
	})
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want cloudprovider.ErrorClass
	}{
		{"Could not launch Spot Instances. InsufficientInstanceCapacity - There is no Spot capacity available that matches your request. Launching EC2 instance failed.", cloudprovider.ErrorOutOfResources},
		{"We currently do not have sufficient m5.xlarge capacity in the Availability Zone you requested (eu-central-1a).", cloudprovider.ErrorOutOfResources},
		{"You have requested more instances (7) than your current instance limit of 6 allows for the specified instance type.", cloudprovider.ErrorOutOfResources},
		{"You have requested more vCPU capacity than your current vCPU limit of 384 allows for the instance bucket", cloudprovider.ErrorOutOfResources},
		{"Max spot instance count exceeded. Launching EC2 instance failed.", cloudprovider.ErrorOutOfResources},
		{"UnfulfillableCapacity: Unable to fulfill capacity due to your request configuration.", cloudprovider.ErrorOutOfResources},
		{"The requested configuration is currently not supported. Launching EC2 instance failed.", cloudprovider.ErrorOther},
		{"Invalid IAM Instance Profile name. Launching EC2 instance failed.", cloudprovider.ErrorOther},
		{"", cloudprovider.ErrorOther},
	} {
		if got := Classify(tc.msg); got != tc.want {
			t.Errorf("Classify(%q) = %s, want %s", tc.msg, got, tc.want)
		}
	}
}

func TestStateOf(t *testing.T) {
	for s, want := range map[astypes.LifecycleState]cloudprovider.InstanceState{
		astypes.LifecycleStatePending: cloudprovider.InstanceCreating, astypes.LifecycleStatePendingWait: cloudprovider.InstanceCreating,
		astypes.LifecycleStateInService: cloudprovider.InstanceRunning,
		astypes.LifecycleStateStandby:   cloudprovider.InstanceRunning, astypes.LifecycleStateQuarantined: cloudprovider.InstanceRunning,
		astypes.LifecycleStateTerminating: cloudprovider.InstanceDeleting, astypes.LifecycleStateTerminated: cloudprovider.InstanceDeleting,
		astypes.LifecycleStateDetaching: cloudprovider.InstanceDeleting,
	} {
		if got := stateOf(s); got != want {
			t.Errorf("stateOf(%s) = %s, want %s", s, got, want)
		}
	}
}

func TestParseCatalogue(t *testing.T) {
	c, err := staticCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	if len(c) < 1000 || c["m6g.large"].arch != "arm64" || c["m5.large"] != (typeInfo{vcpus: 2, memoryMiB: 8192, arch: "amd64"}) ||
		c["g4dn.xlarge"].gpus != 1 {
		t.Errorf("static table: %d types, m6g.large %+v, m5.large %+v", len(c), c["m6g.large"], c["m5.large"])
	}
	for _, bad := range []string{"a,1,2,3", "a,1,x,0,amd64", "a,-1,2,0,amd64"} {
		if _, err := parseCatalogue([]byte("# header\n" + bad)); err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%q: error %v, want one naming line 2", bad, err)
		}
	}
}
