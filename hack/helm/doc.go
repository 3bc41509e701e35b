// Package chartcheck renders and lints the kscale Helm chart (charts/kscale)
// with Helm's Go SDK, for the tests that apply it to a real API server and
// compare it with the kustomize bases under deploy/. It is a tool module of
// its own because Helm's dependencies are not the main module's; it reuses
// the main module's test environment (internal/testenv) through a replace.
package chartcheck
