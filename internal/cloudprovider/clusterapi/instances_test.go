package clusterapi

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kscale/kscale/internal/cloudprovider"
)

func TestMachineInstance(t *testing.T) {
	nodes := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if err := nodes.Add(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Spec: corev1.NodeSpec{ProviderID: "aws:///eu-1a/i-1"}}); err != nil {
		t.Fatal(err)
	}
	p := &Provider{cfg: Config{Nodes: corelisters.NewNodeLister(nodes)}, names: NamesFor(DefaultGroup)}
	now := metav1.Now()
	tests := []struct {
		name       string
		obj        map[string]any
		deleting   bool
		providerID string
		state      cloudprovider.InstanceState
		err        *cloudprovider.ErrorInfo
	}{
		{name: "pending without provider id", obj: map[string]any{},
			providerID: SyntheticPrefix + "machine/ns/m", state: cloudprovider.InstanceCreating},
		{name: "provider id before the node registers", obj: map[string]any{"spec": map[string]any{"providerID": "aws:///eu-1a/i-2"}},
			providerID: "aws:///eu-1a/i-2", state: cloudprovider.InstanceCreating},
		{name: "running through nodeRef only", obj: map[string]any{"status": map[string]any{"nodeRef": map[string]any{"name": "n1"}}},
			providerID: "aws:///eu-1a/i-1", state: cloudprovider.InstanceRunning},
		{name: "v1beta2 stock-out", obj: map[string]any{"status": map[string]any{"phase": "Failed",
			"deprecated": map[string]any{"v1beta1": map[string]any{"failureReason": "InsufficientResources", "failureMessage": "no capacity"}}}},
			providerID: SyntheticPrefix + "machine/ns/m", state: cloudprovider.InstanceCreating,
			err: &cloudprovider.ErrorInfo{Class: cloudprovider.ErrorOutOfResources, Code: "InsufficientResources", Message: "no capacity"}},
		{name: "v1beta1 create error", obj: map[string]any{"status": map[string]any{"phase": "Failed", "failureReason": "CreateError", "failureMessage": "bad AMI"}},
			providerID: SyntheticPrefix + "machine/ns/m", state: cloudprovider.InstanceCreating,
			err: &cloudprovider.ErrorInfo{Class: cloudprovider.ErrorOther, Code: "CreateError", Message: "bad AMI"}},
		{name: "failure fields without phase Failed are a provider still retrying", obj: map[string]any{"status": map[string]any{
			"phase": "Provisioning", "failureReason": "CreateError", "failureMessage": "retrying"}},
			providerID: SyntheticPrefix + "machine/ns/m", state: cloudprovider.InstanceCreating},
		{name: "v1beta2 infrastructure failed", obj: map[string]any{"status": map[string]any{"phase": "Provisioning",
			"conditions": conds(cond("InfrastructureReady", "False", "InstanceProvisionFailed", "quota exceeded for m5"))}},
			providerID: SyntheticPrefix + "machine/ns/m", state: cloudprovider.InstanceCreating,
			err: &cloudprovider.ErrorInfo{Class: cloudprovider.ErrorOther, Code: "InstanceProvisionFailed",
				Message: "Machine ns/m: InfrastructureReady is False (InstanceProvisionFailed): quota exceeded for m5"}},
		{name: "v1beta2 stock-out reason", obj: map[string]any{"status": map[string]any{
			"conditions": conds(cond("Ready", "False", "NotReady", ""), cond("InfrastructureReady", "False", "InsufficientCapacity", "no m5 in eu-1a"))}},
			providerID: SyntheticPrefix + "machine/ns/m", state: cloudprovider.InstanceCreating,
			err: &cloudprovider.ErrorInfo{Class: cloudprovider.ErrorOutOfResources, Code: "InsufficientCapacity",
				Message: "Machine ns/m: InfrastructureReady is False (InsufficientCapacity): no m5 in eu-1a"}},
		{name: "v1beta2 bootstrap failed", obj: map[string]any{"status": map[string]any{
			"conditions": conds(cond("BootstrapConfigReady", "False", "DataSecretGenerationFailed", ""))}},
			providerID: SyntheticPrefix + "machine/ns/m", state: cloudprovider.InstanceCreating,
			err: &cloudprovider.ErrorInfo{Class: cloudprovider.ErrorOther, Code: "DataSecretGenerationFailed",
				Message: "Machine ns/m: BootstrapConfigReady is False (DataSecretGenerationFailed)"}},
		{name: "v1beta2 still provisioning", obj: map[string]any{"status": map[string]any{
			"conditions": conds(cond("InfrastructureReady", "False", "NotReady", "waiting"), cond("BootstrapConfigReady", "Unknown", "InternalError", ""))}},
			providerID: SyntheticPrefix + "machine/ns/m", state: cloudprovider.InstanceCreating},
		{name: "v1beta2 failed reason on an unrelated condition", obj: map[string]any{"status": map[string]any{
			"conditions": conds(cond("Updating", "False", "InPlaceUpdateFailed", ""))}},
			providerID: SyntheticPrefix + "machine/ns/m", state: cloudprovider.InstanceCreating},
		{name: "v1beta2 reason that is True is no failure", obj: map[string]any{"status": map[string]any{
			"conditions": conds(cond("InfrastructureReady", "True", "ProvisionFailed", ""))}},
			providerID: SyntheticPrefix + "machine/ns/m", state: cloudprovider.InstanceCreating},
		{name: "v1beta2 conditions of an object read as v1beta1", obj: map[string]any{"status": map[string]any{
			"conditions": conds(cond("InfrastructureReady", "False", "WaitingForInfrastructure", "")),
			"v1beta2":    map[string]any{"conditions": conds(cond("InfrastructureReady", "False", "VMProvisionFailed", "image not found"))}}},
			providerID: SyntheticPrefix + "machine/ns/m", state: cloudprovider.InstanceCreating,
			err: &cloudprovider.ErrorInfo{Class: cloudprovider.ErrorOther, Code: "VMProvisionFailed",
				Message: "Machine ns/m: InfrastructureReady is False (VMProvisionFailed): image not found"}},
		{name: "v1beta2 failed after its node registered is running", obj: map[string]any{"spec": map[string]any{"providerID": "aws:///eu-1a/i-1"},
			"status": map[string]any{"nodeRef": map[string]any{"name": "n1"}, "conditions": conds(cond("InfrastructureReady", "False", "InstanceProvisionFailed", ""))}},
			providerID: "aws:///eu-1a/i-1", state: cloudprovider.InstanceRunning},
		{name: "failed phase alone", obj: map[string]any{"status": map[string]any{"phase": "Failed"}},
			providerID: SyntheticPrefix + "machine/ns/m", state: cloudprovider.InstanceCreating,
			err: &cloudprovider.ErrorInfo{Class: cloudprovider.ErrorOther, Code: CodeProvisioningFailed, Message: `Machine ns/m provisioning failed (phase "Failed")`}},
		{name: "failed and being deleted is only deleting", obj: map[string]any{"status": map[string]any{"phase": "Failed", "failureReason": "CreateError"}},
			deleting: true, providerID: SyntheticPrefix + "machine/ns/m", state: cloudprovider.InstanceDeleting},
		{name: "failed after its node registered is running", obj: map[string]any{"spec": map[string]any{"providerID": "aws:///eu-1a/i-1"},
			"status": map[string]any{"phase": "Failed", "nodeRef": map[string]any{"name": "n1"}}},
			providerID: "aws:///eu-1a/i-1", state: cloudprovider.InstanceRunning},
	}
	for _, tc := range tests {
		obj := &unstructured.Unstructured{Object: tc.obj}
		obj.SetNamespace("ns")
		obj.SetName("m")
		if tc.deleting {
			obj.SetDeletionTimestamp(&now)
		}
		got := p.machineInstance(newMachine(obj, p.names))
		if got.ID != "ns/m" || got.ProviderID != tc.providerID || got.State != tc.state || (got.Error == nil) != (tc.err == nil) ||
			(got.Error != nil && *got.Error != *tc.err) {
			t.Errorf("%s: got %+v (error %+v), want provider id %q state %s error %+v", tc.name, got, got.Error, tc.providerID, tc.state, tc.err)
		}
	}
}

