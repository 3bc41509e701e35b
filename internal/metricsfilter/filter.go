package metricsfilter

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
)

// bufferSize is the read buffer; longer lines are streamed in pieces.
const bufferSize = 64 << 10

// MaxNames bounds the families one request may select.
const MaxNames = 32

var metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)

// childSuffixes are the series suffixes of histograms and summaries.
var childSuffixes = [][]byte{[]byte("_bucket"), []byte("_sum"), []byte("_count")}

// NameError reports an invalid family name.
type NameError struct {
	// Name is the offending name.
	Name string
}

// Error names the offending name.
func (e *NameError) Error() string {
	return fmt.Sprintf("name %q is not a metric name", e.Name)
}

// Stats counts the bytes a Copy read and wrote.
type Stats struct {
	// In is the bytes read from the source.
	In int64
	// Out is the bytes written to the destination.
	Out int64
}

// family is one selected family and what its TYPE line said.
type family struct {
	name []byte
	// typed is set once a TYPE line was seen; children then follow kind.
	typed, hasChildren bool
}

// Filter selects families from Prometheus text-format bodies. It keeps its
// buffers between calls; it is not safe for concurrent use.
type Filter struct {
	families []family
	br       *bufio.Reader
	bw       *bufio.Writer
}

// New returns a filter for the named families; each name must be a valid
// metric name, at most MaxNames of them.
func New(names []string) (*Filter, error) {
	f := &Filter{br: bufio.NewReaderSize(nil, bufferSize), bw: bufio.NewWriterSize(nil, 32<<10)}
	if err := f.reset(names); err != nil {
		return nil, err
	}
	return f, nil
}

// reset makes f select names instead, keeping its buffers.
func (f *Filter) reset(names []string) error {
	if len(names) == 0 || len(names) > MaxNames {
		return fmt.Errorf("want 1 to %d names, got %d", MaxNames, len(names))
	}
	f.families = f.families[:0]
	for _, n := range names {
		if !metricName.MatchString(n) {
			return &NameError{Name: n}
		}
		f.families = append(f.families, family{name: []byte(n)})
	}
	return nil
}

// Copy writes the selected lines of src to dst. It returns the bytes read
// and written and the first read or write error; src's end is not an error.
func (f *Filter) Copy(dst io.Writer, src io.Reader) (Stats, error) {
	for i := range f.families {
		f.families[i].typed, f.families[i].hasChildren = false, false
	}
	f.br.Reset(src)
	f.bw.Reset(dst)
	defer f.br.Reset(nil)
	defer f.bw.Reset(nil)
	var st Stats
	for {
		line, err := f.br.ReadSlice('\n')
		st.In += int64(len(line))
		keep := f.selects(line)
		if keep {
			st.Out += int64(len(line))
			if _, werr := f.bw.Write(line); werr != nil {
				return st, fmt.Errorf("writing filtered metrics: %w", werr)
			}
		}
		for errors.Is(err, bufio.ErrBufferFull) { // the rest of a long line
			line, err = f.br.ReadSlice('\n')
			st.In += int64(len(line))
			if keep {
				st.Out += int64(len(line))
				if _, werr := f.bw.Write(line); werr != nil {
					return st, fmt.Errorf("writing filtered metrics: %w", werr)
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			if ferr := f.bw.Flush(); ferr != nil && err == nil {
				err = fmt.Errorf("writing filtered metrics: %w", ferr)
			}
			if err != nil {
				return st, fmt.Errorf("reading metrics: %w", err)
			}
			return st, nil
		}
	}
}

// selects reports whether a line (or a long line's first piece) belongs to
// a selected family; it notes the TYPE of selected families.
func (f *Filter) selects(line []byte) bool {
	line = trimLeft(line)
	if len(line) == 0 {
		return false
	}
	if line[0] == '#' {
		return f.selectsComment(line[1:])
	}
	name := line
	if i := bytes.IndexAny(line, "{ \t\r\n"); i >= 0 {
		name = line[:i]
	}
	for i := range f.families {
		fam := &f.families[i]
		if bytes.Equal(name, fam.name) {
			return true
		}
		if (!fam.typed || fam.hasChildren) && len(name) > len(fam.name) && bytes.HasPrefix(name, fam.name) {
			for _, s := range childSuffixes {
				if bytes.Equal(name[len(fam.name):], s) {
					return true
				}
			}
		}
	}
	return false
}

// selectsComment keeps the HELP and TYPE lines of selected families.
func (f *Filter) selectsComment(c []byte) bool {
	c = trimLeft(c)
	kw, rest := token(c)
	isType := bytes.Equal(kw, []byte("TYPE"))
	if !isType && !bytes.Equal(kw, []byte("HELP")) {
		return false
	}
	name, rest := token(trimLeft(rest))
	for i := range f.families {
		fam := &f.families[i]
		if !bytes.Equal(name, fam.name) {
			continue
		}
		if isType {
			kind, _ := token(trimLeft(rest))
			fam.typed = true
			fam.hasChildren = bytes.Equal(kind, []byte("histogram")) || bytes.Equal(kind, []byte("summary"))
		}
		return true
	}
	return false
}

func token(b []byte) (tok, rest []byte) {
	for i, c := range b {
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			return b[:i], b[i:]
		}
	}
	return b, nil
}

func trimLeft(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}
