package cli

import (
	"github.com/spf13/cobra"

	"github.com/kscale/kscale/internal/vpa/admission"
	"github.com/kscale/kscale/internal/vpa/recommender"
	"github.com/kscale/kscale/internal/vpa/updater"
)

// newVPARecommenderCommand builds `kscale vpa-recommender`.
func newVPARecommenderCommand() *cobra.Command {
	return newComponentCommand("vpa-recommender", "Compute VerticalPodAutoscaler recommendations from usage (autoscaling.k8s.io/v1)", &recommender.Flags{}, vpaCommonSpec)
}

// newVPAUpdaterCommand builds `kscale vpa-updater`.
func newVPAUpdaterCommand() *cobra.Command {
	return newComponentCommand("vpa-updater", "Evict or resize pods whose requests drifted from their VerticalPodAutoscaler (autoscaling.k8s.io/v1)", &updater.Flags{}, vpaCommonSpec)
}

// newVPAAdmissionCommand builds `kscale vpa-admission`.
func newVPAAdmissionCommand() *cobra.Command {
	return newComponentCommand("vpa-admission", "Serve the VerticalPodAutoscaler admission webhook: pod requests at creation, VPA validation", &admission.Flags{}, vpaCommonSpec)
}
