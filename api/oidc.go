package api

import (
	"context"
	"errors"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/internal/oidc"
)

// Sign-in with OpenID Connect providers (internal/oidc does the protocol, db/identity keeps the
// accounts). A browser goes to /auth/oidc/{provider}/start, which records the sign-in under way (its
// state's hash, nonce and PKCE verifier), leaves the state in a cookie and redirects to the provider;
// the provider sends it back to /auth/oidc/{provider}/callback, which checks the state against the
// cookie, takes the sign-in under way (once: a replayed callback finds nothing), has the code exchanged
// and the ID token verified, finds or creates the account, and opens an ordinary session (the session
// cookie and the device cookie, as a password sign-in does) before redirecting into the web app. These
// two routes answer a browser: a redirect, or a page in words for every failure a person can act on.
// The sign-in is recorded as every sign-in is: the session's row (device, address, time) and the access
// log, plus a log line naming the provider and whether the account was linked or created.

const (
	// oidcStateCookie keeps the state of the sign-in under way in the browser that started it.
	oidcStateCookie = "pilot_oidc"
	// oidcLoginTTL is how long a person has at their provider.
	oidcLoginTTL = 10 * time.Minute
	// signInPage is the web app's sign-in screen, where every failure page leads back.
	signInPage = "/sign-in"
)

// registerOIDC registers the providers' list, the sign-in routes and the linked identities.
func (s accountOps) registerOIDC() {
	tags := []string{"Identity"}
	register(s.Server, huma.Operation{OperationID: "auth-providers", Method: http.MethodGet, Path: "/auth/providers",
		Summary: "How people may sign in", Tags: tags,
		Description: "The OpenID Connect providers of this deployment (a button each on the sign-in page) and whether " +
			"passwords sign in (PASSWORD_LOGIN)."},
		Requires{Public: true}, s.listProviders)

	redirect := func(desc string) *huma.Response {
		return &huma.Response{Description: desc, Headers: map[string]*huma.Param{
			"Location":   {Description: "Where the browser goes next", Schema: &huma.Schema{Type: huma.TypeString}},
			"Set-Cookie": {Description: "The cookies of the sign-in", Schema: &huma.Schema{Type: huma.TypeString}},
		}}
	}
	start := huma.Operation{OperationID: "auth-oidc-start", Method: http.MethodGet,
		Path: "/auth/oidc/{provider}/start", Summary: "Sign in with a provider", Tags: tags,
		Description: "For a browser's navigation: records a sign-in under way and redirects to the provider's " +
			"authorization endpoint (the code flow with PKCE, a state and a nonce), leaving the state in the " +
			"pilot_oidc cookie. Fails when the provider is unknown (404) or unreachable (502): a page in words " +
			"(text/html) to a browser (an Accept naming text/html), the error shape to other clients.",
		Responses: map[string]*huma.Response{"302": redirect("To the provider")},
		Errors:    []int{http.StatusNotFound, http.StatusBadGateway}}
	register(s.Server, start, Requires{Public: true}, s.startOIDC)
	callback := huma.Operation{OperationID: "auth-oidc-callback", Method: http.MethodGet,
		Path: "/auth/oidc/{provider}/callback", Summary: "The provider's redirect back", Tags: tags,
		Description: "Where the provider sends the browser back (the redirect URI to register at the provider: " +
			"PUBLIC_URL + this path). On success: a session (the session and device cookies, as /auth/login) and a " +
			"redirect into the web app. Otherwise a page in words (text/html): a callback not started in this " +
			"browser, replayed or too late (400), consent denied or an e-mail domain not allowed (403), an e-mail " +
			"address an account has without the provider verifying it (409), the provider unreachable or its " +
			"answer failing verification (502); to other clients than browsers, the error shape. A refused " +
			"sign-in creates nothing. Query parameters the provider adds besides these are ignored.",
		Responses: map[string]*huma.Response{"302": redirect("Signed in: into the web app")},
		Errors:    []int{http.StatusForbidden, http.StatusNotFound, http.StatusConflict, http.StatusBadGateway}}
	register(s.Server, callback, Requires{Public: true, AnyQuery: true}, s.oidcCallback)
	// Their failures are pages to browsers too (oidcPage); they never answer the 200 huma gives every
	// streamed answer.
	for _, path := range []string{start.Path, callback.Path} {
		item := s.api.OpenAPI().Paths[path]
		if item == nil || item.Get == nil {
			continue
		}
		delete(item.Get.Responses, "200")
		for code, r := range item.Get.Responses {
			if code >= "400" && r.Content != nil {
				r.Content["text/html"] = &huma.MediaType{Schema: &huma.Schema{Type: huma.TypeString,
					Description: "A page saying what happened and what to do, for a browser"}}
			}
		}
	}

	register(s.Server, huma.Operation{OperationID: "auth-identities-list", Method: http.MethodGet,
		Path: "/auth/identities", Summary: "List the providers' identities linked to the caller", Tags: tags,
		Description: "Each provider's subject that signs in to this account, the oldest first."},
		Requires{JWTOnly: true, KeepsTenancy: true}, s.listIdentities)
	register(s.Server, huma.Operation{OperationID: "auth-identities-unlink", Method: http.MethodDelete,
		Path: "/auth/identities/{identityId}", Summary: "Unlink a provider's identity from the caller", Tags: tags,
		Description: "Only while the account keeps another way to sign in: another linked identity, or a password " +
			"when passwords sign in (PASSWORD_LOGIN); otherwise 409.",
		Errors: []int{http.StatusNotFound, http.StatusConflict}},
		Requires{JWTOnly: true, KeepsTenancy: true}, s.unlinkIdentity)
	register(s.Server, huma.Operation{OperationID: "auth-identities-link", Method: http.MethodPost,
		Path: "/auth/identities/link", Summary: "Start linking a provider to the caller's account", Tags: tags,
		Description: "Records a link under way, bound to the caller's session, leaves its state in the pilot_oidc " +
			"cookie and answers the provider's authorization URL, where the browser goes next. The provider sends " +
			"it back to the callback (auth-oidc-callback), which links the provider's identity to this account " +
			"instead of signing in, only when the browser comes back signed in with this same session; an identity " +
			"linked to another account is refused (409, a page in words). Unknown provider: 404; unreachable: 502.",
		Errors: []int{http.StatusNotFound, http.StatusBadGateway}},
		Requires{JWTOnly: true, KeepsTenancy: true}, s.startOIDCLink)
}

