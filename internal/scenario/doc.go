// Package scenario reads kscale scenario files (apiVersion
// kscale.dev/v1alpha1, kind Scenario): the autoscaler options, node groups,
// initial nodes, storage classes, volumes and claims, workloads, timed events, the duration and the expectations
// of one offline simulation.
//
// Parsing is strict: unknown fields, wrong types and invalid values are
// errors that carry the line number of the offending field, and a file that
// fails parsing yields no Scenario at all. docs/scenarios.md documents every
// field.
package scenario
