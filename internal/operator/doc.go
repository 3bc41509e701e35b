// Package operator is the one host every long-running kscale component
// runs in. A component's assembly function (next to its code) returns a
// Component: the tasks every replica runs, and a Lead function that
// builds, at the start of each leader term, what runs only while this
// replica leads. Run adds what every component shares: SIGTERM and SIGINT
// end the run, the logger comes from the context, the operational HTTP
// endpoints (metrics, health, pprof; internal/opsserver) listen on the
// component's addresses before anything else starts, leader election on a
// Lease (internal/leaderelection, client-go's elector, with each
// component's upstream flag and Lease names) runs Lead, and the first
// task that fails ends the run. Every leader term rebuilds the leading
// work from the cluster: nothing survives from a previous term, and a
// replica that loses its Lease exits with leaderelection.ErrLeadershipLost
// so that it comes back as a standby with fresh state.
//
// Components wait for their caches with internal/cachesync inside Lead
// (or a task), and pace their loops with Loop: a fixed tick, or an interval
// counted from the end of each run with a Trigger whose raises are batched
// and runs that ask for another at once (the node autoscaler's loop).
package operator
