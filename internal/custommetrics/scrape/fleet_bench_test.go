package scrape

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/custommetrics/credentials"
	"github.com/kscale/kscale/internal/custommetrics/discovery"
	"github.com/kscale/kscale/internal/custommetrics/rate"
	"github.com/kscale/kscale/internal/custommetrics/testpki"
)

const fleetEnv = "KSCALE_SCRAPE_FLEET_TARGETS"

// fleetSpec tells the target process what to serve.
type fleetSpec struct {
	Targets int
	Port    int
	CertPEM []byte
	KeyPEM  []byte
	Token   string
}

func TestMain(m *testing.M) {
	if raw := os.Getenv(fleetEnv); raw != "" {
		os.Exit(serveFleet(raw))
	}
	os.Exit(m.Run())
}

func fleetIP(i int) string { return fmt.Sprintf("127.2.%d.%d", i/250, i%250+1) }

// serveFleet runs in a separate process so that the targets' CPU does not
// count against the scraper's rusage. Every target serves the real
// kube-apiserver body captured in ../parse/testdata, gzip-compressed when
// asked, behind TLS 1.3 and a bearer token.
func serveFleet(raw string) int {
	var spec fleetSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	gz, err := os.ReadFile("../parse/testdata/kube-apiserver-metrics.txt.gz")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	cert, err := tls.X509KeyPair(spec.CertPEM, spec.KeyPEM)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	srv := &http.Server{
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13},
		ReadHeaderTimeout: 10 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+spec.Token {
				http.Error(w, "Unauthorized", http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(gz)
		}),
	}
	for i := range spec.Targets {
		l, err := net.Listen("tcp", net.JoinHostPort(fleetIP(i), strconv.Itoa(spec.Port)))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		go func() { _ = srv.ServeTLS(l, "", "") }()
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin) // run until the benchmark closes stdin
	return 0
}

func startFleet(b *testing.B, spec fleetSpec) {
	b.Helper()
	raw, err := json.Marshal(spec)
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^$")
	cmd.Env = append(os.Environ(), fleetEnv+"="+string(raw))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = stdin.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ready" {
		b.Fatalf("target process did not get ready: %q, %v", line, err)
	}
}

type fleetTargets []discovery.Target

func (f fleetTargets) Targets() []discovery.Target { return f }
func (f fleetTargets) Changed() <-chan struct{}    { return nil }

// storeSink feeds the real rate store and counts outcomes.
type storeSink struct {
	store *rate.Store
	mu    sync.Mutex
	ok    int
	errs  map[string]int
}

func (s *storeSink) Observe(t discovery.Target, res Result, err error, _ time.Duration) int {
	s.mu.Lock()
	if err != nil {
		s.errs[err.Error()]++
		s.mu.Unlock()
		return 0
	}
	s.ok++
	s.mu.Unlock()
	_, n := s.store.Add(t.Key, t.UID, rate.Sample{Value: res.Value, At: res.At})
	return n
}

func (s *storeSink) Forget(discovery.Target) {}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func maxRSSMB() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Maxrss) / 1024 // kilobytes on Linux
}

// BenchmarkScrapeFleet scrapes 1,000 loopback targets serving the real
// kube-apiserver body with the real client, scheduler and rate store. The
// 60 s period is simulated 10x faster (6 s): every scrape costs the same,
// so the CPU fraction measured over the compressed period, divided by 10,
// is the fraction at 60 s. CPU comes from this process's rusage (the
// targets run in another process) over steady-state periods after warm-up.
func BenchmarkScrapeFleet(b *testing.B) {
	const targets, speedup, periods = 1000, 10, 5
	period := time.Minute / speedup
	ca := testpki.NewCA(b, "fleet-ca")
	certPEM, keyPEM := ca.ServingPEM(b, []string{ServerName}, nil)
	l, err := net.Listen("tcp", fleetIP(0)+":0")
	if err != nil {
		b.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	startFleet(b, fleetSpec{Targets: targets, Port: port, CertPEM: certPEM, KeyPEM: keyPEM, Token: "fleet-token"})

	ts := make(fleetTargets, targets)
	for i := range ts {
		ts[i] = discovery.Target{Key: types.NamespacedName{Namespace: fmt.Sprintf("shoot--p--%d", i/3), Name: fmt.Sprintf("kapi-%d", i)}, UID: types.UID(strconv.Itoa(i)), IP: fleetIP(i)}
	}
	creds := staticCreds{creds: credentials.Credentials{Token: "fleet-token", CAs: ca.Pool(), CAFingerprint: "fleet"}}
	client, err := NewClient(ClientConfig{Credentials: creds, Port: port, IdleConnTimeout: 2 * period})
	if err != nil {
		b.Fatal(err)
	}
	store, err := rate.NewStore(rate.Config{MinGap: time.Second, MaxAge: 9 * time.Second, MaxPairGap: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	sink := &storeSink{store: store, errs: map[string]int{}}
	sched, err := NewScheduler(SchedulerConfig{Targets: ts, Scraper: client, Sink: sink, Period: period, Timeout: period, WarmupGap: 1100 * time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(b.Context())
	done := make(chan struct{})
	go func() { sched.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	time.Sleep(2 * period) // warm-up: the burst of first scrapes and the quick second round
	runtime.GC()
	sink.mu.Lock()
	okBefore := sink.ok
	sink.mu.Unlock()
	cpu0, wall0 := cpuTime(), time.Now()
	time.Sleep(periods * period)
	cpu, wall := cpuTime()-cpu0, time.Since(wall0)
	sink.mu.Lock()
	scrapes, errs := sink.ok-okBefore, 0
	for _, n := range sink.errs {
		errs += n
	}
	sink.mu.Unlock()

	// The machine is shared; tolerate a rare timeout, but report it.
	if errs > targets*periods/100 {
		b.Fatalf("%d scrape errors: %v", errs, sink.errs)
	}
	if want := targets * periods; scrapes < want*9/10 || scrapes > want*11/10 {
		b.Fatalf("%d scrapes in %d periods, want about %d", scrapes, periods, want)
	}
	now := time.Now()
	for _, t := range ts {
		if _, ok := store.Rate(t.Key, now); !ok {
			b.Fatalf("no rate for %s", t.Key)
		}
	}
	fraction := cpu.Seconds() / wall.Seconds() / speedup
	b.ReportMetric(fraction*100, "%core@60s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(scrapes), "µs-cpu/scrape")
	b.ReportMetric(maxRSSMB(), "MB-maxrss")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "MB-heap")
	b.ReportMetric(float64(scrapes)/wall.Seconds()/speedup, "scrapes/s@60s")
	b.ReportMetric(float64(errs), "errors")
}
