// Package credentials keeps, per namespace, what is needed to scrape that
// namespace's kube-apiservers: the CA certificates found by label (so a CA
// secret renamed by a rotation keeps working, and old and new CA are both
// trusted while both secrets exist) and the bearer token from a secret, read
// fresh on every lookup so a rotated token is used at the next scrape.
// Tokens are wrapped in a type that never prints its value.
package credentials
