// Package spreademulation emulates one shape of topology spread constraint
// quickly, as Zalando's fork does (--emulated-topology-spread-constraint-label):
// a single zone constraint with maxSkew 1, DoNotSchedule and a selector of
// exactly the configured label with the pod's own value. Qualifying pending
// pods lose the constraint and are pinned to the zone with the fewest pods
// of their group, round-robin, unless their zalando.org/topology-spread-timeout
// has expired; scheduled qualifying pods are pinned to their node's zone.
// Everything downstream then needs no quadratic spread predicate.
package spreademulation
