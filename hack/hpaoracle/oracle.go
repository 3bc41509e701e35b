package main

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"time"
	"unsafe"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/pkg/controller/podautoscaler"
	metricsclient "k8s.io/kubernetes/pkg/controller/podautoscaler/metrics"
)

const namespace = "oracle"

var (
	// now is a fixed time the metrics are stamped with.
	now = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
)

// answer runs upstream's GetMetricReplicas on the request.
func answer(req Request) (Response, error) {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	metrics := metricsclient.PodMetricsInfo{}
	for i, p := range req.Pods {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "p" + strconv.Itoa(i), Labels: map[string]string{"app": "x"}},
			Status:     corev1.PodStatus{Phase: corev1.PodPhase(p.Phase)},
		}
		if p.Deleting {
			pod.DeletionTimestamp = &metav1.Time{Time: now}
		}
		if err := indexer.Add(pod); err != nil {
			return Response{}, fmt.Errorf("adding pod: %w", err)
		}
		if p.MetricMilli != nil {
			metrics[pod.Name] = metricsclient.PodMetric{Timestamp: now, Window: time.Minute, Value: *p.MetricMilli}
		}
	}
	calc := podautoscaler.NewReplicaCalculator(fixedMetrics{metrics}, corelisters.NewPodLister(indexer), 5*time.Minute, 30*time.Second)
	tol, err := tolerances(req.ToleranceDown, req.ToleranceUp)
	if err != nil {
		return Response{}, err
	}
	sel := labels.SelectorFromSet(labels.Set{"app": "x"})
	n, usage, _, err := calc.GetMetricReplicas(req.Current, req.TargetMilli, "m", tol, namespace, sel, labels.Everything())
	if err != nil {
		return Response{Error: err.Error()}, nil
	}
	return Response{Replicas: n, UsageMilli: usage}, nil
}

// tolerances builds upstream's Tolerances, whose fields are unexported
// (the controller fills them from the flag and the HPA's behavior). The
// field names and types are checked, so a changed layout fails loudly
// instead of silently answering with other tolerances.
func tolerances(down, up float64) (podautoscaler.Tolerances, error) {
	var t podautoscaler.Tolerances
	v := reflect.ValueOf(&t).Elem()
	for name, val := range map[string]float64{"scaleDown": down, "scaleUp": up} {
		f := v.FieldByName(name)
		if !f.IsValid() || f.Kind() != reflect.Float64 {
			return t, fmt.Errorf("podautoscaler.Tolerances has no float64 field %s: update the oracle", name)
		}
		reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().SetFloat(val)
	}
	return t, nil
}

// fixedMetrics is a metrics client returning fixed pod metrics; the
// replica calculator copies none of it, so every call gets a fresh copy.
type fixedMetrics struct{ m metricsclient.PodMetricsInfo }

func (f fixedMetrics) copyMetrics() metricsclient.PodMetricsInfo {
	out := make(metricsclient.PodMetricsInfo, len(f.m))
	for k, v := range f.m {
		out[k] = v
	}
	return out
}

// GetResourceMetric is not used by Pods metrics.
func (f fixedMetrics) GetResourceMetric(_ context.Context, _ corev1.ResourceName, _ string, _ labels.Selector, _ string) (metricsclient.PodMetricsInfo, time.Time, error) {
	return nil, time.Time{}, fmt.Errorf("resource metrics are not served")
}

// GetRawMetric returns the fixed pod metrics.
func (f fixedMetrics) GetRawMetric(_ string, _ string, _ labels.Selector, _ labels.Selector) (metricsclient.PodMetricsInfo, time.Time, error) {
	return f.copyMetrics(), now, nil
}

// GetObjectMetric is not used by Pods metrics.
func (f fixedMetrics) GetObjectMetric(_ string, _ string, _ *autoscalingv2.CrossVersionObjectReference, _ labels.Selector) (int64, time.Time, error) {
	return 0, time.Time{}, fmt.Errorf("object metrics are not served")
}

// GetExternalMetric is not used by Pods metrics.
func (f fixedMetrics) GetExternalMetric(_ string, _ string, _ labels.Selector) ([]int64, time.Time, error) {
	return nil, time.Time{}, fmt.Errorf("external metrics are not served")
}
