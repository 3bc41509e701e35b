package vpafidelity

import (
	"os"
	"regexp"
	"testing"
)

// TestSameUpstreamVersion keeps the oracle on the VPA module version the
// main module pins: the oracle proves nothing about another release.
func TestSameUpstreamVersion(t *testing.T) {
	re := regexp.MustCompile(`(?m)^\s*k8s\.io/autoscaler/vertical-pod-autoscaler (v\S+)`)
	version := func(path string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("reading %s: %v", path, err)
		}
		m := re.FindSubmatch(data)
		if m == nil {
			t.Fatalf("%s requires no k8s.io/autoscaler/vertical-pod-autoscaler", path)
		}
		return string(m[1])
	}
	if main, here := version("../../go.mod"), version("go.mod"); main != here {
		t.Fatalf("the main module pins vertical-pod-autoscaler %s, hack/vpafidelity %s: make them equal", main, here)
	}
}