// ProviderOut is a provider people may sign in with.
type ProviderOut struct {
	ID       string `json:"id" doc:"The provider's id in the configuration"`
	Name     string `json:"name" doc:"The name on its button"`
	StartURL string `json:"startUrl" doc:"Where the browser goes to sign in with it"`
}

// ProvidersOut says how people may sign in.
type ProvidersOut struct {
	PasswordLogin bool          `json:"passwordLogin" doc:"False when passwords neither sign in nor register"`
	Providers     []ProviderOut `json:"providers" nullable:"false"`
}

func (s accountOps) listProviders(context.Context, *struct{}) (*Output[ProvidersOut], error) {
	out := ProvidersOut{PasswordLogin: !s.opts.PasswordLoginOff, Providers: []ProviderOut{}}
	for _, p := range s.opts.OIDC.Providers() {
		out.Providers = append(out.Providers, ProviderOut{ID: p.ID(), Name: p.Name(),
			StartURL: "/auth/oidc/" + p.ID() + "/start"})
	}
	return &Output[ProvidersOut]{Body: out}, nil
}

// OIDCStartInput is the request of auth-oidc-start.
type OIDCStartInput struct {
	Provider string `path:"provider" format:"slug" maxLength:"40"`
	ReturnTo string `query:"returnTo" maxLength:"2000" doc:"The web app's path to land on once signed in (default /)"`
}

