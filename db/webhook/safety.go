package webhook

// This file holds what keeps webhooks from reaching inside the network the server runs in (SSRF): in
// production, an address that is loopback, private, link-local (the cloud metadata services), shared
// (CGNAT), multicast or unspecified is refused when a webhook is written, and again when each request
// dials, on the address actually dialled, so a name that resolves elsewhere later (DNS rebinding)
// gains nothing.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// responseBodyCap is how much of an answer's body is read and kept.
const responseBodyCap = 4 << 10

// forbiddenPrefixes are the ranges netip's predicates do not name: shared address space (CGNAT),
// "this network", IPv4 benchmarking and the IETF protocol assignments.
var forbiddenPrefixes = []netip.Prefix{
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
}

// forbiddenAddr reports whether a webhook may not reach addr in production.
func forbiddenAddr(addr netip.Addr) bool {
	addr = addr.Unmap()
	if addr.IsLoopback() || addr.IsPrivate() || addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() ||
		addr.IsInterfaceLocalMulticast() || addr.IsMulticast() || addr.IsUnspecified() || !addr.IsValid() {
		return true
	}
	for _, p := range forbiddenPrefixes {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// errForbiddenAddress is a dial refused by the address it would reach.
var errForbiddenAddress = errors.New("the address is loopback, private, link-local or otherwise internal")

// checkURL checks a webhook's address as written: http or https with a host, and, when private
// addresses are refused, a host whose every address is public.
func (e *Engine) checkURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
		return fmt.Errorf("url must be an http or https URL with a host and no credentials, got %q", raw)
	}
	if !e.refusePrivate() {
		return nil
	}
	host := u.Hostname()
	if addr, err := netip.ParseAddr(host); err == nil {
		if forbiddenAddr(addr) {
			return fmt.Errorf("url: %s: %w", host, errForbiddenAddress)
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return fmt.Errorf("url: %s does not resolve", host)
	}
	for _, a := range addrs {
		if forbiddenAddr(a) {
			return fmt.Errorf("url: %s resolves to %s: %w", host, a, errForbiddenAddress)
		}
	}
	return nil
}

// refusePrivate says whether internal addresses are refused: in production, unless allowed.
func (e *Engine) refusePrivate() bool { return e.opts.Production && !e.opts.AllowPrivate }

// newClient is the delivery HTTP client: a fresh transport whose dialer refuses internal addresses
// when they are refused (checked on the address dialled, after resolution), no redirects followed,
// and timeout for each request (connecting, sending and reading the answer).
func newClient(refusePrivate bool, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	if refusePrivate {
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || forbiddenAddr(ap.Addr()) {
				return fmt.Errorf("dial %s: %w", address, errForbiddenAddress)
			}
			return nil
		}
	}
	transport := &http.Transport{
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   10,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: timeout,
		// No proxy from the environment: the address checked must be the one dialled.
		Proxy: nil,
	}
	return &http.Client{
		Transport:     transport,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
