package conformance

import (
	"regexp"
	"strconv"
	"strings"
)

// plainWords rewrites Gomega's dumps of a failure into the finding they
// hold, so that a terminal line, summary.md and report.html say "announcement
// 15 has no name", not "<[]string | len:1, cap:1>": an error's dump
// ("Unexpected error:" or "Expected success, but got an error:", its type
// and address, its text, its fields) becomes its text; a list expected to
// be empty becomes its items, one per line. Anything else is kept as it is.
func plainWords(msg string) string {
	lines := strings.Split(msg, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case (line == "Unexpected error:" || line == "Expected success, but got an error:") && i+1 < len(lines) && dumpHeader.MatchString(lines[i+1]):
			i = errorText(lines, i+2, &out)
		case line == "Expected" && i+1 < len(lines) && listHeader.MatchString(lines[i+1]):
			i = listItems(lines, i+1, &out)
		default:
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

var (
	// "    <*errors.errorString | 0xc0001>: " (the address varies).
	dumpHeader = regexp.MustCompile(`^\s*<[^>]+ \| 0x[0-9a-f]+>: ?$`)
	// "    <[]string | len:2, cap:2>: [" or, short, "...>: ["a"]".
	listHeader = regexp.MustCompile(`^\s*<\[\]string \| len:\d+, cap:\d+>: \[(.*)$`)
)

// errorText appends an error dump's text, from lines[i] up to its fields
// ("{...}", one line or a block) and a closing "occurred", and returns the
// index of the last line it read.
func errorText(lines []string, i int, out *[]string) int {
	for ; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if strings.HasPrefix(t, "{") {
			if !strings.HasSuffix(t, "}") { // a block: up to its closing brace
				indent := len(lines[i]) - len(strings.TrimLeft(lines[i], " "))
				for i++; i < len(lines) && !(strings.TrimSpace(lines[i]) == "}" && len(lines[i])-len(strings.TrimLeft(lines[i], " ")) == indent); i++ {
				}
			}
			if i+1 < len(lines) && lines[i+1] == "occurred" {
				i++
			}
			return i
		}
		*out = append(*out, t)
	}
	return i
}

// listItems appends the items of a []string dump expected to be empty,
// from its header lines[i] to "to be empty", and returns the index of the
// last line it read.
func listItems(lines []string, i int, out *[]string) int {
	add := func(item string) {
		item = strings.TrimSuffix(strings.TrimSpace(item), ",")
		if s, err := strconv.Unquote(item); err == nil {
			item = s
		}
		if item != "" {
			*out = append(*out, "- "+item)
		}
	}
	if rest := listHeader.FindStringSubmatch(lines[i])[1]; rest != "" { // short form: ["a", "b"]
		for _, item := range splitQuoted(strings.TrimSuffix(rest, "]")) {
			add(item)
		}
		i++
	} else {
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "]"; i++ {
			add(lines[i])
		}
		i++
	}
	if i < len(lines) && lines[i] == "to be empty" {
		return i
	}
	return i - 1
}

// splitQuoted splits `"a", "b, c"` at the commas between quoted items.
func splitQuoted(s string) []string {
	var items []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), ",")) {
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			return append(items, s)
		}
		items = append(items, q)
		s = s[len(q):]
	}
	return items
}
