// Package selfcert gives a webhook or an aggregated API server certificates
// that manage themselves: on first start it generates a self-signed CA and a
// serving certificate into a Secret shared by every replica (create; on
// AlreadyExists the winner's is read), has the API server trust the CA by
// patching the component's caBundle (through a Publisher), serves the
// certificate from memory, and renews both before they expire without a
// restart.
//
// The Secret (type kubernetes.io/tls) holds ca.crt, the CA bundle (the
// current CA first, then earlier CAs still trusted for an overlap), ca.key,
// the current CA's key, and tls.crt and tls.key, the serving certificate
// and key. A certificate is renewed when two thirds of its lifetime have
// passed; a serving certificate signed by the current CA needs no caBundle
// change. When the CA changes (renewal, or a deleted or damaged Secret, which
// is how an operator forces a rotation) the new bundle still holds the
// earlier CA, every replica publishes it, and a replica serves the new
// certificate only once the bundle holding its CA has been published for
// the propagation delay, so the API server trusts whichever certificate a
// replica presents at every moment.
//
// Deciding what the Secret should hold (plan) is pure: it takes the time
// and the parsed Secret and touches no client and no clock.
package selfcert