func TestBounds(t *testing.T) {
	n := NamesFor(DefaultGroup)
	tests := []struct {
		ann              map[string]string
		minSize, maxSize int
		wantErr          bool
	}{
		{ann: nil},
		{ann: map[string]string{n.MinSize: "1", n.MaxSize: "5"}, minSize: 1, maxSize: 5},
		{ann: map[string]string{n.MaxSize: "3"}, maxSize: 3},
		{ann: map[string]string{n.MinSize: "2"}, wantErr: true},
		{ann: map[string]string{n.MinSize: "x", n.MaxSize: "3"}, wantErr: true},
		{ann: map[string]string{n.MinSize: "-1", n.MaxSize: "3"}, wantErr: true},
		{ann: map[string]string{n.MinSize: "4", n.MaxSize: "3"}, wantErr: true},
	}
	for _, tc := range tests {
		r := &scalable{kind: "MachineDeployment", namespace: "ns", name: "md", annotations: tc.ann}
		minSize, maxSize, err := r.bounds(n)
		if (err != nil) != tc.wantErr || minSize != tc.minSize || maxSize != tc.maxSize {
			t.Errorf("bounds(%v) = %d, %d, %v", tc.ann, minSize, maxSize, err)
		}
	}
}

func TestRollout(t *testing.T) {
	n := NamesFor(DefaultGroup)
	set := func(name, revision string, spec, status int64) unstructured.Unstructured {
		u := unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"replicas": spec}, "status": map[string]any{"replicas": status}}}
		u.SetNamespace("ns")
		u.SetName(name)
		u.SetLabels(map[string]string{n.DeploymentName: "md"})
		u.SetAnnotations(map[string]string{RevisionAnnotation: revision})
		return u
	}
	md := &scalable{namespace: "ns", name: "md"}
	if got := rollout(md, []unstructured.Unstructured{set("a", "1", 0, 0), set("b", "2", 3, 3)}, n); got != "" {
		t.Errorf("settled deployment blocked: %q", got)
	}
	if got := rollout(md, []unstructured.Unstructured{set("a", "1", 0, 1), set("b", "2", 3, 2)}, n); got == "" {
		t.Errorf("an old MachineSet still running a machine must block scale-down")
	}
}

