package fidelity

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/kscale/kscale/internal/testenv"
)

// Oracle is a running oracle process. Submit may be called from several
// goroutines; requests are pipelined and answered as they complete.
type Oracle struct {
	// Hello is what the oracle announced.
	Hello Hello

	// mu guards nextID, waiting and err; wmu the writer.
	mu      sync.Mutex
	wmu     sync.Mutex
	w       *bufio.Writer
	enc     *json.Encoder
	nextID  int64
	waiting map[int64]chan *Response
	err     error
}

// StartOracle starts the oracle binary with the given number of worker
// goroutines; it is stopped when the test ends. The oracle must run the
// control plane's Kubernetes version.
func StartOracle(tb testing.TB, workers int) *Oracle {
	tb.Helper()
	path, err := OraclePath()
	if err != nil {
		tb.Fatal(err)
	}
	_, stdin, stdout := testenv.StartPipedChild(tb, "fidelity-oracle", path, []string{fmt.Sprintf("-workers=%d", workers)})
	o := &Oracle{waiting: map[int64]chan *Response{}}
	o.w = bufio.NewWriterSize(stdin, 1<<20)
	o.enc = json.NewEncoder(o.w)
	dec := json.NewDecoder(bufio.NewReaderSize(stdout, 1<<20))
	if err := dec.Decode(&o.Hello); err != nil {
		tb.Fatalf("reading the oracle's hello: %v", err)
	}
	if o.Hello.KubernetesVersion != testenv.KubernetesVersion {
		tb.Fatalf("the oracle runs kube-scheduler %s, the test control plane %s: rebuild it with `%s`",
			o.Hello.KubernetesVersion, testenv.KubernetesVersion, OracleBuildCommand)
	}
	go o.read(dec)
	return o
}

func (o *Oracle) read(dec *json.Decoder) {
	for {
		resp := &Response{}
		err := dec.Decode(resp)
		o.mu.Lock()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			o.err = fmt.Errorf("reading from the oracle: %w", err)
			for id, ch := range o.waiting {
				close(ch)
				delete(o.waiting, id)
			}
			o.mu.Unlock()
			return
		}
		ch := o.waiting[resp.ID]
		delete(o.waiting, resp.ID)
		o.mu.Unlock()
		if ch != nil {
			ch <- resp
		}
	}
}

// Submit sends the request (its ID is assigned here) and returns a channel
// that receives the response, or is closed when the oracle failed (Err then
// says why). Writing holds only the write lock, never the one the reader
// needs to hand out responses: the oracle stops reading requests while its
// answers are not read.
func (o *Oracle) Submit(req *Request) <-chan *Response {
	ch := make(chan *Response, 1)
	o.mu.Lock()
	if o.err != nil {
		o.mu.Unlock()
		close(ch)
		return ch
	}
	o.nextID++
	req.ID = o.nextID
	o.waiting[req.ID] = ch
	o.mu.Unlock()

	o.wmu.Lock()
	err := o.enc.Encode(req)
	if err == nil {
		err = o.w.Flush()
	}
	o.wmu.Unlock()
	if err != nil {
		o.mu.Lock()
		if o.err == nil {
			o.err = fmt.Errorf("writing to the oracle: %w", err)
		}
		if _, ok := o.waiting[req.ID]; ok {
			delete(o.waiting, req.ID)
			close(ch)
		}
		o.mu.Unlock()
	}
	return ch
}

// Evaluate sends the request and waits for the answer.
func (o *Oracle) Evaluate(req *Request) (*Response, error) {
	resp, ok := <-o.Submit(req)
	if !ok {
		return nil, o.Err()
	}
	if resp.Error != "" {
		return nil, fmt.Errorf("oracle: %s", resp.Error)
	}
	return resp, nil
}

// Err returns the error that stopped the oracle, if any.
func (o *Oracle) Err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}
