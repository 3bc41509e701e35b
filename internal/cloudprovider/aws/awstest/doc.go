// Package awstest runs the AWS provider's tests against moto (the AWS
// emulator): it starts moto_server on a loopback port, puts a
// fault-injecting proxy in front of it for what moto does not emulate
// (scaling activities, stocked-out groups, throttling), seeds launch
// templates and Auto Scaling groups through the real API, and plays the
// kubelet of every running moto instance. It is imported by tests only.
package awstest
