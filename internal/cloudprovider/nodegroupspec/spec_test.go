package nodegroupspec

import (
	"strings"
	"testing"
)

func TestParseStatic(t *testing.T) {
	tests := []struct {
		in      string
		want    Static
		wantErr string
	}{
		{in: "1:10:my-asg", want: Static{Min: 1, Max: 10, Name: "my-asg"}},
		{in: "0:3:shoot--p--c.worker-a-z1", want: Static{Max: 3, Name: "shoot--p--c.worker-a-z1"}},
		{in: "0:0:a:b", want: Static{Name: "a:b"}},
		{in: "1:10", wantErr: "want min:max:name"},
		{in: "x:10:a", wantErr: "min size"},
		{in: "1:y:a", wantErr: "max size"},
		{in: "-1:10:a", wantErr: "min size"},
		{in: "5:4:a", wantErr: "below min size"},
		{in: "1:2:", wantErr: "name is empty"},
		{in: "1:2:" + strings.Repeat("n", MaxNameLength+1), wantErr: "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.in[:min(len(tt.in), 40)], func(t *testing.T) {
			got, err := ParseStatic(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseStatic(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseStatic(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestParseStaticListRejectsDuplicates(t *testing.T) {
	if _, err := ParseStaticList([]string{"1:2:a", "0:3:a"}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Fatalf("ParseStaticList error = %v, want a duplicate error", err)
	}
	got, err := ParseStaticList([]string{"1:2:a", "0:3:b"})
	if err != nil || len(got) != 2 || got[1].Name != "b" {
		t.Fatalf("ParseStaticList = %+v, %v", got, err)
	}
}

func TestParseDiscovery(t *testing.T) {
	tests := []struct {
		in      string
		want    Discovery
		wantErr string
	}{
		{in: "asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/c1",
			want: Discovery{Provider: "asg", Spec: "tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/c1"}},
		{in: "clusterapi:namespace=ns,clusterName=c", want: Discovery{Provider: "clusterapi", Spec: "namespace=ns,clusterName=c"}},
		{in: "mig:namePrefix=x", wantErr: `"mig" is not supported`},
		{in: "asg", wantErr: "want <provider>:<spec>"},
		{in: ":tag=a", wantErr: "want <provider>:<spec>"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseDiscovery(tt.in, "asg", "clusterapi")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseDiscovery(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseDiscovery(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestKeyValues(t *testing.T) {
	got, err := KeyValues("namespace=ns,clusterName=c,env=")
	if err != nil || len(got) != 3 || got[0] != [2]string{"namespace", "ns"} || got[2] != [2]string{"env", ""} {
		t.Fatalf("KeyValues = %v, %v", got, err)
	}
	for _, bad := range []string{"a", "=b", "a=b,,c=d"} {
		if _, err := KeyValues(bad); err == nil {
			t.Errorf("KeyValues(%q) = nil error, want one", bad)
		}
	}
}

func FuzzParseStatic(f *testing.F) {
	for _, s := range []string{"1:10:a", "0:0:a:b", "x", "1:2:", "-1:3:a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseStatic(s)
		if err != nil {
			return
		}
		if got.Min < 0 || got.Max < got.Min || got.Name == "" || len(got.Name) > MaxNameLength {
			t.Fatalf("ParseStatic(%q) = %+v: accepted an invalid spec", s, got)
		}
	})
}

func FuzzParseDiscovery(f *testing.F) {
	for _, s := range []string{"asg:tag=a,b=c", "clusterapi:namespace=x", ":", "asg"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseDiscovery(s, "asg", "clusterapi")
		if err == nil && got.Provider+":"+got.Spec != s {
			t.Fatalf("ParseDiscovery(%q) = %+v: does not split the input", s, got)
		}
		if err == nil {
			_, _ = KeyValues(got.Spec)
		}
	})
}
