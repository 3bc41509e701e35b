package options

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestDefaultsValidate(t *testing.T) {
	o := Default()
	if err := o.Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
}

func TestFlagsParse(t *testing.T) {
	o := Default()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	o.AddFlags(fs)
	err := fs.Parse([]string{"--expander=highest-priority,least-waste", "--node-pool-backoff-initial=1m",
		"--cores-total=2:10", "--scale-down-delay-after-add=-1s", "--startup-taint=a", "--startup-taint=b"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(o.Expanders, ","); got != "highest-priority,least-waste" {
		t.Errorf("expanders = %q", got)
	}
	if o.InitialNodeGroupBackoffDuration != time.Minute {
		t.Errorf("fork alias not applied: %v", o.InitialNodeGroupBackoffDuration)
	}
	if o.CoresTotal != (MinMax{2, 10}) {
		t.Errorf("cores = %v", o.CoresTotal)
	}
	if o.ScaleDown.DelayAfterAdd != -time.Second {
		t.Errorf("delay after add = %v", o.ScaleDown.DelayAfterAdd)
	}
	if got := o.AllStartupTaints(); len(got) != 3 || got[0] != ZalandoNotReadyTaint {
		t.Errorf("startup taints = %v", got)
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestValidateNamesFlag(t *testing.T) {
	tests := []struct {
		flag   string
		change func(*Options)
	}{
		{"scan-interval", func(o *Options) { o.ScanInterval = 0 }},
		{"expander", func(o *Options) { o.Expanders = []string{"cheapest"} }},
		{"expander", func(o *Options) { o.Expanders = []string{"random", "random"} }},
		{"grpc-expander-url", func(o *Options) { o.Expanders, o.GRPCExpanderCert = []string{"grpc"}, "/ca.crt" }},
		{"grpc-expander-cert", func(o *Options) { o.Expanders, o.GRPCExpanderURL = []string{"grpc"}, "expander:8080" }},
		{"grpc-expander-url", func(o *Options) { o.GRPCExpanderURL = "expander:8080" }},
		{"max-node-group-backoff-duration", func(o *Options) { o.MaxNodeGroupBackoffDuration = time.Minute }},
		{"scale-down-utilization-threshold", func(o *Options) { o.ScaleDown.UtilizationThreshold = 1.5 }},
		{"max-empty-bulk-delete", func(o *Options) { o.ScaleDown.MaxEmptyBulkDelete = 0 }},
		{"max-scale-down-parallelism", func(o *Options) { o.ScaleDown.MaxScaleDownParallelism = 0 }},
		{"max-drain-parallelism", func(o *Options) { o.ScaleDown.MaxDrainParallelism = 0 }},
		{"max-unschedulable-pods-considered", func(o *Options) { o.MaxUnschedulablePodsConsidered = -1 }},
		{"max-nodes-per-scaleup", func(o *Options) { o.MaxNodesPerScaleUp = 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.flag, func(t *testing.T) {
			o := Default()
			tt.change(&o)
			err := o.Validate()
			var fe *FlagError
			if !errors.As(err, &fe) || fe.Flag != tt.flag {
				t.Fatalf("got %v, want a FlagError for %s", err, tt.flag)
			}
			if !strings.Contains(err.Error(), "--"+tt.flag) {
				t.Fatalf("message %q does not name the flag", err)
			}
		})
	}
}

func TestSet(t *testing.T) {
	o := Default()
	if err := o.Set(map[string]string{"max-node-provision-time": "7m", "balance-similar-node-groups": "true"}); err != nil {
		t.Fatal(err)
	}
	if o.MaxNodeProvisionTime != 7*time.Minute || !o.BalanceSimilarNodeGroups {
		t.Fatalf("settings not applied: %+v", o)
	}
	before := o
	for _, in := range []map[string]string{{"no-such-flag": "1"}, {"scan-interval": "often"}, {"cores-total": "5:1"}} {
		err := o.Set(in)
		var fe *FlagError
		if !errors.As(err, &fe) {
			t.Fatalf("%v: got %v, want FlagError", in, err)
		}
		if o.MaxNodeProvisionTime != before.MaxNodeProvisionTime || o.ScanInterval != before.ScanInterval {
			t.Fatalf("%v: options changed on error", in)
		}
	}
	if len(FlagNames()) < 40 {
		t.Fatalf("flag names: %v", FlagNames())
	}
}

// TestSetRepeatableList checks that a scenario's comma-joined list sets one
// occurrence of a repeatable flag per item.
func TestSetRepeatableList(t *testing.T) {
	o := Default()
	if err := o.Set(map[string]string{"status-taint": "a,b", "startup-taint": "c"}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.StatusTaints, "|") != "a|b" || strings.Join(o.StartupTaints, "|") != "c" {
		t.Fatalf("status %q, startup %q", o.StatusTaints, o.StartupTaints)
	}
}
