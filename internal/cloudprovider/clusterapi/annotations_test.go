package clusterapi

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestParseTaints(t *testing.T) {
	tests := []struct {
		in      string
		want    []corev1.Taint
		wantErr string
	}{
		{in: "", want: nil},
		{in: "gpu=a100:NoSchedule,dedicated:NoExecute", want: []corev1.Taint{
			{Key: "gpu", Value: "a100", Effect: corev1.TaintEffectNoSchedule}, {Key: "dedicated", Effect: corev1.TaintEffectNoExecute}}},
		{in: "example.com/k=v:PreferNoSchedule", want: []corev1.Taint{{Key: "example.com/k", Value: "v", Effect: corev1.TaintEffectPreferNoSchedule}}},
		{in: "gpu=a100", wantErr: "want key=value:Effect"},
		{in: "gpu=a100:Sometimes", wantErr: "effect"},
		{in: "-bad:NoSchedule", wantErr: "key"},
		{in: "k=v v:NoSchedule", wantErr: "value"},
	}
	for _, tc := range tests {
		got, err := ParseTaints(tc.in)
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("ParseTaints(%q) error %v, want %q", tc.in, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || len(got) != len(tc.want) || (len(got) > 0 && !reflect.DeepEqual(got, tc.want))):
			t.Errorf("ParseTaints(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestParseLabels(t *testing.T) {
	tests := []struct {
		in      string
		want    map[string]string
		wantErr string
	}{
		{in: "", want: map[string]string{}},
		{in: "pool=gpu, example.com/tier=batch", want: map[string]string{"pool": "gpu", "example.com/tier": "batch"}},
		{in: "pool", wantErr: "want key=value"},
		{in: "pool=a b", wantErr: "value"},
		{in: "=x", wantErr: "key"},
	}
	for _, tc := range tests {
		got, err := ParseLabels(tc.in)
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("ParseLabels(%q) error %v, want %q", tc.in, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || !reflect.DeepEqual(got, tc.want)):
			t.Errorf("ParseLabels(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestCapacityFromAnnotations(t *testing.T) {
	tests := []struct {
		name    string
		ann     map[string]string
		want    map[corev1.ResourceName]string
		wantErr string
	}{
		{name: "defaults pods", ann: map[string]string{CPUAnnotation: "4", MemoryAnnotation: "16G"},
			want: map[corev1.ResourceName]string{"cpu": "4", "memory": "16G", "pods": "110"}},
		{name: "everything", ann: map[string]string{CPUAnnotation: "4", MemoryAnnotation: "16Gi", DiskAnnotation: "100Gi", MaxPodsAnnotation: "58",
			GPUTypeAnnotation: "nvidia.com/gpu", GPUCountAnnotation: "2"},
			want: map[corev1.ResourceName]string{"cpu": "4", "memory": "16Gi", "ephemeral-storage": "100Gi", "pods": "58", "nvidia.com/gpu": "2"}},
		{name: "bad cpu", ann: map[string]string{CPUAnnotation: "four"}, wantErr: CPUAnnotation},
		{name: "negative memory", ann: map[string]string{MemoryAnnotation: "-1Gi"}, wantErr: MemoryAnnotation},
		{name: "gpu type alone", ann: map[string]string{GPUTypeAnnotation: "nvidia.com/gpu"}, wantErr: "set both"},
	}
	for _, tc := range tests {
		got, err := capacityFromAnnotations(tc.ann)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil || len(got) != len(tc.want) {
			t.Fatalf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		}
		for r, q := range tc.want {
			if v := got[r]; v.String() != q {
				t.Errorf("%s: %s = %s, want %s", tc.name, r, v.String(), q)
			}
		}
	}
}

func TestParseDiscoverySpec(t *testing.T) {
	tests := []struct {
		in                  string
		ns, cluster, labels string
		wantErr             string
	}{
		{in: "", labels: ""},
		{in: "namespace=prod,clusterName=c1,team=a", ns: "prod", cluster: "c1", labels: "team=a"},
		{in: "namespace=Prod", wantErr: "namespace"},
		{in: "team", wantErr: "not key=value"},
		{in: "team=a,team=b", wantErr: "twice"},
		{in: "bad key=a", wantErr: "label key"},
	}
	for _, tc := range tests {
		got, err := ParseDiscoverySpec(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseDiscoverySpec(%q) error %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got.Namespace != tc.ns || got.ClusterName != tc.cluster || got.Selector.String() != tc.labels {
			t.Errorf("ParseDiscoverySpec(%q) = %+v, %v", tc.in, got, err)
		}
	}
	if _, err := ParseDiscovery([]string{"asg:tag=x"}); err == nil {
		t.Errorf("an asg spec must be rejected")
	}
}

func TestListNamespace(t *testing.T) {
	a, b := DiscoverySpec{Namespace: "a"}, DiscoverySpec{Namespace: "b"}
	for _, tc := range []struct {
		specs []DiscoverySpec
		want  string
	}{{nil, ""}, {[]DiscoverySpec{a}, "a"}, {[]DiscoverySpec{a, a}, "a"}, {[]DiscoverySpec{a, b}, ""}, {[]DiscoverySpec{a, {}}, ""}} {
		if got := listNamespace(tc.specs); got != tc.want {
			t.Errorf("listNamespace(%v) = %q, want %q", tc.specs, got, tc.want)
		}
	}
}

func FuzzParseTaints(f *testing.F) {
	for _, s := range []string{"gpu=a:NoSchedule", "k:NoExecute,x=y:PreferNoSchedule", "", ":", "=:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ts, err := ParseTaints(s)
		if err != nil {
			return
		}
		for _, tt := range ts {
			if tt.Key == "" || tt.Effect == "" {
				t.Fatalf("ParseTaints(%q) accepted %+v", s, tt)
			}
		}
	})
}

func FuzzParseLabels(f *testing.F) {
	for _, s := range []string{"a=b", "a=b,c=d", "", "=", "a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ls, err := ParseLabels(s)
		if err != nil {
			return
		}
		for k := range ls {
			if k == "" {
				t.Fatalf("ParseLabels(%q) accepted an empty key", s)
			}
		}
	})
}

func FuzzParseDiscoverySpec(f *testing.F) {
	for _, s := range []string{"namespace=a,clusterName=b,x=y", "", "a=", "=b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDiscoverySpec(s)
		if err == nil && d.Selector == nil {
			t.Fatalf("ParseDiscoverySpec(%q) has no selector", s)
		}
	})
}
