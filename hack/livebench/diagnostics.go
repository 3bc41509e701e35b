package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// dumpDiagnostics writes the autoscaler's status ConfigMap and the events
// of the harness's namespace into dir (kept with --keep-dir), for finding
// out why a run saw no increase. Failures are written into the files.
func dumpDiagnostics(ctx context.Context, c kubernetes.Interface, dir string) {
	var status string
	if cm, err := c.CoreV1().ConfigMaps("kube-system").Get(ctx, "cluster-autoscaler-status", metav1.GetOptions{}); err != nil {
		status = "reading the status ConfigMap: " + err.Error()
	} else {
		status = cm.Data["status"]
	}
	_ = os.WriteFile(filepath.Join(dir, "status.yaml"), []byte(status), 0o600)
	var b strings.Builder
	events, err := c.CoreV1().Events(Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		b.WriteString("listing events: " + err.Error())
	} else {
		for _, e := range events.Items {
			fmt.Fprintf(&b, "%s %s/%s %s x%d: %s\n", e.LastTimestamp.UTC().Format("15:04:05"), e.InvolvedObject.Kind, e.InvolvedObject.Name,
				e.Reason, e.Count, e.Message)
		}
	}
	_ = os.WriteFile(filepath.Join(dir, "events.txt"), []byte(b.String()), 0o600)
}
