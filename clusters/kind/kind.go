// Package kind is the container cluster: real Kubernetes nodes run as
// containers by kind's Go library, on whichever container runtime kind
// detects (Docker, nerdctl or Podman). It needs the kind node image present
// locally: this package never pulls, because where no registry is reachable a
// pull hangs instead of failing.
package kind

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/kind/pkg/cluster"
	"sigs.k8s.io/kind/pkg/cluster/nodes"
	"sigs.k8s.io/kind/pkg/cluster/nodeutils"
	kindexec "sigs.k8s.io/kind/pkg/exec"

	"github.com/cmp-conformance/cmp-conformance/clusters"
)

// Options name the cluster and the node image it runs.
type Options struct {
	Name string
	// NodeImage is the kind node image, e.g. kindest/node:v1.34.0; it must
	// already be present in the container runtime.
	NodeImage string
	// Dir holds the kubeconfig (Dir/kubeconfig), so the user's
	// ~/.kube/config is never touched.
	Dir string
	// Wait bounds how long kind waits for the control plane (default 3m).
	Wait time.Duration
	// Retain keeps the nodes when creation fails, for debugging.
	Retain bool
	// Config is an optional kind Cluster configuration (v1alpha4 YAML).
	// NodeImage overrides the images of its nodes.
	Config []byte
	// Mirrors sends the nodes' pulls from a registry host (quay.io) to an
	// endpoint (http://cmpc-registry:5000) instead, through containerd's
	// configuration: images are then pulled under the names manifests use,
	// from a registry of this machine.
	Mirrors map[string]string
	// Network, when set, is a Docker network of this cluster's own (kind's
	// KIND_EXPERIMENTAL_DOCKER_NETWORK) instead of the shared "kind", which
	// kind never removes: Destroy removes it.
	Network string
}

// Provider creates and removes one kind cluster.
type Provider struct {
	opts Options
}

var _ clusters.Provider = (*Provider)(nil)

// checkTimeout bounds the runtime probes (info, image inspect): a wedged
// daemon should fail the run, not hang it.
const checkTimeout = 30 * time.Second

// New checks the options and returns a Provider. It does not touch the
// container runtime; Create does.
func New(opts Options) (*Provider, error) {
	if opts.Name == "" {
		return nil, errors.New("kind cluster: no name given")
	}
	if opts.NodeImage == "" {
		return nil, fmt.Errorf("kind cluster %s: no node image given: name one, e.g. kindest/node:v1.34.0", opts.Name)
	}
	if opts.Dir == "" {
		return nil, fmt.Errorf("kind cluster %s: no directory given for its kubeconfig", opts.Name)
	}
	if opts.Wait == 0 {
		opts.Wait = 3 * time.Minute
	}
	return &Provider{opts: opts}, nil
}

// Existing is the Provider of a cluster made earlier (by another process),
// for Destroy and ExportLogs: `env down` from a state file.
func Existing(name, dir, network string) *Provider {
	return &Provider{opts: Options{Name: name, Dir: dir, Network: network, Wait: 3 * time.Minute}}
}

// Name implements clusters.Provider.
func (p *Provider) Name() string { return "kind" }

func (p *Provider) kubeconfig() string { return filepath.Join(p.opts.Dir, "kubeconfig") }

// engine is the runtime kind drives and the CLI that talks to the same
// runtime, for the checks kind's library does not expose.
type engine struct {
	cli  string
	kind *cluster.Provider
}

// errNoRuntime is what engine returns when no container runtime is
// installed; Destroy takes it to mean there is nothing to destroy.
type errNoRuntime struct{ err error }

func (e errNoRuntime) Error() string {
	return fmt.Sprintf("kind: %v (looked for docker, nerdctl, finch and podman): install and start one, or choose --runtime embedded", e.err)
}
func (e errNoRuntime) Unwrap() error { return e.err }

func (p *Provider) engine() (*engine, error) {
	opt, err := cluster.DetectNodeProvider()
	if err != nil {
		return nil, errNoRuntime{err}
	}
	return &engine{cli: runtimeCLI(), kind: cluster.NewProvider(opt)}, nil
}

