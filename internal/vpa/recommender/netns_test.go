package recommender_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// netNS is a network namespace the test created, joined to the host by a
// veth pair with a /30 in 10.214.0.0/16.
type netNS struct {
	name     string
	hostIP   string
	insideIP string
}

// newNetNS creates the namespace and veth pair and deletes both in
// t.Cleanup, also when the test fails half-way.
func newNetNS(t *testing.T) *netNS {
	t.Helper()
	pid := os.Getpid()
	third := pid % 250
	ns := &netNS{
		name:     fmt.Sprintf("kscale-vpa-rec-%d", pid),
		hostIP:   fmt.Sprintf("10.214.%d.1", third),
		insideIP: fmt.Sprintf("10.214.%d.2", third),
	}
	host, peer := fmt.Sprintf("kvrh%d", pid), fmt.Sprintf("kvrp%d", pid)
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v: %s", args, err, out)
		}
	}
	run("netns", "add", ns.name)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns.name).Run() })
	run("link", "add", host, "type", "veth", "peer", "name", peer)
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", host).Run() })
	run("link", "set", peer, "netns", ns.name)
	run("addr", "add", ns.hostIP+"/30", "dev", host)
	run("link", "set", host, "up")
	run("netns", "exec", ns.name, "ip", "addr", "add", ns.insideIP+"/30", "dev", peer)
	run("netns", "exec", ns.name, "ip", "link", "set", peer, "up")
	run("netns", "exec", ns.name, "ip", "link", "set", "lo", "up")
	return ns
}

// listen opens a TCP listener on addr inside the namespace. The socket
// keeps the namespace after the thread switches back.
func (n *netNS) listen(t *testing.T, port int) net.Listener {
	t.Helper()
	type result struct {
		ln  net.Listener
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			ch <- result{err: err}
			runtime.UnlockOSThread()
			return
		}
		defer func() { _ = orig.Close() }()
		target, err := os.Open("/var/run/netns/" + n.name)
		if err != nil {
			ch <- result{err: err}
			runtime.UnlockOSThread()
			return
		}
		defer func() { _ = target.Close() }()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			ch <- result{err: fmt.Errorf("entering %s: %w", n.name, err)}
			runtime.UnlockOSThread()
			return
		}
		ln, lerr := net.Listen("tcp", fmt.Sprintf("%s:%d", n.insideIP, port))
		if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
			// Leave the thread locked: the runtime discards it with the goroutine.
			ch <- result{err: fmt.Errorf("leaving %s: %w", n.name, err)}
			return
		}
		runtime.UnlockOSThread()
		ch <- result{ln: ln, err: lerr}
	}()
	r := <-ch
	if r.err != nil {
		t.Fatalf("listening inside %s: %v", n.name, r.err)
	}
	t.Cleanup(func() { _ = r.ln.Close() })
	return r.ln
}
