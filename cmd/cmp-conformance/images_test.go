package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/pluginimage"
)

func TestPluginImageFlagsRefuseBadInput(t *testing.T) {
	for name, tt := range map[string]struct {
		images, dirs []string
		want         string
	}{
		"no ref":        {images: []string{"plain="}, want: "want ROLE=IMAGE"},
		"unknown role":  {images: []string{"nope=x:1"}, want: `unknown role "nope"`},
		"service":       {images: []string{"service=x:1"}, want: "runs from an image in a cluster only"},
		"twice":         {images: []string{"plain=x:1", "plain=y:1"}, want: "given twice"},
		"dir and image": {images: []string{"plain=x:1"}, dirs: []string{"plain=/tmp"}, want: "both with --plugin and --plugin-image"},
	} {
		f := envFlags{images: tt.images, plugins: tt.dirs, runtime: "embedded"}
		err := f.validateImages()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: validateImages() = %v, want %q", name, err, tt.want)
		}
	}
}

// In a cluster the service role runs from an image, as a Deployment and a
// Service.
func TestServiceImageInACluster(t *testing.T) {
	for _, runtime := range []string{"kind", "existing"} {
		f := envFlags{images: []string{"service=x:1"}, runtime: runtime}
		got, err := f.pluginImages()
		if err != nil || got["service"] != "x:1" {
			t.Errorf("pluginImages() on %s = %v, %v; want the service role's image accepted", runtime, got, err)
		}
	}
}

// The existing runtime's cluster pulls the run's images from a registry it
// must be told, before anything is built; no other runtime takes one.
func TestImageRegistryUsage(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	f := envFlags{runtime: "existing", kubeconfig: kubeconfig, readyTimeout: time.Minute, portBase: 18080}
	if err := f.validate(); err == nil || !strings.Contains(err.Error(), "give --image-registry HOST:PORT") {
		t.Errorf("existing without --image-registry: %v", err)
	}
	f = envFlags{runtime: "embedded", imageRegistry: "127.0.0.1:5000", readyTimeout: time.Minute, portBase: 18080}
	if err := f.validate(); err == nil || !strings.Contains(err.Error(), "drop it") {
		t.Errorf("--image-registry on embedded: %v", err)
	}
}

func TestPluginImageMissingIsAUsageError(t *testing.T) {
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("no docker")
	}
	f := envFlags{images: []string{"plain=cmp-conformance-test/absent:never"}, runtime: "embedded"}
	err := f.validateImages()
	if err == nil || !strings.Contains(err.Error(), "not present on this machine") {
		t.Fatalf("validateImages() = %v, want the image's absence, said before anything starts", err)
	}
}

func TestCheckStaticRefusesDynamicPrograms(t *testing.T) {
	dynamic, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	if err := pluginimage.CheckStatic(dynamic); err == nil || !strings.Contains(err.Error(), "dynamically linked") {
		t.Errorf("pluginimage.CheckStatic(%s) = %v, want dynamically linked", dynamic, err)
	}
	if _, err := os.Stat("/bin/busybox"); err == nil {
		if err := pluginimage.CheckStatic("/bin/busybox"); err != nil {
			t.Errorf("pluginimage.CheckStatic(/bin/busybox) = %v (busybox-static)", err)
		}
	}
}

func TestCutShortOnlyForTheInterruption(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	stopped := fmt.Errorf("logging in: %w", context.Canceled)
	if cutShort(ctx, stopped) {
		t.Error("a canceled error while the run was not interrupted counts as cut short")
	}
	cancel()
	if !cutShort(ctx, stopped) {
		t.Error("the interruption surfacing as an error does not count as cut short")
	}
	if cutShort(ctx, errors.New("bring-up failed")) {
		t.Error("a real failure during an interruption counts as cut short")
	}
}

// What kind cannot do yet is refused as a usage error, before anything is
// built, naming what does it; the catalogue itself runs there.
func TestKindUsage(t *testing.T) {
	kind := func(set func(*runFlags)) error {
		f := runFlags{envFlags: envFlags{runtime: "kind"}}
		set(&f)
		return f.inClusterUsage()
	}
	for name, c := range map[string]struct {
		set  func(*runFlags)
		want string
	}{
		"certify a folder": {func(f *runFlags) { f.certify = &certifySubject{dir: "plugin"} }, "certify it with --image"},
	} {
		if err := kind(c.set); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s on kind: %v, want a refusal naming %q", name, err, c.want)
		}
	}
	if err := kind(func(*runFlags) {}); err != nil {
		t.Errorf("the catalogue on kind was refused: %v", err)
	}
	if err := kind(func(f *runFlags) { f.selfTest = true }); err != nil {
		t.Errorf("the self-test on kind was refused: %v", err)
	}
	if err := kind(func(f *runFlags) { f.certify = &certifySubject{image: "mine:1"} }); err != nil {
		t.Errorf("certifying an image on kind was refused: %v", err)
	}
	if err := kind(func(f *runFlags) { f.upgradePath = "previous" }); err != nil {
		t.Errorf("an upgrade run on kind was refused: %v", err)
	}
	f := runFlags{envFlags: envFlags{runtime: "embedded"}, selfTest: true}
	if err := f.inClusterUsage(); err != nil {
		t.Errorf("embedded refused: %v", err)
	}
}
