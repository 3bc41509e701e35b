// Package awstest runs the AWS provider's tests against moto (the AWS
// emulator): it starts moto_server on a loopback port, puts a
// fault-injecting proxy in front of it for what moto does not emulate
// (scaling activities, stocked-out groups, throttling, the instance types
// of attribute-based selection), seeds launch templates, Auto Scaling
// groups, EKS managed node groups and warm pools through the real API, and
// plays the kubelet of every running moto instance (with the labels and
// taints of its EKS node group). It is imported by tests only.
package awstest
