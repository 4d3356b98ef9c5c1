// Package existing is the Provider for a cluster someone else runs: it is
// reached through a kubeconfig, and never created or destroyed here.
package existing

import (
	"context"

	"github.com/cmp-conformance/cmp-conformance/clusters"
)

// Provider uses the cluster a kubeconfig points at.
type Provider struct{ Kubeconfig string }

// Name implements clusters.Provider.
func (p *Provider) Name() string { return "existing" }

// Create connects; it creates nothing.
func (p *Provider) Create(ctx context.Context) (*clusters.Cluster, error) {
	return clusters.Connect(ctx, "existing", p.Kubeconfig)
}

// ExportLogs has nothing to export: the cluster's logs are its owner's.
func (p *Provider) ExportLogs(context.Context, string) error { return nil }

// Destroy leaves the cluster alone.
func (p *Provider) Destroy(context.Context) error { return nil }
