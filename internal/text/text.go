// Package text holds the two ways this harness shortens what it shows of
// a message: its first line, and at most n bytes of it, cut between runes.
package text

import (
	"regexp"
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

// ansiEscape matches terminal escape sequences (colours, cursor moves).
var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`)

// Plain is s without terminal escape sequences: a library's message (Ginkgo
// colours its own) printed where the output may not be a terminal.
func Plain(s string) string { return ansiEscape.ReplaceAllString(s, "") }
