package kind

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	"sigs.k8s.io/kind/pkg/cluster"
	"sigs.k8s.io/yaml"
)

// What the cluster's nodes reach beyond themselves: their Docker network,
// and the registry mirrors of their containerd.

// config is Options.Config with the mirrors added as containerd patches.
func (p *Provider) config() (*v1alpha4.Cluster, error) {
	cfg := &v1alpha4.Cluster{}
	if len(p.opts.Config) > 0 {
		if err := yaml.UnmarshalStrict(p.opts.Config, cfg); err != nil {
			return nil, fmt.Errorf("kind cluster %s: its configuration does not parse as kind's v1alpha4 Cluster: %w", p.opts.Name, err)
		}
	}
	cfg.Kind, cfg.APIVersion = "Cluster", "kind.x-k8s.io/v1alpha4"
	if patch := MirrorPatch(p.opts.Mirrors); patch != "" {
		cfg.ContainerdConfigPatches = append(cfg.ContainerdConfigPatches, patch)
	}
	return cfg, nil
}

// MirrorPatch is containerd's configuration (version 2, which kind's nodes
// use) sending each registry host's pulls to its endpoint.
func MirrorPatch(mirrors map[string]string) string {
	var b strings.Builder
	for _, host := range slices.Sorted(maps.Keys(mirrors)) {
		fmt.Fprintf(&b, "[plugins.\"io.containerd.grpc.v1.cri\".registry.mirrors.%q]\n  endpoint = [%q]\n", host, mirrors[host])
	}
	return b.String()
}

// networkEnv serialises the process-wide setting kind reads the network from.
var networkEnv sync.Mutex

const networkVariable = "KIND_EXPERIMENTAL_DOCKER_NETWORK"

// createOn runs create with kind's network variable set to Options.Network.
func (p *Provider) createOn(ctx context.Context, kp *cluster.Provider, opts []cluster.CreateOption) error {
	if p.opts.Network == "" {
		return p.create(ctx, kp, opts)
	}
	networkEnv.Lock()
	defer networkEnv.Unlock()
	old, had := os.LookupEnv(networkVariable)
	os.Setenv(networkVariable, p.opts.Network)
	defer func() {
		if had {
			os.Setenv(networkVariable, old)
		} else {
			os.Unsetenv(networkVariable)
		}
	}()
	return p.create(ctx, kp, opts)
}

// removeNetwork removes a network of the cluster's own; one already gone
// is no error.
func (e *engine) removeNetwork(ctx context.Context, name string) error {
	cctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	out, err := exec.CommandContext(cctx, e.cli, "network", "rm", name).CombinedOutput()
	if err != nil && !strings.Contains(strings.ToLower(string(out)), "not found") {
		return fmt.Errorf("removing the cluster's network %s: %w: %s (a container still on it? '%s network inspect %s' says)", name, err, lastLines(out, 2), e.cli, name)
	}
	return nil
}
