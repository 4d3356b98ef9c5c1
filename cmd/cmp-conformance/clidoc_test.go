package main

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update", false, "write docs/cli.md instead of comparing it")

// TestCLIReferenceIsCurrent: docs/cli.md is every command's help as the
// code has it now (`make docs` writes it). Flag defaults read from the
// environment are cleared, so the page does not depend on who runs it.
func TestCLIReferenceIsCurrent(t *testing.T) {
	for _, k := range []string{"LABEL_FILTER", "ARGOCD_VERSION", "CMPC_IMAGE_REGISTRY", "PARALLEL", "CMPC_RUNTIME"} {
		t.Setenv(k, "")
	}
	want := cliReference(rootCommand())
	const page = "../../docs/cli.md"
	if *updateDocs {
		if err := os.WriteFile(page, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(page)
	if err != nil || string(got) != want {
		t.Errorf("docs/cli.md is stale (or missing: %v): run `make docs` and commit it", err)
	}
	for _, cmd := range []string{"## cmp-conformance run\n", "## cmp-conformance render\n", "## cmp-conformance report merge\n", "--explain"} {
		if !strings.Contains(want, cmd) {
			t.Errorf("the reference lacks %q", cmd)
		}
	}
}
