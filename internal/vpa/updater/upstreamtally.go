package updater

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
)

// loopTally counts one loop's pods and VPAs for upstream's per-loop
// gauges.
type loopTally struct {
	evictable, evicted               *tally
	inPlaceUpdatable, inPlaceUpdated *tally
}

func newLoopTally() *loopTally {
	return &loopTally{evictable: newTally(), evicted: newTally(), inPlaceUpdatable: newTally(), inPlaceUpdated: newTally()}
}

// tally counts pods, and the VPAs with at least one, by size bucket and
// update mode ("" for the size-only gauges).
type tally struct {
	pods map[[2]string]int
	vpas map[[2]string]map[types.UID]bool
}

func newTally() *tally {
	return &tally{pods: map[[2]string]int{}, vpas: map[[2]string]map[types.UID]bool{}}
}

// add counts n pods of the VPA uid; the VPA counts once n > 0. A bucket
// with a VPA of no such pods is still seen (at 0), as upstream's.
func (t *tally) add(log2, mode string, n int, uid types.UID) {
	key := [2]string{log2, mode}
	t.pods[key] += n
	if t.vpas[key] == nil {
		t.vpas[key] = map[types.UID]bool{}
	}
	if n > 0 {
		t.vpas[key][uid] = true
	}
}

func (t *tally) value(key [2]string, vpas bool) float64 {
	if vpas {
		return float64(len(t.vpas[key]))
	}
	return float64(t.pods[key])
}

// publishByMode replaces g's series by the buckets seen this loop: for
// the pod counts every bucket a VPA was in, for the VPA counts only those
// with a VPA that had such pods (as upstream's, which adds a VPA only then).
func (t *tally) publishByMode(g *prometheus.GaugeVec, vpas bool) {
	g.Reset()
	for key, uids := range t.vpas {
		if vpas && len(uids) == 0 {
			continue
		}
		g.WithLabelValues(key[0], key[1]).Set(t.value(key, vpas))
	}
}

// publishBySize sets every size bucket of g.
func (t *tally) publishBySize(g *prometheus.GaugeVec, vpas bool) {
	for log2 := 0; log2 <= maxVPASizeLog2; log2++ {
		key := [2]string{strconv.Itoa(log2), ""}
		g.WithLabelValues(key[0]).Set(t.value(key, vpas))
	}
}
