package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"

	"github.com/kscale/kscale/internal/cloudprovider/kwok"
	"github.com/kscale/kscale/internal/componentflags"
)

// PriorityConfigMapName is the priority expander ConfigMap the live
// autoscaler reads in its namespace.
const PriorityConfigMapName = "cluster-autoscaler-priority-expander"

// Flags are the command-line flags of `kscale snapshot` and their
// conversion into Options and ReadOptions.
type Flags struct {
	kubeconfig  string
	cloudConfig string
	groupLabels []string
	minSize     int
	maxSize     int
	namespace   string
	duration    time.Duration
	name        string
	output      string
	pageSize    int64
}

// AddFlags registers the flags on fs.
func (o *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "Path to a kubeconfig; empty uses the in-cluster configuration.")
	fs.StringVar(&o.cloudConfig, "cloud-config", "", "The kwok provider's node group file; nodes join its groups by provider id. Without it groups are inferred from node labels.")
	fs.StringSliceVar(&o.groupLabels, "node-group-label", DefaultGroupLabels, "Node labels naming a node's group, first present wins (without --cloud-config).")
	fs.IntVar(&o.minSize, "min-size", SizeFromCluster, "Minimum size of every inferred group; -1 uses its node count.")
	fs.IntVar(&o.maxSize, "max-size", SizeFromCluster, "Maximum size of every inferred group; -1 uses its node count.")
	fs.StringVar(&o.namespace, "namespace", "kube-system", "Namespace of the "+PriorityConfigMapName+" ConfigMap.")
	fs.DurationVar(&o.duration, "duration", 30*time.Minute, "The scenario's duration: how far the simulation looks ahead.")
	fs.StringVar(&o.name, "name", "", "The scenario's name; default \"snapshot <time>\".")
	fs.StringVar(&o.output, "output", "-", "File to write the scenario to; - writes to stdout.")
	fs.Int64Var(&o.pageSize, "page-size", DefaultPageSize, "Objects per List call.")
}

// Complete validates the flags and returns the conversion options for a
// snapshot taken at now; its errors name the flag.
func (o *Flags) Complete(now time.Time) (Options, error) {
	c := Options{Duration: o.duration, Name: o.name, GroupLabels: o.groupLabels, MinSize: o.minSize, MaxSize: o.maxSize}
	if o.pageSize <= 0 {
		return c, fmt.Errorf("--page-size: must be positive, got %d", o.pageSize)
	}
	if o.namespace == "" {
		return c, errors.New("--namespace: must not be empty")
	}
	if o.kubeconfig != "" {
		if _, err := os.Stat(o.kubeconfig); err != nil {
			return c, fmt.Errorf("--kubeconfig: %w", err)
		}
	}
	if o.cloudConfig != "" {
		if o.minSize != SizeFromCluster || o.maxSize != SizeFromCluster {
			return c, errors.New("--min-size, --max-size: only without --cloud-config (the cloud config sets each group's min and max)")
		}
		data, err := os.ReadFile(o.cloudConfig)
		if err != nil {
			return c, fmt.Errorf("--cloud-config: %w", err)
		}
		groups, err := kwok.ParseCloudConfig(data)
		if err != nil {
			return c, fmt.Errorf("--cloud-config %s: %w", o.cloudConfig, err)
		}
		c.NodeGroups = groups.NodeGroups
	}
	c.Now = now
	c.Default()
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("flags: %w", err)
	}
	return c, nil
}

// Run reads the cluster, converts, checks and writes the scenario to
// --output (stdout for -); notes go to stderr as warnings.
func (o *Flags) Run(ctx context.Context, convert Options, stdout, stderr io.Writer) error {
	cfg, err := componentflags.LoadRESTConfig(o.kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst, cfg.UserAgent = 50, 100, "kscale-snapshot"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("building the Kubernetes client: %w", err)
	}
	cluster, err := Read(ctx, client, ReadOptions{Namespace: o.namespace, ConfigMapName: PriorityConfigMapName, PageSize: o.pageSize})
	if err != nil {
		return fmt.Errorf("reading the cluster: %w", err)
	}
	cluster.Source = cfg.Host
	res, err := Convert(cluster, convert)
	if err != nil {
		return err
	}
	if err := Fit(res); err != nil {
		return err
	}
	data, err := Marshal(res)
	if err != nil {
		return err
	}
	for _, n := range res.Notes {
		_, _ = fmt.Fprintf(stderr, "warning: %s\n", n)
	}
	if o.output == "-" || o.output == "" {
		_, err = stdout.Write(data)
		return err
	}
	return writeFileAtomic(o.output, data)
}

// writeFileAtomic writes data to a temporary file beside path and renames
// it into place, so a failed run never leaves half a scenario.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() { _ = os.Remove(f.Name()) }()
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		_ = f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
