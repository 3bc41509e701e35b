package parse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// RequestTotal is the name of the kube-apiserver request counter.
const RequestTotal = "apiserver_request_total"

// bufferSize is the read buffer; a line of the counter longer than this is
// rejected, any other line of any length is skipped.
const bufferSize = 64 << 10

// ErrNoSeries reports a body without any series of the counter.
var ErrNoSeries = errors.New("no series of the counter found")

// SyntaxError reports a malformed line of the counter.
type SyntaxError struct {
	// Line is the 1-based line number in the (decompressed) body.
	Line int
	// Reason says what is wrong.
	Reason string
}

// Error returns the line and reason.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d: %s", e.Line, e.Reason)
}

// IsSyntaxError reports whether err is or wraps a *SyntaxError.
func IsSyntaxError(err error) bool {
	var se *SyntaxError
	return errors.As(err, &se)
}

// IsNoSeries reports whether err is or wraps ErrNoSeries.
func IsNoSeries(err error) bool { return errors.Is(err, ErrNoSeries) }

// Result is the sum over every series of the counter.
type Result struct {
	// Sum is the total of all series' values.
	Sum float64
	// Weighted is the total of all series' values, each times the cost of
	// its verb, scope and resource labels; zero without Options.Costs.
	Weighted float64
	// Series is how many series were summed.
	Series int
}

// Options tune a Parser.
type Options struct {
	// StopAfterGroup stops reading at the first line of another metric after
	// the counter's series. The text exposition format requires all lines of
	// a metric family to form one group, and kube-apiserver writes families
	// sorted by name, so the rest of the body (about half for
	// apiserver_request_total) need not be read or decompressed.
	StopAfterGroup bool
	// Costs, when set, makes Sum also compute Result.Weighted.
	Costs Costs
}

// Costs gives the cost of one request by its labels (an absent label is
// empty). The parser calls it for every series, so it should not allocate.
type Costs interface {
	Cost(verb, scope, resource []byte) float64
}

// Parser sums one counter. It keeps its read buffer between calls, so reuse
// a Parser (not concurrently) to avoid allocating per body.
type Parser struct {
	name []byte
	opts Options
	br   *bufio.Reader
}

// NewParser returns a parser for the counter with the given exact name.
func NewParser(name string, opts Options) *Parser {
	return &Parser{name: []byte(name), opts: opts, br: bufio.NewReaderSize(nil, bufferSize)}
}

// Sum reads r to its end and returns the sum of every series of the counter.
// It fails with a *SyntaxError for a malformed counter line, with ErrNoSeries
// when the counter is absent, and with r's error when reading fails; a
// failed read never yields a partial sum.
func (p *Parser) Sum(r io.Reader) (Result, error) {
	p.br.Reset(r)
	defer p.br.Reset(nil)
	var res Result
	for lineNo := 1; ; lineNo++ {
		line, err := p.readLine(lineNo)
		if err != nil && !errors.Is(err, io.EOF) {
			return Result{}, err
		}
		if len(line) > 0 {
			v, w, ok, perr := p.parseLine(line, lineNo)
			if perr != nil {
				return Result{}, perr
			}
			if !ok && res.Series > 0 && p.opts.StopAfterGroup && len(trimLeft(line)) > 0 {
				return res, nil
			}
			if ok {
				res.Sum += v
				res.Weighted += w
				res.Series++
				if math.IsInf(res.Sum, 0) || math.IsInf(res.Weighted, 0) {
					return Result{}, &SyntaxError{Line: lineNo, Reason: "sum of the counter overflows"}
				}
			}
		}
		if err != nil {
			break
		}
	}
	if res.Series == 0 {
		return Result{}, ErrNoSeries
	}
	return res, nil
}

