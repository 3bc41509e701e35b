package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const shadowRecord = `{"time":"2026-11-27T12:00:00Z","kind":"scale_up","subject":"ns/a","agree":true,"reason":"same_group","kscale":"scale up g1","upstream":"pod triggered scale-up: [{g1 0->1 (max: 3)}]"}
{"time":"2026-11-27T13:00:00Z","kind":"scale_down","subject":"n1","agree":false,"reason":"upstream_kept_node","kscale":"remove (empty)","upstream":"nothing seen"}
`

func TestShadowReport(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "record.jsonl")
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(file, []byte(shadowRecord), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(shadowRecord+"{oops\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args     []string
		wantCode int
		want     string
	}{
		{[]string{"--file", file}, 0, "2 decisions, 1 agree (50.0%)"},
		{[]string{"--file", file, "--since", "2026-11-27T12:30:00Z"}, 0, "1 decisions, 0 agree"},
		{[]string{"--file", file, "--until", "2026-11-27T12:30:00Z", "-o", "json"}, 0, `"agreed": 1`},
		{[]string{"--file", file, "-o", "html"}, 0, "<td>upstream_kept_node</td>"},
		{[]string{}, 2, "--file: required"},
		{[]string{"--file", bad}, 2, "line 3"},
		{[]string{"--file", file, "-o", "yaml"}, 2, "--output"},
		{[]string{"--file", file, "--since", "yesterday"}, 2, "--since"},
		{[]string{"--file", file, "--since", "2026-11-27T14:00:00Z", "--until", "2026-11-27T13:00:00Z"}, 2, "must be before --until"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := execute(t.Context(), append([]string{"shadow", "report"}, tt.args...), &stdout, &stderr)
			if code != tt.wantCode || !strings.Contains(stdout.String()+stderr.String(), tt.want) {
				t.Errorf("exit %d, output %q%q; want exit %d and %q", code, stdout.String(), stderr.String(), tt.wantCode, tt.want)
			}
		})
	}
}