// runtimeCLI names the CLI of the runtime cluster.DetectNodeProvider picks,
// probing in the same order and the same way (`<cli> -v`), since kind does
// not say which one it chose.
func runtimeCLI() string {
	for _, c := range []struct{ cli, prefix string }{
		{"docker", "Docker version"}, {"nerdctl", "nerdctl version"},
		{"finch", "finch version"}, {"podman", "podman version"},
	} {
		out, err := exec.Command(c.cli, "-v").Output()
		if err == nil && strings.HasPrefix(string(out), c.prefix) {
			return c.cli
		}
	}
	return "docker"
}

// answers checks that the runtime's daemon responds, which `<cli> -v` (all
// kind checks) does not.
func (e *engine) answers(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	out, err := exec.CommandContext(cctx, e.cli, "info").CombinedOutput()
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("asking %s whether it runs: %w", e.cli, ctx.Err())
	}
	return fmt.Errorf("container runtime %s does not answer (%s info: %w: %s): start it, or choose --runtime embedded",
		e.cli, e.cli, err, lastLines(out, 5))
}

// hasImage checks that image is present locally. kind would otherwise
// start a pull, which hangs where no registry is reachable.
func (e *engine) hasImage(ctx context.Context, image string) error {
	cctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	out, err := exec.CommandContext(cctx, e.cli, "image", "inspect", "--format", "{{.Id}}", image).CombinedOutput()
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("looking for kind node image %s: %w", image, ctx.Err())
	}
	return fmt.Errorf("kind node image %s is not present locally and is not pulled here (a pull hangs where no registry is reachable): "+
		"load it with '%s load -i <file>' or choose --runtime embedded (%s image inspect: %w: %s)",
		image, e.cli, e.cli, err, lastLines(out, 1))
}

// UnprivilegedLabel marks a node image that runs without --privileged
// (fixtures/nodeimage sets it).
const UnprivilegedLabel = "io.cmp-conformance.unprivileged-node"

// hasLabel says whether the local image carries label.
func (e *engine) hasLabel(ctx context.Context, image, label string) (bool, error) {
	cctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	out, err := exec.CommandContext(cctx, e.cli, "image", "inspect", "--format", "{{json .Config.Labels}}", image).Output()
	if err != nil {
		return false, fmt.Errorf("reading the labels of node image %s: %w", image, err)
	}
	return strings.Contains(string(out), strconv.Quote(label)+":"), nil
}

func (e *engine) exists(name string) (bool, error) {
	names, err := e.kind.List()
	if err != nil {
		return false, fmt.Errorf("listing kind clusters with %s: %w%s", e.cli, err, detail(err))
	}
	return slices.Contains(names, name), nil
}

// Create checks the runtime and the node image, then creates the cluster (or
// reuses one of the same name, as e2e-framework does) and connects.
func (p *Provider) Create(ctx context.Context) (*clusters.Cluster, error) {
	name := p.opts.Name
	if err := os.MkdirAll(p.opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the directory for kind cluster %s: %w", name, err)
	}
	e, err := p.engine()
	if err != nil {
		return nil, err
	}
	if err := e.answers(ctx); err != nil {
		return nil, err
	}
	found, err := e.exists(name)
	if err != nil {
		return nil, err
	}
	if found {
		// A cluster left by an earlier run (or made by hand) is reused:
		// creating again would fail on kind's own "already exists" check.
		if err := e.kind.ExportKubeConfig(name, p.kubeconfig(), false); err != nil {
			return nil, fmt.Errorf("exporting the kubeconfig of existing kind cluster %s: %w%s: delete it (kind delete cluster --name %s) and retry",
				name, err, detail(err), name)
		}
		return clusters.Connect(ctx, name, p.kubeconfig())
	}
	if err := e.hasImage(ctx, p.opts.NodeImage); err != nil {
		return nil, err
	}
	// Said now, not as runc's "unable to apply caps" from deep inside kind.
	if priv, err := HostPrivilege(); err == nil && !priv.Privileged() {
		if e.cli != "docker" {
			return nil, fmt.Errorf("kind cluster %s: %s; that is done for docker only, not %s: choose --runtime embedded", name, priv.Explain(), e.cli)
		}
		if ok, err := e.hasLabel(ctx, p.opts.NodeImage, UnprivilegedLabel); err != nil {
			return nil, err
		} else if !ok {
			return nil, fmt.Errorf("kind cluster %s: %s, and node image %s cannot run so: without --privileged its cgroup mounts stay read-only. "+
				"Use a node image made with 'cmp-conformance images build --kind-node', whose entrypoint makes them writable (it carries the label %s)",
				name, priv.Explain(), p.opts.NodeImage, UnprivilegedLabel)
		}
		if err := installShim(filepath.Join(p.opts.Dir, "shim"), e.cli, priv.Flags); err != nil {
			return nil, fmt.Errorf("kind cluster %s: %w", name, err)
		}
	}
	opts := []cluster.CreateOption{
		cluster.CreateWithNodeImage(p.opts.NodeImage),
		cluster.CreateWithKubeconfigPath(p.kubeconfig()),
		cluster.CreateWithWaitForReady(p.opts.Wait),
		cluster.CreateWithRetain(p.opts.Retain),
		cluster.CreateWithDisplayUsage(false),
		cluster.CreateWithDisplaySalutation(false),
	}
	cfg, err := p.config()
	if err != nil {
		return nil, err
	}
	opts = append(opts, cluster.CreateWithV1Alpha4Config(cfg))
	if err := p.createOn(ctx, e.kind, opts); err != nil {
		hint := "rerun with retain to keep the nodes for debugging"
		if p.opts.Retain {
			hint = fmt.Sprintf("the nodes were kept for debugging; remove them with 'kind delete cluster --name %s'", name)
		}
		return nil, fmt.Errorf("creating kind cluster %s from %s: %w%s: %s", name, p.opts.NodeImage, err, detail(err), hint)
	}
	return clusters.Connect(ctx, name, p.kubeconfig())
}

