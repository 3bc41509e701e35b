// Package discovery finds the kube-apiserver pods to scrape. It watches pods
// matching a label selector cluster-wide, keeps those in namespaces matching a
// pattern that have an IP and are not being deleted, and tells its consumer
// when the set changed. IP, UID and label changes of a pod are followed.
package discovery
