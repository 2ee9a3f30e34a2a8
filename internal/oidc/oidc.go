// Package oidc is Pilot's OpenID Connect relying party: the providers of the configuration, discovered
// from their issuers, the authorization code flow with PKCE, a state and a nonce, and the ID token
// verified (issuer, audience, expiry, and the signature by the provider's keys, fetched again when a
// token names a key not seen yet, so rotated keys are followed). It keeps nothing: the api stores the
// sign-ins under way and the accounts (db/identity). The protocol is go-oidc's and x/oauth2's; no JOSE
// code here.
package oidc

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// Config is one provider.
type Config struct {
	// ID names the provider in paths and in the accounts' links; Name is shown to people.
	ID, Name string
	// Issuer is the provider's issuer URL, exactly as its discovery document says it.
	Issuer string
	// ClientID and ClientSecret are Pilot's registration at the provider (an empty secret: a public
	// client, PKCE only).
	ClientID, ClientSecret string
	// Scopes are asked for besides openid.
	Scopes []string
}

// The failures of a sign-in at a provider, for the page that tells the person what to do (match with
// errors.Is).
var (
	// ErrUnreachable: the provider did not answer (discovery, the token or the userinfo endpoint down,
	// timed out, or answering a server error).
	ErrUnreachable = errors.New("the provider is unreachable")
	// ErrRejected: the provider refused the code (already used, expired, or not issued to Pilot).
	ErrRejected = errors.New("the provider refused the sign-in")
	// ErrInvalidToken: the provider's answer failed verification (issuer, audience, expiry, signature,
	// nonce, or a userinfo of another subject).
	ErrInvalidToken = errors.New("the provider's answer could not be verified")
)

// Set is the configured providers, built once by the composition root.
type Set struct {
	list []*Provider
	byID map[string]*Provider
}

// New builds the providers; callbackURL answers a provider's redirect URI (Pilot's public URL and
// /auth/oidc/<id>/callback). Nothing is fetched until a provider is first used, so a provider that is
// down at start keeps nobody from the api: its sign-ins fail with ErrUnreachable until it is back.
// client makes every request to the providers (nil: one with a 10-second timeout).
func New(configs []Config, callbackURL func(id string) string, client *http.Client) *Set {
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	s := &Set{byID: map[string]*Provider{}}
	for _, c := range configs {
		p := &Provider{cfg: c, client: client, redirectURL: callbackURL(c.ID)}
		s.list = append(s.list, p)
		s.byID[c.ID] = p
	}
	return s
}

// Providers lists the providers in the configuration's order (none for a nil Set).
func (s *Set) Providers() []*Provider {
	if s == nil {
		return nil
	}
	return s.list
}

// Provider answers the provider of id.
func (s *Set) Provider(id string) (*Provider, bool) {
	if s == nil {
		return nil, false
	}
	p, ok := s.byID[id]
	return p, ok
}

// Provider is one provider, discovered on first use.
type Provider struct {
	cfg         Config
	client      *http.Client
	redirectURL string

	mu sync.Mutex
	// discovered is set once discovery succeeded; a failed discovery is tried again on the next use.
	discovered *discovered
}

type discovered struct {
	provider *gooidc.Provider
	verifier *gooidc.IDTokenVerifier
	oauth    oauth2.Config
}

// ID is the provider's id.
func (p *Provider) ID() string { return p.cfg.ID }

// Name is the provider's name, for its button.
func (p *Provider) Name() string { return p.cfg.Name }

// RedirectURL is the callback registered at the provider.
func (p *Provider) RedirectURL() string { return p.redirectURL }

func (p *Provider) ctx(ctx context.Context) context.Context {
	return gooidc.ClientContext(ctx, p.client)
}

// discover reads the provider's discovery document, once it answers.
func (p *Provider) discover(ctx context.Context) (*discovered, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.discovered != nil {
		return p.discovered, nil
	}
	op, err := gooidc.NewProvider(p.ctx(ctx), p.cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("%w: discovery of %s: %w", ErrUnreachable, p.cfg.Issuer, err)
	}
	d := &discovered{provider: op,
		// The key set is the provider's (one per provider, kept): a token signed by a key it does not hold
		// yet makes it read the provider's keys again.
		verifier: op.Verifier(&gooidc.Config{ClientID: p.cfg.ClientID}),
		oauth: oauth2.Config{ClientID: p.cfg.ClientID, ClientSecret: p.cfg.ClientSecret, Endpoint: op.Endpoint(),
			RedirectURL: p.redirectURL, Scopes: append([]string{gooidc.ScopeOpenID}, p.cfg.Scopes...)}}
	p.discovered = d
	return d, nil
}

