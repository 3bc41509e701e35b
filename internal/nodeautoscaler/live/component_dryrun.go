package live

import (
	"context"
	"fmt"
	"io"
	"os"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
	"github.com/kscale/kscale/internal/nodeautoscaler/dryrun"
	"github.com/kscale/kscale/internal/nodeautoscaler/shadow"
	"github.com/kscale/kscale/internal/operator"
)

// shadowWatcher builds, with --dry-run, the comparison with the running
// autoscaler, fed with upstream's events from an informer of factory and
// with its status ConfigMap from one of nsFactory (--namespace), and
// opens its record file (closed by t's cleanup). Without --dry-run it
// returns nil.
func (c *component) shadowWatcher(ctx context.Context, t *operator.Term, factory, nsFactory informers.SharedInformerFactory) (*shadow.Watcher, error) {
	if !c.cfg.DryRun {
		return nil, nil
	}
	var rec io.Writer
	if c.cfg.Shadow.RecordFile != "" {
		f, err := os.OpenFile(c.cfg.Shadow.RecordFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, fmt.Errorf("--shadow-record-file: %w", err)
		}
		rec = f
		t.Cleanup = append(t.Cleanup, func() { _ = f.Close() })
	}
	w, err := shadow.NewWatcher(shadow.WatcherConfig{Comparison: shadow.Config{Window: c.cfg.Shadow.Window}, Registerer: c.cfg.Registerer, Record: rec})
	if err != nil {
		return nil, err
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
		return nil, fmt.Errorf("watching the running autoscaler's events: %w", err)
	}
	status := func(obj any) {
		cm, ok := obj.(*corev1.ConfigMap)
		if !ok || cm.Name != StatusConfigMapName {
			return
		}
		if err := w.ObserveStatus(cm.Data[StatusConfigMapKey]); err != nil {
			klog.FromContext(ctx).Info("Ignoring the running autoscaler's status", "configMap", klog.KObj(cm), "err", err.Error())
		}
	}
	if _, err := nsFactory.Core().V1().ConfigMaps().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: status, UpdateFunc: func(_, obj any) { status(obj) }}); err != nil {
		return nil, fmt.Errorf("watching the running autoscaler's status: %w", err)
	}
	return w, nil
}

// loopDeps are what the loop is built on for one leader term.
type loopDeps struct {
	provider cloudprovider.Provider
	cluster  *Cluster
	// events writes Kubernetes events; nil with --dry-run.
	events EventRecorder
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
	backoff   *BackoffStore
	metrics   *dryrun.Metrics
	dry       *dryrun.Provider
	watcher   *shadow.Watcher
}

// loopWrites builds the write boundaries for the live loop or the dry run.
func (c *component) loopWrites(deps loopDeps, statusUID func() types.UID) (*loopWrites, error) {
	scaleDown := actuation.NewKube(c.cfg.Client)
	if c.cfg.DryRun {
		m, err := dryrun.NewMetrics(c.cfg.Registerer)
		if err != nil {
			return nil, err
		}
		rec, err := dryrun.NewRecorder(dryrun.RecorderConfig{Metrics: m, Clock: c.cfg.Clock, Sink: deps.watcher})
		if err != nil {
			return nil, err
		}
		dry := dryrun.NewProvider(deps.provider, m)
		return &loopWrites{provider: dry, scaleDown: dryrun.NewCluster(scaleDown, m), recorder: rec, metrics: m, dry: dry, watcher: deps.watcher}, nil
	}
	rec, err := NewRecorder(RecorderConfig{Events: deps.events, Cluster: deps.cluster, Namespace: c.cfg.Options.Namespace,
		StatusConfigMapName: c.cfg.StatusName, StatusUID: statusUID, Clock: c.cfg.Clock, DedupWindow: c.dedupWindow()})
	if err != nil {
		return nil, err
	}
	backoffs, err := NewBackoffStore(c.cfg.Client, c.cfg.Options.Namespace)
	if err != nil {
		return nil, err
	}
	return &loopWrites{provider: deps.provider, scaleDown: scaleDown, recorder: rec, backoff: backoffs}, nil
}

// loop is the loop the runner drives: the autoscaler, with the dry run's
// unneeded-node report and comparison when dry.
func (w *loopWrites) loop(a *nodeautoscaler.Autoscaler) Loop {
	if w.dry == nil {
		return a
	}
	if w.watcher == nil {
		return dryrun.NewLoop(a, w.metrics, w.dry, nil)
	}
	return dryrun.NewLoop(a, w.metrics, w.dry, w.watcher)
}
