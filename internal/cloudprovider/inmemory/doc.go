// Package inmemory is a simulated cloud that implements the cloudprovider
// contract on an injected clock. Each node group has a boot time, an optional
// capacity limit (how many more instances the cloud can deliver), injected
// creation and API errors, and can be changed from outside (max size,
// template, target reset, groups added and removed, instances added by hand),
// which is what the offline world and the tests need.
//
// NodeGroupEntry is the node group as YAML files write it (the nodeGroups
// of scenario files and of the kwok provider's cloud config): its
// validation (Problems) and its conversion to a GroupConfig live here
// once, so both readers honour the same fields the same way.
//
// Instances are derived lazily from the clock: a requested instance is
// "creating" until its boot time has passed and "running" afterwards, so the
// cloud needs no ticking of its own.
package inmemory
