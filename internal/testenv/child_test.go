package testenv

import (
	"os/exec"
	"testing"
)

func TestStartChildKill(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatalf("this test needs sleep(1): %v", err)
	}
	c := StartChild(t, "sleeper", sleep, []string{"600"}, nil)
	if c.Exited() {
		t.Fatal("the child exited at once")
	}
	c.Kill()
	if !c.Exited() {
		t.Fatal("the child survived Kill")
	}
	c.Kill() // a second Kill is harmless
}
