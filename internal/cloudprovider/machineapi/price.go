package machineapi

import (
	"fmt"
	"strconv"
)

// PriceAnnotation is kscale's annotation of what one node of a group costs
// per hour (any currency, a decimal number >= 0): on a Cluster API
// MachineDeployment or MachineSet, on an MCM MachineDeployment or its
// MachineClass. The price expander and the simulate report read it.
const PriceAnnotation = "autoscaling.kscale.io/price-per-hour"

// maxPrice bounds a price, as scenario files do.
const maxPrice = 1e6

// Price parses the price annotation of obj ("kind name" in errors); 0 when
// it is not set.
func Price(annotations map[string]string, obj string) (float64, error) {
	s, ok := annotations[PriceAnnotation]
	if !ok {
		return 0, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v >= 0 && v <= maxPrice) {
		return 0, fmt.Errorf("%s: annotation %s: %q is not a price from 0 to %g", obj, PriceAnnotation, s, float64(maxPrice))
	}
	return v, nil
}