// create runs kind's Create, which takes no context, in a goroutine. When ctx
// ends first it returns ctx's error and, unless Retain, deletes what was made
// so far; kind's Create keeps running in the background until its next
// command fails, and a cluster it still finishes is deleted then.
func (p *Provider) create(ctx context.Context, kp *cluster.Provider, opts []cluster.CreateOption) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	done := make(chan error, 1)
	abandoned := make(chan struct{})
	go func() {
		err := kp.Create(p.opts.Name, opts...)
		select {
		case <-abandoned:
			if err == nil && !p.opts.Retain {
				_ = kp.Delete(p.opts.Name, p.kubeconfig())
			}
		default:
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		close(abandoned)
		if !p.opts.Retain {
			_ = kp.Delete(p.opts.Name, p.kubeconfig())
		}
		return ctx.Err()
	}
}

// ExportLogs writes the nodes' logs (journal, kubelet, containerd, pods)
// under dir.
func (p *Provider) ExportLogs(ctx context.Context, dir string) error {
	e, err := p.engine()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating the log directory for kind cluster %s: %w", p.opts.Name, err)
	}
	err = untilDone(ctx, func() error { return e.kind.CollectLogs(p.opts.Name, dir) })
	if err != nil {
		return fmt.Errorf("exporting the logs of kind cluster %s to %s: %w%s", p.opts.Name, dir, err, detail(err))
	}
	return nil
}

// Destroy deletes the cluster's nodes and its kubeconfig entry. A cluster
// that does not exist, or no container runtime at all, is not an error.
func (p *Provider) Destroy(ctx context.Context) error {
	e, err := p.engine()
	if err != nil {
		var none errNoRuntime
		if errors.As(err, &none) {
			return nil
		}
		return err
	}
	found, err := e.exists(p.opts.Name)
	if err != nil {
		return err
	}
	if found {
		err = untilDone(ctx, func() error { return e.kind.Delete(p.opts.Name, p.kubeconfig()) })
		if err != nil {
			return fmt.Errorf("deleting kind cluster %s: %w%s: remove its containers with '%s rm -f' (label io.x-k8s.kind.cluster=%s)",
				p.opts.Name, err, detail(err), e.cli, p.opts.Name)
		}
	}
	if p.opts.Network != "" {
		return e.removeNetwork(ctx, p.opts.Network)
	}
	return nil
}

