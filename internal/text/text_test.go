package text

import (
	"testing"
	"unicode/utf8"
)

func TestFirstLine(t *testing.T) {
	for in, want := range map[string]string{"": "", "\n\n  a b \r\nc": "a b", "one": "one", " \n\t\n": ""} {
		if got := FirstLine(in); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClip(t *testing.T) {
	if got := Clip("short", 10); got != "short" {
		t.Errorf("Clip kept %q, want it whole", got)
	}
	if got := Clip("abcdef", 3); got != "abc…" {
		t.Errorf("Clip = %q, want abc…", got)
	}
	// "é" is two bytes: cutting at 2 would split it.
	got := Clip("aé-long", 2)
	if got != "a…" || !utf8.ValidString(got) {
		t.Errorf("Clip split a rune: %q", got)
	}
}

func TestPlain(t *testing.T) {
	in := "\x1b[1m\x1b[38;5;9mSyntax Error Parsing Label Filter\x1b[0m\n  x &&\n\x1b[38;5;14m\x1b[4mhttp://x\x1b[0m"
	if got, want := Plain(in), "Syntax Error Parsing Label Filter\n  x &&\nhttp://x"; got != want {
		t.Errorf("Plain = %q, want %q", got, want)
	}
}
