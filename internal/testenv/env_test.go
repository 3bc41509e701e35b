package testenv

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMergeFlags(t *testing.T) {
	tests := []struct {
		name            string
		defaults, extra []string
		want            []string
	}{
		{"no extra", []string{"--a=1", "--b=2"}, nil, []string{"--a=1", "--b=2"}},
		{"override keeps position", []string{"--a=1", "--b=2"}, []string{"--a=9"}, []string{"--a=9", "--b=2"}},
		{"append new", []string{"--a=1"}, []string{"--c=3", "--enable-aggregator-routing=true"},
			[]string{"--a=1", "--c=3", "--enable-aggregator-routing=true"}},
		{"last extra wins", []string{"--a=1"}, []string{"--a=2", "--a=3"}, []string{"--a=3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mergeFlags(tt.defaults, tt.extra); !slices.Equal(got, tt.want) {
				t.Errorf("mergeFlags = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{"zero is valid", Options{}, ""},
		{"user without token", Options{Users: []User{{Name: "u"}}}, "users[0]"},
		{"duplicate admin", Options{Users: []User{{Name: AdminUser, Token: "t"}}}, "duplicate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Default()
			err := tt.opts.Validate()
			if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("Validate() = %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestMissingBinariesNameTheCommand(t *testing.T) {
	t.Setenv(BinDirEnv, t.TempDir())
	_, err := New(t.Context(), Options{})
	ExpectMissingBinary(t, err)
}

// TestVersionMatchesTestbinModule keeps KubernetesVersion and the pin that
// `make testbin` builds from in step.
func TestVersionMatchesTestbinModule(t *testing.T) {
	ExpectPin(t, filepath.Join("..", "..", "hack", "testbin", "go.mod"), "k8s.io/kubernetes", KubernetesVersion)
}

// TestKwokVersionMatchesKwokModule keeps KwokVersion and the pin that
// `make testbin` builds kwok from in step.
func TestKwokVersionMatchesKwokModule(t *testing.T) {
	ExpectPin(t, filepath.Join("..", "..", "hack", "kwok", "go.mod"), "sigs.k8s.io/kwok", KwokVersion)
}

func TestMissingKwokNamesTheCommand(t *testing.T) {
	t.Setenv(KwokDirEnv, t.TempDir())
	_, err := New(t.Context(), Options{Kwok: true})
	ExpectMissingBinary(t, err, KwokDirEnv)
}
