// Package checkpoint stores the recommender's per-VPA, per-container usage
// history in VerticalPodAutoscalerCheckpoint objects and reads it back at
// start-up, so a restarted recommender continues from its history instead
// of from zero. It also deletes checkpoints whose VPA is gone.
//
// One checkpoint per (VPA, container name), named <vpa>-<container>, in the
// VPA's namespace. Writes go oldest-written first within a time budget.
package checkpoint
