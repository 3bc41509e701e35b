package mcm

import (
	"strings"
	"testing"
)

func TestParseGroups(t *testing.T) {
	tests := []struct {
		values    []string
		namespace string
		want      []Group
		err       string
	}{
		{values: []string{"1:3:shoot--p--c.shoot--p--c-w-z1", "0:2:shoot--p--c.shoot--p--c-w-z2"}, namespace: "shoot--p--c",
			want: []Group{{1, 3, "shoot--p--c", "shoot--p--c-w-z1"}, {0, 2, "shoot--p--c", "shoot--p--c-w-z2"}}},
		{values: []string{"1:3:ns.md"}, want: []Group{{1, 3, "ns", "md"}}},
		{values: []string{"1:3:md"}, err: "want <namespace>.<machinedeployment>"},
		{values: []string{"1:3:other.md"}, namespace: "ns", err: `namespace "other" is not the control namespace "ns"`},
		{values: []string{"1:3:a.md", "1:3:b.md2"}, err: `namespace "b" is not the control namespace "a"`},
		{values: []string{"1:3:Bad.md"}, err: `namespace "Bad"`},
		{values: []string{"1:3:ns.md", "0:1:ns.md"}, err: "given twice"},
		{values: []string{"3:1:ns.md"}, err: "below min size"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.values, " "), func(t *testing.T) {
			got, err := ParseGroups(tt.values, tt.namespace)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("group %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func FuzzParseGroups(f *testing.F) {
	f.Add("1:3:ns.md", "ns")
	f.Add("0:0:a.b.c", "")
	f.Fuzz(func(t *testing.T, v, ns string) {
		gs, err := ParseGroups([]string{v}, ns)
		if err != nil {
			return
		}
		if len(gs) != 1 || gs[0].Min > gs[0].Max || gs[0].Name == "" || (ns != "" && gs[0].Namespace != ns) {
			t.Fatalf("ParseGroups(%q, %q) = %+v", v, ns, gs)
		}
	})
}
