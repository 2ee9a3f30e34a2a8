package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCORSOrigins(t *testing.T) {
	t.Parallel()
	c, err := load(env(base(nil)))
	require.NoError(t, err)
	require.Empty(t, c.CORSOrigins, "CORS is off unless configured")

	c, err = load(env(base(map[string]string{"CORS_ORIGINS": " https://App.Example.com, " +
		",http://localhost:5173,https://[::1]:8443 "})))
	require.NoError(t, err)
	require.Equal(t, []string{"https://app.example.com", "http://localhost:5173", "https://[::1]:8443"}, c.CORSOrigins)

	for _, bad := range []string{
		"*", "https://*.example.com", "app.example.com", "//app.example.com", "ftp://app.example.com",
		"https://app.example.com/", "https://app.example.com/app", "https://app.example.com?x=1",
		"https://app.example.com#x", "https://user@app.example.com", "https://", "https://app.example.com:0",
		"https://app.example.com:99999", "https://app.example.com:port", "null",
	} {
		_, err := load(env(base(map[string]string{"CORS_ORIGINS": "https://ok.example.com," + bad})))
		require.ErrorContains(t, err, "CORS_ORIGINS", bad)
	}
}

func TestMcpSessionCaps(t *testing.T) {
	t.Parallel()
	c, err := load(env(base(nil)))
	require.NoError(t, err)
	require.Equal(t, 20, c.McpMaxSessionsPerUser)
	require.Equal(t, 2000, c.McpMaxSessions)

	c, err = load(env(base(map[string]string{"MCP_MAX_SESSIONS_PER_USER": "5", "MCP_MAX_SESSIONS": "5"})))
	require.NoError(t, err)
	require.Equal(t, 5, c.McpMaxSessionsPerUser)
	require.Equal(t, 5, c.McpMaxSessions)

	for _, bad := range []map[string]string{
		{"MCP_MAX_SESSIONS_PER_USER": "0"},
		{"MCP_MAX_SESSIONS_PER_USER": "-1"},
		{"MCP_MAX_SESSIONS_PER_USER": "many"},
		{"MCP_MAX_SESSIONS": "0"},
		{"MCP_MAX_SESSIONS": "ten"},
		{"MCP_MAX_SESSIONS_PER_USER": "30", "MCP_MAX_SESSIONS": "20"},
	} {
		_, err := load(env(base(bad)))
		require.ErrorContains(t, err, "MCP_MAX_SESSIONS", bad)
	}
}
