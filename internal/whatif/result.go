package whatif

import (
	"math"
	"time"
)

// Totals are one configuration's figures over the whole run (GEP-23's
// quantities and more). Times are minutes, CPU in cores, memory in GiB.
type Totals struct {
	// CPUUtilization is CPU used / CPU requested.
	CPUUtilization float64 `json:"cpuUtilization"`
	// MemoryUtilization is memory used / memory requested.
	MemoryUtilization float64 `json:"memoryUtilization"`
	// CPUAboveRequestMinutes is the time some replica needed more CPU than it requested.
	CPUAboveRequestMinutes float64 `json:"cpuAboveRequestMinutes"`
	// CPUAboveRequestPodMinutes sums that time over replicas.
	CPUAboveRequestPodMinutes float64 `json:"cpuAboveRequestPodMinutes"`
	// CPUStarvedMinutes is the time some demand went unserved (above
	// request + node headroom, or no ready replica).
	CPUStarvedMinutes float64 `json:"cpuStarvedMinutes"`
	// CPUUnservedCoreMinutes is the CPU demand that went unserved.
	CPUUnservedCoreMinutes float64 `json:"cpuUnservedCoreMinutes"`
	// MemoryOOMRiskPodMinutes is the pod-time with memory use above the request.
	MemoryOOMRiskPodMinutes float64 `json:"memoryOOMRiskPodMinutes"`
	// Evictions counts pods evicted to change their requests.
	Evictions int `json:"evictions"`
	// Resizes counts in-place resizes.
	Resizes int `json:"resizes"`
	// ReplicasMean, ReplicasMax and ReplicaChanges describe the replica count.
	ReplicasMean   float64 `json:"replicasMean"`
	ReplicasMax    int     `json:"replicasMax"`
	ReplicaChanges int     `json:"replicaChanges"`
	// CPURequestedCoreHours and CPUUsedCoreHours are the totals.
	CPURequestedCoreHours float64 `json:"cpuRequestedCoreHours"`
	CPUUsedCoreHours      float64 `json:"cpuUsedCoreHours"`
	// MemoryRequestedGiBHours and MemoryUsedGiBHours are the totals.
	MemoryRequestedGiBHours float64 `json:"memoryRequestedGiBHours"`
	MemoryUsedGiBHours      float64 `json:"memoryUsedGiBHours"`
	// NodesNeededMean and NodesNeededMax are the nodes of the file's node
	// size the requests need (the larger of the CPU and memory counts).
	NodesNeededMean float64 `json:"nodesNeededMean"`
	NodesNeededMax  int     `json:"nodesNeededMax"`
}

// Point is one sample of a configuration's time series.
type Point struct {
	// Minute is the time from the start.
	Minute float64 `json:"minute"`
	// Replicas is the pod count.
	Replicas int `json:"replicas"`
	// CPURequested, CPUUsed and CPUDemand are cores summed over pods.
	CPURequested float64 `json:"cpuRequested"`
	CPUUsed      float64 `json:"cpuUsed"`
	CPUDemand    float64 `json:"cpuDemand"`
	// MemoryRequested and MemoryUsed are GiB summed over pods.
	MemoryRequested float64 `json:"memoryRequested"`
	MemoryUsed      float64 `json:"memoryUsed"`
	// CPURequestPerPod is the newest pod's CPU request.
	CPURequestPerPod float64 `json:"cpuRequestPerPod"`
}

// Result is one configuration's outcome.
type Result struct {
	// Configuration names it.
	Configuration string `json:"configuration"`
	// Totals are the whole-run figures.
	Totals Totals `json:"totals"`
	// Series samples the run over time.
	Series []Point `json:"series"`
}

const gib = 1 << 30

// maxPoints bounds a series' length.
const maxPoints = 2000

// accumulator sums a run's figures step by step.
type accumulator struct {
	t                   Totals
	demand              float64
	every               int
	steps               int
	nodeCPU, nodeMemory float64
	series              []Point
	evictions, resizes  int
	replicaChanges      int
	usedCPU, reqCPU     float64
	usedMem, reqMem     float64
	replicaSteps        float64
	nodeSteps           float64
}

func (a *accumulator) init(f *File, steps int) {
	a.every = max(1, (steps+maxPoints-1)/maxPoints)
	a.nodeCPU, a.nodeMemory = cpuMem(f.NodeSize)
}

// add records one step of length dt.
func (a *accumulator) add(i int, r *run, dt time.Duration) {
	m := dt.Minutes()
	var p Point
	above, starved := false, false
	for _, x := range r.pods {
		p.CPURequested += x.cpuReq
		p.MemoryRequested += x.memReq
		p.CPUUsed += x.cpuUsed
		p.MemoryUsed += x.memUsed
		if x.cpuDemand > x.cpuReq {
			above = true
			a.t.CPUAboveRequestPodMinutes += m
		}
		if x.memUsed > x.memReq {
			a.t.MemoryOOMRiskPodMinutes += m
		}
	}
	if unserved := a.demand - p.CPUUsed; unserved > 1e-9 {
		starved = true
		a.t.CPUUnservedCoreMinutes += unserved * m
	}
	if above {
		a.t.CPUAboveRequestMinutes += m
	}
	if starved {
		a.t.CPUStarvedMinutes += m
	}
	a.steps++
	a.replicaSteps += float64(len(r.pods))
	a.t.ReplicasMax = max(a.t.ReplicasMax, len(r.pods))
	a.reqCPU += p.CPURequested * m
	a.usedCPU += p.CPUUsed * m
	a.reqMem += p.MemoryRequested * m
	a.usedMem += p.MemoryUsed * m
	nodes := a.nodes(p.CPURequested, p.MemoryRequested)
	a.nodeSteps += float64(nodes)
	a.t.NodesNeededMax = max(a.t.NodesNeededMax, nodes)
	if i%a.every == 0 {
		p.Minute = float64(i) * m
		p.Replicas = len(r.pods)
		p.CPUDemand = a.demand
		p.MemoryRequested /= gib
		p.MemoryUsed /= gib
		if n := len(r.pods); n > 0 {
			p.CPURequestPerPod = r.pods[n-1].cpuReq
		}
		a.series = append(a.series, p)
	}
}

func (a *accumulator) nodes(cpu, mem float64) int {
	n := 0.0
	if a.nodeCPU > 0 {
		n = math.Ceil(cpu/a.nodeCPU - 1e-9)
	}
	if a.nodeMemory > 0 {
		n = math.Max(n, math.Ceil(mem/a.nodeMemory-1e-9))
	}
	return int(n)
}

func (a *accumulator) result(name string, r *run) Result {
	t := a.t
	t.Evictions = r.acc.evictions
	t.Resizes = r.acc.resizes
	t.ReplicaChanges = r.acc.replicaChanges
	if a.reqCPU > 0 {
		t.CPUUtilization = a.usedCPU / a.reqCPU
	}
	if a.reqMem > 0 {
		t.MemoryUtilization = a.usedMem / a.reqMem
	}
	if a.steps > 0 {
		t.ReplicasMean = a.replicaSteps / float64(a.steps)
		t.NodesNeededMean = a.nodeSteps / float64(a.steps)
	}
	t.CPURequestedCoreHours = a.reqCPU / 60
	t.CPUUsedCoreHours = a.usedCPU / 60
	t.MemoryRequestedGiBHours = a.reqMem / 60 / gib
	t.MemoryUsedGiBHours = a.usedMem / 60 / gib
	return Result{Configuration: name, Totals: t, Series: a.series}
}