// readLine returns the next line without its newline. A line longer than the
// buffer is skipped (returned empty) unless it belongs to the counter, in
// which case it is an error. At the end of input it returns io.EOF together
// with the last, unterminated line, if any.
func (p *Parser) readLine(lineNo int) ([]byte, error) {
	line, err := p.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		if p.matchesName(trimLeft(line)) {
			return nil, &SyntaxError{Line: lineNo, Reason: fmt.Sprintf("line of %s longer than %d bytes", p.name, bufferSize)}
		}
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = p.br.ReadSlice('\n')
		}
		return nil, err
	}
	if len(line) > 0 && line[len(line)-1] == '\n' {
		line = line[:len(line)-1]
	}
	return line, err
}

// matchesName reports whether line starts with the exact counter name
// followed by a label set or whitespace (or ends there).
func (p *Parser) matchesName(line []byte) bool {
	if !bytes.HasPrefix(line, p.name) {
		return false
	}
	if len(line) == len(p.name) {
		return true
	}
	switch line[len(p.name)] {
	case '{', ' ', '\t', '\r':
		return true
	}
	return false
}

// parseLine returns the value of a counter line and, with Costs, its value
// times its cost; ok is false for lines of other metrics, comments and blank
// lines.
func (p *Parser) parseLine(line []byte, lineNo int) (v, weighted float64, ok bool, err error) {
	line = trimLeft(line)
	if len(line) == 0 || line[0] == '#' || !p.matchesName(line) {
		return 0, 0, false, nil
	}
	rest := trimLeft(line[len(p.name):])
	var set []byte
	if len(rest) > 0 && rest[0] == '{' {
		end := labelSetEnd(rest)
		if end < 0 {
			return 0, 0, false, &SyntaxError{Line: lineNo, Reason: "unterminated label set"}
		}
		set, rest = rest[1:end], trimLeft(rest[end+1:])
	}
	value, rest := nextToken(rest)
	if len(value) == 0 {
		return 0, 0, false, &SyntaxError{Line: lineNo, Reason: "missing value"}
	}
	v, err = parseValue(value)
	if err != nil {
		return 0, 0, false, &SyntaxError{Line: lineNo, Reason: err.Error()}
	}
	if ts, tail := nextToken(trimLeft(rest)); len(ts) > 0 {
		if _, err := strconv.ParseInt(string(ts), 10, 64); err != nil || len(trimLeft(tail)) > 0 {
			return 0, 0, false, &SyntaxError{Line: lineNo, Reason: fmt.Sprintf("unexpected text %q after value", truncate(rest))}
		}
	}
	if p.opts.Costs != nil {
		l, err := requestLabels(set)
		if err != nil {
			return 0, 0, false, &SyntaxError{Line: lineNo, Reason: err.Error()}
		}
		weighted = v * p.opts.Costs.Cost(l.verb, l.scope, l.resource)
	}
	return v, weighted, true, nil
}

// labelSetEnd returns the index of the '}' closing the label set that starts
// at b[0], honouring quoted values and escapes, or -1.
func labelSetEnd(b []byte) int {
	inQuote := false
	for i := 1; i < len(b); i++ {
		switch c := b[i]; {
		case inQuote && c == '\\':
			i++
		case c == '"':
			inQuote = !inQuote
		case !inQuote && c == '}':
			return i
		}
	}
	return -1
}

// parseValue reads a counter value: a finite, non-negative number.
func parseValue(b []byte) (float64, error) {
	if n, ok := parseUint(b); ok {
		return float64(n), nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, fmt.Errorf("value %q is not a number", truncate(b))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("value %q is not a finite non-negative counter", truncate(b))
	}
	return v, nil
}

// parseUint is the allocation-free fast path for plain decimal integers
// below 2^53, the common case for counters.
func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

func nextToken(b []byte) (tok, rest []byte) {
	for i, c := range b {
		if isSpace(c) {
			return b[:i], b[i:]
		}
	}
	return b, nil
}

func trimLeft(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	return b
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// truncate shortens b for error messages.
func truncate(b []byte) string {
	const max = 40
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}
