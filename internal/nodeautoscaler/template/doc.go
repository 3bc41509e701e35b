// Package template holds what the node autoscaler adds to a group's
// template node (built by package cloudprovider/nodetemplate): the
// DaemonSet pods that would run on it, with limits-only containers counted
// as requests, and the GPU type and resource it is counted under.
package template
