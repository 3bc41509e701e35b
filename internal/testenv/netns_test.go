package testenv

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"testing"
)

// TestNetNS checks that a server listening inside a namespace is reachable
// from the host on the namespace's address, and that cleanup removes the
// namespace and its veth pair.
func TestNetNS(t *testing.T) {
	var name, link string
	t.Run("reachable", func(t *testing.T) {
		ns := NewNetNS(t, "10.219.0.0/30")
		name, link = ns.Name, ns.hostLink
		l, err := ns.Listen(0)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = l.Close() }()
		if host, _, _ := net.SplitHostPort(l.Addr().String()); host != ns.IP {
			t.Fatalf("listener on %s, want %s", l.Addr(), ns.IP)
		}
		go func() {
			if c, err := l.Accept(); err == nil {
				_, _ = c.Write([]byte("hello"))
				_ = c.Close()
			}
		}()
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatalf("dialing the namespace from the host: %v", err)
		}
		defer func() { _ = c.Close() }()
		if got, _ := io.ReadAll(c); string(got) != "hello" {
			t.Errorf("read %q, want hello", got)
		}
	})
	if _, err := os.Stat("/var/run/netns/" + name); !os.IsNotExist(err) {
		t.Errorf("namespace %s still exists after cleanup", name)
	}
	if exec.Command("ip", "link", "show", link).Run() == nil {
		t.Errorf("veth %s still exists after cleanup", link)
	}
}

func TestNetNSRejectsBadSubnets(t *testing.T) {
	for _, subnet := range []string{"10.0.0.0/24", "10.0.0.1/30", "fd00::/126", "nonsense"} {
		ft := &fatalRecorder{TB: t}
		func() {
			defer func() { _ = recover() }()
			NewNetNS(ft, subnet)
		}()
		if !ft.failed {
			t.Errorf("NewNetNS(%q) did not fail", subnet)
		}
	}
}

// fatalRecorder records Fatalf instead of ending the test, and panics to
// stop the caller as Fatalf would.
type fatalRecorder struct {
	testing.TB
	failed bool
}

func (f *fatalRecorder) Fatalf(string, ...any) {
	f.failed = true
	panic("fatal")
}

func (f *fatalRecorder) Helper() {}

func TestOwnerGone(t *testing.T) {
	dead := deadPID(t)
	tests := []struct {
		name string
		want bool
	}{
		{fmt.Sprintf("kscale-testenv-%d-123", dead), true},
		{fmt.Sprintf("kscale-testenv-%d-123", os.Getpid()), false},
		{"kscale-testenv-1-123", false},  // init runs
		{"kscale-testenv-123456", false}, // older naming without a pid: left alone
		{"other-999999-1", false},
	}
	for _, tt := range tests {
		if got := ownerGone(tt.name, dirPrefix); got != tt.want {
			t.Errorf("ownerGone(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// deadPID returns the ID of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}
