package offline

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kscale/kscale/internal/scenario"
	"github.com/kscale/kscale/internal/simulator"
)

// snapshotLayout lists the snapshot's nodes in order, each with its object
// and its pods' objects in order.
func snapshotLayout(snap *simulator.Snapshot) string {
	var b strings.Builder
	for _, n := range snap.Nodes() {
		fmt.Fprintf(&b, "%s@%p:", n.Node().Name, n.Node())
		for _, p := range n.Pods() {
			fmt.Fprintf(&b, " %s/%s@%p", p.Namespace, p.Name, p)
		}
		fmt.Fprintf(&b, " %+v\n", n.Requested())
	}
	return b.String()
}

// sameLayout reports whether a and b hold the same node and pod objects
// in the same order, with the same requests.
func sameLayout(a, b *simulator.Snapshot) bool {
	na, nb := a.Nodes(), b.Nodes()
	if len(na) != len(nb) {
		return false
	}
	for i := range na {
		if na[i].Node() != nb[i].Node() || !slices.Equal(na[i].Pods(), nb[i].Pods()) ||
			!reflect.DeepEqual(na[i].Requested(), nb[i].Requested()) {
			return false
		}
	}
	return true
}

// TestSchedSnapshotMatchesFresh runs every scenario and checks after each
// tick that the scheduler's kept snapshot holds what one built from
// scratch holds, in the same order.
func TestSchedSnapshotMatchesFresh(t *testing.T) {
	files, err := filepath.Glob("../../test/scenarios/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			scn, err := scenario.Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			w, err := New(scn)
			if err != nil {
				t.Fatal(err)
			}
			next := 0
			for at := time.Duration(0); at <= scn.Duration.Duration; at += scn.Options.ScanInterval {
				w.clock.SetTime(Start.Add(at))
				for ; next < len(scn.Events) && scn.Events[next].At.Duration <= at; next++ {
					_ = w.apply(scn.Events[next]) // a failing event is the scenario's business
				}
				if err := w.tick(t.Context()); err != nil {
					t.Fatal(err)
				}
				kept, ok, err := w.sched.sync(w.cluster)
				if err != nil || !ok {
					t.Fatalf("at %v: kept snapshot not usable: ok %v, %v", at, ok, err)
				}
				fresh, err := w.cluster.freshSnapshot()
				if err != nil {
					t.Fatal(err)
				}
				if !sameLayout(kept, fresh) {
					k, f := snapshotLayout(kept), snapshotLayout(fresh)
					t.Fatalf("at %v: kept snapshot\n%s\nbuilt from scratch\n%s", at, k, f)
				}
			}
		})
	}
}