func (s accountOps) startOIDC(ctx context.Context, in *OIDCStartInput) (*huma.StreamResponse, error) {
	p, ok := s.opts.OIDC.Provider(in.Provider)
	if !ok {
		return s.oidcPage(http.StatusNotFound, "Unknown sign-in provider",
			"This deployment has no sign-in provider by that name.", nil), nil
	}
	st, err := p.Start(ctx)
	if err != nil {
		s.logger.WarnContext(ctx, "oidc start", "provider", p.ID(), "error", err)
		return s.oidcPage(http.StatusBadGateway, p.Name()+" is unreachable",
			p.Name()+" did not answer. Try again in a moment, or sign in another way.", nil), nil
	}
	if err := s.identity.BeginExternalLogin(ctx, identity.ExternalLogin{State: st.State, Provider: p.ID(),
		Nonce: st.Nonce, CodeVerifier: st.Verifier, ReturnTo: localPath(in.ReturnTo),
		ExpiresAt: time.Now().Add(oidcLoginTTL)}); err != nil {
		return s.oidcStoreFailure(ctx, err, nil), nil
	}
	//nolint:gosec // G124: Secure in production; development serves plain http on localhost (see startSession)
	c := http.Cookie{Name: oidcStateCookie, Value: st.State, Path: "/auth/oidc/", HttpOnly: true,
		Secure: s.opts.Production, SameSite: http.SameSiteLaxMode, MaxAge: int(oidcLoginTTL.Seconds())}
	return redirectTo(st.URL, []http.Cookie{c}), nil
}

// OIDCCallbackInput is the request of auth-oidc-callback.
type OIDCCallbackInput struct {
	Provider         string `path:"provider" format:"slug" maxLength:"40"`
	Code             string `query:"code" doc:"The authorization code"`
	State            string `query:"state" doc:"The state sent to the provider"`
	Error            string `query:"error" doc:"The provider's refusal (access_denied: the person declined)"`
	ErrorDescription string `query:"error_description" doc:"The provider's refusal in words"`
	StateCookie      string `cookie:"pilot_oidc" doc:"The state the start left in this browser"`
	SessionCookie    string `cookie:"pilot_session" doc:"The session a link (auth-identities-link) must come back with"`
}

func (s accountOps) oidcCallback(ctx context.Context, in *OIDCCallbackInput) (*huma.StreamResponse, error) {
	// Whatever happens, the state cookie has served.
	//nolint:gosec // G124: Secure in production; development serves plain http on localhost (see startSession)
	spent := []http.Cookie{{Name: oidcStateCookie, Value: "", Path: "/auth/oidc/", HttpOnly: true,
		Secure: s.opts.Production, SameSite: http.SameSiteLaxMode, MaxAge: -1}}
	p, ok := s.opts.OIDC.Provider(in.Provider)
	if !ok {
		return s.oidcPage(http.StatusNotFound, "Unknown sign-in provider",
			"This deployment has no sign-in provider by that name.", spent), nil
	}
	again := "Start again from the sign-in page."
	if in.State == "" || in.StateCookie == "" || in.State != in.StateCookie {
		// Not taken: a forged callback must not spend the real one.
		return s.oidcPage(http.StatusBadRequest, "This sign-in did not start here",
			"This answer from "+p.Name()+" does not belong to a sign-in started in this browser, or it was already "+
				"used. "+again, spent), nil
	}
	login, err := s.identity.TakeExternalLogin(ctx, p.ID(), in.State)
	switch {
	case errors.Is(err, identity.ErrExternalLoginExpired):
		return s.oidcPage(http.StatusBadRequest, "This sign-in took too long",
			"The sign-in with "+p.Name()+" was not completed in time. "+again, spent), nil
	case errors.Is(err, db.ErrNotFound):
		return s.oidcPage(http.StatusBadRequest, "This sign-in was already used",
			"This answer from "+p.Name()+" was already used, or does not belong to a sign-in under way. "+again,
			spent), nil
	case err != nil:
		return s.oidcStoreFailure(ctx, err, spent), nil
	}
	switch {
	case in.Error == "access_denied":
		return s.oidcPage(http.StatusForbidden, "Sign-in cancelled",
			"You did not allow Pilot to use your "+p.Name()+" account, so you are not signed in. "+again, spent), nil
	case in.Error != "":
		msg := p.Name() + " refused the sign-in"
		if in.ErrorDescription != "" {
			msg += ": " + in.ErrorDescription
		}
		return s.oidcPage(http.StatusBadGateway, "Sign-in refused by "+p.Name(), msg+". "+again, spent), nil
	case in.Code == "":
		return s.oidcPage(http.StatusBadRequest, "This sign-in is incomplete",
			p.Name()+" sent no authorization code. "+again, spent), nil
	}
	who, err := p.Finish(ctx, in.Code, login.CodeVerifier, login.Nonce)
	if err != nil {
		s.logger.WarnContext(ctx, "oidc callback", "provider", p.ID(), "error", err)
		switch {
		case errors.Is(err, oidc.ErrUnreachable):
			return s.oidcPage(http.StatusBadGateway, p.Name()+" is unreachable",
				p.Name()+" did not answer while completing the sign-in. Try again in a moment, or sign in another way.",
				spent), nil
		case errors.Is(err, oidc.ErrRejected):
			return s.oidcPage(http.StatusBadRequest, "This sign-in was already used",
				p.Name()+" refused to complete this sign-in: it was already used or took too long. "+again, spent), nil
		default:
			return s.oidcPage(http.StatusBadGateway, "The answer of "+p.Name()+" could not be verified",
				"Pilot could not verify who "+p.Name()+" signed in, so you are not signed in. If this persists, tell "+
					"the person who runs Pilot.", spent), nil
		}
	}
	if login.LinkUserID != "" {
		return s.finishOIDCLink(ctx, p, login, in.SessionCookie, who, spent), nil
	}
	res, err := s.identity.SignInExternal(ctx, identity.ExternalSignIn{Provider: p.ID(), Subject: who.Subject,
		Email: who.Email, EmailVerified: who.EmailVerified, Name: who.Name, AllowedDomains: s.opts.OIDCAllowedDomains})
	if err != nil {
		return s.oidcSignInRefused(ctx, p, err, spent), nil
	}
	out, err := s.startSignIn(ctx, res.User, p.ID())
	if err != nil {
		return s.oidcStoreFailure(ctx, err, spent), nil
	}
	s.logger.InfoContext(ctx, "signed in with a provider", "provider", p.ID(), "userId", res.User.ID,
		"linked", res.Linked, "created", res.Created)
	return redirectTo(login.ReturnTo, append(spent, out.SetCookie...)), nil
}

