package estimator_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/labels"
)

func mustSelector(t *testing.T, s string) labels.Selector {
	t.Helper()
	sel, err := labels.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}
