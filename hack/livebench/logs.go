package main

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Increase is one increase call of the provider, as the autoscaler's log
// reports it immediately before the call.
type Increase struct {
	// At is the klog timestamp of the log line.
	At time.Time `json:"at"`
	// Group is the node group.
	Group string `json:"group"`
	// Delta is the number of nodes asked for.
	Delta int `json:"delta"`
}

// klogHeader matches the klog text header: severity, MMDD, time with
// microseconds, thread id, file:line and the closing bracket.
var klogHeader = regexp.MustCompile(`^[IWEF](\d{2})(\d{2}) (\d{2}:\d{2}:\d{2}\.\d{6})\s+\d+ [^\]]*\] (.*)$`)

// errNotKlog marks a line without a klog header.
var errNotKlog = errors.New("not a klog line")

// parseKlog splits a klog text line into its timestamp and message. klog
// writes no year: the line's time is placed in the year of ref, or the year
// before when that would put it more than a day after ref.
func parseKlog(line string, ref time.Time) (time.Time, string, error) {
	m := klogHeader.FindStringSubmatch(line)
	if m == nil {
		return time.Time{}, "", errNotKlog
	}
	month, _ := strconv.Atoi(m[1])
	day, _ := strconv.Atoi(m[2])
	clock, err := time.ParseInLocation("15:04:05.000000", m[3], ref.Location())
	if err != nil {
		return time.Time{}, "", fmt.Errorf("parsing klog time %q: %w", m[3], err)
	}
	if month < 1 || month > 12 || day < 1 || day > 31 {
		return time.Time{}, "", fmt.Errorf("parsing klog date %s%s: out of range", m[1], m[2])
	}
	at := time.Date(ref.Year(), time.Month(month), day, clock.Hour(), clock.Minute(), clock.Second(), clock.Nanosecond(), ref.Location())
	if at.Sub(ref) > 24*time.Hour {
		at = at.AddDate(-1, 0, 0)
	}
	return at, m[4], nil
}

// kscaleIncrease matches kscale's log line at an increase (logged by the
// node autoscaler immediately before it calls the provider).
var kscaleIncrease = regexp.MustCompile(`^"Scale-up: increasing node group size".*\bnodeGroup="([^"]+)".*\bdelta=(\d+)`)

// upstreamIncrease matches upstream cluster-autoscaler's V(0) line written
// immediately before NodeGroup.IncreaseSize.
var upstreamIncrease = regexp.MustCompile(`^Scale-up: setting group (\S+) size to (\d+)$`)

// IncreaseParser turns autoscaler log lines into increases. Upstream logs
// the new size, not the delta: the parser keeps each group's last size,
// starting from the sizes the harness created.
type IncreaseParser struct {
	upstream bool
	sizes    map[string]int
}

// NewIncreaseParser returns a parser for kscale's lines, or upstream's
// with upstream set; sizes are the groups' sizes before the first increase.
func NewIncreaseParser(upstream bool, sizes map[string]int) *IncreaseParser {
	s := make(map[string]int, len(sizes))
	for g, n := range sizes {
		s[g] = n
	}
	return &IncreaseParser{upstream: upstream, sizes: s}
}

// Parse returns the increase a log line reports, if any.
func (p *IncreaseParser) Parse(line string, ref time.Time) (Increase, bool) {
	at, msg, err := parseKlog(strings.TrimRight(line, "\r\n"), ref)
	if err != nil {
		return Increase{}, false
	}
	if !p.upstream {
		m := kscaleIncrease.FindStringSubmatch(msg)
		if m == nil {
			return Increase{}, false
		}
		delta, err := strconv.Atoi(m[2])
		if err != nil || delta <= 0 {
			return Increase{}, false
		}
		return Increase{At: at, Group: m[1], Delta: delta}, true
	}
	m := upstreamIncrease.FindStringSubmatch(msg)
	if m == nil {
		return Increase{}, false
	}
	size, err := strconv.Atoi(m[2])
	if err != nil {
		return Increase{}, false
	}
	delta := size - p.sizes[m[1]]
	p.sizes[m[1]] = size
	if delta <= 0 {
		return Increase{}, false
	}
	return Increase{At: at, Group: m[1], Delta: delta}, true
}
