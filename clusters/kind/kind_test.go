package kind

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestNewValidates(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"no name", Options{NodeImage: "kindest/node:v1.34.0", Dir: "d"}, "no name"},
		{"no image", Options{Name: "c", Dir: "d"}, "no node image"},
		{"no dir", Options{Name: "c", NodeImage: "kindest/node:v1.34.0"}, "no directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New(%+v) = %v, want an error containing %q", tc.opts, err, tc.want)
			}
		})
	}
}

func TestNewDefaults(t *testing.T) {
	p, err := New(Options{Name: "c", NodeImage: "kindest/node:v1.34.0", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if p.opts.Wait != 3*time.Minute {
		t.Errorf("Wait = %v, want 3m", p.opts.Wait)
	}
	if p.Name() != "kind" {
		t.Errorf("Name() = %q, want kind", p.Name())
	}
	p, err = New(Options{Name: "c", NodeImage: "kindest/node:v1.34.0", Dir: t.TempDir(), Wait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if p.opts.Wait != time.Second {
		t.Errorf("Wait = %v, want the 1s given", p.opts.Wait)
	}
}

func TestUntilDoneStopsWaitingOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	defer close(release)
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	err := untilDone(ctx, func() error { <-release; return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("untilDone = %v, want context.Canceled", err)
	}
	want := errors.New("boom")
	if err := untilDone(context.Background(), func() error { return want }); err != want {
		t.Fatalf("untilDone = %v, want %v", err, want)
	}
}

// needDocker skips unless a Docker engine answers.
func needDocker(t *testing.T) {
	t.Helper()
	if out, err := exec.Command("docker", "info").CombinedOutput(); err != nil {
		t.Skipf("no Docker engine answers (docker info: %v: %s)", err, lastLines(out, 2))
	}
}

func uniqueName(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()%1e9)
}

// kindContainers lists the containers kind labels as nodes of cluster name.
func kindContainers(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("docker", "ps", "-a", "-q", "--filter", "label=io.x-k8s.kind.cluster="+name).CombinedOutput()
	if err != nil {
		t.Fatalf("docker ps: %v: %s", err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestCreateWithoutNodeImageFailsFast(t *testing.T) {
	needDocker(t)
	name := uniqueName("cmpconf-kind-noimg")
	image := "kindest/node:v0.0.0-cmpconf-absent"
	p, err := New(Options{Name: name, NodeImage: image, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	c, err := p.Create(ctx)
	elapsed := time.Since(start)
	if err == nil {
		p.Destroy(ctx)
		t.Fatalf("Create = %+v, want an error for the absent node image", c)
	}
	t.Logf("Create failed in %v: %v", elapsed, err)
	if !strings.Contains(err.Error(), "not present locally") || !strings.Contains(err.Error(), image) {
		t.Errorf("error does not say the node image %s is not present locally: %v", image, err)
	}
	if elapsed > 10*time.Second {
		t.Errorf("Create took %v to fail, want under 10s (a pull may have started)", elapsed)
	}
	if ids := kindContainers(t, name); ids != "" {
		exec.Command("docker", "rm", "-f", ids).Run()
		t.Errorf("containers left behind for cluster %s: %s", name, ids)
	}
}

func TestCreateRespectsCancelledContext(t *testing.T) {
	needDocker(t)
	p, err := New(Options{Name: uniqueName("cmpconf-kind-cancel"), NodeImage: "kindest/node:v0.0.0-cmpconf-absent", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Create(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Create with a cancelled context = %v, want context.Canceled", err)
	}
}

func TestDestroyAbsentClusterIsNil(t *testing.T) {
	needDocker(t)
	p, err := New(Options{Name: uniqueName("cmpconf-kind-absent"), NodeImage: "kindest/node:v1.34.0", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := p.Destroy(context.Background()); err != nil {
			t.Fatalf("Destroy #%d of a cluster that does not exist = %v, want nil", i+1, err)
		}
	}
}

// TestExistingClusterIsReusedAndDestroyed stands in a stopped container with
// kind's node labels for a cluster (no node image can be had here): Create
// must take the reuse path, not the image check, and Destroy must remove it.
func TestExistingClusterIsReusedAndDestroyed(t *testing.T) {
	needDocker(t)
	name := uniqueName("cmpconf-kind-fake")
	image := "cmpconf-kind-empty:" + name
	imp := exec.Command("docker", "import", "-", image)
	imp.Stdin = strings.NewReader(strings.Repeat("\x00", 1024)) // an empty tar archive
	if out, err := imp.CombinedOutput(); err != nil {
		t.Skipf("cannot make an empty image to stand in for a node: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("docker", "rmi", "-f", image).Run() })
	node := name + "-control-plane"
	out, err := exec.Command("docker", "create", "--name", node, "--label", "io.x-k8s.kind.cluster="+name,
		"--label", "io.x-k8s.kind.role=control-plane", image, "/none").CombinedOutput()
	if err != nil {
		t.Fatalf("docker create: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("docker", "rm", "-f", node).Run() })

	p, err := New(Options{Name: name, NodeImage: "kindest/node:v0.0.0-cmpconf-absent", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = p.Create(ctx)
	if err == nil || !strings.Contains(err.Error(), "existing kind cluster") {
		t.Errorf("Create on a stopped existing cluster = %v, want a failure to export its kubeconfig", err)
	} else {
		t.Logf("Create on a stopped existing cluster: %v", err)
	}
	if err := p.Destroy(ctx); err != nil {
		t.Fatalf("Destroy: %v", err)
	}
	if ids := kindContainers(t, name); ids != "" {
		t.Errorf("Destroy left containers of cluster %s: %s", name, ids)
	}
	if err := p.Destroy(ctx); err != nil {
		t.Fatalf("second Destroy: %v", err)
	}
}

func TestConfigAddsMirrors(t *testing.T) {
	p, err := New(Options{Name: "m", NodeImage: "img", Dir: t.TempDir(),
		Config:  []byte("kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnetworking:\n  ipFamily: ipv4\n"),
		Mirrors: map[string]string{"quay.io": "http://reg:5000", "docker.io": "http://reg:5000"}})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := p.config()
	if err != nil {
		t.Fatal(err)
	}
	want := "[plugins.\"io.containerd.grpc.v1.cri\".registry.mirrors.\"docker.io\"]\n  endpoint = [\"http://reg:5000\"]\n" +
		"[plugins.\"io.containerd.grpc.v1.cri\".registry.mirrors.\"quay.io\"]\n  endpoint = [\"http://reg:5000\"]\n"
	if len(cfg.ContainerdConfigPatches) != 1 || cfg.ContainerdConfigPatches[0] != want {
		t.Errorf("patches %q, want [%q]", cfg.ContainerdConfigPatches, want)
	}
	if cfg.Networking.IPFamily != "ipv4" {
		t.Errorf("the given configuration was lost: %+v", cfg.Networking)
	}
	p.opts.Config = []byte("kind: Cluster\nnodez: []\n")
	if _, err := p.config(); err == nil || !strings.Contains(err.Error(), "does not parse") {
		t.Errorf("a misspelt field: got %v", err)
	}
}
