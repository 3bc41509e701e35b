package registry

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// fake is a Builder that records what it was asked.
type fake struct {
	flag      bool
	completed *Common
}

func (f *fake) AddFlags(fs *pflag.FlagSet) { fs.BoolVar(&f.flag, "fake-flag", false, "test") }
func (f *fake) Unselected(selected string) error {
	if f.flag {
		return errors.New("--fake-flag: only for fake, not " + selected)
	}
	return nil
}
func (f *fake) Complete(c Common) error                     { f.completed = &c; return nil }
func (f *fake) Build(context.Context, Deps) (*Built, error) { return &Built{}, nil }

// other is a Builder without flags.
type other struct{ fake }

func (o *other) AddFlags(*pflag.FlagSet) {}

func newTestFlags(t *testing.T, args ...string) (*Flags, error) {
	t.Helper()
	f, err := NewFlags([]Entry{{Name: "fake", New: func() Builder { return &fake{} }}, {Name: "other", New: func() Builder { return &other{} }}})
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	f.AddFlags(fs, "fake")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	_, err = f.Complete()
	return f, err
}

func TestFlagsComplete(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // "" means success
	}{
		{name: "default provider", args: nil},
		{name: "shared flags reach the provider", args: []string{"--nodes=1:2:a", "--cloud-config=x"}},
		{name: "unknown provider", args: []string{"--cloud-provider=nope"}, want: `--cloud-provider: "nope" is not supported; supported: fake, other`},
		{name: "own flag under another provider", args: []string{"--cloud-provider=other", "--fake-flag"}, want: "--fake-flag: only for fake, not other"},
		{name: "own flag under its provider", args: []string{"--fake-flag"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newTestFlags(t, tt.args...)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
	f, err := newTestFlags(t, "--nodes=1:2:a")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.builders["fake"].(*fake).completed; got == nil || len(got.Nodes) != 1 || got.Nodes[0] != "1:2:a" {
		t.Errorf("the selected builder completed with %+v", got)
	}
	var unsupported *UnsupportedError
	if _, err := newTestFlags(t, "--cloud-provider=x"); !errors.As(err, &unsupported) {
		t.Errorf("unknown provider: %T, want *UnsupportedError", err)
	}
}

func TestNewFlagsRefusesBadEntries(t *testing.T) {
	newFake := func() Builder { return &fake{} }
	for _, entries := range [][]Entry{{{Name: "", New: newFake}}, {{Name: "a"}}, {{Name: "a", New: newFake}, {Name: "a", New: newFake}}} {
		if _, err := NewFlags(entries); err == nil {
			t.Errorf("NewFlags(%v) accepted", entries)
		}
	}
}

func TestReadCloudConfig(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cloud.yaml")
	if err := os.WriteFile(file, []byte("groups: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		c       Common
		want    string
		wantErr string
	}{
		{Common{Provider: "p", Config: file}, "groups: []\n", ""},
		{Common{Provider: "p", Config: file, Nodes: []string{"1:3:a"}}, "", "--nodes: not supported by --cloud-provider=p; why"},
		{Common{Provider: "p", Config: file, AutoDiscovery: []string{"x"}}, "", "--node-group-auto-discovery: not supported by --cloud-provider=p; why"},
		{Common{Provider: "p"}, "", "--cloud-config: required for the p provider (what)"},
		{Common{Provider: "p", Config: file + ".missing"}, "", "--cloud-config: open "},
	}
	for _, tt := range tests {
		got, err := ReadCloudConfig(tt.c, "why", "what")
		if tt.wantErr != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
				t.Errorf("%+v: error %v, want prefix %q", tt.c, err, tt.wantErr)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("%+v: %q, %v; want %q", tt.c, got, err, tt.want)
		}
	}
}
