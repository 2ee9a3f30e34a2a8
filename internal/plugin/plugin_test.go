package plugin

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestValidateSettings(t *testing.T) {
	t.Parallel()
	p, ok := ByID(EmailDigest)
	require.True(t, ok)
	got, err := p.ValidateSettings(json.RawMessage(`{"subjectPrefix":"[P]","maxItems":3}`))
	require.NoError(t, err)
	require.JSONEq(t, `{"subjectPrefix":"[P]","maxItems":3,"skipEmpty":true}`, string(got))
	for raw, want := range map[string]string{
		`{}`:                                     "settings.subjectPrefix is required",
		`{"subjectPrefix":1}`:                    "settings.subjectPrefix: must be a string",
		`{"subjectPrefix":"x","maxItems":0}`:     "settings.maxItems: must be at least 1",
		`{"subjectPrefix":"x","maxItems":1.5}`:   "settings.maxItems: must be an integer",
		`{"subjectPrefix":"x","skipEmpty":"no"}`: "settings.skipEmpty: must be true or false",
		`{"subjectPrefix":"x","other":1}`:        "settings.other: unknown setting",
		`[]`:                                     "settings must be a JSON object",
	} {
		_, err := p.ValidateSettings(json.RawMessage(raw))
		require.ErrorContains(t, err, want, raw)
	}
	tp, ok := ByID(CardTemplates)
	require.True(t, ok)
	got, err = tp.ValidateSettings(nil)
	require.NoError(t, err)
	require.JSONEq(t, `{}`, string(got))
}

func TestCatalogCapabilities(t *testing.T) {
	t.Parallel()
	p, ok := ForStepType(StepMoveCard)
	require.True(t, ok)
	require.Equal(t, CardActions, p.ID)
	_, ok = ForStepType("create_card")
	require.False(t, ok, "built-in types need no plugin")
	p, ok = ForProjectTemplate("okr-quarter")
	require.True(t, ok)
	require.Equal(t, CardTemplates, p.ID)
	for _, t2 := range ProjectTemplates {
		_, ok := ForProjectTemplate(t2.ID)
		require.True(t, ok, t2.ID)
	}
}
