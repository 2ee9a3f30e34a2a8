package document

import (
	"regexp"
	"strings"
)

// Markdown syntax in a search snippet: a snippet is read as text, so `**migration**` should read
// "migration". Each rule keeps the words and drops the marks around them; ts_headline's sentinels
// (markStart, markStop) are no letters, so they stay where they are.
var (
	mdImage     = regexp.MustCompile(`!\[([^\]]*)\]\([^)]*\)`)
	mdLink      = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	mdAutolink  = regexp.MustCompile(`<((?:https?|mailto):[^>\s]+)>`)
	mdFence     = regexp.MustCompile("(?m)^[ \t]*(```|~~~)[^\n]*$")
	mdRule      = regexp.MustCompile(`(?m)^[ \t]*([-*_])(?:[ \t]*([-*_])){2,}[ \t]*$`)
	mdHeading   = regexp.MustCompile(`(?m)^[ \t]*#{1,6}[ \t]+`)
	mdQuote     = regexp.MustCompile(`(?m)^[ \t]*(?:>[ \t]?)+`)
	mdListItem  = regexp.MustCompile(`(?m)^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?`)
	mdStrong    = regexp.MustCompile(`\*\*|__|~~`)
	mdStarEmph  = regexp.MustCompile(`\*+(\S)|(\S)\*+`)
	mdUnderEmph = regexp.MustCompile(`(^|[^\p{L}\p{N}_])_+|_+([^\p{L}\p{N}_]|$)`)
	mdSpace     = regexp.MustCompile(`\s+`)
)

// plainSnippet is a raw snippet with its markdown syntax removed and its white space collapsed: the
// words of a heading, a list item, a quote, a link's text, emphasis and code, without their marks.
func plainSnippet(raw string) string {
	s := mdImage.ReplaceAllString(raw, "$1")
	s = mdLink.ReplaceAllString(s, "$1")
	s = mdAutolink.ReplaceAllString(s, "$1")
	s = mdFence.ReplaceAllString(s, "")
	s = mdRule.ReplaceAllString(s, "")
	s = mdHeading.ReplaceAllString(s, "")
	s = mdQuote.ReplaceAllString(s, "")
	s = mdListItem.ReplaceAllString(s, "")
	s = mdStrong.ReplaceAllString(s, "")
	s = mdStarEmph.ReplaceAllString(s, "$1$2")
	s = mdUnderEmph.ReplaceAllString(s, "$1$2")
	s = strings.ReplaceAll(s, "`", "")
	return strings.TrimSpace(mdSpace.ReplaceAllString(s, " "))
}
