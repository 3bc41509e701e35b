package testenv

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// netnsPrefix starts the name of every network namespace this package makes.
const netnsPrefix = "kscale-"

// NetNS is a network namespace a test created, joined to the host by a veth
// pair on a /30: HostIP on the host side, IP inside. kube-apiserver rejects
// loopback addresses in EndpointSlices, so servers that the aggregation
// layer must reach listen on IP inside such a namespace.
type NetNS struct {
	// Name is the namespace's name under /var/run/netns.
	Name string
	// HostIP is the host side of the veth pair.
	HostIP string
	// IP is the address inside the namespace.
	IP string
	// hostLink is the host side's interface name.
	hostLink string
}

// NewNetNS creates a network namespace on the given /30 (for example
// "10.213.0.0/30"; use only ranges your test owns) and removes it and its
// veth pair in tb.Cleanup, also when the test fails half-way. Namespaces
// left by earlier test binaries that were killed are removed first.
func NewNetNS(tb testing.TB, subnet string) *NetNS {
	tb.Helper()
	prefix, err := netip.ParsePrefix(subnet)
	if err != nil || prefix.Bits() != 30 || !prefix.Addr().Is4() || prefix.Masked() != prefix {
		tb.Fatalf("network namespace subnet %q: want an IPv4 /30 such as 10.213.0.0/30", subnet)
	}
	sweepStaleNetNS()
	base := prefix.Addr().As4()
	id := fmt.Sprintf("%02x%02x%02x%02x", base[0], base[1], base[2], base[3])
	n := &NetNS{
		Name:     fmt.Sprintf("%s%d-%s", netnsPrefix, os.Getpid(), id),
		HostIP:   prefix.Addr().Next().String(),
		IP:       prefix.Addr().Next().Next().String(),
		hostLink: "ksh" + id,
	}
	peer := "ksp" + id
	_ = exec.Command("ip", "link", "del", n.hostLink).Run() // left by a killed run on the same subnet
	tb.Cleanup(n.remove)
	steps := [][]string{
		{"netns", "add", n.Name},
		{"link", "add", n.hostLink, "type", "veth", "peer", "name", peer},
		{"link", "set", peer, "netns", n.Name},
		{"addr", "add", n.HostIP + "/30", "dev", n.hostLink},
		{"link", "set", n.hostLink, "up"},
		{"netns", "exec", n.Name, "ip", "addr", "add", n.IP + "/30", "dev", peer},
		{"netns", "exec", n.Name, "ip", "link", "set", peer, "up"},
		{"netns", "exec", n.Name, "ip", "link", "set", "lo", "up"},
	}
	for _, s := range steps {
		if out, err := exec.Command("ip", s...).CombinedOutput(); err != nil {
			tb.Fatalf("creating network namespace: ip %s: %v: %s", strings.Join(s, " "), err, out)
		}
	}
	return n
}

func (n *NetNS) remove() {
	_ = exec.Command("ip", "netns", "del", n.Name).Run()
	_ = exec.Command("ip", "link", "del", n.hostLink).Run()
}

// sweepStaleNetNS deletes namespaces this package made in test binaries
// that no longer run (their veth pairs go with them).
func sweepStaleNetNS() {
	entries, err := os.ReadDir("/var/run/netns")
	if err != nil {
		return
	}
	for _, e := range entries {
		if ownerGone(e.Name(), netnsPrefix) {
			_ = exec.Command("ip", "netns", "del", e.Name()).Run()
		}
	}
}

// dirPrefix starts the name of every environment directory.
const dirPrefix = "kscale-testenv-"

// sweepStaleDirs removes the directories of environments whose test binary
// was killed before it could clean up (its processes died with it).
func sweepStaleDirs() {
	entries, err := os.ReadDir(os.TempDir())
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() && ownerGone(e.Name(), dirPrefix) {
			_ = os.RemoveAll(filepath.Join(os.TempDir(), e.Name()))
		}
	}
}

// ownerGone reports whether name is prefix + "<pid>-..." for a process ID
// other than ours that no longer runs.
func ownerGone(name, prefix string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return false
	}
	pidText, _, found := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(pidText)
	if !found || err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	return errors.Is(unix.Kill(pid, 0), unix.ESRCH)
}

// Listen opens a TCP listener on IP:port inside the namespace (port 0 picks
// a free port). Only the socket lives there: the process stays in its own
// namespace and still reaches kube-apiserver on loopback.
func (n *NetNS) Listen(port int) (net.Listener, error) {
	type result struct {
		l   net.Listener
		err error
	}
	ch := make(chan result, 1)
	// A goroutine of its own: if switching back fails, it ends with its
	// thread locked, and the runtime discards that thread.
	go func() {
		l, err := n.listenOnLockedThread(net.JoinHostPort(n.IP, strconv.Itoa(port)))
		ch <- result{l, err}
	}()
	r := <-ch
	return r.l, r.err
}

func (n *NetNS) listenOnLockedThread(addr string) (net.Listener, error) {
	runtime.LockOSThread()
	orig, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("opening own network namespace: %w", err)
	}
	defer func() { _ = orig.Close() }()
	target, err := os.Open("/var/run/netns/" + n.Name)
	if err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("opening network namespace %s: %w", n.Name, err)
	}
	defer func() { _ = target.Close() }()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("entering network namespace %s: %w", n.Name, err)
	}
	l, listenErr := net.Listen("tcp", addr)
	if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
		if l != nil {
			_ = l.Close()
		}
		return nil, fmt.Errorf("returning from network namespace %s: %w", n.Name, err) // thread stays locked and is discarded
	}
	runtime.UnlockOSThread()
	if listenErr != nil {
		return nil, fmt.Errorf("listening on %s in %s: %w", addr, n.Name, listenErr)
	}
	return l, nil
}
