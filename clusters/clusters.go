// Package clusters says where Kubernetes comes from. Every runtime is a
// Provider behind one small interface; the rest of the harness only sees the
// Cluster it returns (a kubeconfig and a REST config).
package clusters

import (
	"context"
	"fmt"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Cluster is a running cluster the harness can talk to.
type Cluster struct {
	Name string
	// Kubeconfig is the path of a kubeconfig file for this cluster alone.
	Kubeconfig string
	REST       *rest.Config
	// KubernetesVersion is what the API server reports (GitVersion).
	KubernetesVersion string
	// Steps are where the creation's time went, for the report.
	Steps []Step
	// Settling, when set, is what the provider still does after Create
	// returned a cluster that answers but has not settled (its nodes,
	// say): Settle waits for it, and it returns its steps.
	Settling func(ctx context.Context) ([]Step, error)
}

// Settle waits for what Create left under way, adds its steps, and says
// whether it went well. Anything that needs the whole cluster (a check, a
// pod on a node) comes after it; an install that needs only the API server
// need not wait. It is safe to call more than once.
func (c *Cluster) Settle(ctx context.Context) error {
	if c.Settling == nil {
		return nil
	}
	steps, err := c.Settling(ctx)
	c.Steps = append(c.Steps, steps...)
	c.Settling = nil
	return err
}

// Step is a part of a cluster's creation and what it took.
type Step struct {
	Name    string
	Seconds float64
}

// Provider creates, inspects and removes one cluster.
type Provider interface {
	// Name is the provider's name in the report: kwok, kind or existing.
	Name() string
	Create(ctx context.Context) (*Cluster, error)
	// ExportLogs writes the cluster's component logs under dir.
	ExportLogs(ctx context.Context, dir string) error
	// Destroy removes what Create made; it is safe to call more than once.
	Destroy(ctx context.Context) error
}

// Connect loads a kubeconfig and asks the API server its version: the proof
// that the cluster answers.
func Connect(ctx context.Context, name, kubeconfig string) (*Cluster, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig %s: %w", kubeconfig, err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", cfg.Host, err)
	}
	v, err := dc.ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("asking the API server at %s its version: %w", cfg.Host, err)
	}
	return &Cluster{Name: name, Kubeconfig: kubeconfig, REST: cfg, KubernetesVersion: v.GitVersion}, nil
}

// GOGC is the Go garbage collector's target of the programs a run starts
// for Argo CD and its cluster (Argo CD's components, the embedded control
// plane), not of a plugin's (its environment is the subject's): at Go's
// default (100) a quarter of a self-test's CPU went to their collectors,
// and memory here is plenty. It changes when memory is reclaimed, nothing
// of what they do.
const GOGC = "400"
