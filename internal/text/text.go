// Package text holds the two ways this harness shortens what it shows of
// a message: its first line, and at most n bytes of it, cut between runes.
package text

import (
	"strings"
	"unicode/utf8"
)

// FirstLine is the first non-empty line of s, trimmed.
func FirstLine(s string) string {
	for line := range strings.Lines(s) {
		if t := strings.TrimSpace(line); t != "" {
			return t
		}
	}
	return ""
}

// Clip is s when it has at most n bytes, else its first n bytes or fewer,
// never half a rune, followed by "…".
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