// oidcSignInRefused is the page of an account the provider's identity may not sign in to.
func (s accountOps) oidcSignInRefused(ctx context.Context, p *oidc.Provider, err error,
	cookies []http.Cookie) *huma.StreamResponse {
	switch {
	case errors.Is(err, identity.ErrExternalDomain):
		return s.oidcPage(http.StatusForbidden, "This e-mail domain is not allowed",
			"Pilot creates accounts only for the e-mail domains its administrators allow (verified by "+p.Name()+
				"). Ask them for an invitation, or sign in with an account of an allowed domain.", cookies)
	case errors.Is(err, identity.ErrExternalEmailTaken):
		return s.oidcPage(http.StatusConflict, "An account already uses this e-mail address",
			p.Name()+" does not say that your e-mail address is verified, so Pilot cannot tell that this account is "+
				"yours. Sign in the way you usually do, or verify the address at "+p.Name()+" and try again.", cookies)
	case errors.Is(err, identity.ErrExternalNoEmail):
		return s.oidcPage(http.StatusBadRequest, p.Name()+" shared no e-mail address",
			"Pilot needs your e-mail address to create your account. Allow "+p.Name()+" to share it and try again.",
			cookies)
	case errors.Is(err, identity.ErrExternalServiceAccount):
		return s.oidcPage(http.StatusForbidden, "This account cannot sign in",
			"This e-mail address belongs to an agent's service account, which nobody signs in to.", cookies)
	}
	return s.oidcStoreFailure(ctx, err, cookies)
}

// oidcStoreFailure is the page of a store error: the database out of reach (503), or a fault (500).
func (s accountOps) oidcStoreFailure(ctx context.Context, err error, cookies []http.Cookie) *huma.StreamResponse {
	if errors.Is(err, db.ErrUnavailable) {
		return s.oidcPage(http.StatusServiceUnavailable, "Pilot is unavailable",
			"Pilot cannot reach its database right now. Try again in a moment.", cookies)
	}
	s.logger.ErrorContext(ctx, "oidc sign-in", "error", err)
	return s.oidcPage(http.StatusInternalServerError, "Sign-in failed",
		"Pilot could not complete the sign-in. Try again; if this persists, tell the person who runs Pilot.", cookies)
}