func TestTemplateTaints(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
		"taints": []any{
			map[string]any{"key": "gpu", "value": "a100", "effect": "NoSchedule", "propagation": "Always"},
			map[string]any{"key": "gpu", "value": "a100", "effect": "NoExecute", "propagation": "Always"},
		}}}}}}
	r := &scalable{kind: "MachineDeployment", namespace: "ns", name: "md", obj: obj,
		annotations: map[string]string{TaintsAnnotation: "gpu=h100:NoExecute,dedicated:NoSchedule"}}
	got, err := templateTaints(r)
	if err != nil {
		t.Fatal(err)
	}
	want := []corev1.Taint{
		{Key: "gpu", Value: "a100", Effect: corev1.TaintEffectNoSchedule},
		{Key: "gpu", Value: "h100", Effect: corev1.TaintEffectNoExecute},
		{Key: "dedicated", Effect: corev1.TaintEffectNoSchedule},
	}
	if len(got) != len(want) {
		t.Fatalf("taints %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("taints %v, want %v (the annotation wins for the same key and effect)", got, want)
		}
	}
	r.annotations[TaintsAnnotation] = "gpu=x:Sometimes"
	if _, err := templateTaints(r); err == nil {
		t.Errorf("a bad taints annotation must fail")
	}
}

func cond(typ, status, reason, message string) map[string]any {
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": message}
}

func conds(cs ...map[string]any) []any {
	out := make([]any, len(cs))
	for i, c := range cs {
		out[i] = c
	}
	return out
}
