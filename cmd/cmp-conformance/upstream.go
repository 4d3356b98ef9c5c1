package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/fixtures/pluginimage"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/plugins/upstream"
)

// upstreamPlan is the file `make upstream` reads: one line per plugin,
// tab-separated: name, image, certification file, level, failed checks.
const upstreamPlan = "plan.tsv"

// buildUpstream builds the corpus of Argo CD's own e2e plugins
// (plugins/upstream/corpus.yaml) for version ("" the newest this machine
// can obtain): each plugin's samples and certification and its image,
// under <output>/upstream/<name>, and the plan.
func buildUpstream(ctx context.Context, root, output, version string, opts toolchain.Options) error {
	corpus, err := upstream.Load(filepath.Join(root, "plugins", "upstream", "corpus.yaml"))
	if err != nil {
		return err
	}
	tools, err := environment.Tools(ctx, environment.Config{Runtime: environment.RuntimeEmbedded, ArgoCDVersion: version, Toolchain: opts})
	if err != nil {
		return err
	}
	bins := map[string]string{}
	for name, b := range tools.Binaries {
		bins[name] = b.Path
	}
	out, err := filepath.Abs(filepath.Join(output, "upstream"))
	if err != nil {
		return err
	}
	base, built, err := pluginimage.EnsureDebianBase(ctx, pluginimage.DebianBase{Suite: debianSuite}, filepath.Join(out, "debian"), io.Discard)
	if err != nil {
		return err
	}
	if built {
		fmt.Fprintf(os.Stderr, "upstream: made %s with debootstrap\n", base)
	}
	var plan strings.Builder
	for _, p := range corpus.Plugins {
		start := time.Now()
		dir := filepath.Join(out, p.Name)
		ctxDir, samples, err := p.Materialize(tools.ArgoCDSource, dir, bins)
		if err != nil {
			return err
		}
		img, err := pluginimage.BuildWithArgs(ctx, ctxDir, p.Tag(tools.ArgoCDVersion), map[string]string{"BASE": base}, io.Discard)
		if err != nil {
			return fmt.Errorf("upstream plugin %s: %w", p.Name, err)
		}
		fmt.Printf("%s\t%s\t%.1fs\n", img.Ref, img.ID, time.Since(start).Seconds())
		fmt.Fprintf(&plan, "%s\t%s\t%s\t%s\t%s\n", p.Name, img.Ref, samples, p.Level, strings.Join(p.Failed, ","))
	}
	return os.WriteFile(filepath.Join(out, upstreamPlan), []byte(plan.String()), 0o644)
}
