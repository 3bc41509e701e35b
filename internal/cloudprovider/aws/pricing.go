package aws

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// Prices of a group's new node (Template.PricePerHour): the on-demand price
// of its instance type from a documented table, or for a group that
// launches spot instances the current spot price from EC2
// DescribeSpotPriceHistory. With several types the cheapest known price
// counts, as the template assumes the smallest of them.

// onDemandPricesCSV is the documented price table: name,usdPerHour.
//
//go:embed instance_prices.csv
var onDemandPricesCSV []byte

// DefaultSpotPriceTTL is how long the spot prices of a group's types are
// reused.
const DefaultSpotPriceTTL = time.Hour

// parsePrices parses the price table; every line must be valid.
func parsePrices(data []byte) (map[string]float64, error) {
	out := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		name, price, ok := strings.Cut(text, ",")
		v, err := strconv.ParseFloat(price, 64)
		if !ok || name == "" || err != nil || !(v > 0) {
			return nil, fmt.Errorf("price table line %d: want <type>,<positive price>, got %q", line, text)
		}
		out[name] = v
	}
	return out, sc.Err()
}

// onDemandPrices parses the embedded table once; it is never modified.
var onDemandPrices = sync.OnceValues(func() (map[string]float64, error) { return parsePrices(onDemandPricesCSV) })

// OnDemandPrice returns an instance type's on-demand price in US dollars
// per hour from the built-in table.
func OnDemandPrice(name string) (float64, bool) {
	prices, err := onDemandPrices()
	if err != nil {
		return 0, false
	}
	v, ok := prices[name]
	return v, ok
}

// spotEntry caches the spot prices of one group's types and zones.
type spotEntry struct {
	prices  map[string]float64 // by type: the lowest current price of the zones
	expires time.Time
}

// spotGroup reports whether a group launches spot instances: a
// mixed-instances policy with no on-demand base and 0% on-demand above it,
// or an EKS managed node group of capacity type SPOT.
func spotGroup(g *asg) bool {
	return g.allSpot || g.templateTags[cloudprovider.TagLabelPrefix+"eks.amazonaws.com/capacityType"] == "SPOT"
}

// groupPrice is the price of a group's new node; 0 when unknown.
func (p *Provider) groupPrice(ctx context.Context, g *asg) float64 {
	var spot map[string]float64
	if spotGroup(g) {
		spot = p.spotPrices(ctx, g)
	}
	best := 0.0
	for _, it := range g.types {
		v, ok := spot[it.Name]
		if spot == nil {
			v, ok = OnDemandPrice(it.Name)
		}
		if ok && (best == 0 || v < best) {
			best = v
		}
	}
	return best
}

// spotPrices returns the current spot prices of a group's types in its
// zones (Linux/UNIX), cached for SpotPriceTTL; a failed call is logged and
// leaves the group without a price.
func (p *Provider) spotPrices(ctx context.Context, g *asg) map[string]float64 {
	types := make([]ec2types.InstanceType, 0, len(g.types))
	for _, it := range g.types {
		types = append(types, ec2types.InstanceType(it.Name))
	}
	slices.Sort(types)
	key, now := fmt.Sprint(types, g.zones), p.cfg.Clock.Now()
	if e, ok := p.spot[key]; ok && now.Before(e.expires) {
		return e.prices
	}
	in := &ec2.DescribeSpotPriceHistoryInput{InstanceTypes: types, ProductDescriptions: []string{"Linux/UNIX"}, StartTime: awssdk.Time(now)}
	prices := map[string]float64{}
	pages := ec2.NewDescribeSpotPriceHistoryPaginator(p.cfg.EC2, in)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			klog.FromContext(ctx).Error(err, "Reading spot prices failed; the group has no price", "nodeGroup", g.name)
			return nil
		}
		for _, sp := range page.SpotPriceHistory {
			v, err := strconv.ParseFloat(awssdk.ToString(sp.SpotPrice), 64)
			name := string(sp.InstanceType)
			if err != nil || !(v > 0) || (len(g.zones) > 0 && !slices.Contains(g.zones, awssdk.ToString(sp.AvailabilityZone))) {
				continue
			}
			if old, ok := prices[name]; !ok || v < old {
				prices[name] = v
			}
		}
	}
	p.spot[key] = spotEntry{prices: prices, expires: now.Add(p.cfg.SpotPriceTTL)}
	return prices
}
