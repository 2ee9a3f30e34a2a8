package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLoadOIDCProviders(t *testing.T) {
	t.Parallel()
	c, err := load(env(base(nil)))
	require.NoError(t, err)
	require.Empty(t, c.OIDCProviders)
	require.True(t, c.PasswordLogin, "passwords sign in by default")

	secret := writeFile(t, "s3cret\n")
	c, err = load(env(base(map[string]string{"OIDC_PROVIDERS": "google, corp-kc",
		"OIDC_GOOGLE_ISSUER": "https://accounts.google.com", "OIDC_GOOGLE_CLIENT_ID": "g-id",
		"OIDC_GOOGLE_CLIENT_SECRET_FILE": secret, "OIDC_GOOGLE_NAME": "Google",
		"OIDC_CORP_KC_ISSUER": "https://kc.example.com/realms/corp", "OIDC_CORP_KC_CLIENT_ID": "pilot",
		"OIDC_CORP_KC_SCOPES":  "openid email profile groups",
		"OIDC_ALLOWED_DOMAINS": "Example.com, corp.example.org", "PASSWORD_LOGIN": "false"})))
	require.NoError(t, err)
	require.Equal(t, []OIDCProvider{
		{ID: "google", Name: "Google", Issuer: "https://accounts.google.com", ClientID: "g-id", ClientSecret: "s3cret",
			Scopes: []string{"email", "profile"}},
		{ID: "corp-kc", Name: "corp-kc", Issuer: "https://kc.example.com/realms/corp", ClientID: "pilot",
			Scopes: []string{"email", "profile", "groups"}},
	}, c.OIDCProviders)
	require.Equal(t, []string{"example.com", "corp.example.org"}, c.OIDCAllowedDomains)
	require.False(t, c.PasswordLogin)

	c, err = load(env(base(map[string]string{"OIDC_ISSUER": "http://localhost:9998/", "OIDC_CLIENT_ID": "web",
		"OIDC_CLIENT_SECRET": "secret", "OIDC_NAME": "Zitadel"})))
	require.NoError(t, err)
	require.Equal(t, []OIDCProvider{{ID: "sso", Name: "Zitadel", Issuer: "http://localhost:9998/", ClientID: "web",
		ClientSecret: "secret", Scopes: []string{"email", "profile"}}}, c.OIDCProviders)
}

func TestLoadOIDCRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"both forms", map[string]string{"OIDC_PROVIDERS": "a", "OIDC_A_ISSUER": "https://a.test", "OIDC_A_CLIENT_ID": "x",
			"OIDC_ISSUER": "https://b.test", "OIDC_CLIENT_ID": "y"}, "exclusive"},
		{"bad id", map[string]string{"OIDC_PROVIDERS": "Google"}, `"Google" is not a provider id`},
		{"twice", map[string]string{"OIDC_PROVIDERS": "a,a", "OIDC_A_ISSUER": "https://a.test",
			"OIDC_A_CLIENT_ID": "x"}, "twice"},
		{"no issuer", map[string]string{"OIDC_PROVIDERS": "a", "OIDC_A_CLIENT_ID": "x"}, "OIDC_A_ISSUER is required"},
		{"no client", map[string]string{"OIDC_ISSUER": "https://a.test"}, "OIDC_CLIENT_ID is required"},
		{"issuer not a URL", map[string]string{"OIDC_ISSUER": "accounts.google.com", "OIDC_CLIENT_ID": "x"},
			"must be an https URL"},
		{"http in production", map[string]string{"APP_ENV": "production", "JWT_SECRET": "0123456789abcdef0123456789abcdef",
			"OIDC_ISSUER": "http://idp.test", "OIDC_CLIENT_ID": "x"}, "must be https in production"},
		{"bad domain", map[string]string{"OIDC_ISSUER": "https://a.test", "OIDC_CLIENT_ID": "x",
			"OIDC_ALLOWED_DOMAINS": "@example.com"}, "OIDC_ALLOWED_DOMAINS must list domains"},
		{"domains without provider", map[string]string{"OIDC_ALLOWED_DOMAINS": "example.com"}, "needs an OpenID"},
		{"password flag", map[string]string{"PASSWORD_LOGIN": "no"}, "PASSWORD_LOGIN must be true or false"},
		{"passwords off without provider", map[string]string{"PASSWORD_LOGIN": "false"}, "first owner"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := load(env(base(tc.env)))
			require.ErrorContains(t, err, tc.want)
		})
	}
}
