package chartcheck

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/strvals"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// installDocs are the documents whose `helm install` examples must render.
var installDocs = []string{"../../README.md", "../../charts/kscale/README.md", "../../docs/aws.md", "../../docs/clusterapi.md"}

// TestDocsInstallExamples renders every `helm install ... charts/kscale`
// example of the docs with its --set and --set-string values (parsed by
// Helm's own parser) and checks that the node autoscaler runs with the
// example's cloud provider (aws with its IRSA role), so the documented
// commands stay valid.
func TestDocsInstallExamples(t *testing.T) {
	n := 0
	for _, doc := range installDocs {
		raw, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for i, cmd := range helmInstalls(string(raw)) {
			n++
			vals := map[string]any{}
			words := strings.Fields(cmd)
			for j := 0; j+1 < len(words); j++ {
				arg := strings.Trim(words[j+1], "'")
				switch words[j] {
				case "--set":
					err = strvals.ParseInto(arg, vals)
				case "--set-string":
					err = strvals.ParseIntoString(arg, vals)
				default:
					continue
				}
				if err != nil {
					t.Fatalf("%s example %d: %s %s: %v", doc, i, words[j], arg, err)
				}
			}
			r, err := Render(chartDir, Release{Name: "kscale", Namespace: "kube-system"}, vals)
			if err != nil {
				t.Fatalf("%s example %d: %v\n%s", doc, i, err, cmd)
			}
			provider, _, _ := unstructured.NestedString(vals, "clusterAutoscaler", "cloudProvider")
			if provider == "" {
				provider = "kwok"
			}
			expectArgs(t, args(t, r, "kscale-node-autoscaler"), "--cloud-provider="+provider)
			if sa := find(r, "ServiceAccount", "kscale-node-autoscaler"); provider == "aws" && !strings.HasPrefix(sa.GetAnnotations()["eks.amazonaws.com/role-arn"], "arn:aws:iam::") {
				t.Errorf("%s example %d: the ServiceAccount has no IRSA role: %v", doc, i, sa.GetAnnotations())
			}
		}
	}
	if n < 5 {
		t.Errorf("found %d helm install examples, want at least 5", n)
	}
}

var continuation = regexp.MustCompile(`\\\n\s*`)

// helmInstalls returns the docs' `helm install` commands of the chart in
// charts/kscale, continuation lines joined.
func helmInstalls(doc string) []string {
	var out []string
	for _, line := range strings.Split(continuation.ReplaceAllString(doc, " "), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "helm install ") && strings.Contains(line, " charts/kscale ") {
			out = append(out, line)
		}
	}
	return out
}
