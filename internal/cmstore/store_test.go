package cmstore_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kscale/kscale/internal/cmstore"
	"github.com/kscale/kscale/internal/testenv"
)

func TestStore(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	ctx := t.Context()
	cms := env.Client.CoreV1().ConfigMaps("default")
	s, err := cmstore.New(cmstore.Config{Client: env.Client, Namespace: "default", Name: "state", Key: "doc.json"})
	if err != nil {
		t.Fatal(err)
	}
	if _, found, err := s.Load(ctx); err != nil || found {
		t.Fatalf("Load before anything was written: found=%v err=%v", found, err)
	}
	if err := s.Save(ctx, []byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	cm, err := cms.Get(ctx, "state", metav1.GetOptions{})
	if err != nil || cm.Data["doc.json"] != `{"a":1}` {
		t.Fatalf("after the first Save: %v, %v", cm.Data, err)
	}

	t.Run("an unchanged document is not written again", func(t *testing.T) {
		if err := s.Save(ctx, []byte(`{"a":1}`)); err != nil {
			t.Fatal(err)
		}
		again, err := cms.Get(ctx, "state", metav1.GetOptions{})
		if err != nil || again.ResourceVersion != cm.ResourceVersion {
			t.Errorf("resourceVersion %s -> %s (%v), want unchanged", cm.ResourceVersion, again.ResourceVersion, err)
		}
	})
	t.Run("other keys are kept and a new store reads the document", func(t *testing.T) {
		cm, err := cms.Get(ctx, "state", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cm.Data["other"] = "x"
		if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := s.Save(ctx, []byte(`{"a":2}`)); err != nil {
			t.Fatal(err)
		}
		fresh, err := cmstore.New(cmstore.Config{Client: env.Client, Namespace: "default", Name: "state", Key: "doc.json"})
		if err != nil {
			t.Fatal(err)
		}
		doc, found, err := fresh.Load(ctx)
		if err != nil || !found || string(doc) != `{"a":2}` {
			t.Errorf("Load = %q, %v, %v", doc, found, err)
		}
		final, err := cms.Get(ctx, "state", metav1.GetOptions{})
		if err != nil || final.Data["other"] != "x" {
			t.Errorf("other key lost: %v, %v", final.Data, err)
		}
	})
	t.Run("a change costs one request; a conflict or a deletion a read more", func(t *testing.T) {
		client := fake.NewClientset()
		var verbs []string
		conflict := false
		client.PrependReactor("*", "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
			verbs = append(verbs, a.GetVerb())
			if a.GetVerb() == "update" && conflict {
				conflict = false
				return true, nil, apierrors.NewConflict(corev1.Resource("configmaps"), "state", errors.New("changed"))
			}
			return false, nil, nil
		})
		s, err := cmstore.New(cmstore.Config{Client: client, Namespace: "default", Name: "state", Key: "doc.json"})
		if err != nil {
			t.Fatal(err)
		}
		for i, step := range []struct {
			before func()
			want   []string
		}{
			{want: []string{"get", "create"}},
			{want: []string{"update"}},
			{before: func() { conflict = true }, want: []string{"update", "get", "update"}},
			{before: func() {
				if err := client.CoreV1().ConfigMaps("default").Delete(ctx, "state", metav1.DeleteOptions{}); err != nil {
					t.Fatal(err)
				}
			}, want: []string{"update", "get", "create"}},
			{want: []string{"update"}},
		} {
			if step.before != nil {
				step.before()
			}
			verbs = nil
			if err := s.Save(ctx, []byte(fmt.Sprintf(`{"n":%d}`, i))); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(verbs, step.want) {
				t.Errorf("save %d: requests %v, want %v", i, verbs, step.want)
			}
		}
	})
	t.Run("annotations are set with the document and count as a change", func(t *testing.T) {
		s, err := cmstore.New(cmstore.Config{Client: env.Client, Namespace: "default", Name: "annotated", Key: "doc.json"})
		if err != nil {
			t.Fatal(err)
		}
		if s.UID() != "" {
			t.Errorf("UID before a write = %q, want empty", s.UID())
		}
		for i, stamp := range []string{"t1", "t1", "t2"} {
			if err := s.SaveAnnotated(ctx, []byte(`{"a":1}`), map[string]string{"example.com/stamp": stamp}); err != nil {
				t.Fatal(err)
			}
			got, err := cms.Get(ctx, "annotated", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Annotations["example.com/stamp"] != stamp || got.Data["doc.json"] != `{"a":1}` {
				t.Errorf("save %d: annotations %v data %v, want stamp %s", i, got.Annotations, got.Data, stamp)
			}
			if s.UID() != got.UID {
				t.Errorf("save %d: UID %q, want the object's %q", i, s.UID(), got.UID)
			}
		}
	})
	t.Run("a ConfigMap without the key reads as not found", func(t *testing.T) {
		bare := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bare", Namespace: "default"}, Data: map[string]string{"x": "y"}}
		if _, err := cms.Create(ctx, bare, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		s, err := cmstore.New(cmstore.Config{Client: env.Client, Namespace: "default", Name: "bare", Key: "doc.json"})
		if err != nil {
			t.Fatal(err)
		}
		if _, found, err := s.Load(ctx); err != nil || found {
			t.Errorf("found=%v err=%v", found, err)
		}
	})
}

func TestConfigValidate(t *testing.T) {
	_, err := cmstore.New(cmstore.Config{})
	if err == nil {
		t.Fatal("empty config accepted")
	}
	for _, field := range []string{"client", "namespace", "name", "key"} {
		if !strings.Contains(err.Error(), field+": required") {
			t.Errorf("error %q does not name %s", err, field)
		}
	}
}
