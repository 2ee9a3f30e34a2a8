// Package csvcell makes the text cells of Pilot's CSV downloads (the time report, the audit log export)
// safe to open in a spreadsheet.
package csvcell

import "strings"

// Safe keeps a spreadsheet from reading a cell as a formula (CSV injection): a text starting with =, +,
// -, @, a tab or a carriage return gets a leading apostrophe, which spreadsheets show as text.
// encoding/csv quotes as RFC 4180 says; this is about what a spreadsheet does with the value. Use it on
// what people or clients typed (names, titles, addresses, user agents), not on ids, times or numbers.
func Safe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
