// Package kwok is the embedded cluster: a real etcd, kube-apiserver,
// kube-controller-manager and kube-scheduler run as host processes by
// kwokctl's binary runtime, with nodes and pods simulated by the kwok
// controller. No container runtime and no image is needed.
package kwok

import (
	"bytes"
	"context"
	"encoding/json"
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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/e2e-framework/support"
	e2ekwok "sigs.k8s.io/e2e-framework/support/kwok"
	"sigs.k8s.io/yaml"

	"github.com/cmp-conformance/cmp-conformance/clusters"
)

// Options name the cluster and the binaries it runs, all from the toolchain.
type Options struct {
	Name                  string
	Kwokctl               string
	KwokController        string
	KubeAPIServer         string
	KubeControllerManager string
	KubeScheduler         string
	Etcd                  string
	KubeVersion           string // of the binaries, e.g. v1.34.4
	EtcdVersion           string // e.g. v3.6.5
	// Dir holds the kubeconfig and kwokctl's configuration for this cluster.
	Dir string
	// Nodes is how many simulated nodes pods can be scheduled on (default 1).
	Nodes int
	// Wait bounds how long Create and Cluster.Settle wait for the control
	// plane to answer and become healthy.
	Wait time.Duration
	// PortBase, when set, fixes the control plane's ports (base..base+5):
	// kwokctl otherwise picks free ports itself, and clusters created at the
	// same moment (a parallel run) pick the same ones.
	PortBase int
}

// Ports are the 127.0.0.1 ports of a cluster with this PortBase, by purpose.
func Ports(base int) map[string]int {
	return map[string]int{"kube-apiserver": base, "etcd": base + 1, "etcd peer": base + 2,
		"kube-controller-manager": base + 3, "kube-scheduler": base + 4, "kwok-controller": base + 5}
}

// Provider runs the embedded cluster through e2e-framework's kwok support,
// which drives kwokctl; the binaries are passed in a kwokctl configuration so
// nothing is downloaded.
type Provider struct {
	opts Options
	e2e  support.E2EClusterProvider
	// settled is closed once what Create left under way has ended (nil
	// before Create): Destroy waits for it, so that nothing it started
	// runs on against a cluster being deleted.
	settled chan struct{}
}

// New checks the options and returns a Provider.
func New(opts Options) (*Provider, error) {
	for name, path := range map[string]string{"kwokctl": opts.Kwokctl, "kwok": opts.KwokController, "kube-apiserver": opts.KubeAPIServer,
		"kube-controller-manager": opts.KubeControllerManager, "kube-scheduler": opts.KubeScheduler, "etcd": opts.Etcd} {
		if path == "" {
			return nil, fmt.Errorf("kwok cluster: no %s binary given", name)
		}
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("kwok cluster: %s binary: %w", name, err)
		}
	}
	if opts.Nodes == 0 {
		opts.Nodes = 1
	}
	if opts.Wait == 0 {
		opts.Wait = 2 * time.Minute
	}
	// kwokctl waits only until the API server answers (--wait 0s): its own
	// wait for /healthz polls with kubectl every half second, 1.5 s on a
	// quiet machine, which Create's caller can spend installing instead.
	e2e := e2ekwok.NewProvider().WithName(opts.Name).WithOpts(e2ekwok.WithPath(opts.Kwokctl), e2ekwok.WithWaitDuration(0))
	return &Provider{opts: opts, e2e: e2e}, nil
}

// Name implements clusters.Provider.
func (p *Provider) Name() string { return "kwok" }

func (p *Provider) kubeconfig() string { return filepath.Join(p.opts.Dir, "kubeconfig") }

// config is a KwokctlConfiguration: the binary runtime, with our binaries
// and versions (kwokctl otherwise assumes its own default Kubernetes version
// and would download binaries for it), followed by the Stages (stages.go).
func (p *Provider) config() ([]byte, error) {
	options := map[string]any{
		"runtime": "binary",
		// kwokctl binds every component to 0.0.0.0 by default: etcd
		// without authentication, reachable from the host's network.
		"bindAddress":                 "127.0.0.1",
		"kubeVersion":                 p.opts.KubeVersion,
		"etcdVersion":                 p.opts.EtcdVersion,
		"kubeApiserverBinary":         p.opts.KubeAPIServer,
		"kubeControllerManagerBinary": p.opts.KubeControllerManager,
		"kubeSchedulerBinary":         p.opts.KubeScheduler,
		"etcdBinary":                  p.opts.Etcd,
		"kwokControllerBinary":        p.opts.KwokController,
	}
	if p.opts.PortBase != 0 {
		ports := Ports(p.opts.PortBase)
		options["kubeApiserverPort"] = ports["kube-apiserver"]
		options["etcdPort"] = ports["etcd"]
		options["etcdPeerPort"] = ports["etcd peer"]
		options["kubeControllerManagerPort"] = ports["kube-controller-manager"]
		options["kubeSchedulerPort"] = ports["kube-scheduler"]
		options["kwokControllerPort"] = ports["kwok-controller"]
	}
	conf, err := yaml.Marshal(map[string]any{
		"apiVersion":        "config.kwok.x-k8s.io/v1alpha1",
		"kind":              "KwokctlConfiguration",
		"options":           options,
		"componentsPatches": componentsPatches(),
	})
	if err != nil {
		return nil, err
	}
	return append(conf, stages()...), nil
}

