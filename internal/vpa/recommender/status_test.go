package recommender

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
)

func TestBuildStatus(t *testing.T) {
	t1 := metav1.NewTime(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	t2 := metav1.NewTime(t1.Add(time.Minute))
	rec := &vpav1.RecommendedPodResources{ContainerRecommendations: []vpav1.RecommendedContainerResources{{ContainerName: "app"}}}
	provided := vpav1.VerticalPodAutoscalerCondition{Type: vpav1.RecommendationProvided, Status: corev1.ConditionTrue, Reason: ReasonRecommended, LastTransitionTime: t1}
	foreign := vpav1.VerticalPodAutoscalerCondition{Type: vpav1.ConfigDeprecated, Status: corev1.ConditionTrue, LastTransitionTime: t1}
	tests := []struct {
		name      string
		old       vpav1.VerticalPodAutoscalerStatus
		o         outcome
		wantRec   bool
		wantConds map[vpav1.VerticalPodAutoscalerConditionType]corev1.ConditionStatus
		wantSince map[vpav1.VerticalPodAutoscalerConditionType]metav1.Time
	}{
		{name: "first recommendation", o: outcome{rec: rec}, wantRec: true,
			wantConds: map[vpav1.VerticalPodAutoscalerConditionType]corev1.ConditionStatus{vpav1.RecommendationProvided: corev1.ConditionTrue},
			wantSince: map[vpav1.VerticalPodAutoscalerConditionType]metav1.Time{vpav1.RecommendationProvided: t2}},
		{name: "unchanged condition keeps its transition time; foreign condition kept",
			old: vpav1.VerticalPodAutoscalerStatus{Recommendation: rec, Conditions: []vpav1.VerticalPodAutoscalerCondition{provided, foreign}},
			o:   outcome{rec: rec}, wantRec: true,
			wantConds: map[vpav1.VerticalPodAutoscalerConditionType]corev1.ConditionStatus{
				vpav1.RecommendationProvided: corev1.ConditionTrue, vpav1.ConfigDeprecated: corev1.ConditionTrue},
			wantSince: map[vpav1.VerticalPodAutoscalerConditionType]metav1.Time{vpav1.RecommendationProvided: t1}},
		{name: "unsupported config keeps the old recommendation",
			old: vpav1.VerticalPodAutoscalerStatus{Recommendation: rec, Conditions: []vpav1.VerticalPodAutoscalerCondition{provided}},
			o:   outcome{configReason: "TargetNotFound", configMessage: "gone", noPods: true}, wantRec: true,
			wantConds: map[vpav1.VerticalPodAutoscalerConditionType]corev1.ConditionStatus{
				vpav1.RecommendationProvided: corev1.ConditionTrue, vpav1.ConfigUnsupported: corev1.ConditionTrue, vpav1.NoPodsMatched: corev1.ConditionTrue}},
		{name: "config fixed: ConfigUnsupported removed",
			old:       vpav1.VerticalPodAutoscalerStatus{Conditions: []vpav1.VerticalPodAutoscalerCondition{{Type: vpav1.ConfigUnsupported, Status: corev1.ConditionTrue}}},
			o:         outcome{noRecReason: ReasonNoSamples},
			wantConds: map[vpav1.VerticalPodAutoscalerConditionType]corev1.ConditionStatus{vpav1.RecommendationProvided: corev1.ConditionFalse}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := buildStatus(&tt.old, tt.o, t2)
			if (st.Recommendation != nil) != tt.wantRec {
				t.Fatalf("recommendation present = %v, want %v", st.Recommendation != nil, tt.wantRec)
			}
			if len(st.Conditions) != len(tt.wantConds) {
				t.Fatalf("conditions = %+v, want %v", st.Conditions, tt.wantConds)
			}
			for _, c := range st.Conditions {
				if want, ok := tt.wantConds[c.Type]; !ok || want != c.Status {
					t.Fatalf("condition %s = %s, want %v", c.Type, c.Status, tt.wantConds)
				}
				if since, ok := tt.wantSince[c.Type]; ok && !since.Equal(&c.LastTransitionTime) {
					t.Fatalf("condition %s since %v, want %v", c.Type, c.LastTransitionTime, since)
				}
			}
			again := buildStatus(&st, tt.o, metav1.NewTime(t2.Add(time.Hour)))
			if !apiequality.Semantic.DeepEqual(st, again) {
				t.Fatalf("a second identical loop changed the status:\n%+v\n%+v", st, again)
			}
		})
	}
}
