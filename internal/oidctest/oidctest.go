// Package oidctest runs a real OpenID provider in process for tests: the example server of
// github.com/zitadel/oidc/v3 (a certified OpenID provider library), with its login form, on a loopback
// listener. Tests sign people in through it as a browser would (SignIn follows the redirects and fills
// the form), rotate its signing key, or stop it to see a provider that is down.
package oidctest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/google/uuid"
	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/text/language"
)

// The client Pilot is registered as.
const (
	ClientID     = "pilot"
	ClientSecret = "pilot-secret"
)

// User is a person the provider knows; they sign in with Username and Password on its login form.
type User struct {
	ID, Username, Password string
	Email                  string
	EmailVerified          bool
	FirstName, LastName    string
}

// Provider is a running OpenID provider.
type Provider struct {
	// Issuer is its issuer URL (http://127.0.0.1:<port>/).
	Issuer string
	srv    *http.Server
	ln     net.Listener
	store  *keyedStorage
	client *redirectClient
}

// Start runs a provider knowing users, whose client ClientID accepts redirectURIs (more may be added
// with AllowRedirect). It stops at the test's end.
func Start(t testing.TB, users []User, redirectURIs ...string) *Provider {
	t.Helper()
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	issuer := "http://" + ln.Addr().String() + "/"
	byID := map[string]*storage.User{}
	for _, u := range users {
		byID[u.ID] = &storage.User{ID: u.ID, Username: u.Username, Password: u.Password, FirstName: u.FirstName,
			LastName: u.LastName, Email: u.Email, EmailVerified: u.EmailVerified, PreferredLanguage: language.English}
	}
	web := storage.WebClient(ClientID, ClientSecret, "http://unused.invalid/")
	st := storage.NewStorageWithClients(userStore{byID}, map[string]*storage.Client{ClientID: web})
	client := &redirectClient{Client: web, uris: redirectURIs}
	ks := &keyedStorage{Storage: st, client: client}
	ks.rotate()
	p := &Provider{Issuer: issuer, ln: ln, store: ks, client: client}
	p.srv = &http.Server{Handler: exampleop.SetupServer(issuer, ks, nil, false), ReadHeaderTimeout: 0}
	go func() { _ = p.srv.Serve(ln) }()
	t.Cleanup(p.Stop)
	return p
}

// AllowRedirect adds a redirect URI the client accepts.
func (p *Provider) AllowRedirect(uri string) {
	p.client.mu.Lock()
	defer p.client.mu.Unlock()
	p.client.uris = append(p.client.uris, uri)
}

// Stop stops the provider: from now on it is unreachable.
func (p *Provider) Stop() { _ = p.srv.Close() }

// RotateKey makes the provider sign with a new key (published beside the old one): a relying party that
// cached the old keys must read them again to verify the next token.
func (p *Provider) RotateKey() { p.store.rotate() }

// KeyID is the id of the key the provider signs with now.
func (p *Provider) KeyID() string {
	p.store.mu.Lock()
	defer p.store.mu.Unlock()
	return p.store.keys[len(p.store.keys)-1].id
}

var hiddenID = regexp.MustCompile(`name="id" value="([^"]*)"`)

// SignIn follows startURL (the provider's authorization URL, or a Pilot route that redirects there)
// with client as a browser would, fills the provider's login form with username and password, and
// answers the URL the provider finally redirects to outside itself (Pilot's callback, with its code and
// state, or an error), without requesting it. client's cookie jar keeps the cookies of the way.
func (p *Provider) SignIn(ctx context.Context, client *http.Client, startURL, username, password string) (*url.URL,
	error) {
	c := *client
	var out *url.URL
	c.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
		if !strings.HasPrefix(req.URL.String(), p.Issuer) {
			out = req.URL
			return http.ErrUseLastResponse
		}
		return nil
	}
	// do reads and closes every body it answers (bodyclose cannot see through it).
	get := func(u string) (string, *http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return "", nil, err
		}
		return do(&c, req)
	}
	body, res, err := get(startURL) //nolint:bodyclose // do closed it
	if err != nil {
		return nil, err
	}
	if out != nil {
		return out, nil // redirected away before any form: an error answered to the relying party
	}
	m := hiddenID.FindStringSubmatch(body)
	if m == nil || !strings.HasPrefix(res.Request.URL.String(), p.Issuer) {
		return nil, fmt.Errorf("no login form at %s (%d): %.300s", res.Request.URL, res.StatusCode, body)
	}
	form := url.Values{"id": {html.UnescapeString(m[1])}, "username": {username}, "password": {password}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.Issuer+"login/username",
		strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	body, res, err = do(&c, req) //nolint:bodyclose // do closed it
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, fmt.Errorf("the provider did not redirect back (%d): %.300s", res.StatusCode, body)
	}
	return out, nil
}

func do(c *http.Client, req *http.Request) (string, *http.Response, error) {
	res, err := c.Do(req)
	if err != nil {
		return "", nil, err
	}
	defer func() { _ = res.Body.Close() }()
	b, err := io.ReadAll(res.Body)
	return string(b), res, err
}

// Browser is an HTTP client with a cookie jar, as SignIn needs.
func Browser() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar}
}

// userStore is the provider's users.
type userStore struct{ users map[string]*storage.User }

func (u userStore) GetUserByID(id string) *storage.User { return u.users[id] }
func (u userStore) GetUserByUsername(name string) *storage.User {
	for _, x := range u.users {
		if x.Username == name {
			return x
		}
	}
	return nil
}
func (u userStore) ExampleClientID() string { return storage.ServiceUserID }

// redirectClient is the example's web client with redirect URIs that tests may add to.
type redirectClient struct {
	*storage.Client
	mu   sync.Mutex
	uris []string
}

func (c *redirectClient) RedirectURIs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.uris...)
}

// keyedStorage is the example's storage with the client above and signing keys that rotate.
type keyedStorage struct {
	*storage.Storage
	client *redirectClient
	mu     sync.Mutex
	keys   []*signingKey
}

func (s *keyedStorage) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	if id == ClientID {
		return s.client, nil
	}
	return s.Storage.GetClientByClientID(ctx, id)
}

func (s *keyedStorage) rotate() {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = append(s.keys, &signingKey{id: uuid.NewString(), key: k})
}

func (s *keyedStorage) SigningKey(context.Context) (op.SigningKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys[len(s.keys)-1], nil
}

func (s *keyedStorage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

func (s *keyedStorage) KeySet(context.Context) ([]op.Key, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]op.Key, 0, len(s.keys))
	for _, k := range s.keys {
		out = append(out, publicKey{k})
	}
	return out, nil
}

type signingKey struct {
	id  string
	key *rsa.PrivateKey
}

func (k *signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k *signingKey) Key() any                                    { return k.key }
func (k *signingKey) ID() string                                  { return k.id }

type publicKey struct{ *signingKey }

func (k publicKey) ID() string                         { return k.id }
func (k publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k publicKey) Use() string                        { return "sig" }
func (k publicKey) Key() any                           { return &k.key.PublicKey }
