package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
)

// The debug container's answers, as the harness parses them.
func TestReadAndRemove(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cmpc-record")
	before := time.Now()
	var out, errs bytes.Buffer
	if rc := run([]string{argocd.ReadArg, p}, &out, &errs); rc != 0 {
		t.Fatalf("read of a missing file: rc %d (%s)", rc, errs.String())
	}
	if _, at, err := argocd.ParseScratchRead(out.Bytes()); !errors.Is(err, os.ErrNotExist) || at.Before(before) {
		t.Errorf("missing: %v at %v, want ErrNotExist at or after %v", err, at, before)
	}
	os.WriteFile(p, []byte("started 1\nalive 2\n"), 0o644)
	out.Reset()
	if rc := run([]string{argocd.ReadArg, p}, &out, &errs); rc != 0 {
		t.Fatalf("read: rc %d (%s)", rc, errs.String())
	}
	data, at, err := argocd.ParseScratchRead(out.Bytes())
	if err != nil || string(data) != "started 1\nalive 2\n" || at.Before(before) || at.After(time.Now()) {
		t.Errorf("read = %q at %v, %v", data, at, err)
	}
	for i := 0; i < 2; i++ { // the second finds nothing to remove: no error
		if rc := run([]string{argocd.RemoveArg, p}, &out, &errs); rc != 0 {
			t.Fatalf("remove %d: rc %d (%s)", i, rc, errs.String())
		}
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after remove: %v", err)
	}
	os.Symlink("/etc/passwd", p)
	if rc := run([]string{argocd.ReadArg, p}, &out, &errs); rc != 1 || !strings.Contains(errs.String(), "not a regular file") {
		t.Errorf("read of a link: rc %d (%s), want 1, refused", rc, errs.String())
	}
	if rc := run([]string{"read"}, &out, &errs); rc != 2 {
		t.Errorf("read without a file: rc %d, want 2", rc)
	}
}

func TestReadIsBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big")
	os.WriteFile(p, bytes.Repeat([]byte("x"), maxRecord+10), 0o644)
	var out, errs bytes.Buffer
	run([]string{argocd.ReadArg, p}, &out, &errs)
	if data, _, err := argocd.ParseScratchRead(out.Bytes()); err != nil || len(data) != argocd.MaxScratchRecord {
		t.Errorf("read %d bytes, %v; want the first %d", len(data), err, argocd.MaxScratchRecord)
	}
}
