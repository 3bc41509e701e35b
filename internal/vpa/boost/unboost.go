package boost

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/vpa/recommendation"
)

// Unboost returns the resources the updater resizes a pod to once the
// boosts named by expired (annotation keys, see Expired) are over: an
// expired container gets the VPA's requests and limits from processed, or
// its original resources from its annotation when the VPA has none (mode
// Off passes an empty processed); a container still boosted is left
// alone; any other container gets the VPA's resources when it has some.
func Unboost(pod *corev1.Pod, processed recommendation.Result, expired []string) (recommendation.Result, error) {
	var out recommendation.Result
	for i := range pod.Spec.Containers {
		name := pod.Spec.Containers[i].Name
		key := AnnotationKey(name)
		_, boosted := pod.Annotations[key]
		want, found := processed.Find(name)
		switch {
		case slices.Contains(expired, key):
			if found && (len(want.Requests) > 0 || len(want.Limits) > 0) {
				out.Containers = append(out.Containers, want)
				continue
			}
			orig, err := ParseOriginal(pod, name)
			if err != nil {
				return recommendation.Result{}, err
			}
			out.Containers = append(out.Containers, recommendation.Container{Index: i, Name: name, Requests: orig.Requests, Limits: orig.Limits})
		case boosted:
			continue
		case found:
			out.Containers = append(out.Containers, want)
		}
	}
	return out, nil
}
