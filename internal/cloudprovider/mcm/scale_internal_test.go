package mcm

import (
	"errors"
	"slices"
	"testing"

	"github.com/kscale/kscale/internal/cloudprovider"
)

func TestDeleteTarget(t *testing.T) {
	tests := []struct {
		name          string
		cur, n, alive int
		want          int
	}{
		{name: "every replica alive", cur: 3, n: 2, alive: 3, want: 1},
		{name: "a placeholder (replica without a Machine)", cur: 3, n: 1, alive: 2, want: 2},
		{name: "the victim is beyond the replicas: MCM removes it anyway", cur: 1, n: 1, alive: 2, want: 1},
		{name: "one of two victims beyond the replicas", cur: 2, n: 2, alive: 3, want: 1},
		{name: "more beyond the replicas than victims never raises", cur: 2, n: 1, alive: 5, want: 2},
	}
	for _, tt := range tests {
		if got := deleteTarget(tt.cur, tt.n, tt.alive); got != tt.want {
			t.Errorf("%s: deleteTarget(%d, %d, %d) = %d, want %d", tt.name, tt.cur, tt.n, tt.alive, got, tt.want)
		}
	}
}

func TestVictimsJudgeFreshState(t *testing.T) {
	g := &group{ng: cloudprovider.NodeGroup{ID: "g"}, machines: map[string]*machine{
		"running": {name: "running"}, "gone": {name: "gone"}, "deleted-since": {name: "deleted-since"}, "failed-since": {name: "failed-since"},
	}}
	fresh := map[string]*machine{
		"running":       {name: "running"},
		"deleted-since": {name: "deleted-since", deleting: true},
		"failed-since":  {name: "failed-since", phase: phaseFailed},
		"new":           {name: "new"},
	}
	marked, unmarked, err := victims(g, fresh, []string{"running", "gone", "deleted-since", "failed-since", "new", placeholderPrefix + "placeholder/g-1"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(marked, []string{"running", "new"}) || unmarked != 2 {
		t.Errorf("victims = %v, %d unmarked; want [running new] and 2 (the failed Machine, the placeholder)", marked, unmarked)
	}
	var nf *cloudprovider.NotFoundError
	if _, _, err := victims(g, fresh, []string{"never"}); !errors.As(err, &nf) {
		t.Errorf("an id of neither view: %v, want a NotFoundError", err)
	}
}
