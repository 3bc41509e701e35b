package custommetrics_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// netns is a network namespace created by a test, joined to the host by a
// veth pair on a /30: HostIP on the host side, IP inside.
type netns struct {
	Name   string
	HostIP string
	IP     string
	veth   string
}

// newNetns creates namespace kscm-<pid>-<idx> with subnet 10.213.0.<4*idx>/30
// and removes it (and the veth pair) in t.Cleanup, also when the test fails.
func newNetns(t *testing.T, idx int) *netns {
	t.Helper()
	pid := os.Getpid()
	n := &netns{
		Name:   fmt.Sprintf("kscm-%d-%d", pid, idx),
		HostIP: fmt.Sprintf("10.213.0.%d", 4*idx+1),
		IP:     fmt.Sprintf("10.213.0.%d", 4*idx+2),
		veth:   fmt.Sprintf("kscm%d%d", pid%100000, idx),
	}
	peer := n.veth + "p"
	t.Cleanup(func() {
		_ = exec.Command("ip", "netns", "del", n.Name).Run()
		_ = exec.Command("ip", "link", "del", n.veth).Run()
	})
	steps := [][]string{
		{"ip", "netns", "add", n.Name},
		{"ip", "link", "add", n.veth, "type", "veth", "peer", "name", peer},
		{"ip", "link", "set", peer, "netns", n.Name},
		{"ip", "addr", "add", n.HostIP + "/30", "dev", n.veth},
		{"ip", "link", "set", n.veth, "up"},
		{"ip", "netns", "exec", n.Name, "ip", "addr", "add", n.IP + "/30", "dev", peer},
		{"ip", "netns", "exec", n.Name, "ip", "link", "set", peer, "up"},
		{"ip", "netns", "exec", n.Name, "ip", "link", "set", "lo", "up"},
	}
	for _, s := range steps {
		if out, err := exec.Command(s[0], s[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", strings.Join(s, " "), err, out)
		}
	}
	return n
}

// listenInNetns opens a TCP listener on addr inside the named network
// namespace. Only the socket lives there; the process stays in its own
// namespace, so its clients still reach kube-apiserver on loopback.
func listenInNetns(name, addr string) (net.Listener, error) {
	type result struct {
		l   net.Listener
		err error
	}
	ch := make(chan result, 1)
	// A goroutine of its own: if switching back fails, it ends with its
	// thread locked, and the runtime discards that thread.
	go func() {
		l, err := listenOnLockedThread(name, addr)
		ch <- result{l, err}
	}()
	r := <-ch
	return r.l, r.err
}

func listenOnLockedThread(name, addr string) (net.Listener, error) {
	runtime.LockOSThread()
	orig, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("opening own network namespace: %w", err)
	}
	defer func() { _ = orig.Close() }()
	target, err := os.Open("/var/run/netns/" + name)
	if err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("opening network namespace %s: %w", name, err)
	}
	defer func() { _ = target.Close() }()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("entering network namespace %s: %w", name, err)
	}
	l, lerr := net.Listen("tcp", addr)
	if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
		// Leave the thread locked: the runtime discards it when this goroutine ends.
		if l != nil {
			_ = l.Close()
		}
		return nil, fmt.Errorf("returning from network namespace %s: %w", name, err)
	}
	runtime.UnlockOSThread()
	if lerr != nil {
		return nil, fmt.Errorf("listening on %s in %s: %w", addr, name, lerr)
	}
	return l, nil
}
