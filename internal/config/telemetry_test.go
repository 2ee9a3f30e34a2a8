package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLoadTelemetry(t *testing.T) {
	t.Parallel()
	c, err := load(env(base(nil)))
	require.NoError(t, err)
	require.Empty(t, c.MetricsAddr, "metrics are off unless METRICS_ADDR is set")
	require.Empty(t, c.OTLPEndpoint, "traces are off unless OTEL_EXPORTER_OTLP_ENDPOINT is set")

	c, err = load(env(base(map[string]string{"METRICS_ADDR": "127.0.0.1:9090",
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"})))
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:9090", c.MetricsAddr)
	require.Equal(t, "http://collector:4318", c.OTLPEndpoint)

	c, err = load(env(base(map[string]string{"METRICS_ADDR": ":9090"})))
	require.NoError(t, err)
	require.Equal(t, ":9090", c.MetricsAddr)

	for _, bad := range []string{"9090", "localhost", ":http", ":0", ":70000", "host:"} {
		_, err := load(env(base(map[string]string{"METRICS_ADDR": bad})))
		require.ErrorContains(t, err, "METRICS_ADDR must be a listen address", bad)
	}
	_, err = load(env(base(map[string]string{"METRICS_ADDR": ":8080"})))
	require.ErrorContains(t, err, "METRICS_ADDR must not use PORT (8080)")
	_, err = load(env(base(map[string]string{"METRICS_ADDR": ":9000", "PORT": "9000"})))
	require.ErrorContains(t, err, "METRICS_ADDR must not use PORT (9000)")

	for _, bad := range []string{"collector:4318", "grpc://collector:4317", "http://"} {
		_, err := load(env(base(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": bad})))
		require.ErrorContains(t, err, "OTEL_EXPORTER_OTLP_ENDPOINT must be an http or https URL", bad)
	}
	_, err = load(env(base(map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"})))
	require.ErrorContains(t, err, "OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf")
}
