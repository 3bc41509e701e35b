package snapshot

import (
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

var invalidLabelChars = regexp.MustCompile(`[^a-z0-9-]+`)

// uniqueWorkloadName picks the first candidate that is a valid, unused
// workload name (a DNS label), else a sanitized one with a number.
func (b *builder) uniqueWorkloadName(candidates []string) string {
	for _, c := range candidates {
		if len(validation.IsDNS1123Label(c)) == 0 && !b.workloadNames[c] {
			b.workloadNames[c] = true
			return c
		}
	}
	base := invalidLabelChars.ReplaceAllString(strings.ToLower(candidates[len(candidates)-1]), "-")
	base = strings.Trim(base, "-")
	if len(base) > 50 {
		base = strings.Trim(base[:50], "-")
	}
	if base == "" {
		base = "workload"
	}
	name := base
	for i := 2; b.workloadNames[name]; i++ {
		name = base + "-" + strconv.Itoa(i)
	}
	b.workloadNames[name] = true
	return name
}
