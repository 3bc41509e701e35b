package crds

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/yaml"
)

//go:embed autoscaling.k8s.io_*.yaml
var files embed.FS

// Objects returns the embedded CustomResourceDefinitions, sorted by file name.
func Objects() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	names, err := fs.Glob(files, "autoscaling.k8s.io_*.yaml")
	if err != nil {
		return nil, fmt.Errorf("listing embedded CRDs: %w", err)
	}
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(names))
	for _, name := range names {
		raw, err := files.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(raw, crd); err != nil {
			return nil, fmt.Errorf("decoding %s: %w", name, err)
		}
		out = append(out, crd)
	}
	return out, nil
}

// Install creates (or updates) the CRDs and waits until every one is
// Established, at most timeout.
func Install(ctx context.Context, cfg *rest.Config, timeout time.Duration) error {
	cs, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("building apiextensions client: %w", err)
	}
	objs, err := Objects()
	if err != nil {
		return err
	}
	for _, crd := range objs {
		if err := apply(ctx, cs, crd); err != nil {
			return err
		}
	}
	for _, crd := range objs {
		if err := waitEstablished(ctx, cs, crd.Name, timeout); err != nil {
			return err
		}
	}
	return nil
}

// apply creates the CRD or replaces the spec of an existing one.
func apply(ctx context.Context, cs apiextensionsclient.Interface, crd *apiextensionsv1.CustomResourceDefinition) error {
	api := cs.ApiextensionsV1().CustomResourceDefinitions()
	_, err := api.Create(ctx, crd, metav1.CreateOptions{})
	if err == nil {
		return nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating CRD %s: %w", crd.Name, err)
	}
	// The API server's own controllers update a new CRD's status (names
	// accepted, established) while we write: a conflict is retried on the
	// fresh object.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := api.Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("reading CRD %s: %w", crd.Name, err)
		}
		cur.Spec = crd.Spec
		_, err = api.Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("updating CRD %s: %w", crd.Name, err)
	}
	return nil
}

// waitEstablished polls until the CRD reports condition Established.
func waitEstablished(ctx context.Context, cs apiextensionsclient.Interface, name string, timeout time.Duration) error {
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		crd, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, c := range crd.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for CRD %s to be established: %w", name, err)
	}
	return nil
}
