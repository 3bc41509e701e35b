//go:build tools

// Package capi pins the version of the real Cluster API core controller
// manager (sigs.k8s.io/cluster-api/core) that the clusterapi end-to-end tests
// run on the test control plane. It is a separate module so that the main
// module never depends on the Cluster API controllers.
package capi

import (
	_ "sigs.k8s.io/cluster-api/core"
)
