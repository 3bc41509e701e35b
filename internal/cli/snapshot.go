package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kscale/kscale/internal/cloudprovider/kwok"
	"github.com/kscale/kscale/internal/snapshot"
)

// priorityConfigMapName is the priority expander ConfigMap the live
// autoscaler reads in its namespace.
const priorityConfigMapName = "cluster-autoscaler-priority-expander"

// snapshotOptions are the flags of `kscale snapshot`.
type snapshotOptions struct {
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
	// now is the snapshot's time; time.Now outside tests.
	now func() time.Time
	// restConfig overrides the kubeconfig and in-cluster lookup in tests.
	restConfig *rest.Config
}

// newSnapshotCommand builds `kscale snapshot`.
func newSnapshotCommand() *cobra.Command {
	o := &snapshotOptions{now: time.Now}
	cmd := &cobra.Command{
		Use:   "snapshot",
		Short: "Write a live cluster's nodes, pods and PDBs as a scenario file for kscale simulate",
		Long: "snapshot reads a live cluster (nodes, pods, PodDisruptionBudgets and the priority expander ConfigMap)\n" +
			"and writes it as a scenario file (docs/scenarios.md) that `kscale simulate` runs as it is, to see what the\n" +
			"node autoscaler would do next. What the scenario cannot express is listed in the file's comment header\n" +
			"and on stderr. See docs/snapshot.md.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &UsageError{Err: fmt.Errorf("snapshot takes no arguments, got %q (write the file with --output)", args)}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			convert, err := o.complete()
			if err != nil {
				return &UsageError{Err: err}
			}
			return o.run(cmd.Context(), convert, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func (o *snapshotOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "Path to a kubeconfig; empty uses the in-cluster configuration.")
	fs.StringVar(&o.cloudConfig, "cloud-config", "", "The kwok provider's node group file; nodes join its groups by provider id. Without it groups are inferred from node labels.")
	fs.StringSliceVar(&o.groupLabels, "node-group-label", snapshot.DefaultGroupLabels, "Node labels naming a node's group, first present wins (without --cloud-config).")
	fs.IntVar(&o.minSize, "min-size", snapshot.SizeFromCluster, "Minimum size of every inferred group; -1 uses its node count.")
	fs.IntVar(&o.maxSize, "max-size", snapshot.SizeFromCluster, "Maximum size of every inferred group; -1 uses its node count.")
	fs.StringVar(&o.namespace, "namespace", "kube-system", "Namespace of the "+priorityConfigMapName+" ConfigMap.")
	fs.DurationVar(&o.duration, "duration", 30*time.Minute, "The scenario's duration: how far the simulation looks ahead.")
	fs.StringVar(&o.name, "name", "", "The scenario's name; default \"snapshot <time>\".")
	fs.StringVar(&o.output, "output", "-", "File to write the scenario to; - writes to stdout.")
	fs.Int64Var(&o.pageSize, "page-size", snapshot.DefaultPageSize, "Objects per List call.")
}

// complete validates the flags and returns the conversion options.
func (o *snapshotOptions) complete() (snapshot.Options, error) {
	c := snapshot.Options{Duration: o.duration, Name: o.name, GroupLabels: o.groupLabels, MinSize: o.minSize, MaxSize: o.maxSize}
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
		if o.minSize != snapshot.SizeFromCluster || o.maxSize != snapshot.SizeFromCluster {
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
	c.Now = o.now()
	c.Default()
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("flags: %w", err)
	}
	return c, nil
}

// loadRestConfig loads the client configuration.
func (o *snapshotOptions) loadRestConfig() (*rest.Config, error) {
	if o.restConfig != nil {
		return rest.CopyConfig(o.restConfig), nil
	}
	return loadRESTConfig(o.kubeconfig)
}

// run reads the cluster, converts, checks and writes the scenario; notes go
// to stderr as warnings.
func (o *snapshotOptions) run(ctx context.Context, convert snapshot.Options, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	cfg, err := o.loadRestConfig()
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst, cfg.UserAgent = 50, 100, "kscale-snapshot"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("building the Kubernetes client: %w", err)
	}
	cluster, err := snapshot.Read(ctx, client, snapshot.ReadOptions{Namespace: o.namespace, ConfigMapName: priorityConfigMapName, PageSize: o.pageSize})
	if err != nil {
		return fmt.Errorf("reading the cluster: %w", err)
	}
	cluster.Source = cfg.Host
	res, err := snapshot.Convert(cluster, convert)
	if err != nil {
		return err
	}
	if err := snapshot.Fit(res); err != nil {
		return err
	}
	data, err := snapshot.Marshal(res)
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