// LoadImageArchive imports a `docker save` archive into every node's
// containerd, the way `kind load image-archive` does: plugin images built
// locally (FROM scratch) reach the cluster without a registry.
func (p *Provider) LoadImageArchive(ctx context.Context, archive string) error {
	name := p.opts.Name
	if _, err := os.Stat(archive); err != nil {
		return fmt.Errorf("loading an image archive into kind cluster %s: %w: write it with 'docker save -o <file> <image>'", name, err)
	}
	e, err := p.engine()
	if err != nil {
		return err
	}
	ns, err := e.kind.ListInternalNodes(name)
	if err != nil {
		return fmt.Errorf("listing the nodes of kind cluster %s: %w%s", name, err, detail(err))
	}
	if len(ns) == 0 {
		return fmt.Errorf("loading %s: kind cluster %s has no nodes: create it first", archive, name)
	}
	err = untilDone(ctx, func() error {
		errs := make([]error, len(ns))
		var wg sync.WaitGroup
		for i, n := range ns {
			wg.Go(func() { errs[i] = loadInto(n, archive) })
		}
		wg.Wait()
		return errors.Join(errs...)
	})
	if err != nil {
		return fmt.Errorf("loading %s into kind cluster %s: %w", archive, name, err)
	}
	return nil
}

// loadInto opens the archive afresh for each node: each import reads it whole.
func loadInto(n nodes.Node, archive string) error {
	f, err := os.Open(archive)
	if err != nil {
		return fmt.Errorf("node %s: %w", n, err)
	}
	defer f.Close()
	if err := nodeutils.LoadImageArchive(n, f); err != nil {
		return fmt.Errorf("node %s: %w%s", n, err, detail(err))
	}
	return nil
}

// untilDone runs fn, which cannot be cancelled, and stops waiting for it
// when ctx ends; fn then finishes in the background.
func untilDone(ctx context.Context, fn func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// detail is the tail of the output of the command a kind error comes from:
// kind's errors name the command but leave out what it said, which is
// usually the reason (kubeadm's, the runtime's).
func detail(err error) string {
	re := kindexec.RunErrorForError(err)
	if re == nil || len(re.Output) == 0 {
		return ""
	}
	return "\n" + lastLines(re.Output, 20)
}

// lastLines keeps the end of a command's output, where the error is.
func lastLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// NodeExec runs a command on a node of the cluster (as `docker exec` does,
// through kind's node abstraction) and returns its standard output; its
// error carries the end of what it printed on standard error.
func (p *Provider) NodeExec(ctx context.Context, node string, args ...string) ([]byte, error) {
	if len(args) == 0 {
		return nil, errors.New("node exec: no command")
	}
	e, err := p.engine()
	if err != nil {
		return nil, err
	}
	ns, err := e.kind.ListNodes(p.opts.Name)
	if err != nil {
		return nil, fmt.Errorf("listing the nodes of kind cluster %s: %w%s", p.opts.Name, err, detail(err))
	}
	i := slices.IndexFunc(ns, func(n nodes.Node) bool { return n.String() == node })
	if i < 0 {
		return nil, fmt.Errorf("kind cluster %s has no node %s", p.opts.Name, node)
	}
	var stdout, stderr bytes.Buffer
	cmd := ns[i].CommandContext(ctx, args[0], args[1:]...)
	cmd.SetStdout(&stdout)
	cmd.SetStderr(&stderr)
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("%s on node %s: %w: %s", args[0], node, err, lastLines(stderr.Bytes(), 5))
	}
	return stdout.Bytes(), nil
}

// RestartNodes restarts every node of the cluster, as a machine reboots:
// the node's container stops and starts again, its kubelet brings every
// pod back in a new sandbox (init containers run again over what the last
// run left in the pod's volumes), and its published ports stay as they
// were, so the kubeconfig still reaches the API server.
func (p *Provider) RestartNodes(ctx context.Context) error {
	e, err := p.engine()
	if err != nil {
		return err
	}
	ns, err := e.kind.ListNodes(p.opts.Name)
	if err != nil {
		return fmt.Errorf("listing the nodes of kind cluster %s: %w%s", p.opts.Name, err, detail(err))
	}
	for _, n := range ns {
		if out, err := exec.CommandContext(ctx, e.cli, "restart", n.String()).CombinedOutput(); err != nil {
			return fmt.Errorf("restarting node %s: %w: %s", n.String(), err, lastLines(out, 5))
		}
	}
	return nil
}
