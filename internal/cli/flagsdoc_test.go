package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/kscale/kscale/internal/custommetrics/provider"
)

// TestFlagsDocListsEveryFlag checks that docs/flags.md has a row for every
// flag of every component, so the reference cannot fall behind the code.
func TestFlagsDocListsEveryFlag(t *testing.T) {
	data, err := os.ReadFile("../../docs/flags.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for name, cmd := range componentCommands() {
		section := doc
		if i := strings.Index(doc, "\n## `"+name+"`"); i >= 0 {
			section = doc[i:]
			if j := strings.Index(section[1:], "\n## "); j >= 0 {
				section = section[:j+1]
			}
		} else {
			t.Errorf("docs/flags.md has no section for %s", name)
			continue
		}
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || isLibraryFlag(name, f.Name) {
				return
			}
			if !strings.Contains(section, "`--"+f.Name+"`") {
				t.Errorf("docs/flags.md section %s lacks --%s", name, f.Name)
			}
		})
	}
}

// isLibraryFlag reports flags the custom-metrics API server library
// registers; docs/flags.md points to the library for them.
func isLibraryFlag(component, flag string) bool {
	return component == "custom-metrics" && libraryFlags()[flag]
}

// libraryFlags are the custom-metrics-apiserver library's flags: those
// provider.NewServer registers.
func libraryFlags() map[string]bool {
	fs := pflag.NewFlagSet("lib", pflag.ContinueOnError)
	provider.NewServer(fs, "kscale-custom-metrics")
	out := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) { out[f.Name] = true })
	return out
}
