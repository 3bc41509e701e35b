// Package cost reads the request cost table of the cost-weighted request
// rate (GEP-23 stage 2): a YAML or JSON file of rules that give a cost per
// kube-apiserver request by its verb, scope and resource, first match wins,
// and a default cost for requests no rule matches.
//
// The format, shared with the cost fitting of `kscale simulate`:
//
//	defaultCost: 1          # required, a number >= 0
//	rules:                  # optional, tried in order
//	  - verb: LIST          # optional: any verb when absent
//	    scope: cluster      # optional: resource, namespace or cluster
//	    resource: pods      # optional: any resource when absent
//	    cost: 12.5          # required, a number >= 0
//
// Verbs are the values of apiserver_request_total's verb label (GET, LIST,
// WATCH, POST, PUT, PATCH, DELETE, ...), compared without regard to case.
// Parsing is strict: unknown or repeated fields, wrong types, negative or
// non-finite costs and unknown scopes are errors naming the line and field.
package cost
