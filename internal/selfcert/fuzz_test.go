package selfcert

import "testing"

// FuzzDecode feeds arbitrary Secret data to decode: it must never panic,
// and whatever it accepts must be consistent (keys match certificates).
func FuzzDecode(f *testing.F) {
	good, err := encode(issuedAt(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good[KeyCABundle], good[KeyCAKey], good[KeyCert], good[KeyKey])
	f.Add([]byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"), []byte{}, []byte("x"), []byte(nil))
	f.Fuzz(func(t *testing.T, bundlePEM, caKey, cert, key []byte) {
		b, _ := decode(map[string][]byte{KeyCABundle: bundlePEM, KeyCAKey: caKey, KeyCert: cert, KeyKey: key})
		if b.ca.cert != nil && (!matches(b.ca.cert, b.ca.key) || !b.ca.cert.IsCA) {
			t.Error("accepted a CA whose key does not match")
		}
		if b.serving.cert != nil && !matches(b.serving.cert, b.serving.key) {
			t.Error("accepted a serving certificate whose key does not match")
		}
	})
}

func issuedAt(tb testing.TB) bundle {
	tb.Helper()
	b, _, err := plan(bundle{}, nil, t0, testPolicy())
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
