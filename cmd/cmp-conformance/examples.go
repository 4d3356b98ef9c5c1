package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/pluginimage"
	"github.com/cmp-conformance/cmp-conformance/plugins"
)

// exampleImageTag is the tag `images build --examples` gives examples/<folder>.
func exampleImageTag(folder string) string { return "cmp-conformance/example-" + folder + ":dev" }

// exampleImage is examples/<folder>/image.yaml: what its image is built on.
type exampleImage struct {
	// DebianPackages make the Dockerfile's ARG BASE a Debian root filesystem
	// with these packages, made here with debootstrap.
	DebianPackages []string `json:"debianPackages"`
}

// debianSuite is the Debian release example bases are made from: the one
// this machine's mirror serves.
const debianSuite = pluginimage.DebianSuite

// buildExamples builds the images of examples/<folder> (all, or those named).
func buildExamples(root, output string, named []string) error {
	folders := named
	if len(folders) == 0 {
		files, _ := filepath.Glob(filepath.Join(root, "examples", "*", "Dockerfile"))
		for _, f := range files {
			folders = append(folders, filepath.Base(filepath.Dir(f)))
		}
		sort.Strings(folders)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := pluginimage.Ping(ctx); err != nil {
		return err
	}
	out, err := filepath.Abs(output)
	if err != nil {
		return err
	}
	bin := filepath.Join(out, "bin")
	if err := plugins.BuildPrograms(ctx, root, bin); err != nil {
		return failed(err)
	}
	for _, folder := range folders {
		dir := filepath.Join(root, "examples", folder)
		if _, err := os.Stat(filepath.Join(dir, "Dockerfile")); err != nil {
			return fmt.Errorf("examples/%s has no Dockerfile", folder)
		}
		start := time.Now()
		img, err := buildExampleImage(ctx, dir, bin, filepath.Join(out, "debian"), exampleImageTag(folder))
		if err != nil {
			return failed(err)
		}
		fmt.Printf("%s\t%s\t%.1fs\n", img.Ref, img.ID, time.Since(start).Seconds())
	}
	return nil
}

// buildExampleImage builds dir's Dockerfile as an author would, from a
// context of the folder's own files (not its samples) and the programs its
// plugin.yaml runs that this project builds (taken from bin).
func buildExampleImage(ctx context.Context, dir, bin, work, tag string) (pluginimage.Image, error) {
	args := map[string]string{}
	var spec exampleImage
	if data, err := os.ReadFile(filepath.Join(dir, "image.yaml")); err == nil {
		if err := yaml.UnmarshalStrict(data, &spec); err != nil {
			return pluginimage.Image{}, fmt.Errorf("%s/image.yaml: %w", dir, err)
		}
	}
	if len(spec.DebianPackages) > 0 {
		base := pluginimage.DebianBase{Suite: debianSuite, Packages: spec.DebianPackages}
		fmt.Fprintf(os.Stderr, "images: %s needs %s (Debian %s with %v)\n", tag, base.Tag(), debianSuite, spec.DebianPackages)
		start := time.Now()
		ref, built, err := pluginimage.EnsureDebianBase(ctx, base, work, io.Discard)
		if err != nil {
			return pluginimage.Image{}, err
		}
		if built {
			fmt.Fprintf(os.Stderr, "images: made %s with debootstrap in %.0fs\n", ref, time.Since(start).Seconds())
		}
		args["BASE"] = ref
	}
	p, err := argocd.LoadPlugin(dir)
	if err != nil {
		return pluginimage.Image{}, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return pluginimage.Image{}, err
	}
	files := map[string]string{}
	for _, e := range entries {
		if e.Type().IsRegular() {
			files[e.Name()] = filepath.Join(dir, e.Name())
		}
	}
	for _, prog := range p.Programs {
		if _, err := os.Stat(filepath.Join(bin, prog)); err == nil {
			files[prog] = filepath.Join(bin, prog)
		}
	}
	tmp, err := plugins.Stage(files)
	if err != nil {
		return pluginimage.Image{}, fmt.Errorf("image %s: %w", tag, err)
	}
	defer os.RemoveAll(tmp)
	return pluginimage.BuildWithArgs(ctx, tmp, tag, args, io.Discard)
}
