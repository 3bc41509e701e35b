package cli

import (
	"strings"
	"testing"
	"time"

	logsapi "k8s.io/component-base/logs/api/v1"

	"github.com/kscale/kscale/internal/custommetrics"
)

// TestGCMxCompatFlags checks gardener-custom-metrics' --log-level, --debug
// and --leader-election-resource-lock.
func TestGCMxCompatFlags(t *testing.T) {
	valid := []string{"--namespace=garden", "--access-ip=10.0.0.1"}
	tests := []struct {
		name      string
		args      []string
		wantV     logsapi.VerbosityLevel
		wantLease time.Duration
		wantRetry time.Duration
		wantErr   string
	}{
		{name: "defaults", wantV: 0, wantLease: 15 * time.Second, wantRetry: 2 * time.Second},
		{name: "gardener's 74", args: []string{"--log-level=74"}, wantV: 0, wantLease: 15 * time.Second, wantRetry: 2 * time.Second},
		{name: "verbose", args: []string{"--log-level=75"}, wantV: 2, wantLease: 15 * time.Second, wantRetry: 2 * time.Second},
		{name: "debug level", args: []string{"--log-level=100"}, wantV: 4, wantLease: 15 * time.Second, wantRetry: 2 * time.Second},
		{name: "-v wins", args: []string{"--log-level=100", "-v=1"}, wantV: 1, wantLease: 15 * time.Second, wantRetry: 2 * time.Second},
		{name: "debug", args: []string{"--debug"}, wantLease: 600 * time.Second, wantRetry: 80 * time.Second},
		{name: "debug keeps explicit", args: []string{"--debug", "--leader-election-retry-period=5s"}, wantLease: 600 * time.Second, wantRetry: 5 * time.Second},
		{name: "configmap lock", args: []string{"--leader-election-resource-lock=configmaps"}, wantErr: "--leader-election-resource-lock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &custommetrics.Flags{}
			cmd, cmn := componentCommand("custom-metrics", "", o, commonSpec{noProfiling: true})
			if err := cmd.ParseFlags(append(append([]string{}, valid...), tt.args...)); err != nil {
				t.Fatal(err)
			}
			err := cmd.PreRunE(cmd, nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cmn.logging.Verbosity; got != tt.wantV {
				t.Errorf("verbosity = %d, want %d", got, tt.wantV)
			}
			if h := o.Config().HA; h.LeaseDuration != tt.wantLease || h.RetryPeriod != tt.wantRetry {
				t.Errorf("lease %v retry %v, want %v %v", h.LeaseDuration, h.RetryPeriod, tt.wantLease, tt.wantRetry)
			}
		})
	}
}
