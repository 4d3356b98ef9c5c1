package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/fixtures/pluginimage"
	"github.com/cmp-conformance/cmp-conformance/plugins"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

// pluginImages parses --plugin-image ROLE=REF.
func (f *envFlags) pluginImages() (map[string]string, error) {
	out := map[string]string{}
	for _, p := range f.images {
		role, ref, ok := strings.Cut(p, "=")
		if !ok || role == "" || ref == "" {
			return nil, fmt.Errorf("--plugin-image %q: want ROLE=IMAGE, e.g. parameterized=my-plugin:1.0", p)
		}
		if _, ok := plugins.Reference()[conformance.Role(role)]; !ok {
			return nil, fmt.Errorf("--plugin-image %s=...: unknown role %q (roles: %s)", role, role, plugins.RoleList())
		}
		if role == string(conformance.RoleService) && !environment.InCluster(f.runtime) {
			return nil, fmt.Errorf("--plugin-image %s=...: the %s role serves a plugin over the network, which runs from an image in a cluster only (a Deployment and a Service, on kind or existing); on the %s runtime it runs as processes of this host: drop the flag, or use --runtime kind", role, role, f.runtime)
		}
		if _, dup := out[role]; dup {
			return nil, fmt.Errorf("--plugin-image: role %s given twice", role)
		}
		out[role] = ref
	}
	return out, nil
}

// validateImages answers, in milliseconds and before anything is built,
// whether Docker answers and every image is on this machine (nothing is
// ever pulled), and refuses a role given both as a folder and an image.
func (f *envFlags) validateImages() error {
	images, err := f.pluginImages()
	if err != nil || len(images) == 0 {
		return err
	}
	dirs, err := f.pluginOverrides()
	if err != nil {
		return err
	}
	for role := range images {
		if _, both := dirs[role]; both {
			return fmt.Errorf("role %s is given both with --plugin and --plugin-image: choose one", role)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := pluginimage.Ping(ctx); err != nil {
		return err
	}
	for _, role := range slices.Sorted(maps.Keys(images)) {
		if _, err := pluginimage.Inspect(ctx, images[role]); err != nil {
			return fmt.Errorf("--plugin-image %s: %w", role, err)
		}
	}
	return nil
}
