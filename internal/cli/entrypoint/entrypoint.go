// Package entrypoint maps the names upstream images call their binaries by
// (/cluster-autoscaler, /recommender, ...) to kscale subcommands, so one
// kscale binary, linked under those names, runs the component the name
// stands for with the arguments it was given. It is a leaf package: the
// image builder reads the same table to create the links.
package entrypoint

import (
	"path"
	"sort"
)

// subcommands maps an upstream entry point's base name to the kscale
// subcommand it runs.
var subcommands = map[string]string{
	"cluster-autoscaler":      "node-autoscaler",
	"recommender":             "vpa-recommender",
	"updater":                 "vpa-updater",
	"admission-controller":    "vpa-admission",
	"gardener-custom-metrics": "custom-metrics",
}

// Subcommand returns the kscale subcommand the program name argv0 stands
// for: the base name of argv0 looked up in the upstream entry points. ok is
// false for any other name, including "kscale".
func Subcommand(argv0 string) (sub string, ok bool) {
	sub, ok = subcommands[path.Base(argv0)]
	return sub, ok
}

// Args returns the kscale arguments for a process started with argv: argv[1:]
// unchanged, preceded by the subcommand when argv[0] names an upstream
// entry point.
func Args(argv []string) []string {
	if len(argv) == 0 {
		return nil
	}
	rest := argv[1:]
	sub, ok := Subcommand(argv[0])
	if !ok {
		return rest
	}
	return append([]string{sub}, rest...)
}

// Names returns the upstream entry point names, sorted.
func Names() []string {
	out := make([]string, 0, len(subcommands))
	for name := range subcommands {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
