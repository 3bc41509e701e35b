package recommender

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
)

// Condition reasons this recommender sets.
const (
	// ReasonNoPodsMatched says the VPA selects no live pods.
	ReasonNoPodsMatched = "NoPodsMatched"
	// ReasonInvalidResourcePolicy says spec.resourcePolicy is invalid.
	ReasonInvalidResourcePolicy = "InvalidResourcePolicy"
	// ReasonNoSamples says no usage sample has been seen for the VPA yet.
	ReasonNoSamples = "NoSamples"
	// ReasonMetricsUnavailable says the metrics API failed and the VPA has no history.
	ReasonMetricsUnavailable = "MetricsUnavailable"
	// ReasonConfigUnsupported says the recommendation was not updated
	// because the configuration is unsupported.
	ReasonConfigUnsupported = "ConfigUnsupported"
	// ReasonRecommended says a recommendation is available.
	ReasonRecommended = "RecommendationProvided"
)

// outcome is what one loop decided for one VPA.
type outcome struct {
	// configReason and configMessage are set when the VPA's configuration
	// is unsupported; the recommendation is then left as it was.
	configReason, configMessage string
	// rec is the new recommendation; nil means none computed this loop.
	rec *vpav1.RecommendedPodResources
	// noRecReason and noRecMessage explain a missing recommendation.
	noRecReason, noRecMessage string
	// noPods is true when the VPA selects no live pod.
	noPods bool
}

// buildStatus returns the VPA's new status. Conditions keep their
// lastTransitionTime while their status does not change.
func buildStatus(old *vpav1.VerticalPodAutoscalerStatus, o outcome, now metav1.Time) vpav1.VerticalPodAutoscalerStatus {
	st := vpav1.VerticalPodAutoscalerStatus{Recommendation: old.Recommendation, ObservedGeneration: old.ObservedGeneration}
	if o.configReason == "" {
		st.Recommendation = o.rec
	}
	var conds []vpav1.VerticalPodAutoscalerCondition
	set := func(t vpav1.VerticalPodAutoscalerConditionType, status corev1.ConditionStatus, reason, msg string) {
		c := vpav1.VerticalPodAutoscalerCondition{Type: t, Status: status, Reason: reason, Message: msg, LastTransitionTime: now}
		if prev := findCondition(old.Conditions, t); prev != nil && prev.Status == status {
			c.LastTransitionTime = prev.LastTransitionTime
		}
		conds = append(conds, c)
	}
	if o.configReason != "" {
		set(vpav1.ConfigUnsupported, corev1.ConditionTrue, o.configReason, o.configMessage)
	}
	if o.noPods {
		set(vpav1.NoPodsMatched, corev1.ConditionTrue, ReasonNoPodsMatched, "No pods match this VPA object")
	}
	switch {
	case st.Recommendation != nil && len(st.Recommendation.ContainerRecommendations) > 0:
		set(vpav1.RecommendationProvided, corev1.ConditionTrue, ReasonRecommended, "")
	case o.configReason != "":
		set(vpav1.RecommendationProvided, corev1.ConditionFalse, ReasonConfigUnsupported, o.configMessage)
	default:
		set(vpav1.RecommendationProvided, corev1.ConditionFalse, o.noRecReason, o.noRecMessage)
	}
	for _, c := range old.Conditions {
		if !managed[c.Type] {
			conds = append(conds, c)
		}
	}
	st.Conditions = conds
	return st
}

// managed are the condition types this recommender owns.
var managed = map[vpav1.VerticalPodAutoscalerConditionType]bool{
	vpav1.ConfigUnsupported: true, vpav1.NoPodsMatched: true, vpav1.RecommendationProvided: true,
	vpav1.LowConfidence: true, vpav1.FetchingHistory: true,
}

// findCondition returns the condition of type t, or nil.
func findCondition(conds []vpav1.VerticalPodAutoscalerCondition, t vpav1.VerticalPodAutoscalerConditionType) *vpav1.VerticalPodAutoscalerCondition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}
