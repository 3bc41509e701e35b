package componentflags

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"time"
)

// ValidateFile checks that a file flag, when set, names a readable file.
func ValidateFile(flag, path string) error {
	if path == "" {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return &FileError{Flag: flag, Err: err}
	}
	if st.IsDir() {
		return &FileError{Flag: flag, Err: fmt.Errorf("%s is a directory", path)}
	}
	return nil
}

// FileError says that a flag names a file that cannot be read. A manifest
// that mounts the file makes it valid in its Pod; the flag itself parsed.
type FileError struct {
	// Flag names the flag, with its dashes.
	Flag string
	// Err is the reason.
	Err error
}

// Error names the flag and the reason.
func (e *FileError) Error() string { return e.Flag + ": " + e.Err.Error() }

// Unwrap returns the reason.
func (e *FileError) Unwrap() error { return e.Err }

// ValidateAddress checks a host:port flag (the host may be empty); empty
// is accepted when allowEmpty.
func ValidateAddress(flag, addr string, allowEmpty bool) error {
	if addr == "" && allowEmpty {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s: %q is not host:port: %w", flag, addr, err)
	}
	return validatePort(flag, port)
}

// validatePort checks a TCP port number (0 picks a free one).
func validatePort(flag, port string) error {
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%s: port %q is not a number from 0 to 65535", flag, port)
	}
	return nil
}

// MinLoopInterval is the shortest loop interval a component accepts: a
// shorter one only burns CPU.
const MinLoopInterval = time.Second

// ValidateInterval checks a loop interval flag.
func ValidateInterval(flag string, d time.Duration) error {
	if d < MinLoopInterval {
		return fmt.Errorf("%s: must be at least %v, got %v", flag, MinLoopInterval, d)
	}
	return nil
}

// Positive names the first of the durations that is not positive.
func Positive(durations ...Duration) error {
	for _, d := range durations {
		if d.Value <= 0 {
			return fmt.Errorf("%s: must be positive, got %v", d.Flag, d.Value)
		}
	}
	return nil
}

// Duration is a duration flag's name (with its dashes) and value.
type Duration struct {
	Flag  string
	Value time.Duration
}