// localPath is p when it is a path of this site ("/…", not "//…"), else "/": the start never sends a
// browser elsewhere once signed in.
func localPath(p string) string {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, "/\\") ||
		strings.ContainsAny(p, "\r\n") {
		return "/"
	}
	return p
}

// redirectTo answers 302 to location with cookies.
func redirectTo(location string, cookies []http.Cookie) *huma.StreamResponse {
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		for _, c := range cookies {
			hctx.AppendHeader("Set-Cookie", c.String())
		}
		hctx.SetHeader("Location", location)
		hctx.SetStatus(http.StatusFound)
	}}
}

// oidcPageTemplate is the page of a failed sign-in: what happened, and the way back.
var oidcPageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} · Pilot</title></head>
<body><main><h1>{{.Title}}</h1><p>{{.Message}}</p><p><a href="{{.Back}}">{{.Label}}</a></p></main></body></html>
`))

// oidcPage answers a failure with status, and cookies: a page in words to a browser, the error shape
// (title and message) to other clients.
func (s accountOps) oidcPage(status int, title, message string, cookies []http.Cookie) *huma.StreamResponse {
	return s.oidcPageBack(status, title, message, signInPage, "Back to sign-in", cookies)
}

// oidcPageBack is oidcPage leading back to the web app's path back (named label).
func (s accountOps) oidcPageBack(status int, title, message, back, label string,
	cookies []http.Cookie) *huma.StreamResponse {
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		for _, c := range cookies {
			hctx.AppendHeader("Set-Cookie", c.String())
		}
		if status == http.StatusServiceUnavailable {
			hctx.SetHeader("Retry-After", retryAfter)
		}
		if !strings.Contains(hctx.Header("Accept"), "text/html") {
			hctx.SetHeader("Content-Type", "application/json")
			hctx.SetStatus(status)
			_ = jsonEncode(hctx.BodyWriter(), newErrorBody(status, title+": "+message))
			return
		}
		hctx.SetHeader("Content-Type", "text/html; charset=utf-8")
		hctx.SetHeader("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
		hctx.SetStatus(status)
		_ = oidcPageTemplate.Execute(hctx.BodyWriter(), struct{ Title, Message, Back, Label string }{title, message,
			back, label})
	}}
}

// IdentityOut is a provider's identity linked to the caller.
type IdentityOut struct {
	ID           string    `json:"id" format:"uuid"`
	Provider     string    `json:"provider" doc:"The provider's id in the configuration"`
	ProviderName string    `json:"providerName" doc:"Its name, or its id when it is no longer configured"`
	Email        string    `json:"email" doc:"The address the provider last said"`
	CreatedAt    time.Time `json:"createdAt"`
	LastUsedAt   time.Time `json:"lastUsedAt"`
}

func (s accountOps) listIdentities(ctx context.Context, _ *struct{}) (*Output[[]IdentityOut], error) {
	return listOf(func(x db.UserIdentity) IdentityOut {
		name := x.Provider
		if p, ok := s.opts.OIDC.Provider(x.Provider); ok {
			name = p.Name()
		}
		return IdentityOut{ID: x.ID, Provider: x.Provider, ProviderName: name, Email: x.Email, CreatedAt: x.CreatedAt,
			LastUsedAt: x.LastUsedAt}
	})(s.identity.Identities(ctx, principalFrom(ctx).User.ID))
}

// UnlinkIdentityInput is the request of auth-identities-unlink.
type UnlinkIdentityInput struct {
	IdentityID string `path:"identityId" format:"uuid"`
}

func (s accountOps) unlinkIdentity(ctx context.Context, in *UnlinkIdentityInput) (*OKOutput, error) {
	return done(s.identity.UnlinkIdentity(ctx, principalFrom(ctx).User.ID, in.IdentityID, !s.opts.PasswordLoginOff))
}

// accountPage is the web app's account screen, where a link starts and every link's page leads back.
const accountPage = "/settings"

// OIDCLinkInput is the request of auth-identities-link.
type OIDCLinkInput struct {
	Body struct {
		Provider string `json:"provider" format:"slug" maxLength:"40" doc:"The provider's id (GET /auth/providers)"`
		ReturnTo string `json:"returnTo,omitempty" maxLength:"2000" doc:"The web app's path to land on once linked (default /settings)"`
	}
}

// OIDCLinkOut is where the browser goes to link the provider.
type OIDCLinkOut struct {
	URL string `json:"url" doc:"The provider's authorization URL: navigate the browser there"`
}

// OIDCLinkOutput answers the provider's URL with the state cookie.
type OIDCLinkOutput struct {
	SetCookie http.Cookie `header:"Set-Cookie"`
	Body      OIDCLinkOut
}

// startOIDCLink records a link under way bound to the caller's session: the callback links instead of
// signing in, only for a browser that comes back with that session's cookie.
func (s accountOps) startOIDCLink(ctx context.Context, in *OIDCLinkInput) (*OIDCLinkOutput, error) {
	p, ok := s.opts.OIDC.Provider(in.Body.Provider)
	if !ok {
		return nil, errNotFound("this deployment has no sign-in provider " + strconv.Quote(in.Body.Provider))
	}
	pr := principalFrom(ctx)
	st, err := p.Start(ctx)
	if err != nil {
		s.logger.WarnContext(ctx, "oidc link start", "provider", p.ID(), "error", err)
		return nil, huma.Error502BadGateway(p.Name() + " did not answer; try again in a moment")
	}
	returnTo := accountPage
	if in.Body.ReturnTo != "" {
		returnTo = localPath(in.Body.ReturnTo)
	}
	if err := s.identity.BeginExternalLogin(ctx, identity.ExternalLogin{State: st.State, Provider: p.ID(),
		Nonce: st.Nonce, CodeVerifier: st.Verifier, ReturnTo: returnTo, ExpiresAt: time.Now().Add(oidcLoginTTL),
		LinkUserID: pr.User.ID, LinkSessionID: pr.Session.ID}); err != nil {
		return nil, err
	}
	//nolint:gosec // G124: Secure in production; development serves plain http on localhost (see startSession)
	c := http.Cookie{Name: oidcStateCookie, Value: st.State, Path: "/auth/oidc/", HttpOnly: true,
		Secure: s.opts.Production, SameSite: http.SameSiteLaxMode, MaxAge: int(oidcLoginTTL.Seconds())}
	return &OIDCLinkOutput{SetCookie: c, Body: OIDCLinkOut{URL: st.URL}}, nil
}

// finishOIDCLink links the provider's identity to the account that started the link, when the browser
// came back signed in with the session that started it; the answer is the way back to the account
// screen, or a page in words.
func (s accountOps) finishOIDCLink(ctx context.Context, p *oidc.Provider, login identity.ExternalLogin,
	sessionCookie string, who oidc.Identity, cookies []http.Cookie) *huma.StreamResponse {
	page := func(status int, title, message string) *huma.StreamResponse {
		return s.oidcPageBack(status, title, message, accountPage, "Back to your account", cookies)
	}
	claims, err := s.signer.Verify(sessionCookie, auth.TypeSession)
	if sessionCookie == "" || err != nil || claims.ID != login.LinkSessionID || claims.Subject != login.LinkUserID {
		return page(http.StatusForbidden, "Sign in to link "+p.Name(),
			"This link of "+p.Name()+" was started by a session this browser is no longer signed in with, so nothing "+
				"was linked. Sign in again, then link "+p.Name()+" from your account.")
	}
	_, err = s.identity.LinkExternal(ctx, identity.ExternalLink{UserID: login.LinkUserID,
		SessionID: login.LinkSessionID, Provider: p.ID(), Subject: who.Subject, Email: who.Email})
	switch {
	case errors.Is(err, identity.ErrExternalLinkedElsewhere):
		return page(http.StatusConflict, "This "+p.Name()+" account is linked to another account",
			"The "+p.Name()+" account you signed in with already signs in to another Pilot account, so it was not "+
				"linked to yours. Unlink it from that account first, or link another "+p.Name()+" account.")
	case errors.Is(err, db.ErrNotFound):
		return page(http.StatusForbidden, "Sign in to link "+p.Name(),
			"The session that started this link has ended, so nothing was linked. Sign in again, then link "+
				p.Name()+" from your account.")
	case err != nil:
		return s.oidcStoreFailure(ctx, err, cookies)
	}
	s.logger.InfoContext(ctx, "linked a provider", "provider", p.ID(), "userId", login.LinkUserID)
	return redirectTo(login.ReturnTo, cookies)
}