// componentsPatches are the control plane's settings beyond kwokctl's.
// A throw-away cluster needs no durability: without fsync each write of
// the API server is not held up by the disk (etcd waits for the WAL's
// fsync before it answers), and nothing of what Argo CD does depends on
// it. Each component collects garbage at clusters.GOGC. The controller
// manager and the scheduler, one of each, elect no leader: each renewed
// its lease every 2 s (30 of the 35 writes an idle cluster's API server
// took in 30 s), and a controller manager started again after exiting
// (waitControllers) waited out its dead predecessor's lease, 15 s.
func componentsPatches() []map[string]any {
	gogc := []map[string]any{{"name": "GOGC", "value": clusters.GOGC}}
	var patches []map[string]any
	for _, c := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok-controller"} {
		p := map[string]any{"name": c, "extraEnvs": gogc}
		switch c {
		case "etcd":
			p["extraArgs"] = []map[string]any{{"key": "unsafe-no-fsync", "value": "true"}}
		case "kube-controller-manager", "kube-scheduler":
			p["extraArgs"] = []map[string]any{{"key": "leader-elect", "value": "false"}}
		}
		patches = append(patches, p)
	}
	return patches
}

// Create brings the control plane up and returns once its API server
// answers; the rest runs beside the caller's work (Cluster.Settle waits for
// it): the API server healthy, the simulated nodes added, the default
// classes the simulated controllers serve created (classes.go).
func (p *Provider) Create(ctx context.Context) (*clusters.Cluster, error) {
	if err := os.MkdirAll(p.opts.Dir, 0o755); err != nil {
		return nil, err
	}
	conf, err := p.config()
	if err != nil {
		return nil, err
	}
	confPath := filepath.Join(p.opts.Dir, "kwokctl.yaml")
	if err := os.WriteFile(confPath, conf, 0o644); err != nil {
		return nil, err
	}
	var steps []clusters.Step
	t := time.Now()
	step := func(name string) {
		steps = append(steps, clusters.Step{Name: name, Seconds: time.Since(t).Seconds()})
		t = time.Now()
	}
	// --kubeconfig keeps kwokctl away from the user's ~/.kube/config.
	kubeconfig, err := p.e2e.Create(ctx, "--config", confPath, "--kubeconfig", p.kubeconfig())
	if err != nil {
		return nil, fmt.Errorf("creating kwok cluster %s: %w", p.opts.Name, err)
	}
	step("control plane answering (kwokctl create cluster)")
	// e2e-framework writes the kubeconfig to a temp file; keep ours, beside the
	// other run files, and drop the temp one.
	data, err := os.ReadFile(kubeconfig)
	if err != nil {
		return nil, err
	}
	os.Remove(kubeconfig)
	if err := os.WriteFile(p.kubeconfig(), data, 0o600); err != nil {
		return nil, err
	}
	c, err := clusters.Connect(ctx, p.opts.Name, p.kubeconfig())
	if err != nil {
		return nil, err
	}
	step("connected")
	c.Steps = steps
	c.Settling = p.settle(ctx, c)
	return c, nil
}

// settle starts, side by side, what the cluster needs beyond an API server
// that answers, and returns the wait for it (Cluster.Settling).
func (p *Provider) settle(ctx context.Context, c *clusters.Cluster) func(context.Context) ([]clusters.Step, error) {
	done := make(chan struct{})
	p.settled = done
	cfg := rest.CopyConfig(c.REST) // the caller may tune its own meanwhile
	var (
		mu    sync.Mutex
		steps []clusters.Step
		errs  []error
	)
	var wg sync.WaitGroup
	part := func(name string, f func() error) {
		wg.Go(func() {
			t := time.Now()
			err := f()
			mu.Lock()
			defer mu.Unlock()
			steps = append(steps, clusters.Step{Name: name + " (beside the install)", Seconds: time.Since(t).Seconds()})
			errs = append(errs, err)
		})
	}
	part("API server healthy", func() error { return waitHealthy(ctx, cfg, p.opts.Wait) })
	var restarted []string
	part("controllers running", func() (err error) {
		restarted, err = p.waitControllers(ctx, cfg)
		return err
	})
	part("simulated nodes added", func() error {
		if err := p.kwokctl(ctx, "scale", "node", "--replicas", strconv.Itoa(p.opts.Nodes)); err != nil {
			return fmt.Errorf("adding %d simulated nodes: %w", p.opts.Nodes, err)
		}
		return nil
	})
	part("default classes created", func() error {
		if err := CreateClasses(ctx, cfg); err != nil {
			return fmt.Errorf("kwok cluster %s: %w", p.opts.Name, err)
		}
		return nil
	})
	go func() {
		wg.Wait()
		close(done)
	}()
	return func(wctx context.Context) ([]clusters.Step, error) {
		select {
		case <-done:
		case <-wctx.Done():
			return nil, wctx.Err()
		}
		if len(restarted) > 0 {
			steps = append(steps, clusters.Step{Name: "started again after exiting: " + strings.Join(restarted, ", ")})
		}
		slices.SortFunc(steps, func(a, b clusters.Step) int { return strings.Compare(a.Name, b.Name) })
		return steps, errors.Join(errs...)
	}
}

