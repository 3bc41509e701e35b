package custommetrics

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
)

// APIServiceNames are the APIServices of custom.metrics.k8s.io the provider
// serves; an APIService's name is fixed by its version and group.
var APIServiceNames = []string{"v1beta2.custom.metrics.k8s.io", "v1beta1.custom.metrics.k8s.io"}

// restClient is the part of client-go's REST client the publisher uses.
type restClient interface {
	Get() *rest.Request
	Patch(pt types.PatchType) *rest.Request
}

// apiServices publishes a CA bundle to the custom metrics APIServices that
// point at the provider's Service.
type apiServices struct {
	client             restClient
	namespace, service string
}

// apiService is the part of an apiregistration.k8s.io/v1 APIService read here.
type apiService struct {
	Spec struct {
		Service *struct {
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
		} `json:"service"`
		CABundle              []byte `json:"caBundle"`
		InsecureSkipTLSVerify bool   `json:"insecureSkipTLSVerify"`
	} `json:"spec"`
}

// Publish sets caBundle on every APIService of APIServiceNames whose
// service is the provider's, with a JSON merge patch (verbs get and patch),
// turning insecureSkipTLSVerify off. Missing APIServices and those of
// another provider are left alone.
func (a *apiServices) Publish(ctx context.Context, caBundle []byte) error {
	log := klog.FromContext(ctx)
	for _, name := range APIServiceNames {
		path := "/apis/apiregistration.k8s.io/v1/apiservices/" + name
		raw, err := a.client.Get().AbsPath(path).DoRaw(ctx)
		if apierrors.IsNotFound(err) {
			log.V(2).Info("No APIService to publish the CA bundle to", "apiService", name)
			continue
		}
		if err != nil {
			return fmt.Errorf("reading APIService %s: %w", name, err)
		}
		var have apiService
		if err := json.Unmarshal(raw, &have); err != nil {
			return fmt.Errorf("decoding APIService %s: %w", name, err)
		}
		if svc := have.Spec.Service; svc == nil || svc.Namespace != a.namespace || svc.Name != a.service {
			log.V(1).Info("APIService points at another service; not publishing the CA bundle to it", "apiService", name)
			continue
		}
		if bytes.Equal(have.Spec.CABundle, caBundle) && !have.Spec.InsecureSkipTLSVerify {
			continue
		}
		patch, err := json.Marshal(map[string]any{"spec": map[string]any{"caBundle": caBundle, "insecureSkipTLSVerify": false}})
		if err != nil {
			return fmt.Errorf("encoding the caBundle patch: %w", err)
		}
		if _, err := a.client.Patch(types.MergePatchType).AbsPath(path).Body(patch).DoRaw(ctx); err != nil {
			return fmt.Errorf("patching the caBundle of APIService %s: %w", name, err)
		}
		log.Info("Published a new CA bundle", "apiService", name)
	}
	return nil
}
