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
