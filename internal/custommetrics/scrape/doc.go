// Package scrape fetches kube-apiserver /metrics bodies and schedules those
// fetches. Client does one scrape: TLS 1.3 verified against the namespace's
// CA with server name kube-apiserver, bearer token, gzip negotiated and
// decompressed, a timeout and a size cap that fails rather than truncates;
// one keep-alive transport per namespace and CA set. Scheduler spreads the
// targets evenly over the scrape period, scrapes a new series twice quickly
// so it has a rate soon, and bounds how many scrapes run at once.
package scrape
