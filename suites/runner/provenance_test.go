package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
)

func TestProgramsAreDigestedAsTheSidecarFindsThem(t *testing.T) {
	dir, bin := t.TempDir(), t.TempDir()
	yaml := `apiVersion: argoproj.io/v1alpha1
kind: ConfigManagementPlugin
metadata: {name: p}
spec:
  init: {command: [cmp-x, init]}
  generate: {command: [cmp-x, generate]}
  discover: {find: {command: [sh, -c, "ls"]}}
  parameters: {dynamic: {command: [cmp-missing]}}
`
	if err := os.WriteFile(filepath.Join(dir, "plugin.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "cmp-x"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := argocd.LoadPlugin(dir)
	if err != nil {
		t.Fatal(err)
	}
	p.PathDirs = []string{bin}
	got := programs(p)
	if len(got) != 3 {
		t.Fatalf("programs = %+v, want cmp-x, sh, cmp-missing once each", got)
	}
	sum := sha256.Sum256([]byte("#!/bin/sh\n"))
	if got[0].Name != "cmp-x" || got[0].Path != filepath.Join(bin, "cmp-x") || got[0].SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("cmp-x = %+v", got[0])
	}
	if got[1].Name != "sh" || !strings.HasSuffix(got[1].Path, "/sh") || got[1].SHA256 == "" {
		t.Errorf("sh = %+v (looked up on PATH)", got[1])
	}
	if got[2].Name != "cmp-missing" || got[2].SHA256 != "" || got[2].Error == "" {
		t.Errorf("cmp-missing = %+v, want an error and no digest", got[2])
	}
}

func TestHarnessNamesTheBuild(t *testing.T) {
	h := Harness()
	if h.Module == "" || h.Version == "" || len(h.SHA256) != 64 {
		t.Errorf("harness = %+v", h)
	}
}
