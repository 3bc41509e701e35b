// Package componentflags holds the command-line pieces every component's
// flags share: the Kubernetes API client flags (each component keeps its
// upstream names and defaults) and the checks that turn a bad file,
// address or interval into an error naming the flag. Each component's own
// flags live next to its code (a flags.go in its package) and use these.
package componentflags
