package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
)

// upgrade reads --upgrade-path: nil for a catalogue run, else the path,
// with the run's Argo CD version set to its first version.
func (f *runFlags) upgrade() ([]string, error) {
	if f.upgradePath == "" {
		return nil, nil
	}
	path, err := toolchain.ParseUpgradePath(f.upgradePath)
	if err != nil {
		return nil, err
	}
	switch {
	case f.argocdBinary != "":
		return nil, errors.New("--argocd-binary cannot be combined with --upgrade-path: each version of the path is obtained by version (import a binary with 'cmp-conformance tools import argocd VERSION PATH')")
	case f.argocdVersion != "" && f.argocdVersion != path[0]:
		return nil, fmt.Errorf("--argocd-version %s contradicts --upgrade-path, which starts at %s (leave --argocd-version out)", f.argocdVersion, path[0])
	case f.runtime != environment.RuntimeEmbedded:
		return nil, fmt.Errorf("--upgrade-path needs --runtime embedded: the %s runtime cannot switch Argo CD versions yet", f.runtime)
	}
	f.argocdVersion = path[0]
	return path, nil
}

func upgradePathNames() []string { return slices.Sorted(maps.Keys(toolchain.UpgradePaths())) }

// upgradeTargets obtains every version of the path (binary, sources, helm
// and kustomize), keyed by version, and lists the binaries for the report.
func upgradeTargets(ctx context.Context, cfg environment.Config, path []string) (map[string]argocd.Target, []toolchain.Binary, error) {
	targets := map[string]argocd.Target{}
	var binaries []toolchain.Binary
	for _, v := range path {
		if _, ok := targets[v]; ok {
			continue
		}
		c := cfg
		c.ArgoCDVersion = v
		set, err := environment.Tools(ctx, c)
		if err != nil {
			return nil, nil, fmt.Errorf("obtaining Argo CD %s for the upgrade path: %w", v, err)
		}
		var dirs []string
		for _, t := range []string{toolchain.Helm, toolchain.Kustomize} {
			dirs = append(dirs, filepath.Dir(set.Binaries[t].Path))
		}
		targets[v] = argocd.Target{Version: v, Binary: set.Binaries[toolchain.ArgoCD].Path, Source: set.ArgoCDSource, ToolDirs: dirs}
		if v != path[0] {
			binaries = append(binaries, set.Binaries[toolchain.ArgoCD], set.Binaries[toolchain.Helm], set.Binaries[toolchain.Kustomize])
		}
	}
	return targets, binaries, nil
}
