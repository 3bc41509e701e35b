// Package rate keeps the last two accepted samples of each scrape target's
// request counter and derives a per-second rate from them. It is pure: the
// caller passes every timestamp in, nothing reads the clock.
//
// Rules: a sample closer than MinGap to the previous accepted one is dropped;
// a pair whose newer sample is older than MaxAge, or whose samples are more
// than MaxPairGap apart, yields no rate; a counter that decreases or a target
// with a new UID starts a new series, so a rate is never negative.
package rate
