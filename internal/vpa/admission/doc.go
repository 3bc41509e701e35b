// Package admission is the VPA admission webhook. It serves one mutating
// webhook, registered with the API server, for two kinds of request:
//
//   - pod CREATE: the pod is matched to its VerticalPodAutoscaler (through
//     its top-level controller and the VPA's targetRef; the oldest VPA wins)
//     and its requests, and its limits when controlled, are set from the
//     VPA's recommendation processed by package recommendation (LimitRanges,
//     minAllowed/maxAllowed, controlledValues). Pods are never rejected: on
//     any error the pod is admitted unchanged.
//   - VPA CREATE and UPDATE: the object is validated (invalid update modes
//     and resource policies are rejected with a message naming the field)
//     and defaulted (updatePolicy.updateMode Recreate when updatePolicy is
//     unset).
//
// Server serves the webhook over TLS, registers its
// MutatingWebhookConfiguration when asked (created or updated in place, so
// several replicas can register; failure policy Ignore unless configured
// otherwise) and renews the status Lease the updater checks
// before it evicts anything.
package admission
