package credentials

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Token is a bearer token. Its String and GoString methods never reveal it.
type Token string

// String returns a placeholder, so the token never reaches logs or errors.
func (Token) String() string { return "<redacted>" }

// GoString returns a placeholder, also for %#v.
func (Token) GoString() string { return "<redacted>" }

// Credentials are what a scrape of one namespace needs.
type Credentials struct {
	// Token is the bearer token.
	Token Token
	// CAs are the trusted certificate authorities.
	CAs *x509.CertPool
	// CAFingerprint identifies the CA set, to reuse transports while it is unchanged.
	CAFingerprint string
}

// MissingError reports a namespace without usable credentials.
type MissingError struct {
	// Namespace is the namespace whose credentials are missing.
	Namespace string
	// What names the missing part, for example "secret shoot-access-x key token".
	What string
}

// Error names the namespace and the missing part.
func (e *MissingError) Error() string {
	return fmt.Sprintf("namespace %s: missing %s", e.Namespace, e.What)
}

// IsMissing reports whether err is or wraps a *MissingError.
func IsMissing(err error) bool {
	var me *MissingError
	return errors.As(err, &me)
}

// caSet is the parsed CA material of one namespace.
type caSet struct {
	pool        *x509.CertPool
	fingerprint string
	err         error
}

// buildCASet parses every certificate under the given keys of the secrets.
// Secrets are visited in name order so the fingerprint is stable.
func buildCASet(namespace string, secrets []*corev1.Secret, keys []string) caSet {
	slices.SortFunc(secrets, func(a, b *corev1.Secret) int { return strings.Compare(a.Name, b.Name) })
	pool := x509.NewCertPool()
	h := sha256.New()
	var n int
	var problems []string
	for _, s := range secrets {
		for _, k := range keys {
			data, ok := s.Data[k]
			if !ok {
				continue
			}
			certs, err := parseCerts(data)
			if err != nil {
				problems = append(problems, fmt.Sprintf("secret %s key %s: %v", s.Name, k, err))
				continue
			}
			for _, c := range certs {
				pool.AddCert(c)
				h.Write(c.Raw)
				n++
			}
		}
	}
	if n == 0 {
		what := fmt.Sprintf("CA certificate (keys %s in labelled secrets)", strings.Join(keys, ", "))
		if len(problems) > 0 {
			what += ": " + strings.Join(problems, "; ")
		}
		return caSet{err: &MissingError{Namespace: namespace, What: what}}
	}
	return caSet{pool: pool, fingerprint: hex.EncodeToString(h.Sum(nil))}
}

// parseCerts reads PEM certificates; any non-certificate block or bad
// certificate is an error.
func parseCerts(data []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	for i := 1; ; i++ {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("PEM block %d is %q, not a certificate", i, block.Type)
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parsing PEM block %d: %w", i, err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, errors.New("no PEM certificate found")
	}
	return certs, nil
}
