package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

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
	case f.argocdSource != "":
		return nil, errors.New("--argocd-source cannot be combined with --upgrade-path yet: each version of the path is obtained by its release tag")
	case f.argocdImage != "":
		return nil, errors.New("--argocd-image cannot be combined with --upgrade-path: it names one Argo CD, and each version of the path is installed from its own")
	case f.argocdBinary != "":
		return nil, errors.New("--argocd-binary cannot be combined with --upgrade-path: each version of the path is obtained by version (import a binary with 'cmp-conformance tools import argocd VERSION PATH')")
	case f.argocdVersion != "" && f.argocdVersion != path[0]:
		return nil, fmt.Errorf("--argocd-version %s contradicts --upgrade-path, which starts at %s (leave --argocd-version out)", f.argocdVersion, path[0])
	}
	f.argocdVersion = path[0]
	return path, nil
}

// checkVersions refuses, as bad usage and in a second or two, an Argo CD
// version that is not a release: before plugins are built or anything starts.
func (f *envFlags) checkVersions(path []string) error {
	versions := path
	if versions == nil && f.argocdVersion != "" {
		versions = []string{f.argocdVersion}
	}
	if len(versions) == 0 {
		return nil
	}
	tc, err := toolchain.New(f.toolchainOptions())
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, v := range versions {
		if err := tc.CheckArgoCDVersion(ctx, v); errors.Is(err, toolchain.ErrUnknownVersion) {
			return err
		}
	}
	return nil
}

func upgradePathNames() []string { return slices.Sorted(maps.Keys(toolchain.UpgradePaths())) }

// upgradeTargets obtains every version of the path (binary, sources, helm
// and kustomize), keyed by version, and lists the binaries for the report.
func upgradeTargets(ctx context.Context, cfg environment.Config, path []string) (map[string]argocd.Target, []toolchain.Binary, error) {
	targets := map[string]argocd.Target{}
	var binaries []toolchain.Binary
	// Plan every version from its source first (seconds each): a version
	// whose needs cannot be read fails before any of the path's builds.
	tc, err := toolchain.New(cfg.Toolchain)
	if err != nil {
		return nil, nil, err
	}
	for _, v := range path {
		if _, err := tc.PlanVersion(ctx, v); err != nil {
			return nil, nil, fmt.Errorf("Argo CD %s of the upgrade path: %w", v, err)
		}
	}
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
		targets[v] = argocd.Target{Version: v, Binary: set.Binaries[toolchain.ArgoCD].Path, Source: set.ArgoCDSource,
			ToolDirs: set.ToolDirs(), ImageEnv: set.ComponentEnv(), Tools: set}
		if v != path[0] {
			binaries = append(binaries, set.Binaries[toolchain.ArgoCD], set.Binaries[toolchain.Helm], set.Binaries[toolchain.Kustomize])
		}
	}
	return targets, binaries, nil
}
