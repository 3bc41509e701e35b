package inmemory

import (
	"os"
	"regexp"
	"testing"
)

// TestCatalogDocumented keeps the built-in instance types' table in
// docs/scenarios.md true: every catalog type with its vCPUs, memory and
// GPUs, and no other.
func TestCatalogDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile("(?m)^\\| `([a-z0-9.]+)` \\| (\\d+) \\| (\\w+) \\| ([\\d-]+) \\|$").FindAllStringSubmatch(string(doc), -1)
	seen := map[string]bool{}
	for _, r := range rows {
		e, ok := catalog[r[1]]
		if !ok {
			t.Errorf("docs list %s, which the catalog lacks", r[1])
			continue
		}
		gpu := e.gpu
		if gpu == "" {
			gpu = "-"
		}
		if r[2] != e.cpu || r[3] != e.memory || r[4] != gpu {
			t.Errorf("docs: %s has %s vCPU, %s, %s GPUs; the catalog %s, %s, %s", r[1], r[2], r[3], r[4], e.cpu, e.memory, gpu)
		}
		seen[r[1]] = true
	}
	for name := range catalog {
		if !seen[name] {
			t.Errorf("docs lack the catalog type %s", name)
		}
	}
}
