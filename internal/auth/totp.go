package auth

import (
	"fmt"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// totpPeriod is the TOTP time step, in seconds (RFC 6238 default, what authenticator apps expect).
const totpPeriod = 30

// NewTOTP returns a new TOTP secret for account and its otpauth:// URL for authenticator apps.
func NewTOTP(issuer, account string) (secret, url string, err error) {
	key, err := totp.Generate(totp.GenerateOpts{Issuer: issuer, AccountName: account, Period: totpPeriod,
		Algorithm: otp.AlgorithmSHA1, Digits: otp.DigitsSix})
	if err != nil {
		return "", "", fmt.Errorf("generate totp: %w", err)
	}
	return key.Secret(), key.URL(), nil
}

// MatchTOTP checks code against secret at now, allowing one step of clock skew either way. It returns
// the time step the code belongs to, so the caller can refuse a step used before (replay).
func MatchTOTP(secret, code string, now time.Time) (step int64, ok bool) {
	cur := now.Unix() / totpPeriod
	for _, d := range []int64{0, -1, 1} {
		s := cur + d
		want, err := totp.GenerateCodeCustom(secret, time.Unix(s*totpPeriod, 0), totp.ValidateOpts{Period: totpPeriod,
			Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err == nil && want == code {
			return s, true
		}
	}
	return 0, false
}

// TOTPCode returns the code for secret at t (used by tests and tools).
func TOTPCode(secret string, t time.Time) (string, error) {
	return totp.GenerateCodeCustom(secret, t, totp.ValidateOpts{Period: totpPeriod, Digits: otp.DigitsSix,
		Algorithm: otp.AlgorithmSHA1})
}
