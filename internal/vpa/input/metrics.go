package input

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned/typed/metrics/v1beta1"

	"github.com/kscale/kscale/internal/vpa/model"
)

// ContainerUsage is one usage sample of one container.
type ContainerUsage struct {
	// Pod is the container's pod.
	Pod model.PodID
	// Container is the container name.
	Container string
	// Time is when the sample was taken.
	Time time.Time
	// CPUCores is the CPU usage in cores; negative when not reported.
	CPUCores float64
	// MemoryBytes is the memory working set in bytes; negative when not reported.
	MemoryBytes float64
}

// MetricsError is a failure of the metrics.k8s.io API.
type MetricsError struct {
	// Err is the client's error.
	Err error
}

// Error names the API and the cause.
func (e *MetricsError) Error() string {
	return fmt.Sprintf("listing metrics.k8s.io/v1beta1 PodMetrics: %v", e.Err)
}

// Unwrap returns the client's error.
func (e *MetricsError) Unwrap() error { return e.Err }

// MetricsSource lists current container usage from metrics.k8s.io.
type MetricsSource struct {
	client metricsclient.PodMetricsesGetter
}

// NewMetricsSource returns a source reading through client.
func NewMetricsSource(client metricsclient.PodMetricsesGetter) *MetricsSource {
	return &MetricsSource{client: client}
}

// List returns one sample per container of every pod in all namespaces.
// Failures are *MetricsError.
func (s *MetricsSource) List(ctx context.Context) ([]ContainerUsage, error) {
	list, err := s.client.PodMetricses(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, &MetricsError{Err: err}
	}
	return UsageFromPodMetrics(list.Items), nil
}

// UsageFromPodMetrics converts PodMetrics into samples stamped with each
// PodMetrics' timestamp. A resource missing from a container is reported
// as negative (the model drops it).
func UsageFromPodMetrics(items []metricsv1beta1.PodMetrics) []ContainerUsage {
	n := 0
	for i := range items {
		n += len(items[i].Containers)
	}
	out := make([]ContainerUsage, 0, n)
	for i := range items {
		pm := &items[i]
		id := model.PodID{Namespace: pm.Namespace, Name: pm.Name}
		for _, c := range pm.Containers {
			u := ContainerUsage{Pod: id, Container: c.Name, Time: pm.Timestamp.Time, CPUCores: -1, MemoryBytes: -1}
			if q, ok := c.Usage[corev1.ResourceCPU]; ok {
				u.CPUCores = float64(q.MilliValue()) / 1000
			}
			if q, ok := c.Usage[corev1.ResourceMemory]; ok {
				u.MemoryBytes = float64(q.Value())
			}
			out = append(out, u)
		}
	}
	return out
}
