package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/fake"
	clientscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/kscale/kscale/internal/cloudprovider/kwok"
)

// TestKscaleNodesAreAdopted checks that kscale's kwok provider adopts the
// harness's nodes as members of their groups.
func TestKscaleNodesAreAdopted(t *testing.T) {
	groups := groupNames(2)
	cc := kscaleCloudConfig(groups, 100)
	client := fake.NewClientset()
	f, err := newKscaleFormat(client, cc)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		n, err := f.node(groups[i%2], i/2, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if !isReady(n) || n.Status.Allocatable.Cpu().MilliValue() != nodeCPUMilli {
			t.Fatalf("node %s: ready %v allocatable %v, want Ready with %dm CPU", n.Name, isReady(n), n.Status.Allocatable, nodeCPUMilli)
		}
		if _, err := client.CoreV1().Nodes().Create(t.Context(), n, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	parsed, err := kwok.ParseCloudConfig([]byte(cc))
	if err != nil {
		t.Fatal(err)
	}
	p, err := kwok.New(kwok.Config{Client: client, NodeGroups: parsed.NodeGroups})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	for g, want := range map[string]int{"bench-0": 3, "bench-1": 2} {
		if _, target, err := p.Group(g); err != nil || target != want {
			t.Errorf("group %s target = %d (%v), want %d adopted nodes", g, target, err, want)
		}
	}
}

// TestUpstreamConfigMaps decodes the templates as upstream's kwok provider
// does (client-go's universal deserializer, a v1 List of Nodes).
func TestUpstreamConfigMaps(t *testing.T) {
	cms, err := upstreamConfigMaps("kube-system", groupNames(2), 1500)
	if err != nil {
		t.Fatal(err)
	}
	if cms[0].Name != upstreamConfigName || !strings.Contains(cms[0].Data["config"], "skipTaint: true") {
		t.Errorf("provider config = %+v", cms[0])
	}
	dec := serializer.NewCodecFactory(clientscheme.Scheme).UniversalDeserializer()
	obj, _, err := dec.Decode([]byte(cms[1].Data["templates"]), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	list, ok := obj.(*corev1.List)
	if !ok || len(list.Items) != 2 {
		t.Fatalf("templates decode to %T with %v, want a List of 2", obj, obj)
	}
	for i, item := range list.Items {
		o, _, err := dec.Decode(item.Raw, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		n, ok := o.(*corev1.Node)
		if !ok || n.Labels[upstreamGroupLabel] != groupNames(2)[i] || n.Annotations[upstreamMaxAnnotation] != "1500" {
			t.Errorf("template %d = %T %+v", i, o, o)
		}
	}
	n, err := upstreamFormat{}.node("bench-1", 7, time.Now())
	if err != nil || n.Spec.ProviderID != "kwok:lb-bench-1-7" || n.Annotations[upstreamNGAnnotation] != "bench-1" || !isReady(n) {
		t.Errorf("upstream node = %+v (%v)", n, err)
	}
}

func TestParseFlags(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
	}{
		{args: []string{"--size=5k"}},
		{args: []string{"--size=2k"}, wantErr: `--size: unknown size "2k"`},
		{args: []string{"--mix=plain,zigzag"}, wantErr: `--mix: unknown kind "zigzag"`},
		{args: []string{"--burst-size=-1"}, wantErr: "--burst-size: must be positive"},
		{args: []string{"--nodes=10", "--pods=5"}, wantErr: "--pods: 5 pods on 10 nodes; want at least one per node"},
		{args: []string{"--owners=9", "--burst-size=5"}, wantErr: "--owners: 9 owners for bursts of 5 pods"},
		{args: []string{"--nodes=10", "--pods=2000"}, wantErr: "--pods: 2000 pods on 10 nodes"},
		{args: []string{"--no-such-flag"}, wantErr: "flag provided but not defined"},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		o, err := parseFlags(tt.args, &stderr)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("parseFlags(%v) = %v", tt.args, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("parseFlags(%v) = %v, want an error containing %q", tt.args, err, tt.wantErr)
		case tt.wantErr == "" && (o.cfg.Nodes != 5000 || o.cfg.Pods != 150000):
			t.Errorf("parseFlags(%v) = %+v, want the 5k preset", tt.args, o.cfg)
		}
	}
	if code := run([]string{"--size=x"}, &bytes.Buffer{}, &bytes.Buffer{}); code != 2 {
		t.Errorf("run with a bad flag = exit %d, want 2", code)
	}
	o, err := parseFlags([]string{"--upstream=/x/ca", "--", "--v=2", "--scan-interval=5s"}, &bytes.Buffer{})
	if err != nil || o.cfg.Kscale != "" || strings.Join(o.cfg.ExtraArgs, " ") != "--v=2 --scan-interval=5s" {
		t.Errorf("parseFlags with extra args = %+v %v", o, err)
	}
}

func TestAutoscalerCommandProfiling(t *testing.T) {
	for _, upstream := range []string{"", "/x/ca"} {
		cfg := Config{Kscale: "bin/kscale", Upstream: upstream, ExtraArgs: []string{"--v=2"}}
		_, plain, _ := autoscalerCommand(&cfg, "kc", "cc", "127.0.0.1:1")
		cfg.CPUProfile = "cpu.pprof"
		_, profiled, _ := autoscalerCommand(&cfg, "kc", "cc", "127.0.0.1:1")
		if slices.Contains(plain, profileArg) {
			t.Errorf("upstream %q: %v has %s without --cpuprofile", upstream, plain, profileArg)
		}
		if !slices.Contains(profiled, profileArg) || profiled[len(profiled)-1] != "--v=2" {
			t.Errorf("upstream %q: %v, want %s before the extra arguments", upstream, profiled, profileArg)
		}
	}
}

func TestNeedsKeeping(t *testing.T) {
	ready := readyStatus(time.Now())
	notReady := corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}}
	taint := []corev1.Taint{{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}}
	tests := []struct {
		name string
		node corev1.Node
		want bool
	}{
		{name: "no status: upstream's new node", node: corev1.Node{}, want: true},
		{name: "Ready with admission's not-ready taint", node: corev1.Node{Spec: corev1.NodeSpec{Taints: taint}, Status: ready}, want: true},
		{name: "Ready, untainted", node: corev1.Node{Status: ready}},
		{name: "booting (Ready=False) belongs to its provider", node: corev1.Node{Spec: corev1.NodeSpec{Taints: taint}, Status: notReady}},
	}
	for _, tt := range tests {
		if got := needsKeeping(&tt.node); got != tt.want {
			t.Errorf("%s: needsKeeping = %v, want %v", tt.name, got, tt.want)
		}
	}
}
