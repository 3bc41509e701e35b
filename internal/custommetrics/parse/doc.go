// Package parse reads a Prometheus text-format /metrics body as a stream and
// sums the values of every series of one counter, matched by its exact name.
// It never buffers the whole body: memory use is one fixed read buffer,
// whatever the body size. With a cost per
// request (Options.Costs) it also sums each series times the cost of its
// verb, scope and resource labels, the counter of the cost-weighted rate. Malformed input for the counter is an error naming
// the line; other metrics are skipped without being parsed.
package parse
