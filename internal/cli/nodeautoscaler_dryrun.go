package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
	"github.com/kscale/kscale/internal/nodeautoscaler/dryrun"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
	"github.com/kscale/kscale/internal/nodeautoscaler/shadow"
)

// The dry run's own objects: it never writes the running autoscaler's
// status ConfigMap or competes for its Lease.
const (
	shadowStatusName = "kscale-shadow-status"
	shadowLeaseName  = "kscale-shadow"
)

// shadowFlags configure the comparison of a dry run with the running
// autoscaler.
type shadowFlags struct {
	window time.Duration
	record string
}

func (f *shadowFlags) addFlags(fs *pflag.FlagSet) {
	fs.DurationVar(&f.window, "shadow-compare-window", time.Minute, "With --dry-run: how long a decision waits for the running autoscaler's (or the running autoscaler's for kscale's) before it is judged.")
	fs.StringVar(&f.record, "shadow-record-file", "", "With --dry-run: append every comparison verdict to this file as a JSON line, the input of `kscale shadow report`; empty records none.")
}

// check validates the flags: they need --dry-run.
func (f *shadowFlags) check(dryRun bool) error {
	switch {
	case f.window <= 0:
		return fmt.Errorf("--shadow-compare-window: must be positive, got %v", f.window)
	case f.record != "" && !dryRun:
		return errors.New("--shadow-record-file: requires --dry-run")
	}
	return nil
}

// completeDryRun gives a dry run its own status ConfigMap and Lease
// names unless set, and refuses upstream's names and the kwok provider
// (kscale's own emulated cloud, which writes nodes by design). err is a
// flag error found before, returned first.
func (o *nodeAutoscalerOptions) completeDryRun(err error) error {
	if err != nil || !o.dryRun {
		return err
	}
	if o.cloud.Common.Provider == "kwok" {
		return errors.New("--dry-run: not supported with --cloud-provider=kwok (kscale's emulated cloud writes its nodes itself); use the provider of the cluster's real cloud")
	}
	if !o.fs.Changed("status-config-map-name") {
		o.statusName = shadowStatusName
	}
	if o.statusName == live.StatusConfigMapName {
		return fmt.Errorf("--status-config-map-name: %q is the running autoscaler's status; --dry-run writes its own (default %s)", o.statusName, shadowStatusName)
	}
	if !o.fs.Changed("leader-elect-resource-name") {
		o.leader.Name = shadowLeaseName
	}
	if o.leader.Name == live.DefaultLeaseName {
		return fmt.Errorf("--leader-elect-resource-name: %q is the running autoscaler's Lease; --dry-run elects on its own (default %s)", o.leader.Name, shadowLeaseName)
	}
	return nil
}

// shadowWatcher builds, with --dry-run, the comparison with the running
// autoscaler, fed with upstream's events from an informer of factory and
// with its status ConfigMap from one of nsFactory (--namespace), and
// opens its record file; close closes the file. Without --dry-run both
// are no-ops.
func (o *nodeAutoscalerOptions) shadowWatcher(ctx context.Context, factory, nsFactory informers.SharedInformerFactory,
	reg prometheus.Registerer) (w *shadow.Watcher, closeRecord func(), err error) {
	closeRecord = func() {}
	if !o.dryRun {
		return nil, closeRecord, nil
	}
	var rec io.Writer
	if o.shadow.record != "" {
		f, err := os.OpenFile(o.shadow.record, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, nil, fmt.Errorf("--shadow-record-file: %w", err)
		}
		rec, closeRecord = f, func() { _ = f.Close() }
	}
	w, err = shadow.NewWatcher(shadow.WatcherConfig{Comparison: shadow.Config{Window: o.shadow.window}, Registerer: reg, Record: rec})
	if err != nil {
		closeRecord()
		return nil, nil, err
	}
	observe := func(obj any) {
		if e, ok := obj.(*corev1.Event); ok {
			if obs, ok := shadow.FromEvent(e); ok {
				w.Observe(obs)
			}
		}
	}
	if _, err := factory.Core().V1().Events().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: observe, UpdateFunc: func(_, obj any) { observe(obj) }}); err != nil {
		closeRecord()
		return nil, nil, fmt.Errorf("watching the running autoscaler's events: %w", err)
	}
	status := func(obj any) {
		cm, ok := obj.(*corev1.ConfigMap)
		if !ok || cm.Name != live.StatusConfigMapName {
			return
		}
		if err := w.ObserveStatus(cm.Data[live.StatusConfigMapKey]); err != nil {
			klog.FromContext(ctx).Info("Ignoring the running autoscaler's status", "configMap", klog.KObj(cm), "err", err.Error())
		}
	}
	if _, err := nsFactory.Core().V1().ConfigMaps().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: status, UpdateFunc: func(_, obj any) { status(obj) }}); err != nil {
		closeRecord()
		return nil, nil, fmt.Errorf("watching the running autoscaler's status: %w", err)
	}
	return w, closeRecord, nil
}

