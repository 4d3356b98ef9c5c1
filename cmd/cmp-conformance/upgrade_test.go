package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
)

func TestCheckVersionsRefusesWhatIsNoRelease(t *testing.T) {
	f := &envFlags{argocdVersion: "3.6"}
	err := f.checkVersions(nil)
	if !errors.Is(err, toolchain.ErrUnknownVersion) || !strings.Contains(err.Error(), "release tag such as") {
		t.Fatalf("want an unknown-version error saying what a version looks like, got %v", err)
	}
	// A path's versions are checked, whatever --argocd-version says.
	if err := (&envFlags{}).checkVersions([]string{"v3.5.7", "latest"}); !errors.Is(err, toolchain.ErrUnknownVersion) {
		t.Fatalf("want the path's bad version refused, got %v", err)
	}
	if err := (&envFlags{}).checkVersions(nil); err != nil {
		t.Fatalf("no version asked for is no error: %v", err)
	}
}

func TestUpgradeFlags(t *testing.T) {
	f := &runFlags{upgradePath: "offline-previous"}
	f.runtime = "embedded"
	path, err := f.upgrade()
	if err != nil || strings.Join(path, ",") != "v3.5.7,v3.6.1,v3.5.7" || f.argocdVersion != "v3.5.7" {
		t.Fatalf("the alias of previous: %v %v %s", path, err, f.argocdVersion)
	}
	f = &runFlags{upgradePath: "legacy"}
	f.runtime, f.argocdVersion = "embedded", "v3.6.1"
	if _, err := f.upgrade(); err == nil || !strings.Contains(err.Error(), "contradicts") {
		t.Fatalf("want a contradiction refused, got %v", err)
	}
}
