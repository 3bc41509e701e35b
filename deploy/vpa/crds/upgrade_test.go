package crds

import (
	"slices"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/testenv"
)

// TestInstallOverV1beta2StoredVersion installs the CRDs over those of a
// cluster that started on VPA 0.8, where v1beta2 was the storage version
// and stays in status.storedVersions: ours keep v1beta2 (not served), so
// the update is accepted, while CRDs with v1 alone are refused.
func TestInstallOverV1beta2StoredVersion(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	ctx := t.Context()
	cs, err := apiextensionsclient.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := Objects()
	if err != nil {
		t.Fatal(err)
	}
	for _, crd := range objs {
		old := crd.DeepCopy()
		old.Spec.Versions[0].Storage = false
		old.Spec.Versions[1].Served, old.Spec.Versions[1].Storage = true, true
		if err := apply(ctx, cs, old); err != nil {
			t.Fatal(err)
		}
		if err := waitEstablished(ctx, cs, crd.Name, time.Minute); err != nil {
			t.Fatal(err)
		}
		v1only := crd.DeepCopy()
		v1only.Spec.Versions = v1only.Spec.Versions[:1]
		if err := apply(ctx, cs, v1only); err == nil || !strings.Contains(err.Error(), "storedVersions") {
			t.Errorf("%s: dropping the stored v1beta2: error %v, want the API server's storedVersions refusal", crd.Name, err)
		}
	}
	if err := Install(ctx, env.Config, time.Minute); err != nil {
		t.Fatalf("Install over a v1beta2-stored CRD: %v", err)
	}
	for _, crd := range objs {
		got, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(got.Status.StoredVersions, "v1beta2") || !served(got, "v1") || served(got, "v1beta2") {
			t.Errorf("%s: stored %v, want v1beta2 kept and only v1 served", crd.Name, got.Status.StoredVersions)
		}
	}
}

func served(crd *apiextensionsv1.CustomResourceDefinition, version string) bool {
	for _, v := range crd.Spec.Versions {
		if v.Name == version {
			return v.Served
		}
	}
	return false
}
