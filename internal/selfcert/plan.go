package selfcert

import (
	"crypto/x509"
	"fmt"
	"time"
)

// Data keys of the Secret.
const (
	// KeyCABundle holds the PEM CA bundle the API server is given.
	KeyCABundle = "ca.crt"
	// KeyCAKey holds the PEM key of the current CA, the bundle's first certificate.
	KeyCAKey = "ca.key"
	// KeyCert holds the PEM serving certificate.
	KeyCert = "tls.crt"
	// KeyKey holds the PEM key of the serving certificate.
	KeyKey = "tls.key"
)

// policy is how long certificates live and earlier CAs stay trusted.
type policy struct {
	caValidity, certValidity, overlap time.Duration
	subject                           subject
	caName                            string
}

// bundle is what the Secret holds, parsed.
type bundle struct {
	// ca is the current CA; ca.cert is nil when there is no usable one.
	ca keyPair
	// previous are earlier CAs, still in the bundle.
	previous []*x509.Certificate
	// serving is the serving certificate; serving.cert is nil when there is
	// no usable one.
	serving keyPair
}

// empty reports whether nothing at all could be parsed.
func (b bundle) empty() bool {
	return b.ca.cert == nil && len(b.previous) == 0 && b.serving.cert == nil
}

// cas returns the bundle's CA certificates, the current one first.
func (b bundle) cas() []*x509.Certificate {
	if b.ca.cert == nil {
		return b.previous
	}
	return append([]*x509.Certificate{b.ca.cert}, b.previous...)
}

// decode parses the Secret's data. What is missing or damaged is left zero
// and described in problems; a CA key that does not belong to the bundle's
// first certificate leaves no current CA (and the bundle's certificates as
// earlier CAs).
func decode(data map[string][]byte) (b bundle, problems []string) {
	cas, err := parseCerts(data[KeyCABundle])
	if err != nil {
		return bundle{}, []string{fmt.Sprintf("%s: %v", KeyCABundle, err)}
	}
	if key, err := parseKey(data[KeyCAKey]); err != nil {
		problems = append(problems, fmt.Sprintf("%s: %v", KeyCAKey, err))
		b.previous = cas
	} else if !matches(cas[0], key) || !cas[0].IsCA {
		problems = append(problems, fmt.Sprintf("%s: not the key of the CA %q", KeyCAKey, cas[0].Subject.CommonName))
		b.previous = cas
	} else {
		b.ca, b.previous = keyPair{cert: cas[0], key: key}, cas[1:]
	}
	certs, err := parseCerts(data[KeyCert])
	if err != nil {
		return b, append(problems, fmt.Sprintf("%s: %v", KeyCert, err))
	}
	key, err := parseKey(data[KeyKey])
	switch {
	case err != nil:
		problems = append(problems, fmt.Sprintf("%s: %v", KeyKey, err))
	case !matches(certs[0], key):
		problems = append(problems, fmt.Sprintf("%s: not the key of %s", KeyKey, KeyCert))
	default:
		b.serving = keyPair{cert: certs[0], key: key}
	}
	return b, problems
}

// encode renders the bundle as the Secret's data.
func encode(b bundle) (map[string][]byte, error) {
	caKey, err := encodeKey(b.ca.key)
	if err != nil {
		return nil, err
	}
	key, err := encodeKey(b.serving.key)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{
		KeyCABundle: encodeCerts(b.cas()...), KeyCAKey: caKey,
		KeyCert: encodeCerts(b.serving.cert), KeyKey: key,
	}, nil
}

// plan returns what the Secret should hold at now, given what it holds (b)
// and the CAs this replica trusts (known, used only when the Secret held
// nothing usable: a deleted or wiped Secret must not drop a CA that
// replicas still serve from), with the reasons for every change; no reasons
// means b stays. It renews the CA, then the serving certificate, when two
// thirds of their lifetime have passed or they are unusable, and drops
// earlier CAs after the overlap or once expired.
func plan(b bundle, known []*x509.Certificate, now time.Time, p policy) (bundle, []string, error) {
	var reasons []string
	next := bundle{ca: b.ca, previous: b.previous, serving: b.serving}
	if b.empty() {
		next.previous = known
	}
	if why := caDue(next.ca.cert, now); why != "" {
		ca, err := newCA(p.caName, now, p.caValidity)
		if err != nil {
			return b, nil, err
		}
		if next.ca.cert != nil {
			next.previous = append([]*x509.Certificate{next.ca.cert}, next.previous...)
		}
		next.ca, next.serving = ca, keyPair{}
		reasons = append(reasons, why)
	}
	if why := servingDue(next.serving.cert, next.ca.cert, now, p.subject); why != "" {
		serving, err := newServing(next.ca, p.subject, now, p.certValidity)
		if err != nil {
			return b, nil, err
		}
		next.serving = serving
		reasons = append(reasons, why)
	}
	var dropped int
	next.previous, dropped = prune(next.previous, next.ca.cert, now, p.overlap)
	if dropped > 0 {
		reasons = append(reasons, fmt.Sprintf("%d earlier CA(s) past the overlap or expired", dropped))
	}
	return next, reasons, nil
}

// caDue tells why the current CA must be replaced, or "".
func caDue(ca *x509.Certificate, now time.Time) string {
	switch {
	case ca == nil:
		return "no usable CA"
	case !now.Before(renewAt(ca)):
		return "CA due for renewal"
	}
	return ""
}

// servingDue tells why the serving certificate must be reissued, or "".
func servingDue(c, ca *x509.Certificate, now time.Time, sub subject) string {
	switch {
	case c == nil:
		return "no usable serving certificate"
	case !signedBy(c, ca):
		return "serving certificate not signed by the current CA"
	case !covers(c, sub):
		return "serving certificate names changed"
	case !now.Before(renewAt(c)):
		return "serving certificate due for renewal"
	}
	return ""
}

// prune keeps the earlier CAs that are neither the current one, a
// duplicate, expired, nor older than the overlap after the current CA was
// issued; it returns them and how many it dropped.
func prune(previous []*x509.Certificate, current *x509.Certificate, now time.Time, overlap time.Duration) ([]*x509.Certificate, int) {
	issued := current.NotBefore.Add(backdate)
	seen := map[string]bool{fingerprint(current): true}
	keep := make([]*x509.Certificate, 0, len(previous))
	for _, c := range previous {
		fp := fingerprint(c)
		if seen[fp] || !now.Before(c.NotAfter) || !now.Before(issued.Add(overlap)) {
			continue
		}
		seen[fp] = true
		keep = append(keep, c)
	}
	return keep, len(previous) - len(keep)
}
