package live

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// sharePod is a replica of owner with the given labels and CPU request.
func sharePod(name, owner string, labels map[string]string, cpu string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: owner,
				UID: types.UID("uid-" + owner), Controller: ptr.To(true)}}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}},
			Tolerations: []corev1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists,
				Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To(int64(300))}},
		},
		Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.Unix(int64(len(name)), 0)}}},
	}
}

// same reports whether two maps or slices are one value in memory.
func same(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return va.Len() > 0 && va.UnsafePointer() == vb.UnsafePointer()
}

func TestSharerSharesEqualParts(t *testing.T) {
	s := newSharer(defaultShareLimit)
	transform := func(p *corev1.Pod) *corev1.Pod {
		t.Helper()
		want := p.DeepCopy()
		if _, err := StripUnread(want); err != nil {
			t.Fatal(err)
		}
		got, err := s.transform(p)
		if err != nil {
			t.Fatal(err)
		}
		if !equality.Semantic.DeepEqual(got, want) {
			t.Fatalf("transform changed %s beyond StripUnread:\n got %+v\nwant %+v", p.Name, got, want)
		}
		return got.(*corev1.Pod)
	}
	a := transform(sharePod("a", "web", map[string]string{"app": "web", "tier": "1"}, "250m"))
	b := transform(sharePod("b", "web", map[string]string{"tier": "1", "app": "web"}, "250m"))
	c := transform(sharePod("c", "db", map[string]string{"app": "web:tier", "": "1"}, "0.25"))
	d := transform(sharePod("d", "web", map[string]string{"app": "web", "tier": "1"}, "500m"))
	withRules := sharePod("e", "web", nil, "250m")
	withRules.Spec.Containers[0].RestartPolicyRules = []corev1.ContainerRestartRule{{Action: corev1.ContainerRestartRuleActionRestart}}
	e := transform(withRules)

	tests := []struct {
		what string
		a, b any
		want bool
	}{
		{"equal labels", a.Labels, b.Labels, true},
		{"equal owner references", a.OwnerReferences, b.OwnerReferences, true},
		{"equal tolerations", a.Spec.Tolerations, b.Spec.Tolerations, true},
		{"equal containers", a.Spec.Containers, b.Spec.Containers, true},
		{"equal conditions at other times", a.Status.Conditions, b.Status.Conditions, true},
		{"labels whose joined text could collide", a.Labels, c.Labels, false},
		{"other owner", a.OwnerReferences, c.OwnerReferences, false},
		{"equal quantity written otherwise (both serialize as 250m)", a.Spec.Containers, c.Spec.Containers, true},
		{"other quantity", a.Spec.Containers, d.Spec.Containers, false},
		{"unkeyable containers keep shared requests", a.Spec.Containers[0].Resources.Requests, e.Spec.Containers[0].Resources.Requests, true},
		{"tolerations of another owner's pod", a.Spec.Tolerations, c.Spec.Tolerations, true},
	}
	for _, tt := range tests {
		if got := same(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: shared = %v, want %v", tt.what, got, tt.want)
		}
	}
}

func TestSharerLimit(t *testing.T) {
	s := newSharer(2)
	for _, owner := range []string{"a", "b", "c"} {
		if _, err := s.transform(sharePod(owner, owner, map[string]string{"app": owner}, "1")); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(s.labels); n != 1 {
		t.Errorf("label table after a third value with limit 2: %d entries, want 1 (dropped and refilled)", n)
	}
	p := sharePod("d", "d", nil, "1")
	p.Spec.Tolerations = nil
	got, err := s.transform(p)
	if err != nil {
		t.Fatal(err)
	}
	if gp := got.(*corev1.Pod); gp.Labels != nil || gp.Spec.Tolerations != nil {
		t.Errorf("empty parts: labels %v, tolerations %v, want nil", gp.Labels, gp.Spec.Tolerations)
	}
}
