package config

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// oidcID is the shape of a provider's id, as it appears in paths and in its variables' names.
var oidcID = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`)

// domainShape is a DNS name as OIDC_ALLOWED_DOMAINS lists them: labels of letters, digits and hyphens,
// at least two.
var domainShape = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// readOIDC reads the OpenID Connect providers, the allowed domains and PASSWORD_LOGIN into c.
func (r *envReader) readOIDC(c *Config) {
	c.passwordLoginRaw = r.get("PASSWORD_LOGIN", "true")
	c.PasswordLogin = c.passwordLoginRaw != "false"
	for _, d := range strings.Split(r.get("OIDC_ALLOWED_DOMAINS", ""), ",") {
		if d = strings.ToLower(strings.TrimSpace(d)); d != "" {
			c.OIDCAllowedDomains = append(c.OIDCAllowedDomains, d)
		}
	}
	list := strings.TrimSpace(r.get("OIDC_PROVIDERS", ""))
	single := r.get("OIDC_ISSUER", "")
	switch {
	case list != "" && single != "":
		r.errs = append(r.errs, errors.New("OIDC_PROVIDERS and OIDC_ISSUER are exclusive: list the providers, or "+
			"configure one"))
	case single != "":
		c.OIDCProviders = []OIDCProvider{r.oidcProvider(oidcSingleID, "OIDC_", "SSO")}
	case list != "":
		seen := map[string]bool{}
		for _, id := range strings.Split(list, ",") {
			id = strings.TrimSpace(id)
			if id == "" {
				continue
			}
			if !oidcID.MatchString(id) {
				r.errs = append(r.errs, fmt.Errorf("OIDC_PROVIDERS: %q is not a provider id (lower-case letters, digits "+
					"and hyphens, up to 40)", id))
				continue
			}
			if seen[id] {
				r.errs = append(r.errs, fmt.Errorf("OIDC_PROVIDERS names %q twice", id))
				continue
			}
			seen[id] = true
			prefix := "OIDC_" + strings.ToUpper(strings.ReplaceAll(id, "-", "_")) + "_"
			c.OIDCProviders = append(c.OIDCProviders, r.oidcProvider(id, prefix, id))
		}
	}
}

// oidcProvider reads one provider from the variables starting with prefix.
func (r *envReader) oidcProvider(id, prefix, defaultName string) OIDCProvider {
	p := OIDCProvider{ID: id, Name: strings.TrimSpace(r.get(prefix+"NAME", defaultName)),
		Issuer: strings.TrimSpace(r.get(prefix+"ISSUER", "")), ClientID: strings.TrimSpace(r.get(prefix+"CLIENT_ID", "")),
		ClientSecret: r.get(prefix+"CLIENT_SECRET", "")}
	for _, s := range strings.Fields(strings.ReplaceAll(r.get(prefix+"SCOPES", "email profile"), ",", " ")) {
		if s != "openid" {
			p.Scopes = append(p.Scopes, s)
		}
	}
	if p.Issuer == "" {
		r.errs = append(r.errs, fmt.Errorf("%sISSUER is required for the provider %q", prefix, id))
	}
	if p.ClientID == "" {
		r.errs = append(r.errs, fmt.Errorf("%sCLIENT_ID is required for the provider %q", prefix, id))
	}
	return p
}

// validateOIDC checks the providers' issuers, the allowed domains and PASSWORD_LOGIN.
func (c *Config) validateOIDC() []error {
	var errs []error
	for _, p := range c.OIDCProviders {
		if p.Issuer == "" {
			continue // said when read
		}
		u, err := url.Parse(p.Issuer)
		switch {
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" ||
			u.Fragment != "":
			errs = append(errs, fmt.Errorf("the issuer of the provider %q must be an https URL like "+
				"https://accounts.google.com, got %q", p.ID, p.Issuer))
		case c.Production() && u.Scheme != "https":
			errs = append(errs, fmt.Errorf("the issuer of the provider %q must be https in production, got %q", p.ID,
				p.Issuer))
		}
		if len(p.Name) > 60 {
			errs = append(errs, fmt.Errorf("the name of the provider %q must be at most 60 characters", p.ID))
		}
	}
	for _, d := range c.OIDCAllowedDomains {
		if !domainShape.MatchString(d) {
			errs = append(errs, fmt.Errorf("OIDC_ALLOWED_DOMAINS must list domains like example.com, got %q", d))
		}
	}
	if len(c.OIDCAllowedDomains) > 0 && len(c.OIDCProviders) == 0 {
		errs = append(errs, errors.New("OIDC_ALLOWED_DOMAINS needs an OpenID Connect provider (OIDC_PROVIDERS or "+
			"OIDC_ISSUER)"))
	}
	switch c.passwordLoginRaw {
	case "true", "false":
	default:
		errs = append(errs, fmt.Errorf("PASSWORD_LOGIN must be true or false, got %q", c.passwordLoginRaw))
	}
	if !c.PasswordLogin && len(c.OIDCProviders) == 0 {
		errs = append(errs, errors.New("PASSWORD_LOGIN=false needs an OpenID Connect provider (OIDC_PROVIDERS or "+
			"OIDC_ISSUER): without one nobody, the first owner included, could sign in"))
	}
	return errs
}
