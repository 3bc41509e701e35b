//go:build tools

// Package kwok pins the version of the real kwok controller (sigs.k8s.io/kwok)
// that plays the kubelets of the kwok provider's nodes in tests, benchmarks and
// the kwok quick start. It is a separate module so that the main module never
// depends on kwok.
package kwok

import (
	_ "sigs.k8s.io/kwok/cmd/kwok"
)
