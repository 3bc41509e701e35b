package options

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseDrainPriorities(t *testing.T) {
	tests := []struct {
		in      string
		want    []DrainPriority
		wantErr string
	}{
		{in: ""},
		{in: "10000:20,1000:100,0:60", want: []DrainPriority{{10000, 20 * time.Second}, {1000, 100 * time.Second}, {0, time.Minute}}},
		{in: "-5:0", want: []DrainPriority{{-5, 0}}},
		{in: "10", wantErr: `"10" is not priority:seconds`},
		{in: "a:10", wantErr: `priority "a"`},
		{in: "1:x", wantErr: `grace period "x"`},
		{in: "1:-1", wantErr: `grace period "-1"`},
		{in: "99999999999:1", wantErr: "32-bit"},
		{in: "1:1,1:2", wantErr: "priority 1 is listed twice"},
		{in: "1:1,", wantErr: `"" is not priority:seconds`},
	}
	for _, tc := range tests {
		got, err := ParseDrainPriorities(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%q = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func FuzzParseDrainPriorities(f *testing.F) {
	for _, s := range []string{"", "10000:20,1000:100,0:60", "1:1,1:2", "a:b:c", ",,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseDrainPriorities(s)
		if err == nil && s != "" && len(got) != strings.Count(s, ",")+1 {
			t.Fatalf("%q parsed into %d entries", s, len(got))
		}
	})
}

func TestValidateDrainPriorityConfig(t *testing.T) {
	tests := []struct {
		config  string
		grace   int
		wantErr string
	}{
		{config: "0:60,1000:20", grace: 600},
		{config: "0:60", grace: 300, wantErr: "--drain-priority-config: cannot be combined with --max-graceful-termination-sec"},
		{config: "", grace: 300},
		{config: "0-60", grace: 600, wantErr: "--drain-priority-config:"},
	}
	for _, tc := range tests {
		o := Default()
		o.ScaleDown.DrainPriorityConfig, o.ScaleDown.MaxGracefulTerminationSec = tc.config, tc.grace
		err := o.Validate()
		if (tc.wantErr == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%q with grace %d: %v, want %q", tc.config, tc.grace, err, tc.wantErr)
		}
	}
}
