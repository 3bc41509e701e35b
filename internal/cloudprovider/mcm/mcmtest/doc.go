// Package mcmtest is test support for the MCM provider: the real
// machine.sapcloud.io CRDs from the github.com/gardener/machine-controller-manager
// Go module, the MCM Flavor of the machinesim stand-in controller (the
// machine priority annotation, the trigger-deletion annotation, MCM's
// deletion order, stock-outs as ResourceExhausted with CrashLoopBackOff
// then Failed), and builders of MCM objects.
package mcmtest