// Start is a sign-in sent to the provider: URL is where to send the browser; State, Nonce and Verifier
// (PKCE) are kept until the callback.
type Start struct {
	URL, State, Nonce, Verifier string
}

// Start begins a sign-in: discovery (ErrUnreachable when the provider does not answer), then the
// authorization URL with a fresh state, nonce and PKCE challenge (S256).
func (p *Provider) Start(ctx context.Context) (Start, error) {
	d, err := p.discover(ctx)
	if err != nil {
		return Start{}, err
	}
	st := Start{State: random(), Nonce: random(), Verifier: oauth2.GenerateVerifier()}
	st.URL = d.oauth.AuthCodeURL(st.State, gooidc.Nonce(st.Nonce), oauth2.S256ChallengeOption(st.Verifier))
	return st, nil
}

// Identity is who the provider says signed in.
type Identity struct {
	Subject       string
	Email         string
	EmailVerified bool
	Name          string
}

// claims are the ID token's and userinfo's claims Pilot reads. email_verified is a boolean, or the
// string "true" at some providers.
type claims struct {
	Subject       string          `json:"sub"`
	Email         string          `json:"email"`
	EmailVerified json.RawMessage `json:"email_verified"`
	Name          string          `json:"name"`
	GivenName     string          `json:"given_name"`
	FamilyName    string          `json:"family_name"`
	Username      string          `json:"preferred_username"`
}

func (c claims) verified() bool {
	v := strings.Trim(string(c.EmailVerified), `"`)
	return v == "true"
}

func (c claims) name() string {
	if c.Name != "" {
		return c.Name
	}
	if n := strings.TrimSpace(c.GivenName + " " + c.FamilyName); n != "" {
		return n
	}
	return c.Username
}

// Finish completes a sign-in: the code exchanged for tokens (with the PKCE verifier), the ID token
// verified (issuer, audience, expiry, signature) and its nonce compared with the one sent. When the ID
// token carries no e-mail address, the userinfo endpoint is asked, and its subject must be the token's.
func (p *Provider) Finish(ctx context.Context, code, verifier, nonce string) (Identity, error) {
	d, err := p.discover(ctx)
	if err != nil {
		return Identity{}, err
	}
	ctx = p.ctx(ctx)
	tok, err := d.oauth.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		return Identity{}, exchangeError(err)
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok || raw == "" {
		return Identity{}, fmt.Errorf("%w: the token answer has no id_token", ErrInvalidToken)
	}
	idt, err := d.verifier.Verify(ctx, raw)
	if err != nil {
		if unreachable(err) {
			return Identity{}, fmt.Errorf("%w: the provider's keys: %w", ErrUnreachable, err)
		}
		return Identity{}, fmt.Errorf("%w: %w", ErrInvalidToken, err)
	}
	if idt.Nonce != nonce {
		return Identity{}, fmt.Errorf("%w: the ID token's nonce is not this sign-in's", ErrInvalidToken)
	}
	var c claims
	if err := idt.Claims(&c); err != nil {
		return Identity{}, fmt.Errorf("%w: %w", ErrInvalidToken, err)
	}
	if c.Email == "" && d.provider.UserInfoEndpoint() != "" {
		info, err := d.provider.UserInfo(ctx, oauth2.StaticTokenSource(tok))
		if err != nil {
			return Identity{}, fmt.Errorf("%w: userinfo: %w", ErrUnreachable, err)
		}
		var more claims
		if err := info.Claims(&more); err != nil {
			return Identity{}, fmt.Errorf("%w: userinfo: %w", ErrInvalidToken, err)
		}
		if more.Subject != idt.Subject {
			return Identity{}, fmt.Errorf("%w: userinfo names another subject", ErrInvalidToken)
		}
		more.Subject = idt.Subject
		if more.name() == "" {
			more.Name = c.name()
		}
		c = more
	}
	return Identity{Subject: idt.Subject, Email: c.Email, EmailVerified: c.verified(), Name: c.name()}, nil
}

// exchangeError sorts a failed code exchange: the provider's refusal (an OAuth error answer, 4xx) or the
// provider out of reach.
func exchangeError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode < http.StatusInternalServerError {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	return fmt.Errorf("%w: token endpoint: %w", ErrUnreachable, err)
}

// unreachable reports a failure to reach the provider (rather than a token that fails a check).
func unreachable(err error) bool {
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &ne) || errors.As(err, &oe) || errors.Is(err, context.DeadlineExceeded) ||
		strings.Contains(err.Error(), "fetching keys")
}

// random is 32 random bytes, base64url: a state or a nonce.
func random() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
