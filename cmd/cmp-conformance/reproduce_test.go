package main

import (
	"testing"
)

// The reproduce command carries every flag a user gave, the resolved
// version, and nothing of a parallel run's hidden wiring.
func TestReproduceCarriesEveryGivenFlag(t *testing.T) {
	t.Setenv("LABEL_FILTER", "")
	t.Setenv("PARALLEL", "")
	cmd := runCommand()
	args := []string{"--plugin-path", "/opt/my tools", "--port-base", "31000", "--kubeconfig", "/k/config",
		"--label-filter", "smoke && Core", "--self-test", "--plugin", "plain=./a", "--plugin", "helm=./b",
		"--units", "/tmp/units.json", "--argocd-version", "v3.6"}
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	// runCommand's runFlags is reachable through RunE only; reproduce reads
	// the flag set.
	f := &runFlags{fs: cmd.Flags()}
	got := reproduce(f, "v3.6.1")
	want := "cmp-conformance run --argocd-version v3.6.1 --kubeconfig=/k/config --label-filter='smoke && Core' " +
		"--plugin plain=./a --plugin helm=./b --plugin-path '/opt/my tools' --port-base=31000 --self-test=true"
	if got != want {
		t.Errorf("reproduce =\n%s\nwant\n%s", got, want)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"v3.6.1": "v3.6.1", "a b": "'a b'", "it's": `'it'\''s'`, "": "''", "x;rm": "'x;rm'"} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
