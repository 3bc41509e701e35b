// Package admissiontest runs the real VPA admission webhook for tests: it
// generates a CA and a serving certificate for 127.0.0.1, serves the webhook
// on a loopback port, registers it with the test API server by URL and waits
// until the API server calls it.
package admissiontest