// loopDeps are what the loop is built on for one leader term.
type loopDeps struct {
	provider cloudprovider.Provider
	cluster  *live.Cluster
	// events writes Kubernetes events; nil with --dry-run.
	events live.EventRecorder
	// watcher compares with the running autoscaler; nil without --dry-run.
	watcher *shadow.Watcher
}

// loopWrites are the loop's write boundaries: the cloud provider, the
// scale-down cluster, the event recorder and the backoff store. Live they
// act; with --dry-run they are the dryrun wrappers (no backoff store: the
// backoff stays in memory).
type loopWrites struct {
	provider  cloudprovider.Provider
	scaleDown nodeautoscaler.ScaleDownCluster
	recorder  nodeautoscaler.Recorder
	backoff   *live.BackoffStore
	metrics   *dryrun.Metrics
	dry       *dryrun.Provider
	watcher   *shadow.Watcher
}

// loopWrites builds the write boundaries for the live loop or the dry run.
func (o *nodeAutoscalerOptions) loopWrites(client kubernetes.Interface, deps loopDeps, statusUID func() types.UID, reg prometheus.Registerer) (*loopWrites, error) {
	scaleDown := actuation.NewKube(client)
	if o.dryRun {
		m, err := dryrun.NewMetrics(reg)
		if err != nil {
			return nil, err
		}
		rec, err := dryrun.NewRecorder(dryrun.RecorderConfig{Metrics: m, Clock: clock.RealClock{}, Sink: deps.watcher})
		if err != nil {
			return nil, err
		}
		dry := dryrun.NewProvider(deps.provider, m)
		return &loopWrites{provider: dry, scaleDown: dryrun.NewCluster(scaleDown, m), recorder: rec, metrics: m, dry: dry, watcher: deps.watcher}, nil
	}
	rec, err := live.NewRecorder(live.RecorderConfig{Events: deps.events, Cluster: deps.cluster, Namespace: o.opts.Namespace,
		StatusConfigMapName: o.statusName, StatusUID: statusUID, Clock: clock.RealClock{}, DedupWindow: o.dedupWindow()})
	if err != nil {
		return nil, err
	}
	backoffs, err := live.NewBackoffStore(client, o.opts.Namespace)
	if err != nil {
		return nil, err
	}
	return &loopWrites{provider: deps.provider, scaleDown: scaleDown, recorder: rec, backoff: backoffs}, nil
}

// loop is the loop the runner drives: the autoscaler, with the dry run's
// unneeded-node report and comparison when dry.
func (w *loopWrites) loop(a *nodeautoscaler.Autoscaler) live.Loop {
	if w.dry == nil {
		return a
	}
	if w.watcher == nil {
		return dryrun.NewLoop(a, w.metrics, w.dry, nil)
	}
	return dryrun.NewLoop(a, w.metrics, w.dry, w.watcher)
}