// waitControllers waits until kube-controller-manager runs its controllers:
// the default ServiceAccount of namespace default exists, which its
// serviceaccount controller makes. kube-controller-manager exits when the
// API server is not healthy within 10 s of its taking the lead (seen under
// load, the rbac/bootstrap-roles hook still running), and kwokctl does not
// start it again: a cluster without its job and deployment controllers,
// whose Jobs and Deployments never progress, would fail checks for a
// reason of the harness's. So while they have not come, every few seconds
// `kwokctl start cluster` starts whichever component is not running (it
// leaves the others alone); it returns the components it started again.
func (p *Provider) waitControllers(ctx context.Context, cfg *rest.Config) ([]string, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	var restarted []string
	tried := time.Now()
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, p.opts.Wait, true, func(ctx context.Context) (bool, error) {
		if _, err := cs.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{}); err == nil {
			return true, nil
		}
		if time.Since(tried) < restartEvery {
			return false, nil
		}
		tried = time.Now()
		out, err := p.kwokctlOutput(ctx, "start", "cluster", "-v=debug")
		if err != nil {
			return false, err
		}
		restarted = append(restarted, startedComponents(out)...)
		return false, nil
	})
	if err != nil {
		return restarted, fmt.Errorf("kube-controller-manager did not run its controllers within %s (no default ServiceAccount): %w", p.opts.Wait, err)
	}
	return restarted, nil
}

// restartEvery is how long the controllers may take to come before a
// component that exited is looked for: they come in 2 to 4 s here; one
// that is slower only costs a kwokctl run that starts nothing.
const restartEvery = 5 * time.Second

// startedComponents names the components kwokctl's debug log says it
// started ("Starting component").
func startedComponents(log []byte) []string {
	var out []string
	for _, line := range bytes.Split(log, []byte("\n")) {
		var entry struct {
			Msg       string `json:"msg"`
			Component string `json:"component"`
		}
		if json.Unmarshal(line, &entry) == nil && entry.Msg == "Starting component" && entry.Component != "" {
			out = append(out, entry.Component)
		}
	}
	return out
}

// waitHealthy waits up to d for the API server's /healthz to say ok (its
// post-start hooks done), as kwokctl's own wait did, at a tenth of its
// interval and without a kubectl process per look.
func waitHealthy(ctx context.Context, cfg *rest.Config, d time.Duration) error {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	var last error
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, d, true, func(ctx context.Context) (bool, error) {
		body, err := dc.RESTClient().Get().AbsPath("/healthz").DoRaw(ctx)
		if err != nil {
			last = fmt.Errorf("%w: %s", err, body)
			return false, nil
		}
		return string(body) == "ok", nil
	})
	if err != nil {
		return fmt.Errorf("the API server at %s did not become healthy within %s: %w", cfg.Host, d, errors.Join(err, last))
	}
	return nil
}

func (p *Provider) kwokctl(ctx context.Context, args ...string) error {
	_, err := p.kwokctlOutput(ctx, args...)
	return err
}

func (p *Provider) kwokctlOutput(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, p.opts.Kwokctl, append([]string{"--name", p.opts.Name}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("kwokctl %v: %w: %s", args, err, out.String())
	}
	return out.Bytes(), nil
}

// ExportLogs writes etcd, kube-* and kwok-controller logs under dir.
func (p *Provider) ExportLogs(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return p.e2e.ExportLogs(ctx, dir)
}

// Destroy stops the control plane processes and removes the cluster's files.
// When kwokctl cannot list clusters it still tries to delete: a silent skip
// would leak the control plane.
func (p *Provider) Destroy(ctx context.Context) error {
	if p.settled != nil {
		<-p.settled // bounded: its parts end with Create's context or p.opts.Wait
	}
	if exists, err := p.Exists(ctx); err == nil && !exists {
		return nil
	}
	return p.e2e.Destroy(ctx)
}

// Exists says whether kwokctl knows the cluster.
func (p *Provider) Exists(ctx context.Context) (bool, error) {
	out, err := exec.CommandContext(ctx, p.opts.Kwokctl, "get", "clusters").Output()
	if err != nil {
		return false, fmt.Errorf("kwokctl get clusters: %w", err)
	}
	for _, line := range bytes.Split(out, []byte("\n")) {
		if string(bytes.TrimSpace(line)) == p.opts.Name {
			return true, nil
		}
	}
	return false, nil
}
